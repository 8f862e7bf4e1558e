"""``card-envs train GAME``: the flags, their defaults and the config saved beside a model.

Kept free of torch and Stable-Baselines3 imports so that ``card-envs --help`` stays fast; the
training itself is :func:`training.train_ppo.train`.

    card-envs train seals_v0 --timesteps 1000000 --clone-games 1000
    python -m training.cli seals_v0 --timesteps 20000 --out /tmp/seals.zip
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agents import shipped_checkpoint
from card_envs.registry import env_names, make

SELF = "self"  # the opponent name for frozen snapshots of the learner
OPPONENTS = ("random", "heuristic", SELF)

# Training settings: the CLI flags, their defaults and the JSON saved beside the model.
DEFAULTS: dict[str, Any] = {
    "timesteps": 1_000_000,
    "opponents": ["heuristic", "heuristic", SELF],  # drawn per seat and episode; repeats weigh
    "seed": 0,
    "margin_reward": 0.0,  # weight of the score margin added to the win reward (0: win only)
    "advice_logit": False,  # add the advice to the logits too (wide action spaces: Sequitur)
    "max_minutes": 0.0,  # stop early (then evaluate and save) after this long; 0: no limit
    "advisor": "heuristic",  # its move is part of the observation; "none": the game's alone
    "clone_games": 500,  # heuristic games cloned before PPO (0: start from scratch)
    "clone_epochs": 5,
    "clone_smoothing": 0.15,  # share of the target spread over the legal moves
    "dagger_rounds": 1,  # rounds of teacher labels on the clone's own games
    "width": 256,  # two hidden layers, actor and critic
    "n_envs": 8,
    "subproc": False,  # one process per env copy instead of one process in all
    "torch_threads": 1,
    "n_steps": 512,
    "batch_size": 1024,
    "n_epochs": 5,
    "learning_rate": 1e-4,
    "clip_range": 0.1,
    "ent_coef": 0.005,
    "target_kl": 0.02,  # stop an update early past this KL; 0: never
    "snapshot_every": 100_000,
    "eval_every": 100_000,
    "eval_games": 200,
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=env_names())
    parser.add_argument("--players", type=int, default=None, help="default: the game's")
    for key, default in DEFAULTS.items():
        flag = "--" + key.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, action="store_true")
        elif isinstance(default, list):
            parser.add_argument(flag, nargs="+", choices=OPPONENTS, default=default)
        else:
            parser.add_argument(
                flag, type=type(default), default=default, help=f"default: {default}"
            )
    parser.add_argument("--out", type=Path, default=None, help="default: the shipped checkpoint")
    parser.add_argument("--resume", type=Path, default=None, help="a checkpoint to continue from")
    parser.add_argument("--logdir", default="runs", help="TensorBoard logs and checkpoints")


def config_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The run's settings as saved beside the model (player count resolved)."""
    num_players = make(args.game, num_players=args.players).describe().num_players
    config = {"env": args.game, "num_players": num_players}
    config |= {key: getattr(args, key) for key in DEFAULTS}
    if config["advisor"] in ("none", ""):
        config["advisor"] = None
    return config


def cmd_train(args: argparse.Namespace) -> int:
    from training.train_ppo import train

    out = args.out or shipped_checkpoint(args.game)
    result = train(config_from_args(args), out, args.logdir, args.resume)
    best = next(r for r in result["evaluations"] if r["timesteps"] == result["best_timesteps"])
    print(json.dumps({"out": str(out), "seconds": result["train_seconds"], "best": best}))
    return 0


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs train``."""
    parser = subparsers.add_parser(
        "train", help="train a MaskablePPO agent: clone the heuristic, then PPO self-play"
    )
    add_arguments(parser)
    parser.set_defaults(func=cmd_train)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.cli", description=__doc__)
    add_arguments(parser)
    return cmd_train(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
