"""The Catastrophic Card Game as a PettingZoo AEC environment: rules and encoding on the base."""

from __future__ import annotations

from typing import Any, ClassVar

from card_envs.core.env import CardEnv
from card_envs.unfortunate_events.encoding import UnfortunateEventsEncoding
from card_envs.unfortunate_events.rules import UnfortunateEventsGame


class raw_env(CardEnv):
    """A Series of Unfortunate Events: The Catastrophic Card Game, 2-6 players (default 4).
    Options: ``turn_cap`` (300 turns a round, then truncation), ``max_rounds`` (20, then
    truncation), ``game_end`` (``"majority_or_empty"`` or ``"centre_empty"``),
    ``snicket_prompt`` (``"holder"`` or ``"always"``), ``reward_mode``, ``render_mode``.

    Rewards: ``"win"`` gives each seat -1..1 once the game ends (``reward_range``); ``"score"``
    gives the change in a seat's Victory cards, -1..1 (``score_reward_range``): +1 to the round
    winner who takes one, -1 to a seat it is stolen from."""

    game_class = UnfortunateEventsGame
    encoding_class = UnfortunateEventsEncoding
    metadata: ClassVar[dict[str, Any]] = {
        **CardEnv.metadata,
        "name": "unfortunate_events_v0",
        "version": 0,
        "reward_range": (-1.0, 1.0),
        "score_reward_range": (-1.0, 1.0),
    }


def env(**options: Any) -> raw_env:
    """The environment. It needs no PettingZoo wrappers: the base enforces order and checks
    every action (type, range, legality) with clear errors."""
    return raw_env(**options)
