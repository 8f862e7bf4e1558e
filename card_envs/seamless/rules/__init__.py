"""Seamless rules in plain Python (no Gymnasium, no PettingZoo): cards, row scoring, the
state, the action ids, injected deals (``deal``), what a seat knows of the other hands
(``hidden``), the game and its text."""

from card_envs.seamless.rules.actions import ACTIONS, action_name
from card_envs.seamless.rules.game import SeamlessGame
from card_envs.seamless.rules.scoring import RowScore, score_row
from card_envs.seamless.rules.state import CLAIM, PLAY, SeamlessState

__all__ = [
    "ACTIONS",
    "CLAIM",
    "PLAY",
    "RowScore",
    "SeamlessGame",
    "SeamlessState",
    "action_name",
    "score_row",
]
