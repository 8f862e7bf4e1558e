"""Seals rules in plain Python: cards, series, and the game itself."""

from card_envs.seals.rules.cards import card_name, parse_cards
from card_envs.seals.rules.game import SealsGame, SealsState, action_name
from card_envs.seals.rules.series import series_name

__all__ = ["SealsGame", "SealsState", "action_name", "card_name", "parse_cards", "series_name"]
