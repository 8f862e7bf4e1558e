"""A run's figures as the command prints them and as ``--json`` writes them, with the machine
they were measured on."""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.tools.bench.references import RAW_SUFFIX
from card_envs.tools.bench.results import (
    TARGET_DECISION_US,
    TARGET_RATIO,
    TARGET_RAW_RATIO,
    DecisionTimes,
    Measurement,
    Report,
)


def machine() -> dict[str, Any]:
    """What the figures depend on: CPU, cores, load, Python and library versions, date."""
    import pettingzoo

    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        found = re.search(r"model name\s*:\s*(.+)", cpuinfo.read_text())
        cpu = found.group(1).strip() if found else cpu
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pettingzoo": pettingzoo.__version__,
        "load_average": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def mark(value: float | None, target: float) -> str:
    """``4.31x ok`` or ``3.20x below`` against a ratio target; ``n/a`` without a reference."""
    if value is None:
        return "n/a"
    return f"{value:.2f}x {'ok' if value >= target else 'below'}"


def ratio_columns(row: Measurement) -> tuple[str, str]:
    """The two target columns: against the faster reference's ``env()`` and ``raw_env()``."""
    if row.reference:
        return "reference", "reference"
    return mark(row.ratio, TARGET_RATIO), mark(row.ratio_raw, TARGET_RAW_RATIO)


def count(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def decision_mark(d: DecisionTimes) -> str:
    return "ok" if d.meets_target else "below"


def text_table(rows: Sequence[Measurement]) -> str:
    head = (
        f"{'environment':<26} {'n':>2} {'steps/s':>10} {'games/s':>9} {'rules/s':>10} "
        f"{'rules+obs/s':>11} {'reset us':>9} {'peak KiB':>9}  "
        f"{'vs env() (' + format(TARGET_RATIO, 'g') + 'x)':<16} "
        f"vs raw_env() ({TARGET_RAW_RATIO:g}x)"
    )
    lines = [head]
    for r in rows:
        wrapped, raw = ratio_columns(r)
        lines.append(
            f"{r.env:<26} {r.players:>2} {r.agent_steps_per_s:>10,.0f} {r.games_per_s:>9,.1f} "
            f"{count(r.rules_steps_per_s):>10} {count(r.rules_observed_steps_per_s):>11} "
            f"{r.reset_us:>9,.0f} {r.peak_kib:>9,.0f}  {wrapped:<16} {raw}"
        )
    return "\n".join(lines)


def decisions_text(times: Sequence[DecisionTimes]) -> str:
    lines = [
        f"{'environment':<26} {'n':>2} {'heuristic':<16} {'median us':>10} {'p99 us':>10} "
        f"{'decisions':>10}  median <= {TARGET_DECISION_US:g} us"
    ]
    for d in times:
        lines.append(
            f"{d.env:<26} {d.players:>2} {d.kind:<16} {d.median_us:>10,.1f} {d.p99_us:>10,.1f} "
            f"{d.decisions:>10,}  {decision_mark(d)}"
        )
    return "\n".join(lines)


def report_text(report: Report) -> str:
    """What the command prints: the engine table, the heuristics, hearts."""
    parts = [text_table(report.rows)]
    for raw in (False, True):
        refs = [r for r in report.rows if r.reference and r.env.endswith(RAW_SUFFIX) == raw]
        if refs:
            best = max(refs, key=lambda r: r.agent_steps_per_s)
            parts.append(
                f"faster reference: {best.env} ({best.agent_steps_per_s:,.0f} agent-steps/s)"
            )
    if report.decisions:
        parts += ["", decisions_text(report.decisions)]
    if report.hearts is not None:
        h = report.hearts
        parts += [
            "",
            f"{h.env}: {h.rules_steps_per_s:,.0f} rules-only steps/s, "
            f"{h.rules_observed_steps_per_s:,.0f} with its observation",
        ]
    return "\n".join(parts)


def report_json(report: Report, info: dict[str, Any], seconds: float) -> dict[str, Any]:
    """``--json``: the machine, the targets and every section, each row with its verdict."""
    return {
        "machine": info,
        "seconds": seconds,
        "targets": {
            "ratio": TARGET_RATIO,
            "ratio_raw": TARGET_RAW_RATIO,
            "decision_median_us": TARGET_DECISION_US,
        },
        "results": [{**asdict(r), "meets_target": r.meets_target} for r in report.rows],
        "decisions": [{**asdict(d), "meets_target": d.meets_target} for d in report.decisions],
        "hearts": None if report.hearts is None else asdict(report.hearts),
    }


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON at ``path``, its folder made if need be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
