"""Seers Catalog rules in plain Python: cards, melds, the action table and the game."""

from card_envs.seers_catalog.rules.cards import card_name, parse_cards
from card_envs.seers_catalog.rules.game import SeersCatalogGame, SeersState, round_score

__all__ = ["SeersCatalogGame", "SeersState", "card_name", "parse_cards", "round_score"]
