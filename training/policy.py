"""Trained agents: a MaskablePPO checkpoint behind the common :class:`~agents.base.Agent`."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from agents.base import Agent
from card_envs.core.env import EnvInfo


class PolicyAgent(Agent):
    """Acts greedily (deterministic) from a MaskablePPO policy; masked moves are never chosen."""

    name = "ppo"

    def __init__(self, model, info: EnvInfo, seed: int | None = None):
        super().__init__(info, seed)
        self.model = model

    def act(self, observation: dict[str, np.ndarray]) -> int:
        action, _ = self.model.predict(
            observation["observation"],
            action_masks=observation["action_mask"].astype(bool),
            deterministic=True,
        )
        return int(action)


def load_policy_agent(path: str | Path, info: EnvInfo, seed: int | None = None) -> PolicyAgent:
    """Load a checkpoint, checking it is a MaskablePPO zip made for this game and seat count."""
    from sb3_contrib import MaskablePPO

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"checkpoint {path} is corrupt: not a zip archive saved by MaskablePPO")
    meta = _read_metadata(path)
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
    obs_size, actions = model.observation_space.shape[0], model.action_space.n
    if (obs_size, actions) != (info.obs_spec.size, info.num_actions):
        raise ValueError(
            f"checkpoint {path} expects observations of {obs_size} and {actions} actions; "
            f"{info.name} with {info.num_players} players has {info.obs_spec.size} and "
            f"{info.num_actions}"
        )
    return PolicyAgent(model, info, seed)


def metadata_path(checkpoint: Path) -> Path:
    return checkpoint.with_suffix(".json")


def _read_metadata(checkpoint: Path) -> dict:
    side = metadata_path(checkpoint)
    if not side.exists():
        return {}
    try:
        return json.loads(side.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"checkpoint metadata {side} is corrupt: {error}") from None
