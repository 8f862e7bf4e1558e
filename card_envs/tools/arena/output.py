"""A run's reports as the command shows and writes them: fixed-width text tables, the
documented JSON, a PNG of win rates."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.core.extras import require
from card_envs.tools.arena.report import AgentReport, ArenaReport, CellReport, MatrixReport, Report


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
    lines += adjusted_lines([(a.name, a.adjusted) for a in report.agents])
    legend = [
        "games: seat-games played; win rate: wins per seat-game (a shared win split between its "
        f"winners; fair share {1 / report.players:.3f}),",
        "  95% CI over deals; mean score and reward per seat-game; rating: mu - 3 sigma of a "
        "Plackett-Luce rating of wins",
    ]
    return "\n".join(lines + legend + rating_notes(report.agents))


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
    lines += adjusted_lines(
        [(f"{c.agent} vs {field_size} {c.opponent}", c.result.adjusted) for c in report.cells]
    )
    lines += [
        "a cell: the agent's win share (wins per seat-game it played, a shared win split "
        "between its winners) [its 95% interval over deals], then",
        f"  > above, < below or = not told apart from the fair share {fair:.3f}, then the "
        "seat-games played; - not played (an agent against a field of its own kind)",
    ]
    return "\n".join(lines)


def adjusted_lines(shares: Sequence[tuple[str, tuple[float, float, float] | None]]) -> list[str]:
    """The luck-adjusted win rates beside the plain ones, where the game measures its luck."""
    known = [
        f"{name} {v:.3f} [{low:.3f}, {high:.3f}]"
        for name, (v, low, high) in ((n, a) for n, a in shares if a is not None)
    ]
    if not known:
        return []
    return [
        "luck-adjusted win rate [95% t-interval over deals] (docs/evaluation.md): "
        + "; ".join(known)
    ]


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
