"""Catastrophic Card Game rules, read top to bottom: the cards and sets (``cards``), the state,
the action ids (``actions``), injected deals (``deal``), what a seat cannot see (``hidden``),
the game, and its text (``text``)."""

from card_envs.unfortunate_events.rules.actions import action_name
from card_envs.unfortunate_events.rules.cards import SETS, SetType, parse_kind, parse_kinds
from card_envs.unfortunate_events.rules.game import UnfortunateEventsGame
from card_envs.unfortunate_events.rules.state import UnfortunateEventsState

__all__ = [
    "SETS",
    "SetType",
    "UnfortunateEventsGame",
    "UnfortunateEventsState",
    "action_name",
    "parse_kind",
    "parse_kinds",
]
