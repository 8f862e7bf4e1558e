"""Tasks and seatings: what decides one table, and the tables every deal is played at.

A task is a pure description (deal seed, seat kinds, agent seeds), so a table plays the same in
any process; the seeds derive from the run's seed, the deal, the seating and the seat
(``derived_seed``), the same in every line-up of a run.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from card_envs.agents.match import derived_seed

RANDOM, HEURISTIC = "random", "heuristic"


@dataclass(frozen=True)
class Task:
    """One table of the arena: everything that decides its outcome."""

    env_name: str
    num_players: int
    kinds: tuple[str, ...]  # the agent name in each seat
    deal_seed: int
    agent_seeds: tuple[int, ...]
    trust: bool = False  # make_agent's trust (checkpoints that unpickle)
    record: bool = False  # return the game's record (card_envs.records) with its result
    luck: bool = False  # measure each seat's luck where the game declares how (arena --luck)


@dataclass(frozen=True)
class Lineup:
    """Entries and the seatings each deal is played in: a pool of ``--agents``, or a matrix
    cell (``opponent`` set: entry 0 alone against entry 1 in every other seat)."""

    names: tuple[str, ...]
    tables: tuple[tuple[int, ...], ...]  # entry index per seat, one tuple per table of a deal
    opponent: str | None = None

    @classmethod
    def pool(cls, names: Sequence[str], num_players: int) -> Lineup:
        return cls(tuple(names), tuple(seatings(len(names), num_players)))

    @classmethod
    def cell(cls, agent: str, opponent: str, num_players: int) -> Lineup:
        return cls((agent, opponent), tuple(alone_seatings(num_players)), opponent)

    @property
    def lopsided(self) -> bool:
        """A matrix cell with a random player on one side: far from the fair share."""
        return self.opponent is not None and RANDOM in self.names


def seatings(entries: int, num_players: int) -> list[tuple[int, ...]]:
    """Entry index per seat for every table played on one deal.

    With ``K <= N`` entries the list is cycled round the table (``A B`` at 4 seats: ``A B A B``)
    and every distinct rotation of that lineup is played once. With ``K > N`` every combination
    of ``N`` entries is played in each of its ``N`` rotations. Either way each entry sits in
    every seat equally often.
    """
    if entries < 1:
        raise ValueError("the arena needs at least one agent")
    if entries <= num_players:
        lineups: Iterable[tuple[int, ...]] = [tuple(i % entries for i in range(num_players))]
    else:
        lineups = itertools.combinations(range(entries), num_players)
    out: list[tuple[int, ...]] = []
    for lineup in lineups:
        for shift in range(num_players):
            rotated = lineup[shift:] + lineup[:shift]
            if rotated not in out:
                out.append(rotated)
    return out


def alone_seatings(num_players: int) -> list[tuple[int, ...]]:
    """Entry 0 in one seat, entry 1 in all the others, in every rotation: one agent against a
    field, seated as :func:`seatings` seats ``A B B B`` (so a cell plays the same games as the
    pool ``--agents A B B B``)."""
    lineup = (0,) + (1,) * (num_players - 1)
    return [lineup[shift:] + lineup[:shift] for shift in range(num_players)]


def entry_labels(names: Sequence[str]) -> list[str]:
    """Report names: the agent names, with ``#2``, ``#3`` ... on repeats."""
    seen: dict[str, int] = {}
    labels = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        labels.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return labels


def make_tasks(
    env_name: str,
    num_players: int,
    lineup: Lineup,
    deals: range,
    seed: int,
    trust: bool = False,
    record: bool = False,
    luck: bool = False,
) -> list[Task]:
    """Deal-major list of tables: deal ``d`` (seed from ``seed, d``, the same in every line-up
    of a run) in every seating of ``lineup``."""
    return [
        Task(
            env_name=env_name,
            num_players=num_players,
            kinds=tuple(lineup.names[entry] for entry in seating),
            deal_seed=derived_seed(seed, deal),
            agent_seeds=tuple(derived_seed(seed, deal, t, seat) for seat in range(num_players)),
            trust=trust,
            record=record,
            luck=luck,
        )
        for deal in deals
        for t, seating in enumerate(lineup.tables)
    ]
