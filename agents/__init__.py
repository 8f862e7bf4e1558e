"""Agents for every game: ``make_agent("random" | "heuristic" | checkpoint path, info, seed)``;
Seals also has ``"heuristic_value"`` (:mod:`agents.seals_value`)."""

from __future__ import annotations

import importlib
from pathlib import Path

from agents.base import Agent, RandomAgent
from card_envs.core.env import EnvInfo

__all__ = ["Agent", "RandomAgent", "agent_kinds", "make_agent", "shipped_checkpoint"]


VALUE_HEURISTIC = "heuristic_value"  # a heuristic with a learned afterstate value


def _game_module(info: EnvInfo) -> str:
    return "agents." + info.name.rsplit("_v", 1)[0]


def _value_module(info: EnvInfo):
    """The game's ``agents/<game>_value.py`` when it has one, else None."""
    try:
        return importlib.import_module(_game_module(info) + "_value")
    except ModuleNotFoundError:
        return None


def agent_kinds(info: EnvInfo) -> list[str]:
    """The built-in agent names available for this environment."""
    kinds = ["random"]
    try:
        importlib.import_module(_game_module(info))
        kinds.append("heuristic")
    except ModuleNotFoundError:
        pass
    value = _value_module(info)
    if value is not None and value.supports(info):
        kinds.append(VALUE_HEURISTIC)
    if shipped_checkpoint(info.name).exists():
        kinds.append("ppo")
    return kinds


def shipped_checkpoint(env_name: str) -> Path:
    """Where a game's trained checkpoint ships: ``agents/checkpoints/<env>_ppo.zip``."""
    return Path(__file__).resolve().parent / "checkpoints" / f"{env_name}_ppo.zip"


def make_agent(kind: str, info: EnvInfo, seed: int | None = None) -> Agent:
    """``"random"``, ``"heuristic"`` (the game's ``agents/<game>.py``), ``"heuristic_value"`` (the
    heuristic with a learned afterstate value, ``agents/<game>_value.py``), ``"ppo"`` (the shipped
    MaskablePPO checkpoint of the game), a MaskablePPO checkpoint path or an RLlib export
    directory (``card-envs train-rllib --out``)."""
    if kind == "random":
        return RandomAgent(info, seed)
    if kind == "heuristic":
        try:
            module = importlib.import_module(_game_module(info))
        except ModuleNotFoundError as error:
            raise ValueError(f"no heuristic agent for {info.name}") from error
        return module.HeuristicAgent(info, seed)
    if kind == VALUE_HEURISTIC:
        module = _value_module(info)
        if module is None:
            raise ValueError(f"no {VALUE_HEURISTIC} agent for {info.name}")
        return module.ValueHeuristicAgent(info, seed)
    if Path(kind).is_dir() and (Path(kind) / "card_envs_meta.json").exists():
        from training.rllib.agent import load_rllib_agent  # an RLlib export (docs/scaling.md)

        return load_rllib_agent(kind, info, seed)
    if kind == "ppo" or Path(kind).suffix == ".zip" or Path(kind).exists():
        from training.policy import load_policy_agent

        path = shipped_checkpoint(info.name) if kind == "ppo" else Path(kind)
        if kind == "ppo" and not path.exists():
            raise ValueError(f"no trained checkpoint ships for {info.name}; train one: make train")
        return load_policy_agent(path, info, seed)
    raise ValueError(
        f"unknown agent {kind!r}: use 'random', 'heuristic', 'ppo' or a checkpoint path"
    )
