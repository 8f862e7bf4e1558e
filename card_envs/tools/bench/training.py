"""``card-envs bench --training``: each game's self-play trainer steps/s beside its random-play
AEC steps/s, measured in one run."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from card_envs.tools.bench.markdown import PAGE_TITLE
from card_envs.tools.bench.report import machine, write_json
from card_envs.tools.docs import write_block

TRAINING_BAR = 0.2  # self-play trainer steps/s over random-play AEC steps/s (issue 20)


def training_rows(
    todo: Sequence[tuple[str, int]], seconds: float, log: Callable[[str], None] = print
) -> list[dict[str, Any]]:
    """Each game's random-play AEC steps/s and self-play trainer steps/s, measured in one run
    (:func:`card_envs.training.selfplay_bench.measure`), with their ratio."""
    from card_envs.training.selfplay_bench import measure  # torch: only for --training

    rows = []
    for name, num_players in todo:
        log(f"bench --training: {name} at {num_players} players ...")
        row = measure(name, num_players, seconds)
        rows.append({**row, "ratio": round(row["train_steps_per_s"] / row["aec_steps_per_s"], 3)})
    return rows


def training_markdown(rows: Sequence[dict[str, Any]], info: dict[str, Any], seconds: float) -> str:
    """The self-play speed table, each row flagged against the 0.2x bar."""
    lines = [
        f"Measured {info['date']} on {info['cpu']} ({info['cores']} cores), load average "
        f"{info['load_average']}; {seconds:g} CPU s per game, one torch thread.",
        "",
        "| environment | players | AEC steps/s (random play) | self-play training steps/s "
        "| ratio |",
        "|---|---:|---:|---:|---|",
    ]
    for row in rows:
        flag = "ok" if row["ratio"] >= TRAINING_BAR else "below"
        lines.append(
            f"| `{row['game']}` | {row['players']} | {row['aec_steps_per_s']:,} | "
            f"{row['train_steps_per_s']:,} | {row['ratio']:.3f} {flag} |"
        )
    return "\n".join(lines)


def cmd_training(args: argparse.Namespace, todo: Sequence[tuple[str, int]]) -> int:
    """``card-envs bench --training``: the trainer's speed beside the engine's, per game."""
    rows = training_rows(todo, args.seconds)
    info = machine()
    block = training_markdown(rows, info, args.seconds)
    print(block)
    if args.json:
        write_json(
            Path(args.json),
            {"machine": info, "seconds": args.seconds, "bar": TRAINING_BAR, "games": rows},
        )
    if args.markdown:
        write_block(Path(args.markdown), "training", block, PAGE_TITLE)
    return 0
