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
    ``snicket_prompt`` (``"holder"`` or ``"always"``), ``reward_mode``, ``render_mode``."""

    game_class = UnfortunateEventsGame
    encoding_class = UnfortunateEventsEncoding
    metadata: ClassVar[dict[str, Any]] = {**CardEnv.metadata, "name": "unfortunate_events_v0"}


def env(**options: Any) -> raw_env:
    """The environment. It needs no PettingZoo wrappers: the base enforces order and checks
    every action (type, range, legality) with clear errors."""
    return raw_env(**options)
