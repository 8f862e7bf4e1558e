"""An RLlib-trained policy behind the common :class:`~card_envs.agents.base.Agent`, for the arena.

``card-envs train-rllib --out DIR`` writes an algorithm checkpoint and ``DIR/card_envs_meta.json``
(game, seats, which module sits where); :func:`load_rllib_agent` reads the metadata, checks it
against the game and loads one RLModule with ``RLModule.from_checkpoint``, which needs Ray
installed but not running. That unpickles the module's files, which can run code, so it loads
only with ``trust=True`` (``--trust-checkpoint``). The agent plays the legal action with the
highest logit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents.base import Agent
from card_envs.agents.checkpoint import untrusted_message, warn_unpickling
from card_envs.core.env import EnvInfo
from card_envs.core.extras import require

META_FILE = "card_envs_meta.json"


class RLlibAgent(Agent):
    """Acts greedily from a :class:`~card_envs.agents.rllib_module.MaskedPPOTorchRLModule`."""

    name = "rllib"

    def __init__(self, module: Any, info: EnvInfo, seed: int | None = None):
        super().__init__(info, seed)
        self.module = module

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return self.module.greedy_action(observation)


def load_rllib_agent(
    path: str | Path,
    info: EnvInfo,
    seed: int | None = None,
    module_id: str | None = None,
    *,
    trust: bool = False,
) -> RLlibAgent:
    """Load the module ``module_id`` (default: the metadata's ``default_module``, the shared
    policy or seat 0's) of an exported checkpoint, checking it was made for this game and
    seat count. Every problem is a ValueError naming the path; without ``trust`` the module is
    not loaded (RLlib unpickles it)."""
    path = Path(path)
    meta = read_meta(path)
    if (meta.get("env"), meta.get("num_players")) != (info.name, info.num_players):
        raise ValueError(
            f"checkpoint {path} was trained for {meta.get('env')} with {meta.get('num_players')} "
            f"players, not {info.name} with {info.num_players}"
        )
    modules = meta.get("modules", {})
    module_id = module_id or meta.get("default_module")
    if module_id not in modules:
        raise ValueError(f"checkpoint {path} has no module {module_id!r}; it has {list(modules)}")
    if not trust:
        raise ValueError(untrusted_message(path, "an RLlib export"))
    warn_unpickling(path, "the RLlib export")
    module = _load_module(path / modules[module_id], path)
    sizes = (module.observation_space["observation"].shape[0], module.action_space.n)
    if sizes != (info.obs_spec.size, info.num_actions):
        raise ValueError(
            f"checkpoint {path} expects observations of {sizes[0]} and {sizes[1]} actions; "
            f"{info.name} with {info.num_players} players has {info.obs_spec.size} and "
            f"{info.num_actions}"
        )
    return RLlibAgent(module, info, seed)


def read_meta(path: Path) -> dict[str, Any]:
    """The ``card_envs_meta.json`` of an exported checkpoint directory."""
    if not path.is_dir():
        raise ValueError(f"no RLlib checkpoint directory at {path}")
    side = path / META_FILE
    if not side.is_file():
        raise ValueError(f"{path} is not an exported RLlib checkpoint: no {META_FILE} in it")
    try:
        return json.loads(side.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"checkpoint metadata {side} is corrupt: {error}") from None


def _load_module(module_dir: Path, path: Path) -> Any:
    with require("rllib"):
        from ray.rllib.core.rl_module.rl_module import RLModule

    from card_envs.agents.rllib_module import MaskedPPOTorchRLModule

    try:
        module = RLModule.from_checkpoint(str(module_dir))
    except Exception as error:  # RLlib raises many types for a damaged checkpoint
        raise ValueError(f"checkpoint {path} is corrupt: {error}") from None
    if not isinstance(module, MaskedPPOTorchRLModule):
        raise ValueError(f"checkpoint {path} holds a {type(module).__name__}, not a masked PPO")
    module.eval()
    return module
