"""Sequitur's rules in plain Python (no Gymnasium, no PettingZoo): the game and its state, and
what the encoding and the agents read."""

from card_envs.sequitur.rules.game import SequiturGame
from card_envs.sequitur.rules.state import SequiturState

__all__ = ["SequiturGame", "SequiturState"]
