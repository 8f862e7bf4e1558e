"""Where an environment's parts beyond its rules live: its agents and its browser view.

An env module (``card_envs/<game>_v0.py``, or a game of your own passed to
:func:`card_envs.registry.register`) names them in a :class:`Plugin`, as import paths resolved
on first use, so the generic layers (agents, training, the arena, the server) find a game's
heuristic, its declarations and its view without naming the game.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plugin:
    """Import paths of an env's parts; ``None`` where the game has none.

    ``agents``: a module with ``HeuristicAgent`` (an :class:`~card_envs.agents.base.Agent`)
    and optional declarations: ``STRONGER_HEURISTICS`` (``{kind: "module:Class"}``),
    ``SEARCH_BUDGET`` (the search agents' default budget as ``Budget`` keywords) and
    ``SELFPLAY`` (self-play training settings over the defaults).

    ``view``: a module with ``groups(views, seat)``, the card groups the browser table draws
    from a seat's observation views, and optionally ``scores(views)``, the seat-relative
    totals the seat sees (default: the ``totals`` piece).
    """

    agents: str | None = None
    view: str | None = None
