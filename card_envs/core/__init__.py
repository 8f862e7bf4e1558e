"""Shared core: card codes, layout specs, the game contract and the generic AEC environment."""

from card_envs.core.env import CardEnv, EnvInfo
from card_envs.core.errors import IllegalActionError
from card_envs.core.game import Encoding, Game, check_int_option, check_option, win_rewards
from card_envs.core.spec import ActionBlock, ActionSpec, ObsSpec, Piece

__all__ = [
    "ActionBlock",
    "ActionSpec",
    "CardEnv",
    "Encoding",
    "EnvInfo",
    "Game",
    "IllegalActionError",
    "ObsSpec",
    "Piece",
    "check_int_option",
    "check_option",
    "win_rewards",
]
