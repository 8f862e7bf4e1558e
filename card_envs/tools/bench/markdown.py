"""A run's figures as the Markdown tables of ``docs/benchmarks.md`` and the README's speed
table (written into their generated blocks by ``card_envs.tools.docs.write_block``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from card_envs.tools.bench.report import count, decision_mark, ratio_columns
from card_envs.tools.bench.results import (
    TARGET_DECISION_US,
    TARGET_RATIO,
    TARGET_RAW_RATIO,
    DecisionTimes,
    Measurement,
    Report,
    RulesReference,
)
from card_envs.tools.selection import default_players

PAGE_TITLE = "Benchmarks"  # of the page --markdown makes when there is none


def measured_line(info: dict[str, Any], seconds: float) -> str:
    return (
        f"Measured {info['date']} on {info['cpu']} ({info['cores']} cores), Python "
        f"{info['python']}, numpy {info['numpy']}, PettingZoo {info['pettingzoo']}; "
        f"load average {info['load_average']}; {seconds:g} s of CPU time per timed figure, "
        "one process."
    )


def markdown_table(rows: Sequence[Measurement]) -> str:
    """The engines: every game at every player count, then the references."""
    lines = [
        "| environment | players | agent-steps/s (AEC) | games/s | rules-only steps/s "
        "| rules + observation steps/s | reset (µs) | peak memory (KiB) "
        f"| vs faster env() (target {TARGET_RATIO:g}x) "
        f"| vs faster raw_env() (target {TARGET_RAW_RATIO:g}x) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        wrapped, raw = ratio_columns(r)
        lines.append(
            f"| `{r.env}` | {r.players} | {r.agent_steps_per_s:,.0f} | {r.games_per_s:,.1f} "
            f"| {count(r.rules_steps_per_s)} | {count(r.rules_observed_steps_per_s)} "
            f"| {r.reset_us:,.0f} | {r.peak_kib:,.0f} | {wrapped} | {raw} |"
        )
    return "\n".join(lines)


def decisions_markdown(times: Sequence[DecisionTimes]) -> str:
    """The heuristics: median and 99th percentile of the CPU time of one decision."""
    lines = [
        "| environment | players | heuristic | median µs per decision | 99th percentile µs "
        f"| decisions (games) | target: median ≤ {TARGET_DECISION_US:g} µs |",
        "|---|---:|---|---:|---:|---:|---|",
    ]
    for d in times:
        lines.append(
            f"| `{d.env}` | {d.players} | `{d.kind}` | {d.median_us:,.1f} | {d.p99_us:,.1f} "
            f"| {d.decisions:,} ({d.games}) | {decision_mark(d)} |"
        )
    return "\n".join(lines)


def hearts_markdown(rows: Sequence[Measurement], hearts: RulesReference) -> str:
    """Each game's rules-only path with its observation at its default table, beside hearts."""
    lines = [
        "| rules path | players | rules-only steps/s | rules + observation steps/s "
        "| with observation vs hearts |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r.reference or r.players != default_players(r.env):
            continue
        vs = (r.rules_observed_steps_per_s or 0) / hearts.rules_observed_steps_per_s
        lines.append(
            f"| `{r.env}` | {r.players} | {count(r.rules_steps_per_s)} "
            f"| {count(r.rules_observed_steps_per_s)} | {vs:.2f}x |"
        )
    lines.append(
        f"| {hearts.env} | {hearts.players} | {hearts.rules_steps_per_s:,.0f} "
        f"| {hearts.rules_observed_steps_per_s:,.0f} | 1.00x |"
    )
    return "\n".join(lines)


def report_markdown(report: Report, info: dict[str, Any], seconds: float) -> str:
    """The generated block of ``docs/benchmarks.md``: one table per section."""
    parts = [measured_line(info, seconds), "", markdown_table(report.rows)]
    if report.decisions:
        parts += ["", "Built-in heuristics, each in every seat:", ""]
        parts.append(decisions_markdown(report.decisions))
    if report.hearts is not None:
        parts += ["", "Rules-only paths at each game's default table, beside OpenSpiel's hearts:"]
        parts += ["", hearts_markdown(report.rows, report.hearts)]
    return "\n".join(parts)


def spread(values: Sequence[float], form: str) -> str:
    """``low-high`` (or one value) of ``values`` in ``form``."""
    low, high = form.format(min(values)), form.format(max(values))
    return low if low == high else f"{low}-{high}"


def readme_table(report: Report, info: dict[str, Any]) -> str:
    """The README's block: per game, over its player counts, the AEC speed, both ratios with
    their targets, and each heuristic's worst median and 99th percentile decision time."""
    lines = [
        f"Measured {info['date']} on {info['cpu']} ({info['cores']} cores, load average "
        f"{info['load_average']}) by `make bench`: whole games of random legal moves through the "
        "AEC loop, over the player counts, against PettingZoo's faster Hold'em reference in the "
        "same run; heuristic decisions in games of that heuristic in every seat, CPU time. "
        "Details: [docs/benchmarks.md](docs/benchmarks.md), `benchmarks/results/bench.json`.",
        "",
        "| env | agent-steps/s (AEC) | vs faster `env()` (target "
        f"{TARGET_RATIO:g}x) | vs faster `raw_env()` (target {TARGET_RAW_RATIO:g}x) | heuristic "
        f"decision µs, median / p99 (target: median ≤ {TARGET_DECISION_US:g}) |",
        "|---|---|---|---|---|",
    ]
    games = dict.fromkeys(r.env for r in report.rows if not r.reference)
    for name in games:
        rows = [r for r in report.rows if r.env == name]
        steps = spread([r.agent_steps_per_s / 1000 for r in rows], "{:.1f}") + "k"
        ratios = [r.ratio for r in rows if r.ratio is not None]
        raws = [r.ratio_raw for r in rows if r.ratio_raw is not None]
        wrapped = (
            f"{spread(ratios, '{:.1f}')}x {flag(min(ratios), TARGET_RATIO)}" if ratios else "n/a"
        )
        raw = f"{spread(raws, '{:.1f}')}x {flag(min(raws), TARGET_RAW_RATIO)}" if raws else "n/a"
        lines.append(
            f"| `{name}` | {steps} | {wrapped} | {raw} | {heuristics_cell(report, name)} |"
        )
    return "\n".join(lines)


def flag(value: float, target: float) -> str:
    return "ok" if value >= target else "below"


def heuristics_cell(report: Report, name: str) -> str:
    """``heuristic 33 / 122 ok``: each kind's worst median and p99 over the player counts."""
    cells = []
    for kind in dict.fromkeys(d.kind for d in report.decisions if d.env == name):
        times = [d for d in report.decisions if d.env == name and d.kind == kind]
        median, p99 = max(d.median_us for d in times), max(d.p99_us for d in times)
        ok = "ok" if all(d.meets_target for d in times) else "below"
        cells.append(f"`{kind}` {median:,.0f} / {p99:,.0f} {ok}")
    return "; ".join(cells) or "-"
