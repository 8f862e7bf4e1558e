"""``card-envs arena``: agents compared on fixed seeded deals, seats rotated.

Every deal is played once per seating, so every agent sits in every seat on the same cards (the
DouZero/RLCard evaluation practice). The default run is a matrix: each agent alone against three
of the field (random, the heuristic), the README's claims; ``--matrix`` puts every agent against
every other, and ``--agents`` plays one pool of entries with ratings. Games run in parallel, but
each is a pure function of its task (deal seed, seating, agent seeds) and results are reassembled
in task order, so a report is identical bit for bit whatever ``--workers``. Without
``--episodes`` the deals are sized to a time budget from each line-up's measured cost; with it
the run starts at once, first saying how long it will take when that is long. How seats are
filled, how shared wins count and how the interval and rating are computed: ``docs/arena.md``.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from card_envs.agents import TRAINED_KINDS, Agent, agent_kinds, make_agent
from card_envs.agents.match import GameResult, decisions, play_game, process_pool
from card_envs.core.env import CardEnv, EnvInfo
from card_envs.core.extras import require
from card_envs.records import append_record, record_game
from card_envs.registry import make
from card_envs.tools.selection import ALL, cases, game_choices, parse_players
from card_envs.tools.stats import Ratings, deal_interval, win_ranks

RANDOM, HEURISTIC = "random", "heuristic"
# Sizing without --episodes: the whole run aims at DEFAULT_BUDGET seconds. Every line-up plays
# MIN_DEALS deals at least and MAX_DEALS at most; a line-up with a random player (its result is
# far from the fair share, so few games settle it) plays a LOPSIDED_SHARE-th of the others'.
DEFAULT_BUDGET = 100.0
MIN_DEALS, MAX_DEALS, LOPSIDED_SHARE = 10, 2500, 4
PROBE_DEALS = 1  # deals every line-up plays first, to measure its cost (they count as results)
ROUND_DEALS = 4  # sized to a budget, a game's deals are played in rounds of at least this many
PROGRESS_EVERY = 10.0  # seconds between progress lines when stderr is not a terminal
# A run of fixed size (--episodes) estimated to take longer than this says so before it starts,
# from SAMPLE_DECISIONS timed decisions of each agent on positions of SAMPLE_GAMES games.
LONG_RUN_SECONDS = 10.0
SAMPLE_DECISIONS = 8
SAMPLE_GAMES = 4
REDRAW_EVERY = 0.25  # seconds between redraws of the progress line on a terminal


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


@dataclass(frozen=True)
class AgentReport:
    """One arena entry's results (the JSON ``agents`` items, plus ``mu``/``sigma``)."""

    name: str
    games: int
    win_rate: float
    win_ci: tuple[float, float]
    mean_score: float
    mean_reward: float
    rating: float
    mu: float
    sigma: float

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "games": self.games,
            "win_rate": self.win_rate,
            "win_ci": list(self.win_ci),
            "mean_score": self.mean_score,
            "mean_reward": self.mean_reward,
            "rating": self.rating,
        }


@dataclass(frozen=True)
class ArenaReport:
    """The results of one pool of entries in one game at one player count."""

    game: str
    players: int
    episodes: int
    seed: int
    seatings: int
    agents: tuple[AgentReport, ...]

    def to_json(self) -> dict[str, Any]:
        """The documented JSON object: no timings or worker counts, so it is reproducible."""
        return {
            "game": self.game,
            "players": self.players,
            "episodes": self.episodes,
            "seed": self.seed,
            "agents": [agent.to_json() for agent in self.agents],
        }


@dataclass(frozen=True)
class CellReport:
    """One agent alone against a field of one kind: the agent's seat-games."""

    agent: str
    opponent: str
    deals: int
    result: AgentReport

    def to_json(self) -> dict[str, Any]:
        data = self.result.to_json()
        del data["name"], data["rating"]  # one agent against a field: nothing to rate
        return {"agent": self.agent, "opponent": self.opponent, "deals": self.deals, **data}


@dataclass(frozen=True)
class MatrixReport:
    """Each agent alone against a field of each opponent kind, in one game."""

    game: str
    players: int
    seed: int
    agents: tuple[str, ...]
    opponents: tuple[str, ...]
    cells: tuple[CellReport, ...]

    def cell(self, agent: str, opponent: str) -> CellReport | None:
        return next((c for c in self.cells if (c.agent, c.opponent) == (agent, opponent)), None)

    def to_json(self) -> dict[str, Any]:
        """The documented JSON object: no timings or worker counts, so it is reproducible."""
        return {
            "game": self.game,
            "players": self.players,
            "seed": self.seed,
            "agents": list(self.agents),
            "opponents": list(self.opponents),
            "cells": [cell.to_json() for cell in self.cells],
        }


Report = ArenaReport | MatrixReport


# -- seatings and seeds -------------------------------------------------------------------------
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


def derived_seed(*keys: int) -> int:
    """A 32-bit seed drawn from ``keys`` by ``numpy.random.SeedSequence`` (independent streams)."""
    return int(np.random.SeedSequence(list(keys)).generate_state(1)[0])


def make_tasks(
    env_name: str,
    num_players: int,
    lineup: Lineup,
    deals: range,
    seed: int,
    trust: bool = False,
    record: bool = False,
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
        )
        for deal in deals
        for t, seating in enumerate(lineup.tables)
    ]


# -- playing (runs in worker processes) ---------------------------------------------------------
_ENVS: dict[tuple[str, int], CardEnv] = {}
_AGENTS: dict[tuple[str, int, str, int, bool], Agent] = {}


def _env(name: str, num_players: int) -> CardEnv:
    key = (name, num_players)
    if key not in _ENVS:
        _ENVS[key] = make(name, num_players=num_players)
    return _ENVS[key]


def _agent(env: CardEnv, kind: str, copy: int, trust: bool) -> Agent:
    """The ``copy``-th agent of a kind at a table: built once, reseeded every game by ``reset``.

    Agents do not know their seat (observations are seat-relative), so a table with one ``ppo``
    loads one, whichever seat it sits in.
    """
    key = (env.metadata["name"], env.game.num_players, kind, copy, trust)
    if key not in _AGENTS:
        _AGENTS[key] = make_agent(kind, env.describe(), trust=trust)
    return _AGENTS[key]


def play(task: Task) -> GameResult:
    """Play one table to the end; depends on nothing but ``task``."""
    return play_timed(task).result


@dataclass(frozen=True)
class Played:
    """A table's result and the CPU seconds it took: its play, and in all (building the env and
    agents the first time, imports included)."""

    result: GameResult
    play: float
    total: float
    record: dict[str, Any] | None = None


def seat_table(task: Task) -> tuple[CardEnv, list[Agent]]:
    """The env and the agent in each seat of ``task``, reseeded for its game (built once per
    process), as the arena plays them."""
    env = _env(task.env_name, task.num_players)
    agents = [
        _agent(env, kind, task.kinds[:seat].count(kind), task.trust)
        for seat, kind in enumerate(task.kinds)
    ]
    for agent, seed in zip(agents, task.agent_seeds, strict=True):
        agent.reset(seed)
    return env, agents


def play_timed(task: Task) -> Played:
    """One table, timed; depends on nothing but ``task``."""
    started = time.process_time()
    env, agents = seat_table(task)
    actions: list[int] = []
    playing = time.process_time()
    on_move = (lambda _agent, action: actions.append(action)) if task.record else None
    result = play_game(env, agents, seed=task.deal_seed, on_move=on_move)
    ended = time.process_time()
    record = record_game(env, actions, task.kinds, task.deal_seed) if task.record else None
    return Played(result, ended - playing, ended - started, record)


class Workers:
    """A process pool (or this process alone for one worker) that keeps task order.

    Workers come from a fork server, not a fork of this process: a trained agent's torch
    thread pool, once started here, deadlocks in a forked child. Each worker runs torch on
    one thread (the pool already uses every core).
    """

    def __init__(self, count: int):
        if count < 1:
            raise ValueError(f"--workers must be at least 1; got {count}")
        self.count = count
        self.pool: Pool | None = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()

    def imap(self, tasks: Sequence[Task]) -> Iterator[Played]:
        """Each task's result and CPU seconds, in task order."""
        if self.count == 1:
            return _in_this_process(tasks)
        self.pool = self.pool or process_pool(self.count)
        return self.pool.imap(play_timed, tasks)  # one at a time: no worker idles at the end


def _in_this_process(tasks: Sequence[Task]) -> Iterator[Played]:
    """``play_timed`` over ``tasks`` here, torch on one thread meanwhile as in a worker: a
    trained agent's forward pass is tiny, and on a busy machine torch's threads only contend
    (a 256-wide layer took 5 ms instead of 0.1)."""
    saved: int | None = None
    try:
        for task in tasks:
            torch = sys.modules.get("torch")
            if torch is not None and saved is None:
                saved = torch.get_num_threads()
                torch.set_num_threads(1)
            yield play_timed(task)
    finally:
        if saved is not None:
            sys.modules["torch"].set_num_threads(saved)


# -- progress -----------------------------------------------------------------------------------
def plural(count: int, noun: str) -> str:
    """``1 worker``, ``2 workers``."""
    return f"{count:,} {noun}{'s' * (count != 1)}"


def clock_text(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """Progress of a run on ``stream`` (stderr): a line redrawn in place on a terminal, else a
    line every :data:`PROGRESS_EVERY` seconds; lines of their own (the plan, each finished game)
    either way.

    The ETA is ``elapsed * left / done`` in CPU seconds of play: the tables done as measured,
    those left as estimated from each line-up's measured cost, so it holds from the first
    tables on although a table of one game can cost a hundred times one of another.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        tty: bool | None = None,
        every: float = PROGRESS_EVERY,
        clock: Callable[[], float] = time.perf_counter,
    ):
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.every = REDRAW_EVERY if self.tty else every
        self.clock = clock
        self.label = "arena"
        self.budgeted = False
        self.started = self.shown = clock()
        self.drawn = False

    def start(self, label: str, budgeted: bool = False) -> None:
        """Time a new phase from now; ``budgeted``: a run sized to a budget, whose plan changes
        as it goes (so its game total, which would change too, is not shown)."""
        self.label, self.budgeted = label, budgeted
        self.started = self.shown = self.clock()

    def update(self, games: int, total: int, done: float, left: float) -> None:
        """``games`` of ``total`` tables played, ``done`` CPU seconds spent, ``left`` to go;
        shown when the last line is old enough, or at the end."""
        now = self.clock()
        if now - self.shown >= self.every or games == total:
            self.shown = now
            self._show(self.status(games, total, done, left, now - self.started))

    def status(self, games: int, total: int, done: float, left: float, elapsed: float) -> str:
        eta = clock_text(elapsed * left / done) if done else "?"
        if self.budgeted:
            return (
                f"{self.label}: {games:,} games played, {clock_text(elapsed)} elapsed, "
                f"ETA {eta} (the plan follows the budget)"
            )
        share = done / (done + left) if done + left else 1.0
        return (
            f"{self.label}: {share:4.0%} ({games:,}/{total:,} games), "
            f"{clock_text(elapsed)} elapsed, ETA {eta}"
        )

    def note(self, text: str) -> None:
        """A line of its own, kept above the progress line."""
        self.clear()
        print(text, file=self.stream, flush=True)

    def clear(self) -> None:
        """Take the redrawn line off the terminal (before other output)."""
        if self.drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.drawn = False

    def close(self) -> None:
        """Leave the last progress line on screen."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False

    def _show(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\033[K" + text)
            self.drawn = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


# -- runs: line-ups per game, sized by measured cost --------------------------------------------
@dataclass
class Job:
    """One game at one player count: its line-ups and, once played, their outcomes."""

    env_name: str
    num_players: int
    lineups: list[Lineup]
    matrix: bool
    agents: tuple[str, ...] = ()
    opponents: tuple[str, ...] = ()
    deals: list[int] = field(default_factory=list)  # planned deals per line-up
    outcomes: list[list[GameResult]] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # CPU seconds each line-up's tables took

    def start(self) -> None:
        self.outcomes = [[] for _ in self.lineups]
        self.cpu = [0.0] * len(self.lineups)

    def add(self, k: int, result: GameResult, seconds: float) -> None:
        self.outcomes[k].append(result)
        self.cpu[k] += seconds

    def played(self) -> list[int]:
        """Deals played so far, per line-up."""
        return [
            len(out) // len(lineup.tables)
            for out, lineup in zip(self.outcomes, self.lineups, strict=True)
        ]

    def next_round(self, last: bool) -> list[range]:
        """Deals to play next per line-up, towards ``deals``: all that is left when ``last``,
        or when it is little (:data:`ROUND_DEALS` or a quarter of the plan), else half of it,
        so that the plan can be redone on the costs measured meanwhile."""
        rounds = []
        for done, target in zip(self.played(), self.deals, strict=True):
            left = max(0, target - done)
            if not last and left > max(ROUND_DEALS, target // 4):
                left = (left + 1) // 2
            rounds.append(range(done, done + left))
        return rounds

    @property
    def cost(self) -> list[float]:
        """Measured CPU seconds per deal of each line-up (the mean of its tables so far)."""
        return [
            cpu / len(out) * len(lineup.tables) if out else 0.0
            for cpu, out, lineup in zip(self.cpu, self.outcomes, self.lineups, strict=True)
        ]

    def left(self, unmeasured: float = 0.0) -> tuple[int, float]:
        """Tables still to play of the planned deals, and their estimated CPU seconds (a
        line-up not played yet at ``unmeasured`` seconds a table)."""
        games, work = 0, 0.0
        for lineup, deals, out, cost in zip(
            self.lineups, self.deals, self.outcomes, self.cost, strict=True
        ):
            tables = max(0, deals * len(lineup.tables) - len(out))
            games += tables
            work += tables * (cost / len(lineup.tables) if out else unmeasured)
        return games, work

    def games(self) -> int:
        """Tables of the planned deals."""
        return sum(
            d * len(lineup.tables) for d, lineup in zip(self.deals, self.lineups, strict=True)
        )

    @property
    def main_cost(self) -> float:
        """CPU seconds per deal of the line-ups that are not lopsided."""
        return sum(
            c for c, lineup in zip(self.cost, self.lineups, strict=True) if not lineup.lopsided
        )

    def spent(self, main: int) -> float:
        """CPU seconds of the whole job when its main line-ups play ``main`` deals."""
        return sum(
            cost * lineup_deals(main, lineup.lopsided)
            for cost, lineup in zip(self.cost, self.lineups, strict=True)
        )


def pool_job(env_name: str, num_players: int, names: Sequence[str]) -> Job:
    return Job(env_name, num_players, [Lineup.pool(names, num_players)], matrix=False)


def matrix_job(
    env_name: str, num_players: int, agents: Sequence[str], opponents: Sequence[str]
) -> Job:
    """Every agent alone against a field of every opponent kind but its own."""
    lineups = [
        Lineup.cell(agent, opponent, num_players)
        for agent in agents
        for opponent in opponents
        if agent != opponent
    ]
    if not lineups:
        raise ValueError("a matrix needs two different agents")
    return Job(env_name, num_players, lineups, True, tuple(agents), tuple(opponents))


def claims(kinds: Sequence[str]) -> tuple[list[str], list[str]]:
    """The default matrix: every kind but random, against three random players and against
    three heuristics (the README's baselines)."""
    opponents = [k for k in (RANDOM, HEURISTIC) if k in kinds]
    agents = [k for k in kinds if k != RANDOM] or [RANDOM]
    return agents, opponents


def lineup_deals(main: int, lopsided: bool) -> int:
    """Deals of a line-up when the job's main ones play ``main``: a lopsided one plays fewer."""
    return max(MIN_DEALS, main // LOPSIDED_SHARE) if lopsided else main


def plan_deals(jobs: Sequence[Job], capacity: float) -> list[int]:
    """Main deals per job within ``capacity`` CPU seconds, in ``MIN_DEALS..MAX_DEALS``.

    A job gets deals in proportion to ``1 / sqrt(cost per deal)``, the split that makes the sum
    of the jobs' win-share variances smallest for the time: cheap games get narrower intervals,
    and every game gets some. The common factor is the largest that fits.
    """
    weights = [1 / max(job.main_cost or sum(job.cost), 1e-9) ** 0.5 for job in jobs]

    def deals(scale: float) -> list[int]:
        return [min(MAX_DEALS, max(MIN_DEALS, int(scale * w))) for w in weights]

    def spent(scale: float) -> float:
        return sum(job.spent(d) for job, d in zip(jobs, deals(scale), strict=True))

    low, high = 0.0, MAX_DEALS / min(weights)  # at ``high`` every job is at MAX_DEALS
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if spent(middle) <= capacity else (low, middle)
    return deals(low)


class Arena:
    """Plays jobs: first :data:`PROBE_DEALS` of every line-up (their cost), then each game's
    planned deals, calling ``finished(job, report, seconds)`` after each game.

    Sized to a budget, a game's deals are played in rounds (:meth:`Job.next_round`), and after
    each round the deals of it and of the games after it are planned again from the costs
    measured so far, the time left and the rate the workers have got through CPU seconds: a
    game that costs more than its first deal showed leaves less to itself and the later ones,
    so the run ends near its budget whatever the load on the machine.
    """

    def __init__(
        self,
        workers: Workers,
        seed: int = 0,
        *,
        trust: bool = False,
        progress: Progress | None = None,
        record: Path | None = None,
    ):
        self.workers = workers
        self.seed = seed
        self.trust = trust
        self.record = record  # a JSON Lines file every game's record is added to
        self.progress = progress
        self.cpu = self.wall = 0.0  # CPU seconds played and the wall seconds they took

    def run(
        self,
        jobs: Sequence[Job],
        episodes: int | None = None,
        budget: float | None = None,
        finished: Callable[[Job, Report, float], None] | None = None,
    ) -> list[Report]:
        """Reports in job order; ``episodes`` deals per line-up, else sized to ``budget``
        seconds (default :data:`DEFAULT_BUDGET`) from the start of this call.

        Sized to a budget, the games are played dearest first (per deal, as measured): the
        cheap ones at the end take up what the estimates of the dear ones got wrong, a few
        deals at a time, so the run ends near its budget and no dear game is left the minimum.
        """
        if episodes is not None and episodes < 1:
            raise ValueError(f"--episodes must be at least 1; got {episodes}")
        if budget is not None and budget <= 0:
            raise ValueError(f"--budget must be a positive number of seconds; got {budget}")
        budget = budget or DEFAULT_BUDGET
        deadline = time.perf_counter() + budget
        order = list(jobs)
        if episodes is None:
            self._probe(jobs, PROBE_DEALS)
            for job in jobs:
                job.deals = [PROBE_DEALS] * len(job.lineups)
            order.sort(key=lambda job: -sum(job.cost))
            self._plan(order, deadline)
            self._note(
                "arena: plan for the budget's time left (revised as games finish): "
                + "; ".join(plan_text(job) for job in order)
            )
        else:
            for job in jobs:
                job.start()
                job.deals = [episodes] * len(job.lineups)
            self._note("arena: plan: " + "; ".join(plan_text(job) for job in order))
            if self.progress is not None:
                self._estimate(order)
        self._start_progress("arena", budgeted=episodes is None)
        reports: dict[int, Report] = {}
        for j, job in enumerate(order):
            began = time.perf_counter()
            while any(rounds := job.next_round(last=episodes is not None)):
                self._play(job, rounds, order[j + 1 :])
                if episodes is None:
                    self._plan(order[j:], deadline)
            job.deals = job.played()
            reports[id(job)] = job_report(job, self.seed)
            if finished is not None:
                finished(job, reports[id(job)], time.perf_counter() - began)
        if self.progress is not None:
            self.progress.close()
        return [reports[id(job)] for job in jobs]

    def _tasks(self, job: Job, lineup: Lineup, deals: range) -> list[Task]:
        return make_tasks(
            job.env_name, job.num_players, lineup, deals, self.seed, self.trust, bool(self.record)
        )

    def _stream(self, tasks: Sequence[Task]) -> Iterator[tuple[GameResult, float]]:
        """Each table's result and the CPU seconds of its play, timing how fast the workers get
        through CPU seconds (setting up agents included) from the first result on, so that
        starting the workers does not count as slowness but any other load on the machine does."""
        first = None
        for played in self.workers.imap(tasks):
            if first is None:
                first = time.perf_counter()
            else:
                self.cpu += played.total
            if self.record is not None and played.record is not None:
                append_record(self.record, played.record)
            yield played.result, played.play
        if first is not None:
            self.wall += time.perf_counter() - first

    def _start_progress(self, label: str, budgeted: bool = False) -> None:
        self.done_games, self.done_cpu = 0, 0.0
        if self.progress is not None:
            self.progress.start(label, budgeted)

    def _estimate(self, jobs: Sequence[Job]) -> None:
        """Say how long a fixed-size run will take, before it starts, when that is long."""
        costs: dict[str, float] = {}
        seconds = 0.0
        for job in jobs:
            estimate = Estimate.of(job, self.trust)
            costs |= estimate.per_decision
            seconds += estimate.seconds(job) / self.workers.count
        if seconds > LONG_RUN_SECONDS:
            dearest = max(costs.values())
            dear = ", ".join(
                f"{kind} {clock_text_fine(c)} a decision"
                for kind, c in sorted(costs.items(), key=lambda kc: -kc[1])
                if c > dearest / 10
            )
            self._note(
                f"arena: about {clock_text(seconds)} to play on "
                f"{plural(self.workers.count, 'worker')} with the cores to themselves, "
                f"estimated from a few timed decisions ({dear}); Ctrl-C stops"
            )

    def _advance(self, seconds: float, left: tuple[int, float]) -> None:
        """One more table, ``seconds`` of CPU; ``left`` tables and CPU seconds to go."""
        self.done_games += 1
        self.done_cpu += seconds
        if self.progress is not None:
            games, work = left
            self.progress.update(self.done_games, self.done_games + games, self.done_cpu, work)

    def _probe(self, jobs: Sequence[Job], deals: int) -> None:
        """Play the first ``deals`` of every line-up, which measures each one's cost."""
        tasks, owners = [], []
        for j, job in enumerate(jobs):
            job.start()
            for k, lineup in enumerate(job.lineups):
                batch = self._tasks(job, lineup, range(deals))
                tasks += batch
                owners += [(j, k)] * len(batch)
        lineups = sum(len(job.lineups) for job in jobs)
        self._note(
            f"arena: measuring what each of {lineups} line-ups in {len(jobs)} games costs: "
            f"{deals} deal each, in every seating (they count as results)"
        )
        self._start_progress("arena: measuring")
        for index, ((j, k), (result, seconds)) in enumerate(
            zip(owners, self._stream(tasks), strict=True)
        ):
            jobs[j].add(k, result, seconds)
            left = len(tasks) - index - 1
            self._advance(seconds, (left, left * (self.done_cpu + seconds) / (index + 1)))

    def _plan(self, jobs: Sequence[Job], deadline: float) -> None:
        """Deals for ``jobs`` (the games still to play) in the time left before ``deadline``.

        The rate counts the workers' start and any other load on the machine, so it errs low.
        """
        rate = min(float(self.workers.count), self.cpu / self.wall) if self.wall else 1.0
        left = max(0.0, deadline - time.perf_counter()) * rate
        capacity = left + sum(sum(job.cpu) for job in jobs)  # what they played counts
        for job, main in zip(jobs, plan_deals(jobs, capacity), strict=True):
            job.deals = [lineup_deals(main, lineup.lopsided) for lineup in job.lineups]

    def _play(self, job: Job, rounds: Sequence[range], later: Sequence[Job]) -> None:
        """The deals ``rounds`` of each line-up of ``job``, as one stream of tables."""
        tasks, owners = [], []
        for k, (lineup, deals) in enumerate(zip(job.lineups, rounds, strict=True)):
            batch = self._tasks(job, lineup, deals)
            tasks += batch
            owners += [k] * len(batch)
        for index, (result, seconds) in enumerate(self._stream(tasks)):
            job.add(owners[index], result, seconds)
            mean = (self.done_cpu + seconds) / (self.done_games + 1)  # for line-ups not yet played
            games, work = job.left(mean)
            for other in later:
                more = other.left(mean)
                games, work = games + more[0], work + more[1]
            self._advance(seconds, (games, work))

    def _note(self, text: str) -> None:
        if self.progress is not None:
            self.progress.note(text)


def deals_text(job: Job) -> str:
    """A game's deals per line-up: ``250 deals a line-up (62 where a random player sits)``."""
    main = max(job.deals)
    lopsided = {d for d, lineup in zip(job.deals, job.lineups, strict=True) if lineup.lopsided}
    text = f"{main:,} deal{'s' * (main != 1)} a line-up"
    if lopsided and lopsided != {main}:
        text += f" ({min(lopsided):,} where a random player sits)"
    return text


def plan_text(job: Job) -> str:
    """A game's plan: ``seals_v0: 250 deals a line-up (62 where a random player sits), each in
    4 seatings = 2,480 games``."""
    seatings = len(job.lineups[0].tables)
    return f"{job.env_name}: {deals_text(job)}, each in {seatings} seatings = {job.games():,} games"


@dataclass(frozen=True)
class Estimate:
    """What a fixed-size job will cost: CPU seconds per decision of each agent kind, timed on
    positions of one game, and the decisions a seat makes in that game."""

    per_decision: dict[str, float]
    per_seat: float

    @classmethod
    def of(cls, job: Job, trust: bool = False) -> Estimate:
        env = make(job.env_name, num_players=job.num_players)
        info = env.describe()
        positions, per_seat = sample_positions(env, info, trust)
        kinds = sorted({name for lineup in job.lineups for name in lineup.names})
        return cls(
            {k: decision_seconds(make_agent(k, info, 0, trust=trust), positions) for k in kinds},
            per_seat,
        )

    def seconds(self, job: Job) -> float:
        """CPU seconds of the job's planned tables."""
        return sum(
            deals * self.per_seat * sum(self.per_decision[lineup.names[e]] for e in seating)
            for deals, lineup in zip(job.deals, job.lineups, strict=True)
            for seating in lineup.tables
        )


def sample_positions(
    env: CardEnv, info: EnvInfo, trust: bool = False
) -> tuple[list[tuple[CardEnv, Any]], float]:
    """Copies of :data:`SAMPLE_GAMES` seeded games at :data:`SAMPLE_DECISIONS` + 1 of their
    decisions with a choice, spread over them, and the decisions per seat they took (played by
    the heuristic where the game has one: cheap, and near the length of real games). A forced
    move costs any agent little, so none is sampled (the estimate errs long)."""
    agent = make_agent(
        HEURISTIC if HEURISTIC in agent_kinds(info) else RANDOM, info, 0, trust=trust
    )
    seen, count = [], 0
    for seed in range(SAMPLE_GAMES):
        env.reset(seed=seed)
        for _, observation in decisions(env):
            count += 1
            if observation["action_mask"].sum() > 1:
                seen.append((copy.deepcopy(env), observation))
            env.step(agent.act_at(env, observation))
    picks = np.linspace(0, len(seen) - 1, SAMPLE_DECISIONS + 1).round().astype(int)
    return [seen[i] for i in dict.fromkeys(picks)], count / SAMPLE_GAMES / info.num_players


def decision_seconds(agent: Agent, positions: Sequence[tuple[CardEnv, Any]]) -> float:
    """The mean CPU seconds of ``agent``'s decisions at ``positions``, the first a warm-up
    (a trained agent's first forward pass, a cache filled)."""
    times = []
    for env, observation in positions:
        table = copy.deepcopy(env)
        started = time.process_time()
        agent.act_at(table, observation)
        times.append(time.process_time() - started)
    return float(np.mean(times[1:] or times))


def clock_text_fine(seconds: float) -> str:
    """A decision's time: ``0.31 s``, ``12 ms``, ``40 µs``."""
    if seconds >= 0.1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e3:.0f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f} µs"


def job_report(job: Job, seed: int) -> Report:
    """A finished job as its report."""
    if not job.matrix:
        lineup, deals = job.lineups[0], job.deals[0]
        played = [lineup.tables[i % len(lineup.tables)] for i in range(len(job.outcomes[0]))]
        return ArenaReport(
            game=job.env_name,
            players=job.num_players,
            episodes=deals,
            seed=seed,
            seatings=len(lineup.tables),
            agents=summarise(entry_labels(lineup.names), played, job.outcomes[0]),
        )
    cells = []
    for lineup, deals, outcomes in zip(job.lineups, job.deals, job.outcomes, strict=True):
        played = [lineup.tables[i % len(lineup.tables)] for i in range(len(outcomes))]
        agent = summarise(lineup.names, played, outcomes, len(lineup.tables), rate=False)[0]
        cells.append(CellReport(lineup.names[0], lineup.names[1], deals, agent))
    return MatrixReport(
        game=job.env_name,
        players=job.num_players,
        seed=seed,
        agents=job.agents,
        opponents=job.opponents,
        cells=tuple(cells),
    )


# -- summaries ----------------------------------------------------------------------------------
def summarise(
    labels: Sequence[str],
    tasks_seatings: Sequence[tuple[int, ...]],
    outcomes: Sequence[GameResult],
    tables_per_deal: int | None = None,
    rate: bool = True,
) -> tuple[AgentReport, ...]:
    """Per-entry games, win share with its interval over deals, means and rating, accumulated
    in table order. Tables come deal by deal, ``tables_per_deal`` each (default: the number of
    distinct seatings, every deal played in each once)."""
    count = len(labels)
    per_deal = tables_per_deal or len(dict.fromkeys(tasks_seatings))
    if len(outcomes) % per_deal:
        raise ValueError(f"{len(outcomes)} tables do not make whole deals of {per_deal} tables")
    deals = len(outcomes) // per_deal
    games, wins = [0] * count, [[0.0] * deals for _ in range(count)]
    score_sum, reward_sum = [0.0] * count, [0.0] * count
    ratings = Ratings(count)
    for index, (seating, outcome) in enumerate(zip(tasks_seatings, outcomes, strict=True)):
        for seat, entry in enumerate(seating):
            games[entry] += 1
            if seat in outcome.winners:
                wins[entry][index // per_deal] += 1 / len(outcome.winners)
            score_sum[entry] += outcome.scores[seat]
            reward_sum[entry] += outcome.rewards[seat]
        if rate:
            ratings.update(seating, win_ranks(outcome.winners, len(seating)))
    return tuple(
        AgentReport(
            name=labels[e],
            games=games[e],
            win_rate=sum(wins[e]) / games[e] if games[e] else 0.0,
            win_ci=deal_interval(wins[e], games[e] // deals) if games[e] else (0.0, 1.0),
            mean_score=score_sum[e] / games[e] if games[e] else 0.0,
            mean_reward=reward_sum[e] / games[e] if games[e] else 0.0,
            rating=ratings.ordinal(e),
            mu=float(ratings.ratings[e].mu),
            sigma=float(ratings.ratings[e].sigma),
        )
        for e in range(count)
    )


def rating_notes(agents: Sequence[AgentReport]) -> list[str]:
    """Why the rating orders a pair of entries against their win rates, for every such pair.

    The rating ranks the same event as the win rate (winners first, the rest tied), so the two
    disagree only between entries the games do not tell apart, or through whom each beat: the
    rating counts a win over a strong entry for more, and weighs later tables more.
    """
    notes = []
    for a, b in itertools.permutations(agents, 2):
        if a.win_rate > b.win_rate and a.rating < b.rating:
            why = (
                "their 95% intervals overlap, so the games do not tell the two apart"
                if a.win_ci[0] <= b.win_ci[1]
                else "the rating weighs whom each beat, and later tables more"
            )
            notes.append(
                f"note: {b.name} is rated above {a.name}, which wins more "
                f"({a.win_rate:.3f} vs {b.win_rate:.3f}): {why}"
            )
    return notes


def check_agents(info: EnvInfo, names: Sequence[str], trust: bool = False) -> None:
    """Fail early, in this process, on an agent name ``make_agent`` does not know."""
    for name in sorted(set(names)):
        make_agent(name, info, 0, trust=trust)


def run_arena(
    env_name: str,
    agents: Sequence[str] | None = None,
    num_players: int | None = None,
    episodes: int | None = None,
    seed: int = 0,
    workers: Workers | None = None,
    *,
    budget: float | None = None,
    trust: bool = False,
) -> ArenaReport:
    """Play ``episodes`` deals of one game in every seating of the entries ``agents`` (default:
    the game's built-in kinds) and report per entry; without ``episodes``, as many as fit in
    ``budget`` seconds."""
    job = build_jobs([(env_name, num_players)], agents, matrix=False, trust=trust)[0]
    report = Arena(workers or Workers(1), seed, trust=trust).run([job], episodes, budget)[0]
    assert isinstance(report, ArenaReport)
    return report


def run_matrix(
    env_name: str,
    agents: Sequence[str] | None = None,
    num_players: int | None = None,
    episodes: int | None = None,
    seed: int = 0,
    workers: Workers | None = None,
    *,
    budget: float | None = None,
    trust: bool = False,
) -> MatrixReport:
    """Each of ``agents`` (default: the game's built-in kinds) alone against a field of each
    other, ``episodes`` deals per cell (or as many as fit in ``budget`` seconds)."""
    job = build_jobs([(env_name, num_players)], agents, matrix=True, trust=trust)[0]
    report = Arena(workers or Workers(1), seed, trust=trust).run([job], episodes, budget)[0]
    assert isinstance(report, MatrixReport)
    return report


def build_jobs(
    todo: Sequence[tuple[str, int | None]],
    agents: Sequence[str] | None,
    matrix: bool,
    trust: bool = False,
) -> list[Job]:
    """The jobs of a run, agents checked: with ``agents`` a pool of them (or, with ``matrix``,
    every one against every other); without, the default matrix (:func:`claims`) or, with
    ``matrix``, every built-in kind against every other. One player: a pool, each alone. In
    the default run a later version of a game already in it plays only its trained agents."""
    jobs = []
    games_done: set[tuple[str, int]] = set()
    for env_name, players in todo:
        env = make(env_name, num_players=players)
        info, num_players = env.describe(), env.game.num_players
        kinds = list(agents) if agents else agent_kinds(info)
        check_agents(info, kinds, trust)
        unique = list(dict.fromkeys(kinds))
        rows, columns = (unique, unique) if matrix else claims(kinds)
        game = (env.game.name, num_players)  # every version of a game has the same name
        if not (agents or matrix) and game in games_done:
            # A later version (sequitur_v1) is the same game with a larger observation: the
            # built-in agents play the same games on it, so only its trained agents are new.
            rows = [kind for kind in rows if kind in TRAINED_KINDS]
            kinds = [HEURISTIC, *rows]
            if not rows:
                continue
        games_done.add(game)
        if num_players == 1 or (agents and not matrix) or set(rows) == set(columns) == {RANDOM}:
            jobs.append(pool_job(env_name, num_players, kinds))
        else:
            jobs.append(matrix_job(env_name, num_players, rows, columns))
    return jobs


# -- output -------------------------------------------------------------------------------------
def format_report(report: Report, seconds: float) -> str:
    """The report as a fixed-width text table."""
    if isinstance(report, MatrixReport):
        return format_matrix(report, seconds)
    games = report.episodes * report.seatings
    width = max(12, *(len(a.name) for a in report.agents))
    lines = [
        f"{report.game}, {report.players} players: {report.episodes} deals x "
        f"{report.seatings} seatings = {games} games, seed {report.seed}, {seconds:.1f} s",
        f"{'agent':<{width}} {'games':>6} {'win rate':>8} {'95% CI':>16} "
        f"{'mean score':>10} {'mean reward':>11} {'rating':>7} {'mu ± sigma':>14}",
    ]
    for a in report.agents:
        ci = f"[{a.win_ci[0]:.3f}, {a.win_ci[1]:.3f}]"
        lines.append(
            f"{a.name:<{width}} {a.games:>6} {a.win_rate:>8.3f} {ci:>16} "
            f"{a.mean_score:>10.2f} {a.mean_reward:>+11.3f} {a.rating:>7.2f} "
            f"{f'{a.mu:.2f} ± {a.sigma:.2f}':>14}"
        )
    legend = [
        "games: seat-games played; win rate: wins per seat-game (a shared win split between its "
        f"winners; fair share {1 / report.players:.3f}),",
        "  95% CI over deals; mean score and reward per seat-game; rating: mu - 3 sigma of a "
        "Plackett-Luce rating of wins",
    ]
    return "\n".join(lines + legend + rating_notes(report.agents))


def cell_text(cell: CellReport | None, fair: float) -> str:
    """``0.272 [0.258, 0.286] > 1000``: win share, interval, against the fair share, games."""
    if cell is None:
        return "-"
    r = cell.result
    mark = ">" if r.win_ci[0] > fair else "<" if r.win_ci[1] < fair else "="
    return f"{r.win_rate:.3f} [{r.win_ci[0]:.3f}, {r.win_ci[1]:.3f}] {mark} {r.games:>5}"


def format_matrix(report: MatrixReport, seconds: float) -> str:
    """One row per agent, one column per field: the agent's win share alone against it."""
    fair = 1 / report.players
    field_size = report.players - 1
    width = max(12, *(len(a) for a in report.agents))
    heads = [f"vs {field_size} {o}" for o in report.opponents]
    column = max(30, *(len(h) for h in heads))
    lines = [
        f"{report.game}, {report.players} players: each agent alone against {field_size} of the "
        f"field, seats rotated, the same deals in every cell; seed {report.seed}, {seconds:.1f} s",
        f"{'agent':<{width}}  " + "  ".join(f"{h:<{column}}" for h in heads).rstrip(),
    ]
    for agent in report.agents:
        texts = [cell_text(report.cell(agent, o), fair) for o in report.opponents]
        lines.append(f"{agent:<{width}}  " + "  ".join(f"{t:<{column}}" for t in texts).rstrip())
    lines += [
        "a cell: the agent's win share (wins per seat-game it played, a shared win split "
        "between its winners) [its 95% interval over deals], then",
        f"  > above, < below or = not told apart from the fair share {fair:.3f}, then the "
        "seat-games played; - not played (an agent against a field of its own kind)",
    ]
    return "\n".join(lines)


def write_json(reports: Sequence[Report], path: Path) -> None:
    """One report as the documented object; several (``--game all``) as a list of them."""
    data: Any = [r.to_json() for r in reports]
    if len(reports) == 1:
        data = data[0]
    path.write_text(json.dumps(data, indent=2) + "\n")


def bars(report: Report) -> list[tuple[str, float, tuple[float, float]]]:
    """The plot's bars: label, win rate and interval per entry or matrix cell."""
    if isinstance(report, ArenaReport):
        return [(a.name, a.win_rate, a.win_ci) for a in report.agents]
    return [
        (f"{c.agent} vs {report.players - 1} {c.opponent}", c.result.win_rate, c.result.win_ci)
        for c in report.cells
    ]


def write_plot(reports: Sequence[Report], path: Path) -> None:
    """Win rates with their 95% intervals, one panel per game, fair share dashed."""
    with require("plot"):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

    heights = [0.6 + 0.25 * len(bars(r)) + 0.6 for r in reports]
    fig, axes = plt.subplots(
        len(reports), 1, figsize=(7, sum(heights)), squeeze=False, height_ratios=heights
    )
    for ax, report in zip(axes[:, 0], reports, strict=True):
        labels, rates, cis = zip(*bars(report), strict=True)
        rates_array = np.array(rates)
        lows = np.clip(rates_array - [ci[0] for ci in cis], 0, None)
        highs = np.clip([ci[1] for ci in cis] - rates_array, 0, None)
        ax.barh(labels, rates_array, xerr=[lows, highs], capsize=4, color="tab:blue")
        ax.axvline(1 / report.players, color="grey", linestyle="--", linewidth=1)
        ax.set_xlim(0, 1)
        ax.invert_yaxis()  # agents top to bottom in report order
        ax.set_title(f"{report.game}, {report.players} players", fontsize=10)
    axes[-1, 0].set_xlabel("win rate (95% interval); dashed: fair share 1/players")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# -- command ------------------------------------------------------------------------------------
def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def cmd_arena(args: argparse.Namespace) -> int:
    if args.episodes is not None and args.budget is not None:
        raise ValueError("give --episodes (a fixed size) or --budget (a time), not both")
    if args.budget is not None and args.budget <= 0:
        raise ValueError(f"--budget must be a positive number of seconds; got {args.budget}")
    start = time.perf_counter()
    todo = cases(args.game, parse_players(args.players))
    jobs = build_jobs(todo, args.agents, args.matrix, args.trust_checkpoint)
    progress = Progress(sys.stderr)

    playing = []

    def finished(job: Job, report: Report, seconds: float) -> None:
        playing.append(seconds)
        progress.clear()
        print(format_report(report, seconds), end="\n\n", flush=True)
        games = sum(len(o) for o in job.outcomes)
        measured = ", its measuring included" if args.episodes is None else ""
        progress.note(
            f"arena: {job.env_name} done: {deals_text(job)}, {games:,} games in {seconds:.1f} s "
            f"({sum(job.cpu):.1f} s of CPU in play on {plural(args.workers, 'worker')}"
            f"{measured})"
        )

    budget = (args.budget or DEFAULT_BUDGET) - (time.perf_counter() - start)  # the whole command
    with Workers(args.workers) as workers:
        arena = Arena(
            workers,
            args.seed,
            trust=args.trust_checkpoint,
            progress=progress,
            record=Path(args.record) if args.record else None,
        )
        reports = arena.run(jobs, args.episodes, max(budget, 1e-3), finished)
    if args.json:
        write_json(reports, Path(args.json))
    if args.plot:
        write_plot(reports, Path(args.plot))
    total = time.perf_counter() - start
    print(
        f"arena: {plural(len(reports), 'game')} in {total:.1f} s on "
        f"{plural(args.workers, 'worker')}: {sum(playing):.1f} s playing them (the times above), "
        f"{total - sum(playing):.1f} s {'measuring, ' * (args.episodes is None)}"
        "starting workers and agents"
    )
    return 0


DESCRIPTION = (
    "Compare agents on fixed seeded deals with seats rotated. By default each agent of a game "
    "plays alone against three random players and against three heuristics (the README's "
    "claims), sized to a time budget; --matrix: every agent against every other; --agents: one "
    "pool of entries with ratings. Win rates with 95% intervals. See docs/arena.md."
)


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs arena``."""
    parser = subparsers.add_parser(
        "arena",
        help="compare agents on seeded deals with seats rotated (win rates, ratings)",
        description=DESCRIPTION,
    )
    parser.add_argument("--game", default=ALL, choices=game_choices(), help="default: all")
    parser.add_argument(
        "--agents",
        nargs="+",
        default=None,
        help="agent kinds ('card-envs list --agents' lists each game's: random, heuristic, "
        "the game's stronger heuristics, ppo, ppo_advised, ismcts, pimc), a checkpoint path or "
        "your class as package.module:ClassName; one pool of entries (default: the game's "
        "built-in agents in the matrix against random and heuristic)",
    )
    parser.add_argument(
        "--matrix",
        action="store_true",
        help="every agent (--agents, or the game's built-in ones) alone against every other",
    )
    parser.add_argument("--players", default=None, help="a count or 'all' (default: the game's)")
    parser.add_argument(
        "--episodes",
        type=int,
        default=None,
        help="deals per line-up, each played in every seating (default: sized to --budget)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help=f"without --episodes, size the run to about this long (default {DEFAULT_BUDGET:g})",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="every deal and agent seed derives from it"
    )
    parser.add_argument(
        "--workers", type=int, default=default_workers(), help="processes (default: usable cores)"
    )
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="allow checkpoints that unpickle (SB3 .zip, RLlib exports): they can run code",
    )
    parser.add_argument("--json", default=None, metavar="PATH", help="write the results as JSON")
    parser.add_argument("--plot", default=None, metavar="PATH", help="write a PNG chart")
    parser.add_argument(
        "--record",
        default=None,
        metavar="PATH",
        help="add every game's record to this JSON Lines file (docs/records.md)",
    )
    parser.set_defaults(func=cmd_arena)
