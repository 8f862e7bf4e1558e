"""Seers Catalog rules in plain Python, read top to bottom: the cards (``cards``), melds
(``melds``), the state, the action ids (``actions``), the legal build steps (``moves``),
injected deals (``deal``), what a seer cannot see (``hidden``), the game, and its text
(``text``)."""

from card_envs.seers_catalog.rules.cards import card_name, parse_cards
from card_envs.seers_catalog.rules.game import SeersCatalogGame, round_score
from card_envs.seers_catalog.rules.state import SeersCatalogState

__all__ = ["SeersCatalogGame", "SeersCatalogState", "card_name", "parse_cards", "round_score"]
