"""Trained agents: a MaskablePPO policy behind the common [`Agent`][card_envs.agents.base.Agent]
interface, loaded from a checkpoint ([`card_envs.agents.checkpoint`][] owns the format)."""

from __future__ import annotations

from pathlib import Path

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
        without its per-call costs (switching every module to eval mode, copying the vector)
        where the policy is a torch module; ``predict`` itself for anything else."""
        module = getattr(self.policy, "policy", self.policy)  # a model holds its policy
        if not hasattr(module, "get_distribution"):
            action, _ = self.policy.predict(vector, action_masks=mask, deterministic=True)
            return int(action)
        # imported here, not at the top: `card-envs --help` imports this module without torch
        with require("train"):
            import torch

        if module.training:
            module.set_training_mode(False)
        with torch.no_grad():
            observation = torch.as_tensor(vector).reshape(1, -1)
            return int(module.get_distribution(observation, action_masks=mask).mode()[0])


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
