"""A Stable-Baselines3 ``VecEnv`` over ``SingleAgentVectorEnv``,
for sb3-contrib's ``MaskablePPO``, which reads the masks through
``env_method("action_masks")``. Imports Stable-Baselines3 (the ``train`` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from card_envs.core.extras import require
from card_envs.vector.single import SingleAgentVectorEnv

with require("train"):
    from stable_baselines3.common.vec_env import VecEnv
    from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

MASKS = "action_masks"  # the method sb3-contrib calls on every env for its masks


class SB3VecEnv(VecEnv):
    """SB3's conventions over the vector env: observations copied out of its buffers (SB3
    keeps the previous batch), ``dones`` = terminated or truncated, and for a finished table
    ``infos[i]["terminal_observation"]`` and ``"TimeLimit.truncated"``. ``seed(s)`` before
    ``reset()`` deals table ``i`` from ``s + i``, SB3's own rule."""

    def __init__(self, venv: SingleAgentVectorEnv):
        if not isinstance(venv, SingleAgentVectorEnv):
            raise TypeError(
                "to_sb3 wraps card_envs.vector.single_agent(...), got " + type(venv).__name__
            )
        self.venv = venv  # before VecEnv's constructor, which reads its render_mode
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds else None
        observations, _ = self.venv.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        return observations.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        observations, rewards, terminated, truncated, info = self.venv.step(self._actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i]["terminal_observation"] = info["final_obs"][i].copy()
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return observations.copy(), rewards.copy(), dones, infos

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The vector env's attribute, once per table asked for."""
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """``action_masks``: each table's mask row. The vector env's other methods act on every
        table at once, so they have no per-table form here."""
        if method_name != MASKS:
            raise AttributeError(f"the vector env has no per-table method {method_name!r}")
        masks = self.venv.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]
