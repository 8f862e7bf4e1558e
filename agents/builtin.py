"""The built-in agents of a game, by kind: ``"random"``, ``"heuristic"`` (the game's
``agents/<game>.py``), the stronger heuristics some games add (:data:`STRONGER_HEURISTICS`) and
the search agents every game has (:data:`SEARCH_KINDS`, a budget as ``"ismcts:iterations=800"``).

Kept apart from :func:`card_envs.agents.make_agent` (which also loads trained agents) because a
trained agent's advisor is one of these: :mod:`card_envs.agents.policy` builds it from here without
importing the package that imports it.
"""

from __future__ import annotations

import importlib

from card_envs.agents.base import Agent, RandomAgent
from card_envs.agents.plugins import agents_module, declaration
from card_envs.agents.search import ISMCTSAgent, PIMCAgent, SearchAgent, parse_budget
from card_envs.core.env import EnvInfo

# The search agents, for every game and player count: kind -> class. Not among builtin_kinds: they
# search through act_at, so they cannot advise a policy, and the arena's default run of every
# built-in kind would take hours with them.
SEARCH_KINDS: dict[str, type[SearchAgent]] = {"ismcts": ISMCTSAgent, "pimc": PIMCAgent}


def stronger_heuristics(info: EnvInfo) -> dict[str, type[Agent]]:
    """The game's stronger heuristics by kind, as classes: its agents module's
    ``STRONGER_HEURISTICS`` (``{kind: "module:Class"}``)."""
    classes = {}
    for kind, target in declaration(info.name, "STRONGER_HEURISTICS").items():
        module, name = target.split(":")
        classes[kind] = getattr(importlib.import_module(module), name)
    return classes


def builtin_kinds(info: EnvInfo) -> list[str]:
    """The built-in agents that play at this table: random, the heuristic where the game has one,
    and the stronger heuristics that support it."""
    kinds = ["random"]
    if hasattr(agents_module(info.name), "HeuristicAgent"):
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
        heuristic = getattr(agents_module(info.name), "HeuristicAgent", None)
        if heuristic is None:
            raise ValueError(f"no heuristic agent for {info.name}")
        return heuristic(info, seed)
    stronger = stronger_heuristics(info)
    if kind in stronger:
        return stronger[kind](info, seed)
    if kind.startswith("heuristic_"):
        raise ValueError(f"no {kind} agent for {info.name}")
    return None
