"""The search agents' strength table of docs/agents.md: each search kind alone against three
heuristics and against three random players, at its default budget and at four times its
iterations, with win share, 95% interval and CPU milliseconds per decision.

Every row plays the arena's own deals and seatings: row ``AGENT`` against ``OPPONENT`` with
``--deals D --seed S`` is the game set of ``card-envs arena --game GAME --agents AGENT OPPONENT
OPPONENT OPPONENT --episodes D --seed S`` (the same deal and agent seeds), so its win share is
the arena's; the arena only has no clock per agent. The interval treats the deal as the
independent unit (``card_envs.tools.stats.deal_interval``).

Usage: ``.venv/bin/python benchmarks/search_strength.py [--games seals_v0 ...] [--deals 10]
[--rows ismcts:heuristic ...] [--json PATH]``; it writes nothing unless given ``--json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from card_envs import make
from card_envs.agents.builtin import SEARCH_KINDS
from card_envs.agents.match import play_game
from card_envs.agents.pool import in_processes
from card_envs.core.env import CardEnv
from card_envs.tools.arena import LOPSIDED_SHARE, Lineup, Task, make_tasks, seat_table
from card_envs.tools.stats import deal_interval

GAMES = ("seamless_v0", "seals_v0", "seers_catalog_v0", "unfortunate_events_v0", "sequitur_v1")
ROWS = (  # (search kind, multiple of its default iterations, opponent)
    ("ismcts", 1, "heuristic"),
    ("ismcts", 1, "random"),
    ("ismcts", 4, "heuristic"),
    ("pimc", 1, "heuristic"),
    ("pimc", 1, "random"),
    ("pimc", 4, "heuristic"),
)


class Timed:
    """An agent whose decisions are clocked (CPU time), for :func:`play_game`."""

    def __init__(self, agent: object):
        self.agent = agent
        self.reads_derived = agent.reads_derived  # type: ignore[attr-defined]
        self.times: list[float] = []

    def act_at(self, env: CardEnv, observation: dict[str, np.ndarray]) -> int:
        started = time.process_time()
        action = self.agent.act_at(env, observation)  # type: ignore[attr-defined]
        self.times.append(time.process_time() - started)
        return action


@dataclass(frozen=True)
class Table:
    """One seat-game of a row: the searcher's share of the win and its decision times."""

    share: float
    times: tuple[float, ...]


def play_table(task: Task) -> Table:
    """The task's game with entry 0 (the searcher) clocked; the arena's agents and seeds."""
    env, agents = seat_table(task)
    searcher = task.kinds.index(next(k for k in task.kinds if k.partition(":")[0] in SEARCH_KINDS))
    timed = Timed(agents[searcher])
    agents[searcher] = timed  # type: ignore[call-overload]
    winners = play_game(env, agents, seed=task.deal_seed).winners
    share = (searcher in winners) / max(len(winners), 1)
    return Table(share, tuple(timed.times))


@dataclass(frozen=True)
class Row:
    game: str
    agent: str
    iterations: int
    opponent: str
    deals: int
    games: int
    win_share: float
    interval: tuple[float, float]
    ms_mean: float
    ms_max: float
    seconds: float
    deal_wins: tuple[float, ...]  # seat-games won on each deal, so that runs can be pooled


def measure(
    game: str, kind: str, times: int, opponent: str, deals: int, seed: int, workers: int
) -> Row:
    """One row: ``deals`` deals (a quarter of them against random players, as the arena
    does: the share is far from even, so fewer games settle it), each in every seating."""
    if opponent == "random":
        deals = max(1, deals // LOPSIDED_SHARE)
    env = make(game)
    info = env.describe()
    iterations = SEARCH_KINDS[kind].default_budget(info).iterations * times
    agent = kind if times == 1 else f"{kind}:iterations={iterations}"
    lineup = Lineup.cell(agent, opponent, info.num_players)
    tasks = make_tasks(game, info.num_players, lineup, range(deals), seed)
    started = time.perf_counter()
    tables = list(in_processes(play_table, tasks, workers))
    seated = len(lineup.tables)
    wins = [sum(t.share for t in tables[d * seated : (d + 1) * seated]) for d in range(deals)]
    decision_times = [s for t in tables for s in t.times]
    return Row(
        game,
        kind,
        iterations,
        opponent,
        deals,
        len(tables),
        sum(wins) / len(tables),
        deal_interval(wins, seated),
        1000 * float(np.mean(decision_times)),
        1000 * float(np.max(decision_times)),
        time.perf_counter() - started,
        tuple(wins),
    )


def markdown(row: Row) -> str:
    low, high = row.interval
    return (
        f"| {row.game} | `{row.agent}` | {row.iterations} | {row.opponent} | {row.games} | "
        f"{row.win_share:.3f} | [{low:.3f}, {high:.3f}] | {row.ms_mean:.0f} ({row.ms_max:.0f}) |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--deals", type=int, default=10, help="deals per row (x4 seatings)")
    parser.add_argument(
        "--rows",
        nargs="+",
        default=None,
        metavar="KIND[x4]:OPPONENT",
        help="e.g. ismcts:heuristic ismctsx4:heuristic pimc:random (default: all six)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the arena's --seed")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", default=None, metavar="PATH", help="write the rows here")
    args = parser.parse_args(argv)
    rows = ROWS if args.rows is None else [parse_row(text) for text in args.rows]
    done = []
    print("| game | agent | iterations | vs | games | win share | 95% interval | ms (max) |")
    print("|---|---|---|---|---|---|---|---|")
    for game in args.games:
        for kind, times, opponent in rows:
            row = measure(game, kind, times, opponent, args.deals, args.seed, args.workers)
            done.append(row)
            print(markdown(row), f"<!-- {row.seconds:.0f} s -->", flush=True)
            if args.json:
                with open(args.json, "w") as out:
                    json.dump({"seed": args.seed, "rows": [asdict(r) for r in done]}, out, indent=1)
    return 0


def parse_row(text: str) -> tuple[str, int, str]:
    """``ismcts:heuristic`` or ``pimcx4:random`` as (kind, multiple, opponent)."""
    kind, _, opponent = text.partition(":")
    times = 4 if kind.endswith("x4") else 1
    kind = kind.removesuffix("x4")
    if kind not in SEARCH_KINDS or opponent not in ("heuristic", "random"):
        raise SystemExit(f"a row is KIND[x4]:OPPONENT, ismcts or pimc, heuristic or random: {text}")
    return kind, times, opponent


if __name__ == "__main__":
    sys.exit(main())
