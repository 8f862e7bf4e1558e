"""Seals as a PettingZoo AEC environment: the rules and encoding on the shared base."""

from __future__ import annotations

from typing import Any, ClassVar

from card_envs.core.env import CardEnv
from card_envs.seals.encoding import SealsEncoding
from card_envs.seals.rules import SealsGame
from card_envs.seals.rules.game import MAX_GAIN


class raw_env(CardEnv):
    """Seals, 2-4 players (default 4). Options: ``minor_major_series``
    (``"four_of_a_kind"`` or ``"any_four"``), ``empty_pile`` (``"play_out"`` or
    ``"end_round"``), ``remember_takes`` (False), ``skip_forced_stop`` (False),
    ``tie_rounds`` (3), ``reward_mode`` (``"win"`` or ``"score"``), ``render_mode``
    (``"ansi"``/``"human"``).

    Rewards: ``"win"`` gives each seat -1..1 once the game ends (``reward_range``); ``"score"``
    gives the blasons a seat wins with a reveal, 0..29 (``score_reward_range``)."""

    game_class = SealsGame
    encoding_class = SealsEncoding
    metadata: ClassVar[dict[str, Any]] = {
        **CardEnv.metadata,
        "name": "seals_v0",
        "version": 0,
        "reward_range": (-1.0, 1.0),
        "score_reward_range": (0.0, float(MAX_GAIN)),
    }


def env(**options: Any) -> raw_env:
    """The environment. It needs no PettingZoo wrappers: the base enforces order and checks
    every action (type, range, legality) with clear errors."""
    return raw_env(**options)
