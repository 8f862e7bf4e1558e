"""An evaluation: one agent alone against a field on the protocol's deals, every seat in
turn, with plain and luck-adjusted estimates of its win share and score (``docs/evaluation.md``).

How a game's luck is measured (the value estimate, the alternatives per random transition and
the weight of the correction) is the game's ``EVALUATION`` declaration in its agents module,
chosen by measurement; a game without one is adjusted by its standing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from card_envs.agents.plugins import declaration
from card_envs.agents.pool import in_processes
from card_envs.evaluation.luck import PARTS
from card_envs.evaluation.protocol import Protocol, load_protocol, seatings
from card_envs.evaluation.stats import Interval, games_for_width, mean_interval
from card_envs.evaluation.tables import Table, TableResult, play_table
from card_envs.evaluation.values import KINDS

DEFAULT_LUCK = {"value": "standing", "samples": 8, "weight": 1.0}


@dataclass(frozen=True)
class LuckSettings:
    """How a game's luck is measured: the value estimate (``standing``, ``network`` or
    ``rollout``), the alternatives drawn per random transition, and the weight of the
    correction (any weight keeps the estimate unbiased; below 1 it trusts a noisy estimate
    less)."""

    value: str = "standing"
    samples: int = 8
    weight: float = 1.0

    @classmethod
    def of(cls, env_name: str, value: str | None = None) -> LuckSettings:
        """The game's ``EVALUATION`` declaration over the defaults (``value`` over both)."""
        declared = {**DEFAULT_LUCK, **declaration(env_name, "EVALUATION")}
        unknown = sorted(set(declared) - set(DEFAULT_LUCK))
        if unknown:
            raise ValueError(f"{env_name}'s EVALUATION declares unknown keys {unknown}")
        if value is not None:
            declared["value"] = value
        if declared["value"] not in KINDS:
            raise ValueError(f"unknown value estimate {declared['value']!r}: one of {KINDS}")
        return cls(str(declared["value"]), int(declared["samples"]), float(declared["weight"]))


@dataclass
class Side:
    """One agent's seat-games, deal by deal: per deal, each table it sat at and its seat."""

    kind: str
    deals: list[list[tuple[TableResult, int]]] = field(default_factory=list)

    @property
    def games(self) -> int:
        return sum(len(seats) for seats in self.deals)

    def values(
        self, what: str = "win", weight: float | None = None, part: int | None = None
    ) -> list[float]:
        """Per deal, the agent's mean ``what`` (``win`` or ``score``) over its seat-games:
        plain (``weight`` None) or less ``weight`` times its luck (one part of it only with
        ``part``)."""
        out = []
        for seats in self.deals:
            values = []
            for result, seat in seats:
                outcome = (result.win if what == "win" else result.scores)[seat]
                if weight is not None and result.luck is not None:
                    luck = result.luck.win if what == "win" else result.luck.score
                    rows = luck[:, seat] if part is None else luck[part : part + 1, seat]
                    outcome -= weight * float(rows.sum())
                values.append(outcome)
            out.append(float(np.mean(values)))
        return out

    def cpu(self) -> tuple[float, float]:
        """CPU seconds of its games and of their luck, a table shared with other agents counted
        in proportion to the seats it held."""
        games = luck = 0.0
        for seats in self.deals:
            for result, _ in seats:
                share = 1 / len(result.win)
                games += share * result.cpu_game
                luck += share * result.cpu_luck
        return games, luck

    def ms_per_decision(self) -> float:
        """Its mean CPU milliseconds per decision."""
        seconds = decisions = 0.0
        for seats in self.deals:
            for result, seat in seats:
                seconds += result.decision_seconds[seat]
                decisions += result.decisions[seat]
        return 1000 * seconds / decisions if decisions else 0.0

    def interval(self, what: str = "win", weight: float | None = None) -> Interval:
        """Its mean ``what`` over deals with its interval, plain or adjusted by ``weight``."""
        return mean_interval(self.values(what, weight))

    def part_widths(self, weight: float) -> dict[str, float]:
        """Each part of the luck alone: the adjusted win share's half-width with only that part
        subtracted, over the plain half-width (1: it narrows nothing)."""
        plain = self.interval().half
        return {
            name: mean_interval(self.values("win", weight, p)).half / plain if plain else math.nan
            for p, name in enumerate(PARTS)
        }

    def equal_cpu_half(self, weight: float) -> float:
        """The adjusted half-width at the plain estimate's CPU time: times the square root of
        (games and adjustment) over games."""
        games, luck = self.cpu()
        return self.interval("win", weight).half * math.sqrt((games + luck) / games)


@dataclass
class Evaluation:
    """An agent's tables (and a reference's, on the same deals) and what they give."""

    env_name: str
    num_players: int
    protocol: Protocol
    field: tuple[str, ...]
    luck: LuckSettings
    agent: Side
    reference: Side | None = None
    error: str | None = None

    @property
    def deals(self) -> int:
        return len(self.agent.deals)

    @property
    def games(self) -> int:
        return self.agent.games

    def interval(self, what: str = "win", adjusted: bool = False) -> Interval:
        """The agent's mean win share or score over deals, with its interval."""
        return self.agent.interval(what, self.luck.weight if adjusted else None)

    def gain(self, adjusted: bool = False) -> Interval | None:
        """The agent's win share less the reference's, deal by deal, with its interval."""
        if self.reference is None:
            return None
        weight = self.luck.weight if adjusted else None
        mine, theirs = self.agent.values("win", weight), self.reference.values("win", weight)
        return mean_interval([a - b for a, b in zip(mine, theirs, strict=True)])

    def games_for_plain(self) -> float:
        """The games a plain estimate would need for the adjusted interval's width."""
        return games_for_width(self.games, self.interval(), self.interval(adjusted=True))


def tables_of(
    env_name: str,
    num_players: int,
    protocol: Protocol,
    deal: int,
    agent: str,
    field: Sequence[str],
    luck: LuckSettings,
    trust: bool = False,
) -> list[Table]:
    """Deal ``deal`` of the protocol with ``agent`` in each seat in turn and the field, from
    the agent's left, in the others."""
    tables = []
    for s in range(len(seatings(num_players))):
        kinds = tuple(
            agent if seat == s else field[(seat - s - 1) % num_players]
            for seat in range(num_players)
        )
        tables.append(
            Table(
                env_name,
                num_players,
                kinds,
                protocol.deal_seed(deal),
                protocol.agent_seeds(deal, s, num_players),
                luck.value,
                luck.samples,
                trust,
            )
        )
    return tables


def evaluate(
    env_name: str,
    num_players: int,
    agent: str,
    field: Sequence[str],
    deals: int,
    *,
    reference: str | None = None,
    luck: LuckSettings | None = None,
    protocol: Protocol | None = None,
    workers: int = 1,
    trust: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Evaluation:
    """Play ``deals`` deals of the protocol (``eval-v1``) with ``agent`` alone against
    ``field`` (one kind a seat, from the agent's left), and ``reference`` on the same games.
    An agent that fails stops the run: the deals finished before it are kept, ``error`` names
    the agent. ``progress(done, total)`` is called after each table."""
    protocol = protocol or load_protocol()
    luck = luck or LuckSettings.of(env_name)
    if deals < 1:
        raise ValueError(f"--deals must be at least 1; got {deals}")
    if len(field) != num_players - 1:
        raise ValueError(f"the field needs {num_players - 1} agents; got {list(field)}")
    sides = [Side(agent)] + ([Side(reference)] if reference else [])
    tables = [
        table
        for deal in range(deals)
        for side in sides
        for table in tables_of(env_name, num_players, protocol, deal, side.kind, field, luck, trust)
    ]
    run = Evaluation(env_name, num_players, protocol, tuple(field), luck, sides[0])
    run.reference = sides[1] if reference else None
    per_deal = num_players * len(sides)
    done: list[TableResult] = []
    for index, result in enumerate(_played(tables, workers)):
        if result.error is not None:
            run.error = f"{result.error} (deal {index // per_deal})"
            break
        done.append(result)
        if progress is not None:
            progress(index + 1, len(tables))
    whole = len(done) - len(done) % per_deal
    for start in range(0, whole, per_deal):
        for k, side in enumerate(sides):
            seated = done[start + k * num_players : start + (k + 1) * num_players]
            side.deals.append([(result, seat) for seat, result in enumerate(seated)])
    return run


def _played(tables: Sequence[Table], workers: int) -> Iterator[TableResult]:
    """Each table's result in order, played in ``workers`` processes."""
    yield from in_processes(play_table, tables, workers)
