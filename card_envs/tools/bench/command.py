"""``card-envs bench``: every case measured with its heuristics, the references before and
after; the command line and what it writes."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from card_envs.tools.bench.markdown import PAGE_TITLE, readme_table, report_markdown
from card_envs.tools.bench.measure import (
    DEFAULT_SECONDS,
    decision_times,
    heuristic_kinds,
    measure_game,
    profile_hot_spots,
)
from card_envs.tools.bench.references import measure_hearts, measure_references, set_ratios
from card_envs.tools.bench.report import machine, report_json, report_text, write_json
from card_envs.tools.bench.results import Report
from card_envs.tools.bench.training import cmd_training
from card_envs.tools.bench.vector import VECTOR_TABLES, cmd_vector
from card_envs.tools.docs import write_block
from card_envs.tools.selection import ALL, add_game_argument, cases, parse_players


def run_bench(
    todo: Sequence[tuple[str, int]],
    seconds: float,
    references: bool = True,
    log: Callable[[str], None] = print,
    heuristics: bool = True,
) -> Report:
    """Measure every ``(game, players)`` case, its heuristics, the references and hearts.

    The references run before and after the games and the faster run of each is kept, so a
    machine whose load changes during the run cannot flatter the games' ratios.
    """
    before = measure_references(seconds, log) if references else []
    rows, times = [], []
    for name, num_players in todo:
        log(f"bench: {name} at {num_players} players ...")
        rows.append(measure_game(name, num_players, seconds))
        for kind in heuristic_kinds(name, num_players) if heuristics else []:
            times.append(decision_times(name, num_players, kind, seconds))
    hearts = measure_hearts(seconds, log) if references else None
    after = measure_references(seconds, log) if before else []
    refs = [
        max(pair, key=lambda r: r.agent_steps_per_s) for pair in zip(before, after, strict=True)
    ]
    set_ratios(rows, refs)
    return Report(rows + refs, times, hearts)


def cmd_bench(args: argparse.Namespace) -> int:
    if args.seconds <= 0:
        raise ValueError(f"--seconds must be positive; got {args.seconds}")
    if args.training:
        players = None if args.players == ALL else parse_players(args.players)
        return cmd_training(args, cases(args.game, players))
    if args.vector:
        return cmd_vector(args)
    todo = cases(args.game, parse_players(args.players))
    report = run_bench(todo, args.seconds, heuristics=not args.skip_heuristics)
    info = machine()
    print(report_text(report))
    misses = [r for r in report.rows if r.meets_target is False]
    for row in misses if args.profile else []:
        print(f"\nhot spots of {row.env} at {row.players} players (cProfile, by own time):")
        print(profile_hot_spots(row.env, row.players, args.seconds))
    if args.json:
        write_json(Path(args.json), report_json(report, info, args.seconds))
    if args.markdown:
        write_block(
            Path(args.markdown), "bench", report_markdown(report, info, args.seconds), PAGE_TITLE
        )
    if args.readme:
        write_block(Path(args.readme), "bench", readme_table(report, info), PAGE_TITLE)
    return 0


DESCRIPTION = (
    "Measure every game's speed (AEC loop, rules only, rules with observation, reset, memory) "
    "beside PettingZoo's leduc_holdem_v4 and texas_holdem_v4 and OpenSpiel's hearts, and the "
    "decision time of every built-in heuristic. See docs/benchmarks.md."
)


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs bench``."""
    parser = subparsers.add_parser(
        "bench",
        help="speed of every game and heuristic vs PettingZoo's Leduc/Texas Hold'em",
        description=DESCRIPTION,
    )
    add_game_argument(parser)
    parser.add_argument("--players", default=ALL, help="a count or 'all' (default: all)")
    parser.add_argument(
        "--seconds", type=float, default=DEFAULT_SECONDS, help="time per timed figure"
    )
    parser.add_argument("--json", default=None, metavar="PATH", help="write results as JSON")
    parser.add_argument(
        "--markdown", default=None, metavar="PATH", help="fill the table in e.g. docs/benchmarks.md"
    )
    parser.add_argument(
        "--readme", default=None, metavar="PATH", help="fill the speed table in e.g. README.md"
    )
    parser.add_argument(
        "--skip-heuristics", action="store_true", help="do not time the built-in heuristics"
    )
    parser.add_argument(
        "--profile", action="store_true", help="print cProfile hot spots of games below target"
    )
    parser.add_argument(
        "--training",
        action="store_true",
        help="instead: each game's self-play trainer steps/s beside its random-play AEC steps/s "
        "(at the game's default player count unless --players; --seconds of CPU per game)",
    )
    parser.add_argument(
        "--vector",
        action="store_true",
        help=f"instead: card_envs.vector's steps/s at {VECTOR_TABLES} tables beside the AEC "
        "loop's and the rules + observation's (each game once at its default player count "
        "unless --game/--players; --profile adds where the vector step goes)",
    )
    parser.set_defaults(func=cmd_bench)
