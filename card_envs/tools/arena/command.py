"""``card-envs arena``: the command line, its progress and closing lines."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from card_envs.agents.pool import Workers
from card_envs.tools.arena.jobs import DEFAULT_BUDGET, Job, build_jobs, deals_text
from card_envs.tools.arena.output import format_report, write_json, write_plot
from card_envs.tools.arena.progress import Progress, plural
from card_envs.tools.arena.report import Report
from card_envs.tools.arena.schedule import Arena
from card_envs.tools.selection import add_game_argument, cases, parse_players


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
            luck=args.luck,
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
    add_game_argument(parser)
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
    parser.add_argument(
        "--luck",
        action="store_true",
        help="also a luck-adjusted win rate, for games that declare how their luck is measured "
        "(docs/evaluation.md); the same games, with the adjustment's CPU time on top",
    )
    parser.set_defaults(func=cmd_arena)
