"""Agents for every game: ``make_agent("random" | "heuristic" | checkpoint path, info, seed)``,
and the stronger heuristics some games add (:data:`STRONGER_HEURISTICS`)."""

from __future__ import annotations

import importlib
from pathlib import Path

from agents.base import Agent, RandomAgent
from card_envs.core.env import EnvInfo

__all__ = [
    "STRONGER_HEURISTICS",
    "Agent",
    "RandomAgent",
    "agent_kinds",
    "make_agent",
    "shipped_checkpoint",
]


# Stronger heuristics beside a game's plain one: env -> {kind: "module:Class"}. A class's
# ``supports(info)`` says at which tables it plays (the arena lists it only there).
STRONGER_HEURISTICS = {
    "seals_v0": {"heuristic_value": "agents.seals_value:ValueHeuristicAgent"},
    "unfortunate_events_v0": {"heuristic_outs": "agents.unfortunate_events:OutsAgent"},
}


def _game_module(info: EnvInfo) -> str:
    return "agents." + info.name.rsplit("_v", 1)[0]


def _stronger(info: EnvInfo) -> dict[str, type[Agent]]:
    """The game's stronger heuristics by kind, as classes."""
    classes = {}
    for kind, target in STRONGER_HEURISTICS.get(info.name, {}).items():
        module, name = target.split(":")
        classes[kind] = getattr(importlib.import_module(module), name)
    return classes


def agent_kinds(info: EnvInfo) -> list[str]:
    """The built-in agent names available for this environment."""
    kinds = ["random"]
    try:
        importlib.import_module(_game_module(info))
        kinds.append("heuristic")
    except ModuleNotFoundError:
        pass
    kinds += [kind for kind, cls in _stronger(info).items() if cls.supports(info)]
    if shipped_checkpoint(info.name).exists():
        kinds.append("ppo")
    return kinds


def shipped_checkpoint(env_name: str) -> Path:
    """Where a game's trained checkpoint ships: ``agents/checkpoints/<env>_ppo.zip``."""
    return Path(__file__).resolve().parent / "checkpoints" / f"{env_name}_ppo.zip"


def make_agent(
    kind: str, info: EnvInfo, seed: int | None = None, *, trust: bool = False
) -> Agent:
    """``"random"``, ``"heuristic"`` (the game's ``agents/<game>.py``), a stronger heuristic of
    the game (:data:`STRONGER_HEURISTICS`, e.g. Seals' ``"heuristic_value"``), ``"ppo"`` (the
    shipped MaskablePPO checkpoint of the game), a MaskablePPO checkpoint path or an RLlib
    export directory (``card-envs train-rllib --out``).

    ``trust=True`` allows checkpoint formats that unpickle (an SB3 zip, an RLlib export), which
    can run code: pass it only for files you trust (docs/agents.md)."""
    if kind == "random":
        return RandomAgent(info, seed)
    if kind == "heuristic":
        try:
            module = importlib.import_module(_game_module(info))
        except ModuleNotFoundError as error:
            raise ValueError(f"no heuristic agent for {info.name}") from error
        return module.HeuristicAgent(info, seed)
    stronger = _stronger(info)
    if kind in stronger:
        return stronger[kind](info, seed)
    if any(kind in kinds for kinds in STRONGER_HEURISTICS.values()):
        raise ValueError(f"no {kind} agent for {info.name}")
    if Path(kind).is_dir() and (Path(kind) / "card_envs_meta.json").exists():
        from training.rllib.agent import load_rllib_agent  # an RLlib export (docs/scaling.md)

        return load_rllib_agent(kind, info, seed, trust=trust)
    if kind == "ppo" or Path(kind).suffix == ".zip" or Path(kind).exists():
        from training.policy import load_policy_agent

        path = shipped_checkpoint(info.name) if kind == "ppo" else Path(kind)
        if kind == "ppo" and not path.exists():
            raise ValueError(f"no trained checkpoint ships for {info.name}; train one: make train")
        return load_policy_agent(path, info, seed, trust=trust)
    kinds = ", ".join(repr(k) for k in agent_kinds(info))
    raise ValueError(f"unknown agent {kind!r} for {info.name}: use {kinds} or a checkpoint path")
