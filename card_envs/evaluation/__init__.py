"""Benchmarking agents: a versioned evaluation protocol (``eval-v1``), luck-adjusted estimates
(AIVAT over the games' chance events and the known policies' decisions), scorecards
(``card-envs.scorecard/1``) and a leaderboard. The commands are ``card-envs evaluate`` and
``card-envs leaderboard``; how it all works and what it achieves: ``docs/evaluation.md``."""

from __future__ import annotations

from card_envs.evaluation.luck import PARTS, Luck, game_luck, known_policy
from card_envs.evaluation.protocol import Protocol, load_protocol
from card_envs.evaluation.run import Evaluation, LuckSettings, Side, evaluate
from card_envs.evaluation.streams import StreamedChance, deal_streamed
from card_envs.evaluation.values import Network, Rollout, Standing, ValueEstimate, make_value

__all__ = [
    "PARTS",
    "Evaluation",
    "Luck",
    "LuckSettings",
    "Network",
    "Protocol",
    "Rollout",
    "Side",
    "Standing",
    "StreamedChance",
    "ValueEstimate",
    "deal_streamed",
    "evaluate",
    "game_luck",
    "known_policy",
    "load_protocol",
    "make_value",
]
