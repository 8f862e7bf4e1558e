"""``card-envs leaderboard``: every built-in and shipped agent of each game (and ``--agents``)
in line-ups where every pair meets, on the published evaluation set within a time budget, rated
on luck-adjusted outcomes with bootstrap intervals over deals (``docs/evaluation.md``).

A run writes its page, plot, JSON and each agent's scorecard into a new folder under ``runs/``
(or ``--out``); only ``--write`` replaces the shipped ``docs/leaderboard.md``,
``docs/images/leaderboard.png`` and ``benchmarks/results/leaderboard.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents import agent_kinds
from card_envs.agents.builtin import SEARCH_KINDS
from card_envs.agents.pool import Workers
from card_envs.core.extras import require
from card_envs.evaluation import scorecard
from card_envs.evaluation.leaderboard import (
    Rating,
    deal_tables,
    lineups,
    outcomes,
    ratings,
)
from card_envs.evaluation.protocol import CURRENT, Protocol, load_protocol
from card_envs.evaluation.run import LuckSettings, Side
from card_envs.evaluation.tables import TableResult, play_table
from card_envs.registry import make
from card_envs.tools.arena import Progress
from card_envs.tools.arena.command import default_workers
from card_envs.tools.evaluate import check_agent
from card_envs.tools.selection import ALL, add_game_argument, cases, parse_players

FORMAT = "card-envs.leaderboard/1"
DEFAULT_BUDGET = 600.0
MIN_DEALS = 2  # an interval needs two deals: a game gets them whatever the budget
SHIPPED = {
    "page": Path("docs/leaderboard.md"),
    "plot": Path("docs/images/leaderboard.png"),
    "json": Path("benchmarks/results/leaderboard.json"),
    "scorecards": Path("benchmarks/results/scorecards"),
}
ANCHOR = "heuristic"
# The plot cuts an interval end farther than this from its rating (an agent that never wins has
# no lower bound) at that distance, marked by an arrow, so that one agent does not flatten the
# panel.
PLOT_SPAN = 3.0


@dataclass
class Board:
    """One game's leaderboard: its agents, line-ups and the tables played, deal by deal."""

    env_name: str
    num_players: int
    kinds: list[str]
    schedule: list[tuple[int, ...]]
    luck: LuckSettings
    played: list[list[tuple[tuple[int, ...], TableResult]]] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0

    def lines(self) -> list[Rating]:
        plain, adjusted = [], []
        for deal, tables in enumerate(self.played):
            for entries, result in tables:
                plain.append(outcomes(deal, entries, result, None))
                adjusted.append(outcomes(deal, entries, result, self.luck.weight))
        anchor = self.kinds.index(ANCHOR) if ANCHOR in self.kinds else 0
        return ratings(self.kinds, plain, adjusted, anchor)

    def side(self, entry: int) -> Side:
        """Agent ``entry``'s seat-games, deal by deal."""
        return Side(
            self.kinds[entry],
            [
                [
                    (result, seat)
                    for entries, result in tables
                    for seat, e in enumerate(entries)
                    if e == entry
                ]
                for tables in self.played
            ],
        )


def default_kinds(
    env_name: str, num_players: int, extra: Sequence[str], without: Sequence[str]
) -> list[str]:
    """The game's built-in and shipped agents, the search agents and ``extra``, less ``without``."""
    info = make(env_name, num_players=num_players).describe()
    kinds = [*agent_kinds(info), *SEARCH_KINDS, *extra]
    return [k for k in dict.fromkeys(kinds) if k not in without]


def play_board(
    board: Board,
    protocol: Protocol,
    budget: float,
    workers: Workers,
    progress: Progress,
    trust: bool,
    deals: int | None = None,
) -> None:
    """Play deals of ``board`` until the next would overrun ``budget`` wall seconds (at least
    :data:`MIN_DEALS`), or ``deals`` of them."""
    started = time.perf_counter()
    deal = 0
    while True:
        tables = deal_tables(
            board.env_name,
            board.num_players,
            protocol,
            deal,
            board.kinds,
            board.schedule,
            board.luck,
            trust,
        )
        done = []
        for (entries, _), result in zip(
            tables, workers.imap(play_table, [t for _, t in tables]), strict=True
        ):
            if result.error is not None:
                board.error = f"{result.error} (deal {deal})"
                board.seconds = time.perf_counter() - started
                return
            done.append((entries, result))
            progress.update(len(done), len(tables), len(done), len(tables) - len(done))
        board.played.append(done)
        deal += 1
        elapsed = time.perf_counter() - started
        if deals is not None:
            if deal >= deals:
                break
        elif deal >= MIN_DEALS and elapsed * (deal + 1) / deal > budget:
            break
    board.seconds = time.perf_counter() - started


def board_text(board: Board, lines: Sequence[Rating]) -> str:
    """A game's leaderboard as fixed-width text."""
    width = max(12, *(len(r.agent) for r in lines))
    games = len(board.played) * sum(len(lineup) for lineup in board.schedule)
    out = [
        f"{board.env_name}, {board.num_players} players: {len(board.kinds)} agents in "
        f"{len(board.schedule)} line-ups, {len(board.played)} deals, {games} games, "
        f"{board.seconds:.0f} s; luck by the {board.luck.value} value",
        f"{'agent':<{width}} {'rating':>7} {'95% interval':>17} {'win share':>9} "
        f"{'adjusted':>9} {'games':>6}",
    ]
    for r in lines:
        out.append(
            f"{r.agent:<{width}} {r.rating:>7.2f} {f'[{r.low:.2f}, {r.high:.2f}]':>17} "
            f"{r.win_share:>9.3f} {r.adjusted:>9.3f} {r.games:>6}"
        )
    return "\n".join(out)


def board_json(board: Board, lines: Sequence[Rating]) -> dict[str, Any]:
    return {
        "env": board.env_name,
        "players": board.num_players,
        "agents": board.kinds,
        "lineups": [[board.kinds[e] for e in lineup] for lineup in board.schedule],
        "deals": len(board.played),
        "luck": {
            "value": board.luck.value,
            "samples": board.luck.samples,
            "weight": board.luck.weight,
        },
        "ratings": [r.to_json() for r in lines],
        **({"error": board.error} if board.error else {}),
    }


def page(
    boards: Sequence[Board], lines: Sequence[Sequence[Rating]], stamp: str, budget: float, plot: str
) -> str:
    """``docs/leaderboard.md``: a table per game and the plot."""
    out = [
        "# Leaderboard",
        "",
        f"Written by `card-envs leaderboard --write` on {stamp} ({budget:g} s budget, "
        f"{CURRENT} deals). Every agent of a game is seated with every other in the line-ups "
        "below, each line-up played in every rotation on the same deals. The rating is the "
        "strength of a multiplayer Bradley-Terry model (Plackett-Luce's first place) fitted to "
        "luck-adjusted outcomes, anchored at the heuristic's 0; the interval is a bootstrap over "
        "deals. How it is computed: [Evaluation](evaluation.md#the-leaderboard).",
        "",
        f"![Ratings with 95% intervals]({plot})",
        "",
    ]
    for board, rated in zip(boards, lines, strict=True):
        lineup_text = "; ".join(
            " ".join(board.kinds[e] for e in lineup) for lineup in board.schedule
        )
        out += [
            f"## `{board.env_name}`",
            "",
            f"{board.num_players} players, {len(board.played)} deals; line-ups: {lineup_text}.",
            "",
            "| rank | agent | rating | 95% interval | win share | luck-adjusted | seat-games |",
            "|---|---|---|---|---|---|---|",
        ]
        for rank, r in enumerate(rated, 1):
            out.append(
                f"| {rank} | `{r.agent}` | {r.rating:.2f} | [{r.low:.2f}, {r.high:.2f}] | "
                f"{r.win_share:.3f} | {r.adjusted:.3f} | {r.games:,} |"
            )
        if board.error:
            out += ["", f"Stopped early: {board.error}."]
        out.append("")
    return "\n".join(out)


def write_plot(boards: Sequence[Board], lines: Sequence[Sequence[Rating]], path: Path) -> None:
    """Ratings with their intervals, one panel per game."""
    with require("plot"):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

    heights = [0.8 + 0.3 * len(rated) for rated in lines]
    fig, axes = plt.subplots(
        len(boards), 1, figsize=(7, sum(heights)), squeeze=False, height_ratios=heights
    )
    for ax, board, rated in zip(axes[:, 0], boards, lines, strict=True):
        values = np.array([r.rating for r in rated])
        rows = np.arange(len(rated))
        low = np.clip(values - [r.low for r in rated], 0, None)
        high = np.clip([r.high for r in rated] - values, 0, None)
        ax.errorbar(
            values,
            rows,
            xerr=[low.clip(max=PLOT_SPAN), high.clip(max=PLOT_SPAN)],
            fmt="o",
            capsize=4,
        )
        for side, extent, marker in ((-1, low, "<"), (1, high, ">")):
            cut = extent > PLOT_SPAN
            ax.plot(values[cut] + side * PLOT_SPAN, rows[cut], marker, color="C0")
        ax.set_yticks(rows, [r.agent for r in rated])
        ax.axvline(0, color="grey", linestyle="--", linewidth=1)
        ax.invert_yaxis()
        ax.set_title(f"{board.env_name}, {board.num_players} players", fontsize=10)
    axes[-1, 0].set_xlabel("rating (95% bootstrap interval); dashed: the heuristic")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_outputs(
    boards: Sequence[Board],
    lines: Sequence[Sequence[Rating]],
    protocol: Protocol,
    paths: dict[str, Path],
    budget: float,
) -> None:
    """The page, plot, JSON and each agent's scorecard at ``paths``."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    for path in paths.values():
        (path if path.suffix == "" else path.parent).mkdir(parents=True, exist_ok=True)
    write_plot(boards, lines, paths["plot"])
    plot = (
        Path("images") / paths["plot"].name
        if paths["page"].parent.name == "docs"
        else Path(paths["plot"].name)
    )
    paths["page"].write_text(page(boards, lines, stamp, budget, plot.as_posix()))
    data = {
        "format": FORMAT,
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "protocol": protocol.name,
        "budget": budget,
        "games": [board_json(b, r) for b, r in zip(boards, lines, strict=True)],
    }
    paths["json"].write_text(json.dumps(data, indent=2) + "\n")
    for board in boards:
        for entry, kind in enumerate(board.kinds):
            side = board.side(entry)
            if not side.deals or not side.deals[0]:
                continue
            others = [k for k in board.kinds if k != kind]
            card = scorecard.build(
                side, board.env_name, board.num_players, protocol, others, board.luck
            )
            name = kind.replace("/", "_").replace(":", "_")
            scorecard.write(card, paths["scorecards"] / f"{board.env_name}_{name}.json")


def output_paths(args: argparse.Namespace) -> dict[str, Path]:
    if args.write:
        return dict(SHIPPED)
    folder = (
        Path(args.out)
        if args.out
        else Path("runs") / datetime.now().strftime("leaderboard-%Y%m%d-%H%M%S")
    )
    return {
        "page": folder / "leaderboard.md",
        "plot": folder / "leaderboard.png",
        "json": folder / "leaderboard.json",
        "scorecards": folder / "scorecards",
    }


def cmd_leaderboard(args: argparse.Namespace) -> int:
    if args.write and args.out:
        raise ValueError("give --write (the shipped files) or --out (a folder), not both")
    if args.write and (args.game != ALL or args.players is not None):
        raise ValueError(
            "--write replaces the shipped page, which rates every game at its default count: "
            "give it with --game all and no --players, or write a part with --out"
        )
    if args.budget <= 0:
        raise ValueError(f"--budget must be a positive number of seconds; got {args.budget}")
    todo = cases(args.game, parse_players(args.players))
    protocol = load_protocol(args.protocol)
    boards = []
    for env_name, num_players in todo:
        kinds = default_kinds(env_name, num_players, args.agents or [], args.without or [])
        for kind in kinds:
            check_agent(kind, env_name, num_players, args.trust_checkpoint)
        boards.append(
            Board(
                env_name,
                num_players,
                kinds,
                lineups(len(kinds), num_players),
                LuckSettings.of(env_name),
            )
        )
    progress = Progress(sys.stderr)
    lines = []
    with Workers(args.workers) as workers:
        for board in boards:
            progress.start(f"leaderboard: {board.env_name}")
            share = args.budget / len(boards)
            play_board(board, protocol, share, workers, progress, args.trust_checkpoint, args.deals)
            progress.close()
            if not board.played:
                print(f"{board.env_name}: no deal finished: {board.error}", file=sys.stderr)
                return 2
            lines.append(board.lines())
            print(board_text(board, lines[-1]), end="\n\n", flush=True)
            if board.error:
                print(
                    f"card-envs: error: {board.error}; its finished deals are kept", file=sys.stderr
                )
    paths = output_paths(args)
    write_outputs(boards, lines, protocol, paths, args.budget)
    print(f"leaderboard: {paths['page']}, {paths['plot']}, {paths['json']}, {paths['scorecards']}/")
    return 2 if any(b.error for b in boards) else 0


DESCRIPTION = (
    "Rate every built-in and shipped agent of each game (random, the heuristics, ismcts, pimc, "
    "ppo, ppo_advised, and --agents) in line-ups where every pair meets, on the published "
    "evaluation set within --budget seconds: a multiplayer Bradley-Terry rating of luck-adjusted "
    "outcomes with bootstrap intervals over deals. Writes into runs/ (or --out); --write "
    "replaces the shipped docs/leaderboard.md. See docs/evaluation.md."
)


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs leaderboard``."""
    parser = subparsers.add_parser(
        "leaderboard",
        help="rate every agent of each game on the evaluation set (luck-adjusted, intervals)",
        description=DESCRIPTION,
    )
    add_game_argument(parser)
    parser.add_argument(
        "--budget",
        type=float,
        default=DEFAULT_BUDGET,
        metavar="SECONDS",
        help=f"wall seconds for the whole run, shared by the games (default {DEFAULT_BUDGET:g})",
    )
    parser.add_argument(
        "--deals", type=int, default=None, help="a fixed number of deals a game instead"
    )
    parser.add_argument(
        "--agents", nargs="+", default=None, help="more agents beside the built-in ones"
    )
    parser.add_argument("--without", nargs="+", default=None, help="built-in agents to leave out")
    parser.add_argument("--players", default=None, help="a count or 'all' (default: the game's)")
    parser.add_argument("--protocol", default=CURRENT, help=f"the evaluation set ({CURRENT})")
    parser.add_argument(
        "--workers", type=int, default=default_workers(), help="processes (default: cores)"
    )
    parser.add_argument(
        "--trust-checkpoint", action="store_true", help="allow checkpoints that unpickle"
    )
    parser.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="the folder to write (default: runs/leaderboard-TIME)",
    )
    parser.add_argument(
        "--write", action="store_true", help="replace the shipped page, plot and JSON"
    )
    parser.set_defaults(func=cmd_leaderboard)
