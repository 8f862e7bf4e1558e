"""Agents for every game: ``make_agent("random" | "heuristic" | checkpoint path, info, seed)``."""

from __future__ import annotations

import importlib
from pathlib import Path

from agents.base import Agent, RandomAgent
from card_envs.core.env import EnvInfo

__all__ = ["Agent", "RandomAgent", "agent_kinds", "make_agent"]


def _game_module(info: EnvInfo) -> str:
    return "agents." + info.name.rsplit("_v", 1)[0]


def agent_kinds(info: EnvInfo) -> list[str]:
    """The built-in agent names available for this environment."""
    kinds = ["random"]
    try:
        importlib.import_module(_game_module(info))
        kinds.append("heuristic")
    except ModuleNotFoundError:
        pass
    return kinds


def make_agent(kind: str, info: EnvInfo, seed: int | None = None) -> Agent:
    """``"random"``, ``"heuristic"`` (the game's ``agents/<game>.py``), or a checkpoint path."""
    if kind == "random":
        return RandomAgent(info, seed)
    if kind == "heuristic":
        try:
            module = importlib.import_module(_game_module(info))
        except ModuleNotFoundError as error:
            raise ValueError(f"no heuristic agent for {info.name}") from error
        return module.HeuristicAgent(info, seed)
    if Path(kind).exists():
        from training.policy import load_policy_agent

        return load_policy_agent(kind, info, seed)
    raise ValueError(f"unknown agent {kind!r}: use 'random', 'heuristic' or a checkpoint path")
