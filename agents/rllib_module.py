"""PPO's default torch RLModule over PettingZoo's ``{"observation", "action_mask"}`` dicts.

The network (RLlib's default actor-critic MLP, built by ``PPOCatalog``) sees only the
observation vector; every masked action's logit is set to the lowest float, so sampling,
greedy play and the PPO loss never give it weight. RLlib's own example module reads the key
``"observations"`` and extends a base class marked for removal, hence this one. It lives with
the agents because loading an RLlib export rebuilds it; ``card_envs.training.rllib`` trains
it. Importing it imports Ray.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from card_envs.core.extras import require

with require("rllib"):
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.torch_utils import FLOAT_MIN

OBSERVATION, MASK = "observation", "action_mask"
KEYS = (OBSERVATION, MASK)


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every action whose mask bit is 0 at the lowest float (finite, so a row
    with no legal action, a finished seat's last observation, still gives a distribution)."""
    return torch.where(mask.bool(), logits, FLOAT_MIN)


def split_batch(batch: dict[str, Any]) -> tuple[torch.Tensor, dict[str, Any]]:
    """The mask, and a shallow copy of ``batch`` whose observations are the vectors alone."""
    observations = batch[Columns.OBS]
    return observations[MASK], {**batch, Columns.OBS: observations[OBSERVATION]}


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's default module built for the observation vector, masking the action logits."""

    def __init__(self, *, observation_space: gym.spaces.Dict, **kwargs: Any):
        # The catalog builds the encoder from the space it is given: the vector's Box. The Dict
        # is put back afterwards so a checkpoint rebuilds the module from the env's own space.
        super().__init__(observation_space=observation_space[OBSERVATION], **kwargs)
        self.observation_space = observation_space

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = split_batch(batch)
        return self._masked(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = split_batch(batch)
        return self._masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return super().compute_values(split_batch(batch)[1], embeddings)

    def greedy_action(self, observation: dict[str, np.ndarray]) -> int:
        """The legal action with the highest logit for one PettingZoo observation; needs no
        running Ray, so the arena can play a loaded module."""
        batch = {Columns.OBS: {key: torch.as_tensor(observation[key])[None] for key in KEYS}}
        with torch.inference_mode():
            logits = self.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return int(logits[0].argmax())

    @staticmethod
    def _masked(output: dict[str, Any], mask: torch.Tensor) -> dict[str, Any]:
        output[Columns.ACTION_DIST_INPUTS] = mask_logits(output[Columns.ACTION_DIST_INPUTS], mask)
        return output
