"""A training run's lifecycle, shared by every trainer: its folder, its held-out evaluations,
the networks it keeps, its record and its learning curve.

A run writes into its own folder (``runs/<game>-<time>/``): a network at each evaluation
(``step_<env steps>.safetensors``), ``progress.jsonl`` with its TensorBoard scalars beside it
(:class:`ScalarLog`; ``tensorboard --logdir runs/``), and at the end the network that did best
against the heuristic, in the safe format (:mod:`card_envs.agents.checkpoint`) with its record
(config, evaluations) in the JSON and its learning curve as a PNG beside it.
"""

from __future__ import annotations

import functools
import json
import shutil
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from card_envs.agents.checkpoint import save_policy
from card_envs.agents.match import win_share
from card_envs.agents.policy import PolicyAgent
from card_envs.core.extras import require
from card_envs.training.config import Config

EVAL_SEEDS = {"random": 10_000, "heuristic": 20_000}  # held out: training deals use other seeds


def evaluate(
    model: Any,
    game: str,
    num_players: int,
    opponent: str,
    games: int,
    first_seed: int,
    advisor: str | None = None,
    workers: int = 1,
) -> float:
    """Win share of the policy in one seat (rotated) against ``opponent`` in the others; with
    ``workers``, in that many processes (the model must pickle: a policy does, an SB3 model with
    its envs does not)."""
    policy = functools.partial(PolicyAgent, model, advisor=advisor)  # (info, seat) -> agent
    return win_share(game, num_players, policy, opponent, games, first_seed, workers)


def evaluations(model: Any, config: Config) -> dict[str, float]:
    return {
        f"vs_{opponent}": evaluate(
            model,
            config.env,
            config.num_players,
            opponent,
            config.eval_games,
            seed,
            config.advisor,
            config.eval_workers,
        )
        for opponent, seed in EVAL_SEEDS.items()
    }


def save_trained(
    policy: Any,
    out: Path,
    config: Config,
    advisor: str | None,
    best_timesteps: int,
    started: float,
    cloning: dict[str, Any],
    history: list[dict[str, Any]],
    **extra: Any,
) -> dict[str, Any]:
    """Save a run's best policy with its training record (``extra`` fields after the time it
    took), and its learning curve as a PNG beside it: the end of every trainer."""
    record = {
        "fair_share": round(1 / config.num_players, 4),
        "best_timesteps": best_timesteps,
        "train_seconds": round(time.perf_counter() - started, 1),
        **extra,
        "config": config.as_dict(),
        "cloning": cloning,
        "evaluations": history,
    }
    result = save_policy(
        policy,
        out,
        env=config.env,
        num_players=config.num_players,
        advisor=advisor,
        record=record,
    )
    write_curve(result, out.with_suffix(".png"))
    return result


def write_curve(result: dict, path: Path) -> None:
    """Held-out win share against random and heuristic seats over training."""
    with require("train"):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

    rows = result["evaluations"]
    if result["cloning"]:  # the clone, before PPO: step 0
        rows = [{"timesteps": 0, **result["cloning"]["rounds"][-1]}, *rows]
    fig, ax = plt.subplots(figsize=(5, 3.2))
    steps = [row["timesteps"] for row in rows]
    for opponent in EVAL_SEEDS:
        ax.plot(steps, [row[f"vs_{opponent}"] for row in rows], marker=".", label=f"vs {opponent}")
    ax.axhline(result["fair_share"], color="gray", linestyle="--", label="fair share")
    ax.set(xlabel="training steps", ylabel="win share (held-out deals)", ylim=(0, 1))
    ax.set_title(f"{result['env']}, {result['num_players']} players: clone (0), then PPO")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# What a researcher watches: a progress row's fields (an update's statistics, its speed) and
# an evaluation's shares, and their TensorBoard tags (the SB3 trainer's, where it has them).
SCALARS = {
    "policy_loss": "train/policy_loss",
    "value_loss": "train/value_loss",
    "entropy": "train/entropy",
    "approx_kl": "train/approx_kl",
    "clip_fraction": "train/clip_fraction",
    "explained_variance": "train/explained_variance",
    "q_loss": "train/q_loss",  # DMC's: the taken move's value against its return
    "q_mean": "train/q_mean",
    "env_steps_per_s": "time/env_steps_per_s",
    **{f"vs_{opponent}": f"eval/win_share_vs_{opponent}" for opponent in EVAL_SEEDS},
}


class ScalarLog:
    """A run's TensorBoard event file, in its folder: each row's :data:`SCALARS` at the env
    steps it was written at (flushed at once, so that a running TensorBoard shows it)."""

    def __init__(self, run_dir: Path):
        with require("train"):
            from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(log_dir=str(run_dir))

    def write(self, steps: int, row: dict[str, Any]) -> None:
        for key, tag in SCALARS.items():
            if key in row:
                self.writer.add_scalar(tag, row[key], steps)
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()


KEPT_PREFIX = "step_"  # a run folder's evaluated networks: step_<env steps>.safetensors


def kept_path(run_dir: Path, steps: int) -> Path:
    """Where a run keeps the network it evaluated after ``steps`` env steps."""
    return run_dir / f"{KEPT_PREFIX}{steps}.safetensors"


def kept_networks(run_dir: Path) -> list[Path]:
    """The networks a run kept at its evaluations (:func:`kept_path`), in step order."""
    paths = run_dir.glob(f"{KEPT_PREFIX}*.safetensors")
    return sorted(paths, key=lambda path: int(path.stem[len(KEPT_PREFIX) :]))


def json_line(row: dict[str, Any]) -> str:
    """One JSON line, floats rounded for reading."""
    return (
        json.dumps({k: round(v, 5) if isinstance(v, float) else v for k, v in row.items()}) + "\n"
    )


def new_run_dir(logdir: Path, game: str, now: datetime | None = None) -> Path:
    """``logdir/<game>-<YYYYmmdd-HHMMSS>``, with ``-2``, ``-3`` ... when that exists already."""
    stem = f"{game}-{(now or datetime.now()).strftime('%Y%m%d-%H%M%S')}"
    run_dir, number = logdir / stem, 1
    while run_dir.exists():
        number += 1
        run_dir = logdir / f"{stem}-{number}"
    return run_dir


def kept_evaluation(record: dict[str, Any]) -> dict[str, Any] | None:
    """How the policy a run kept scored, from its record (a checkpoint's JSON or a run's
    result): its evaluation at ``best_timesteps``, else its clone's (no evaluation after the warm
    start beat the clone), else ``None``."""
    steps = record.get("best_timesteps", 0)
    rows = [row for row in record.get("evaluations", []) if row["timesteps"] == steps]
    rows = rows or record.get("cloning", {}).get("rounds", [])
    return rows[-1] if rows else None


def copy_curve(source: Path, out: Path) -> None:
    """Put ``source``'s learning curve (the PNG beside it), if it has one, beside ``out``: a
    network chosen or refitted from a run keeps the curve of the run it came from."""
    if source.with_suffix(".png").is_file():
        shutil.copyfile(source.with_suffix(".png"), out.with_suffix(".png"))
