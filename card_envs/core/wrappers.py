"""Opt-in wrappers for training."""

from __future__ import annotations

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import TerminateIllegalWrapper


def illegal_action_penalty(env: AECEnv, penalty: float = -1.0) -> AECEnv:
    """End the game with ``penalty`` for the offender (0 for the others) on an illegal action,
    instead of raising. Uses PettingZoo's own ``TerminateIllegalWrapper``; the action must
    still be an in-range integer."""
    return TerminateIllegalWrapper(env, illegal_reward=penalty)
