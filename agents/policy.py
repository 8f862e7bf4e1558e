"""Trained agents: a MaskablePPO policy behind the common [`Agent`][card_envs.agents.base.Agent]
interface, loaded from a checkpoint ([`card_envs.agents.checkpoint`][] owns the format)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from card_envs.agents.base import Agent
from card_envs.agents.builtin import builtin_kinds, make_builtin
from card_envs.agents.checkpoint import (
    SAFE_SUFFIX,
    advisor_of,
    check_checkpoint_path,
    load_checked_sb3_zip,
    load_policy,
    read_metadata,
)
from card_envs.core.env import EnvInfo
from card_envs.core.extras import require

if TYPE_CHECKING:  # for the annotations; at run time torch is imported where it is used
    with require("train"):
        import torch


def with_advice(observation: np.ndarray, advice: int | None, num_actions: int) -> np.ndarray:
    """The observation vector followed by a one-hot of the advisor's move (zeros for none).

    A residual policy: the network sees what the heuristic would play, so cloning starts it at
    the heuristic's strength and PPO learns where to deviate (docs/training.md)."""
    advised = np.zeros(observation.size + num_actions, dtype=np.float32)
    advised[: observation.size] = observation
    if advice is not None:
        advised[observation.size + advice] = 1.0
    return advised


class PolicyAgent(Agent):
    """Acts greedily (deterministic) from a MaskablePPO policy; masked moves are never chosen.

    ``policy`` is anything with MaskablePPO's ``predict(vector, action_masks=, deterministic=)``:
    a policy, a model or a training snapshot. With ``advisor`` (an agent kind, e.g.
    ``"heuristic"``) the policy was trained on :func:`with_advice` observations: this agent asks
    its own advisor at every decision."""

    name = "ppo"

    def __init__(self, policy, info: EnvInfo, seed: int | None = None, advisor: str | None = None):
        super().__init__(info, seed)
        self.policy = policy
        self.advisor = None
        if advisor is not None:
            self.advisor = make_builtin(advisor, info, seed)
            if self.advisor is None:
                raise ValueError(
                    f"advisor {advisor!r}: an advisor is one of {info.name}'s built-in agents: "
                    f"{', '.join(builtin_kinds(info))}"
                )

    def reset(self, seed: int | None = None) -> None:
        """A new game: the advisor is reseeded too (the arena reuses agents across games)."""
        super().reset(seed)
        if self.advisor is not None:
            self.advisor.reset(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        vector = observation["observation"]
        if self.advisor is not None:
            advice = self.advisor.act(observation)
            vector = with_advice(vector, advice, self.info.num_actions)
        return self.greedy(vector, observation["action_mask"].astype(bool))

    def greedy(self, vector: np.ndarray, mask: np.ndarray) -> int:
        """The policy's deterministic move: MaskablePPO's ``predict``, the same operations
        without its per-call costs where the policy is a torch module (switching every module
        to eval mode, copying the vector, and three checked distributions, which cost more than
        the network); ``predict`` itself for anything else."""
        module = getattr(self.policy, "policy", self.policy)  # a model holds its policy
        if not hasattr(module, "get_distribution"):
            action, _ = self.policy.predict(vector, action_masks=mask, deterministic=True)
            return int(action)
        # imported here, not at the top: `card-envs --help` imports this module without torch
        with require("train"):
            import torch
            from stable_baselines3.common.policies import BasePolicy

        if module.training:
            module.set_training_mode(False)
        with torch.no_grad():
            observation = torch.as_tensor(vector).reshape(1, -1)
            # get_distribution's steps: features, actor latent, logits (a policy of this
            # package adds its own terms in action_logits)
            extractor = module.pi_features_extractor
            features = BasePolicy.extract_features(module, observation, extractor)
            latent = module.mlp_extractor.forward_actor(features)
            logits = getattr(module, "action_logits", module.action_net)(latent)
            return greedy_action(logits, mask)


def greedy_action(logits: torch.Tensor, mask: np.ndarray) -> int:
    """MaskableCategorical's ``mode()`` for one row of ``logits`` under ``mask``: the clear
    best legal logit where there is one, else that mode's own arithmetic."""
    clear = clear_best(logits.numpy()[0], mask)
    return clear if clear is not None else int(masked_mode(logits, mask))


def clear_best(logits: np.ndarray, mask: np.ndarray) -> int | None:
    """The legal action with the highest logit when no other is near enough for MaskablePPO's
    arithmetic (two normalisations and a softmax, each rounding) to tie it, else None.

    Rounding moves each normalised logit by at most a few float32 ulps of the largest
    magnitude in play (the logits and their log-sum-exp), about 1e-6 of it; the margin is ten
    times that. Then the best logit's probability is strictly the highest, as in ``mode()``."""
    legal = np.flatnonzero(mask)
    values = logits[legal]
    best = int(values.argmax())
    if len(values) > 1:
        runner_up = np.partition(values, -2)[-2]
        margin = 1e-5 * (1.0 + float(np.abs(logits).max()) + np.log(len(logits)))
        if float(values[best]) - float(runner_up) <= margin:
            return None
    return int(legal[best])


def masked_mode(logits: torch.Tensor, mask: np.ndarray) -> torch.Tensor:
    """MaskableCategorical's ``mode()`` in its own arithmetic, bit for bit (so ties in rounded
    probabilities break alike): normalised, masked to -1e8, normalised again, softmax, argmax."""
    with require("train"):
        import torch

    legal = torch.as_tensor(mask).reshape(logits.shape)
    normalised = logits - logits.logsumexp(-1, keepdim=True)
    masked = torch.where(legal, normalised, torch.tensor(-1e8, dtype=logits.dtype))
    masked = masked - masked.logsumexp(-1, keepdim=True)
    return torch.softmax(masked, -1).argmax(-1)[0]


def load_policy_agent(
    path: str | Path, info: EnvInfo, seed: int | None = None, *, trust: bool = False
) -> PolicyAgent:
    """Load a checkpoint (a ``.safetensors`` with its JSON, or a trusted SB3 ``.zip``), checking
    it was made for this game and seat count."""
    path = Path(path)
    check_checkpoint_path(path, trust)
    if path.suffix == SAFE_SUFFIX:
        policy, meta = load_policy(path, info)
        return PolicyAgent(policy, info, seed, meta["policy"]["advisor"])
    meta = read_metadata(path)
    advisor = advisor_of(meta)
    model = load_checked_sb3_zip(path, meta, advisor, info, trust=trust)
    return PolicyAgent(model.policy, info, seed, advisor)
