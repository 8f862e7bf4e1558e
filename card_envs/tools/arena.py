"""``card-envs arena``: agents compared on fixed seeded deals, seats rotated, with ratings.

Every deal is played once per seating, so every agent sits in every seat on the same cards (the
DouZero/RLCard evaluation practice). Games run in parallel, but each is a pure function of its
task (deal seed, seating, agent seeds) and results are reassembled in task order, so a report is
identical bit for bit whatever ``--workers``. How seats are filled, how shared wins count and
how the interval and rating are computed: ``docs/arena.md``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents import Agent, agent_kinds, make_agent
from agents.match import GameResult, play_game
from card_envs.core.env import CardEnv, EnvInfo
from card_envs.registry import make
from card_envs.tools.selection import ALL, cases, game_choices, parse_players
from card_envs.tools.stats import Ratings, finishing_ranks, wilson_interval

# Default size of a run (no --episodes): tables within an agent-step budget, clamped.
STEP_BUDGET = 150_000
MIN_TABLES, MAX_TABLES = 100, 400
LENGTH_PROBES = 4  # seeded random games that measure a game's typical length
RANDOM = "random"


@dataclass(frozen=True)
class Task:
    """One table of the arena: everything that decides its outcome."""

    env_name: str
    num_players: int
    kinds: tuple[str, ...]  # the agent name in each seat
    deal_seed: int
    agent_seeds: tuple[int, ...]


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
    """The results of one game at one player count."""

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
    names: Sequence[str],
    episodes: int,
    seed: int,
) -> list[Task]:
    """Deal-major list of tables: deal ``d`` (seed from ``seed, d``) in every seating."""
    tables = seatings(len(names), num_players)
    return [
        Task(
            env_name=env_name,
            num_players=num_players,
            kinds=tuple(names[entry] for entry in seating),
            deal_seed=derived_seed(seed, deal),
            agent_seeds=tuple(derived_seed(seed, deal, t, seat) for seat in range(num_players)),
        )
        for deal in range(episodes)
        for t, seating in enumerate(tables)
    ]


# -- playing (runs in worker processes) ---------------------------------------------------------
_ENVS: dict[tuple[str, int], CardEnv] = {}
_AGENTS: dict[tuple[str, int, str, int], Agent] = {}


def _env(name: str, num_players: int) -> CardEnv:
    key = (name, num_players)
    if key not in _ENVS:
        _ENVS[key] = make(name, num_players=num_players)
    return _ENVS[key]


def _agent(env: CardEnv, kind: str, seat: int) -> Agent:
    """One cached agent per seat and kind: built once, reseeded every game by ``reset``."""
    key = (env.metadata["name"], env.game.num_players, kind, seat)
    if key not in _AGENTS:
        _AGENTS[key] = make_agent(kind, env.describe())
    return _AGENTS[key]


def play(task: Task) -> GameResult:
    """Play one table to the end; depends on nothing but ``task``."""
    env = _env(task.env_name, task.num_players)
    agents = [_agent(env, kind, seat) for seat, kind in enumerate(task.kinds)]
    for agent, seed in zip(agents, task.agent_seeds, strict=True):
        agent.reset(seed)
    return play_game(env, agents, seed=task.deal_seed)


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

    def run(self, tasks: Sequence[Task], label: str) -> list[GameResult]:
        """GameResults in task order, with a progress bar when stderr is a terminal."""
        if self.count == 1:
            results: Iterable[GameResult] = map(play, tasks)
        else:
            context = multiprocessing.get_context("forkserver")
            self.pool = self.pool or context.Pool(self.count, initializer=_one_thread_each)
            chunk = max(1, len(tasks) // (self.count * 16))
            results = self.pool.imap(play, tasks, chunksize=chunk)
        bar = tqdm(results, total=len(tasks), desc=label, unit="game", disable=None, leave=False)
        return list(bar)


def _one_thread_each() -> None:
    """Runs in each worker before any import of torch (or numpy's BLAS) can start threads."""
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(variable, "1")


# -- episode counts and reports -----------------------------------------------------------------
def typical_length(env_name: str, num_players: int) -> float:
    """Mean agent-steps of a few seeded random games."""
    probes = [
        Task(env_name, num_players, (RANDOM,) * num_players, seed, (seed,) * num_players)
        for seed in range(LENGTH_PROBES)
    ]
    return sum(play(task).steps for task in probes) / LENGTH_PROBES


def default_episodes(env_name: str, num_players: int, tables_per_deal: int) -> int:
    """Deals for about :data:`STEP_BUDGET` agent-steps at the game's measured length, as tables
    clamped to ``MIN_TABLES..MAX_TABLES``; a function of the game alone, never of the machine."""
    tables = round(STEP_BUDGET / max(1.0, typical_length(env_name, num_players)))
    tables = min(MAX_TABLES, max(MIN_TABLES, tables))
    return max(1, math.ceil(tables / tables_per_deal))


def summarise(
    labels: Sequence[str], tasks_seatings: Sequence[tuple[int, ...]], outcomes: Sequence[GameResult]
) -> tuple[AgentReport, ...]:
    """Per-entry games, win share, means and rating, accumulated in table order."""
    count = len(labels)
    games, wins = [0] * count, [0.0] * count
    score_sum, reward_sum = [0.0] * count, [0.0] * count
    ratings = Ratings(count)
    for seating, outcome in zip(tasks_seatings, outcomes, strict=True):
        for seat, entry in enumerate(seating):
            games[entry] += 1
            if seat in outcome.winners:
                wins[entry] += 1 / len(outcome.winners)
            score_sum[entry] += outcome.scores[seat]
            reward_sum[entry] += outcome.rewards[seat]
        ratings.update(seating, finishing_ranks(outcome.winners, outcome.scores))
    return tuple(
        AgentReport(
            name=labels[e],
            games=games[e],
            win_rate=wins[e] / games[e],
            win_ci=wilson_interval(wins[e], games[e]),
            mean_score=score_sum[e] / games[e],
            mean_reward=reward_sum[e] / games[e],
            rating=ratings.ordinal(e),
            mu=float(ratings.ratings[e].mu),
            sigma=float(ratings.ratings[e].sigma),
        )
        for e in range(count)
    )


def check_agents(info: EnvInfo, names: Sequence[str]) -> None:
    """Fail early, in this process, on an agent name ``make_agent`` does not know."""
    for name in sorted(set(names)):
        make_agent(name, info, 0)


def run_arena(
    env_name: str,
    agents: Sequence[str] | None = None,
    num_players: int | None = None,
    episodes: int | None = None,
    seed: int = 0,
    workers: Workers | None = None,
) -> ArenaReport:
    """Play ``episodes`` deals of one game in every seating and report per agent.

    ``agents`` defaults to the game's built-in kinds (``agents.agent_kinds``), ``num_players`` to
    the game's default and ``episodes`` to :func:`default_episodes`.
    """
    env = make(env_name, num_players=num_players)
    num_players = env.game.num_players
    info = env.describe()
    names = list(agents) if agents else agent_kinds(info)
    check_agents(info, names)
    tables = seatings(len(names), num_players)
    if episodes is None:
        episodes = default_episodes(env_name, num_players, len(tables))
    elif episodes < 1:
        raise ValueError(f"--episodes must be at least 1; got {episodes}")
    tasks = make_tasks(env_name, num_players, names, episodes, seed)
    workers = workers or Workers(1)
    outcomes = workers.run(tasks, f"{env_name} {num_players}p")
    table_seatings = [tables[i % len(tables)] for i in range(len(tasks))]
    return ArenaReport(
        game=env_name,
        players=num_players,
        episodes=episodes,
        seed=seed,
        seatings=len(tables),
        agents=summarise(entry_labels(names), table_seatings, outcomes),
    )


# -- output -------------------------------------------------------------------------------------
def format_report(report: ArenaReport, seconds: float) -> str:
    """The report as a fixed-width text table."""
    games = report.episodes * report.seatings
    width = max(12, *(len(a.name) for a in report.agents))
    lines = [
        f"{report.game}, {report.players} players: {report.episodes} deals x "
        f"{report.seatings} seatings = {games} games, seed {report.seed}, {seconds:.1f} s; "
        f"games and win rates per seat (fair share {1 / report.players:.3f})",
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
    return "\n".join(lines)


def write_json(reports: Sequence[ArenaReport], path: Path) -> None:
    """One report as the documented object; several (``--game all``) as a list of them."""
    data: Any = [r.to_json() for r in reports]
    if len(reports) == 1:
        data = data[0]
    path.write_text(json.dumps(data, indent=2) + "\n")


def write_plot(reports: Sequence[ArenaReport], path: Path) -> None:
    """Win rates with their 95% intervals, one panel per game, fair share dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(reports), 1, figsize=(7, 0.6 + 1.6 * len(reports)), squeeze=False)
    for ax, report in zip(axes[:, 0], reports, strict=True):
        names = [a.name for a in report.agents]
        rates = np.array([a.win_rate for a in report.agents])
        lows = np.clip(rates - [a.win_ci[0] for a in report.agents], 0, None)
        highs = np.clip([a.win_ci[1] for a in report.agents] - rates, 0, None)
        ax.barh(names, rates, xerr=[lows, highs], capsize=4, color="tab:blue")
        ax.axvline(1 / report.players, color="grey", linestyle="--", linewidth=1)
        ax.set_xlim(0, 1)
        ax.invert_yaxis()  # agents top to bottom in report order
        ax.set_title(f"{report.game}, {report.players} players", fontsize=10)
    axes[-1, 0].set_xlabel("win rate (95% Wilson interval); dashed: fair share 1/players")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# -- command ------------------------------------------------------------------------------------
def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def cmd_arena(args: argparse.Namespace) -> int:
    todo = cases(args.game, parse_players(args.players))
    start = time.perf_counter()
    reports = []
    with Workers(args.workers) as workers:
        for name, num_players in todo:
            began = time.perf_counter()
            report = run_arena(name, args.agents, num_players, args.episodes, args.seed, workers)
            reports.append(report)
            print(format_report(report, time.perf_counter() - began), end="\n\n", flush=True)
    if args.json:
        write_json(reports, Path(args.json))
    if args.plot:
        write_plot(reports, Path(args.plot))
    print(
        f"arena: {len(reports)} runs in {time.perf_counter() - start:.1f} s, {args.workers} workers"
    )
    return 0


DESCRIPTION = (
    "Compare agents on fixed seeded deals with seats rotated: win rates with 95% Wilson "
    "intervals, mean scores and rewards, openskill ratings. See docs/arena.md."
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
        help="random, heuristic, ppo or checkpoint paths (default: the game's built-in agents)",
    )
    parser.add_argument("--players", default=None, help="a count or 'all' (default: the game's)")
    parser.add_argument(
        "--episodes", type=int, default=None, help="deals, each played in every seating"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="every deal and agent seed derives from it"
    )
    parser.add_argument(
        "--workers", type=int, default=default_workers(), help="processes (default: usable cores)"
    )
    parser.add_argument("--json", default=None, metavar="PATH", help="write the results as JSON")
    parser.add_argument("--plot", default=None, metavar="PATH", help="write a PNG chart")
    parser.set_defaults(func=cmd_arena)
