"""``card-envs select-checkpoint RUN_DIR --out PATH``: judge every network a self-play run kept
(``step_<n>.safetensors``, and the clone) in the arena, alone against three heuristics over
more deals than the run's held-out evaluations, and write the best to ``--out``.

A run's held-out evaluation cannot rank networks that are close: on Sequitur the network with
the best held-out figure won fewer arena games than an earlier one (docs/training-results.md, the
Sequitur runs). Selection plays its own deals (``--seed``, 100 by default), so that the
figures a network is then reported with (the arena's seeds 0-2) are not the ones it was chosen
on. The JSON written beside ``--out`` is the chosen network's, with a ``selection`` record of
every candidate's share.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

from card_envs.agents.checkpoint import check_out, metadata_path, read_checkpoint_json
from card_envs.tools.arena import Workers, run_arena
from card_envs.training.runs import copy_curve, kept_networks

SELECTION_SEED = 100  # not one of the seeds the shipped agents are reported on (0, 1, 2)
SELECTION_DEALS = 250  # each played in every seating: a candidate plays deals x players games


def candidates(run_dir: Path) -> list[Path]:
    """The networks a run kept, in step order: its clone (step 0), then each evaluated one."""
    clone = run_dir / "clone.safetensors"
    found = ([clone] if clone.is_file() else []) + kept_networks(run_dir)
    if not found:
        raise FileNotFoundError(
            f"{run_dir} holds no step_<n>.safetensors or clone.safetensors: not a self-play run "
            "folder"
        )
    return found


def judge(path: Path, deals: int, seed: int, workers: Workers, opponent: str) -> dict[str, Any]:
    """The network's arena result alone against ``opponent`` in every other seat."""
    meta = read_checkpoint_json(path)
    agents = [str(path), *[opponent] * (meta["num_players"] - 1)]
    report = run_arena(meta["env"], agents, meta["num_players"], deals, seed, workers)
    entry = report.agents[0]
    return {
        "path": path.name,
        "timesteps": meta.get("best_timesteps", 0),
        "games": entry.games,
        "win_rate": entry.win_rate,
        "win_ci": list(entry.win_ci),
    }


def select(
    run_dir: Path,
    out: Path,
    deals: int = SELECTION_DEALS,
    seed: int = SELECTION_SEED,
    workers: int = 1,
    opponent: str = "heuristic",
) -> dict[str, Any]:
    """Judge every candidate of ``run_dir``, copy the best (the earliest of equal shares) to
    ``out`` with its PNG, and return its JSON, which gains the ``selection`` record."""
    check_out(out)
    rows = []
    with Workers(workers) as pool:
        for path in candidates(run_dir):
            rows.append(judge(path, deals, seed, pool, opponent))
            print(json.dumps(rows[-1]), flush=True)
    best = max(rows, key=lambda row: row["win_rate"])  # max keeps the first of equal shares
    chosen = run_dir / best["path"]
    meta = read_checkpoint_json(chosen)
    meta["selection"] = {
        "deals": deals,
        "seed": seed,
        "opponent": opponent,
        "chosen": chosen.name,
        "candidates": rows,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(chosen, out)
    copy_curve(chosen, out)
    metadata_path(out).write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs select-checkpoint``."""
    parser = subparsers.add_parser(
        "select-checkpoint",
        help="judge a self-play run's kept networks in the arena and write the best",
        description="Judge every network a self-play run kept (its clone and each "
        "step_<n>.safetensors) in the arena, alone against --opponent in every other seat, on "
        "deals of the selection's own seed (not the seeds 0-2 agents are reported on), and write "
        "the best to --out, with every candidate's share in its JSON.",
    )
    parser.add_argument("run_dir", type=Path, help="the run folder (its step_<n>.safetensors)")
    parser.add_argument("--out", type=Path, required=True, help="the .safetensors to write")
    parser.add_argument(
        "--deals",
        type=int,
        default=SELECTION_DEALS,
        help=f"deals per candidate ({SELECTION_DEALS})",
    )
    parser.add_argument(
        "--seed", type=int, default=SELECTION_SEED, help=f"the deals' seed ({SELECTION_SEED})"
    )
    parser.add_argument("--workers", type=int, default=1, help="arena processes (1)")
    parser.add_argument("--opponent", default="heuristic", help="the other seats (heuristic)")
    parser.set_defaults(func=cmd_select)


def cmd_select(args: argparse.Namespace) -> int:
    meta = select(args.run_dir, args.out, args.deals, args.seed, args.workers, args.opponent)
    print(f"chose {meta['selection']['chosen']} -> {args.out}")
    return 0
