"""Catastrophic Card Game rules, read top to bottom: the deck and sets, the state, the game."""

from card_envs.unfortunate_events.rules.deck import SETS, SetType, parse_kind, parse_kinds
from card_envs.unfortunate_events.rules.game import UnfortunateEventsGame, action_name
from card_envs.unfortunate_events.rules.state import UEState

__all__ = [
    "SETS",
    "SetType",
    "UEState",
    "UnfortunateEventsGame",
    "action_name",
    "parse_kind",
    "parse_kinds",
]
