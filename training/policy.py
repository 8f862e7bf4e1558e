"""Trained agents: a MaskablePPO checkpoint behind the common :class:`~agents.base.Agent`."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from agents.base import Agent
from card_envs.core.env import EnvInfo


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

    With ``advisor`` (an agent kind, e.g. ``"heuristic"``) the policy was trained on
    :func:`with_advice` observations: this agent asks its own advisor at every decision."""

    name = "ppo"

    def __init__(self, model, info: EnvInfo, seed: int | None = None, advisor: str | None = None):
        super().__init__(info, seed)
        self.model = model
        self.advisor = None
        if advisor is not None:
            from agents import make_agent

            self.advisor = make_agent(advisor, info, seed)

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
        action, _ = self.model.predict(
            vector, action_masks=observation["action_mask"].astype(bool), deterministic=True
        )
        return int(action)


def load_policy_agent(
    path: str | Path, info: EnvInfo, seed: int | None = None, *, trust: bool = False
) -> PolicyAgent:
    """Load a checkpoint, checking it is a MaskablePPO zip made for this game and seat count."""
    from sb3_contrib import MaskablePPO

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"checkpoint {path} is corrupt: not a zip archive saved by MaskablePPO")
    meta = read_metadata(path)
    if meta and (meta.get("env") != info.name or meta.get("num_players") != info.num_players):
        raise ValueError(
            f"checkpoint {path} was trained for {meta.get('env')} with {meta.get('num_players')} "
            f"players, not {info.name} with {info.num_players}"
        )
    try:
        model = MaskablePPO.load(path, device="cpu")
    except Exception as error:  # SB3 raises many types for a damaged archive
        raise ValueError(
            f"checkpoint {path} is corrupt or not a MaskablePPO model: {error}"
        ) from None
    advisor = meta.get("config", {}).get("advisor")
    expected = info.obs_spec.size + (info.num_actions if advisor else 0)
    obs_size, actions = model.observation_space.shape[0], model.action_space.n
    if (obs_size, actions) != (expected, info.num_actions):
        raise ValueError(
            f"checkpoint {path} expects observations of {obs_size} and {actions} actions; "
            f"{info.name} with {info.num_players} players has {expected} and "
            f"{info.num_actions}"
        )
    return PolicyAgent(model, info, seed, advisor)


def metadata_path(checkpoint: Path) -> Path:
    return checkpoint.with_suffix(".json")


def read_metadata(checkpoint: Path) -> dict:
    """The JSON beside a checkpoint ({} when absent; a clear error when corrupt)."""
    side = metadata_path(checkpoint)
    if not side.exists():
        return {}
    try:
        return json.loads(side.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"checkpoint metadata {side} is corrupt: {error}") from None
