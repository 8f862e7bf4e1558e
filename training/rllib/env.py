"""A card env as an RLlib multi-agent env, with every illegal action counted.

RLlib's own ``PettingZooEnv`` drives the AEC env turn by turn: each step returns only the agent
to act next, and at the end of a game every seat's final reward. Observations stay PettingZoo's
``{"observation": float32, "action_mask": int8}`` dicts, which
:class:`~card_envs.agents.rllib_module.MaskedPPOTorchRLModule` reads as they are. Only
:func:`make_rllib_env` and :func:`register` import Ray.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import TerminateIllegalWrapper

from card_envs import make
from card_envs.core.extras import require

ENV_NAME = "card_envs"  # the name registered with Ray: config.environment(ENV_NAME, ...)
ILLEGAL_ACTIONS = "illegal_actions"  # the results key (under "env_runners"): a lifetime sum


class IllegalActionCounter(TerminateIllegalWrapper):
    """Counts illegal actions; one ends the game with ``penalty`` for its player (PettingZoo's
    ``TerminateIllegalWrapper``) instead of raising, so a training run reports the count rather
    than dying. The masking module keeps it at 0."""

    def __init__(self, env: AECEnv, penalty: float = -1.0):
        super().__init__(env, illegal_reward=penalty)
        self.illegal_actions = 0

    def step(self, action: Any) -> None:
        ended_before = self._terminated
        super().step(action)
        if self._terminated and not ended_before:
            self.illegal_actions += 1

    def take_count(self) -> int:
        """The illegal actions since the last call (one call per finished game)."""
        count, self.illegal_actions = self.illegal_actions, 0
        return count


def make_aec_env(config: Mapping[str, Any]) -> IllegalActionCounter:
    """The counted AEC env for RLlib's ``env_config``: ``{"game": name, "num_players": n}``."""
    return IllegalActionCounter(make(config["game"], num_players=config.get("num_players")))


def make_rllib_env(config: Mapping[str, Any]):
    """The env creator registered with Ray: RLlib's ``PettingZooEnv`` over :func:`make_aec_env`."""
    with require("rllib"):
        from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(make_aec_env(config))


def register() -> None:
    """Register :data:`ENV_NAME` with Ray (needed before building or restoring an algorithm)."""
    with require("rllib"):
        from ray.tune.registry import register_env

    register_env(ENV_NAME, make_rllib_env)


def count_illegal_actions(*, env: Any, env_index: int, metrics_logger: Any, **_: Any) -> None:
    """RLlib's ``on_episode_end`` callback: adds the finished game's illegal actions to the
    results, so the count reaches the driver from every env runner."""
    counter = env.envs[env_index].unwrapped.env
    metrics_logger.log_value(ILLEGAL_ACTIONS, counter.take_count(), reduce="lifetime_sum")
