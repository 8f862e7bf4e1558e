"""The built-in agents of a game, by kind: ``"random"``, ``"heuristic"`` (the game's
``agents/<game>.py``), the stronger heuristics some games add (:data:`STRONGER_HEURISTICS`) and
the search agents every game has (:data:`SEARCH_KINDS`, a budget as ``"ismcts:iterations=800"``).

Kept apart from :func:`card_envs.agents.make_agent` (which also loads trained agents) because a
trained agent's advisor is one of these: :mod:`card_envs.agents.policy` builds it from here without
importing the package that imports it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from card_envs.agents.base import Agent, RandomAgent
from card_envs.agents.search import ISMCTSAgent, PIMCAgent, SearchAgent, parse_budget
from card_envs.core.env import EnvInfo

# Stronger heuristics beside a game's plain one: env -> {kind: "module:Class"}. A class's
# ``supports(info)`` says at which tables it plays (the arena lists it only there).
STRONGER_HEURISTICS = {
    "seals_v0": {"heuristic_value": "card_envs.agents.seals_value:ValueHeuristicAgent"},
    "unfortunate_events_v0": {"heuristic_outs": "card_envs.agents.unfortunate_events:OutsAgent"},
}

# The search agents, for every game and player count: kind -> class. Not among builtin_kinds: they
# search through act_at, so they cannot advise a policy, and the arena's default run of every
# built-in kind would take hours with them.
SEARCH_KINDS: dict[str, type[SearchAgent]] = {"ismcts": ISMCTSAgent, "pimc": PIMCAgent}


def game_module(info: EnvInfo) -> str:
    """The module of the game's heuristic: ``card_envs.agents.seals`` for ``seals_v0``."""
    return "card_envs.agents." + info.name.rsplit("_v", 1)[0]


def import_module(name: str) -> ModuleType | None:
    """The module, or None when there is no such module. A ModuleNotFoundError raised inside it
    (a broken agent module importing something missing) propagates: it is a bug to see."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is not None and (name == error.name or name.startswith(error.name + ".")):
            return None
        raise


def stronger_heuristics(info: EnvInfo) -> dict[str, type[Agent]]:
    """The game's stronger heuristics by kind, as classes."""
    classes = {}
    for kind, target in STRONGER_HEURISTICS.get(info.name, {}).items():
        module, name = target.split(":")
        classes[kind] = getattr(importlib.import_module(module), name)
    return classes


def builtin_kinds(info: EnvInfo) -> list[str]:
    """The built-in agents that play at this table: random, the heuristic where the game has one,
    and the stronger heuristics that support it."""
    kinds = ["random"]
    if import_module(game_module(info)) is not None:
        kinds.append("heuristic")
    return kinds + [kind for kind, cls in stronger_heuristics(info).items() if cls.supports(info)]


def make_search(kind: str, info: EnvInfo, seed: int | None = None) -> SearchAgent | None:
    """The search agent ``"ismcts"`` or ``"pimc"``, with the options after a colon over its
    default budget (``"pimc:iterations=400,depth=30"``); None when ``kind`` names no search."""
    name, _, options = kind.partition(":")
    cls = SEARCH_KINDS.get(name)
    if cls is None or (options and "=" not in options):
        return None
    budget = parse_budget(options, cls.default_budget(info))
    guide = make_builtin("heuristic", info, seed) if budget.needs_heuristic else None
    lean = None
    if budget.prior and budget.lean != "heuristic":
        stronger = stronger_heuristics(info)
        if budget.lean not in stronger:
            known = ", ".join(["heuristic", *stronger])
            raise ValueError(f"lean must name one of {known} for {info.name}, got {budget.lean!r}")
        if stronger[budget.lean].supports(info):  # else the plain heuristic leads the prior
            lean = make_builtin(budget.lean, info, seed)
    return cls(info, seed, budget, guide, lean)


def make_builtin(kind: str, info: EnvInfo, seed: int | None = None) -> Agent | None:
    """The built-in agent ``kind`` (None when ``kind`` names no built-in agent); a ValueError when
    it names one this game lacks."""
    if kind == "random":
        return RandomAgent(info, seed)
    search = make_search(kind, info, seed)
    if search is not None:
        return search
    if kind == "heuristic":
        module = import_module(game_module(info))
        if module is None:
            raise ValueError(f"no heuristic agent for {info.name}")
        return module.HeuristicAgent(info, seed)
    stronger = stronger_heuristics(info)
    if kind in stronger:
        return stronger[kind](info, seed)
    if any(kind in kinds for kinds in STRONGER_HEURISTICS.values()):
        raise ValueError(f"no {kind} agent for {info.name}")
    return None
