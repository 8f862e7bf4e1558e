"""Seals rules in plain Python (no Gymnasium, no PettingZoo): cards, series, the state, the
action ids, injected deals (``deal``), what a seat cannot see (``hidden``), the game and its
text."""

from card_envs.seals.rules.actions import ACTIONS, action_name
from card_envs.seals.rules.cards import card_name, parse_cards
from card_envs.seals.rules.game import SealsGame
from card_envs.seals.rules.series import series_name
from card_envs.seals.rules.state import REVEAL, TAKE, SealsState

__all__ = [
    "ACTIONS",
    "REVEAL",
    "TAKE",
    "SealsGame",
    "SealsState",
    "action_name",
    "card_name",
    "parse_cards",
    "series_name",
]
