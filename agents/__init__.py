"""Agents for every game: ``make_agent("random" | "heuristic" | checkpoint path |
"module:Class", info, seed)``, and the stronger heuristics some games add (each game's agents
module declares them; [`agent_kinds`][] lists what a table takes)."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

from card_envs.agents.base import Agent, RandomAgent
from card_envs.agents.builtin import SEARCH_KINDS, builtin_kinds, make_builtin
from card_envs.agents.plugins import import_module
from card_envs.core.env import EnvInfo

if __name__ != "card_envs.agents":  # the folder imported by path, e.g. from the repository root
    raise ImportError(
        f"import card_envs.agents, not {__name__}: the agents/ folder installs as "
        "card_envs.agents, and a second name would load a second copy (a second Agent class)"
    )

__all__ = [
    "TRAINED_KINDS",
    "Agent",
    "RandomAgent",
    "agent_kinds",
    "make_agent",
    "shipped_checkpoint",
]


# A user's agent class by import path: "package.module:ClassName".
IMPORT_PATH = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")


# The trained agents a game may ship, each a checkpoint agents/checkpoints/<env>_<kind>: "ppo", a
# network that acts on the observation alone, and "ppo_advised", a network that also reads the
# heuristic's move (docs/training.md).
TRAINED_KINDS = ("ppo", "ppo_advised")


def agent_kinds(info: EnvInfo) -> list[str]:
    """The built-in agent names available for this environment."""
    return builtin_kinds(info) + [kind for kind in TRAINED_KINDS if _ships(kind, info)]


def _ships(kind: str, info: EnvInfo) -> bool:
    """A trained agent of this kind ships for this game at this player count (it fits only the
    count it was trained at, so ``--players all`` must not list it elsewhere)."""
    path = shipped_checkpoint(info.name, kind)
    if not path.exists():
        return False
    meta = json.loads(path.with_suffix(".json").read_text())
    return meta.get("num_players") == info.num_players


def shipped_checkpoint(env_name: str, kind: str = "ppo") -> Path:
    """Where a game's trained agent of this kind ships:
    ``agents/checkpoints/<env>_<kind>.safetensors`` (its JSON beside it)."""
    return Path(__file__).resolve().parent / "checkpoints" / f"{env_name}_{kind}.safetensors"


def import_agent_class(kind: str, info: EnvInfo) -> type[Agent]:
    """The [`Agent`][] subclass ``kind`` (``"package.module:ClassName"``) names, checked to
    play at this table. Importing the module runs it, as any import of your own code does."""
    module_name, class_name = kind.split(":")
    module = import_module(module_name)
    if module is None:
        raise ValueError(
            f"agent {kind!r}: no module {module_name!r} on the Python path" + hint_for(module_name)
        )
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ValueError(f"agent {kind!r}: module {module_name} has no {class_name}")
    if not (isinstance(cls, type) and issubclass(cls, Agent)) or inspect.isabstract(cls):
        raise ValueError(
            f"agent {kind!r} is not an agent: it must subclass card_envs.agents.Agent and "
            "implement act(observation) -> action id"
        )
    if not cls.supports(info):
        raise ValueError(
            f"agent {kind!r} does not play {info.name} with {info.num_players} players"
        )
    return cls


def hint_for(module_name: str) -> str:
    """How to reach a module whose file is in the current folder, which the command line's
    Python path leaves out (only ``python -m`` and the interpreter's prompt put it there)."""
    top = module_name.split(".")[0]
    here = Path.cwd()
    if not ((here / f"{top}.py").is_file() or (here / top / "__init__.py").is_file()):
        return ""
    return (
        f": {top} is in the current folder, which the command does not search; run it with "
        "PYTHONPATH=. in front (PYTHONPATH=. card-envs arena ...) or install your package"
    )


def make_agent(kind: str, info: EnvInfo, seed: int | None = None, *, trust: bool = False) -> Agent:
    """``"random"``, ``"heuristic"`` (the game's agents module), a stronger heuristic of the
    game (that module's ``STRONGER_HEURISTICS``, e.g. Seals' ``"heuristic_value"``), ``"ppo"`` or
    ``"ppo_advised"`` (the game's shipped checkpoint of that kind, [`TRAINED_KINDS`][]), a
    checkpoint path (``.safetensors``), a class of your own (``"package.module:ClassName"``, an
    [`Agent`][] subclass built as ``cls(info, seed)``) or an RLlib export directory
    (``card-envs train-rllib --out``).

    The search agents ``"ismcts"`` and ``"pimc"`` (``SEARCH_KINDS``) take a budget after a
    colon: ``"ismcts:iterations=400"``.

    ``trust=True`` allows checkpoint formats that unpickle (a Stable-Baselines3 ``.zip``, an
    RLlib export), which can run code: pass it only for files you trust (docs/agents.md)."""
    builtin = make_builtin(kind, info, seed)
    if builtin is not None:
        return builtin
    if IMPORT_PATH.fullmatch(kind):
        return import_agent_class(kind, info)(info, seed)
    if Path(kind).is_dir() and (Path(kind) / "card_envs_meta.json").exists():
        from card_envs.agents.rllib import load_rllib_agent  # an RLlib export (docs/scaling.md)

        return load_rllib_agent(kind, info, seed, trust=trust)
    shipped = kind in TRAINED_KINDS
    if shipped or Path(kind).suffix in (".safetensors", ".zip") or Path(kind).exists():
        from card_envs.agents.policy import load_policy_agent

        path = shipped_checkpoint(info.name, kind) if shipped else Path(kind)
        if shipped and not path.exists():
            others = [k for k in TRAINED_KINDS if shipped_checkpoint(info.name, k).exists()]
            raise ValueError(
                f"no {kind!r} agent ships for {info.name} (shipped: {others or 'none'}); train "
                f"one (card-envs train {info.name}) and give its .safetensors path"
            )
        return load_policy_agent(path, info, seed, trust=trust)
    kinds = ", ".join(repr(k) for k in [*agent_kinds(info), *SEARCH_KINDS])
    raise ValueError(
        f"unknown agent {kind!r} for {info.name}: use {kinds} (a search with a budget as "
        "'ismcts:iterations=400'), a checkpoint path or a 'package.module:ClassName' of your own"
    )
