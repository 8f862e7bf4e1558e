"""Leduc rules in plain Python (no Gymnasium, no PettingZoo): cards, the state, the action
ids, the deal checks, the hidden-card redraws, the game and its text."""

from leduc.rules.actions import ACTIONS, CALL, FOLD, RAISE
from leduc.rules.cards import DECK_SIZE, NO_CARD, card_name, hand_strength, parse_card
from leduc.rules.game import LeducGame
from leduc.rules.state import NO_SEAT, LeducState

__all__ = [
    "ACTIONS",
    "CALL",
    "DECK_SIZE",
    "FOLD",
    "NO_CARD",
    "NO_SEAT",
    "RAISE",
    "LeducGame",
    "LeducState",
    "card_name",
    "hand_strength",
    "parse_card",
]
