"""``card-envs train GAME`` (the flags, their defaults and the config saved beside a model) and
``card-envs export-checkpoint`` (a trusted Stable-Baselines3 zip into the safe format).

Kept free of torch and Stable-Baselines3 imports so that ``card-envs --help`` stays fast; the
training itself is :func:`card_envs.training.train_ppo.train`.

    card-envs train seals_v0 --timesteps 1000000 --clone-games 1000
    card-envs train seals_v0 --selfplay --max-minutes 60
    card-envs train seamless_v0 --selfplay --warm-start heuristic --opponent-share 0.75
    python -m card_envs.training.cli seals_v0 --timesteps 20000 --out /tmp/seals.safetensors
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from pathlib import Path
from typing import Any

from card_envs.registry import env_names, make
from card_envs.training.config import (
    GAME_SETTABLE,
    OPPONENTS,
    Config,
    PPOConfig,
    SelfPlayConfig,
    default_config,
    defaults,
    ppo_config,
)
from card_envs.training.runs import kept_evaluation, new_run_dir

# Each mode's settings with their defaults: the flags.
PPO_DEFAULTS, SELFPLAY_DEFAULTS = defaults(PPOConfig), defaults(SelfPlayConfig)

# What each setting does, for ``card-envs train --help`` (docs/training.md says more).
HELP: dict[str, str] = {
    "timesteps": "PPO steps in all (a resumed run counts the checkpoint's)",
    "opponents": "agent kinds drawn per opponent seat and episode; repeats weigh more; "
    "'self' adds frozen snapshots of the learner",
    "seed": "seeds the model, the env copies and the cloning",
    "margin_reward": "weight of the score margin added to the win reward (0: win only)",
    "advice_logit": "also add the advisor's move to the action logits (for action spaces too "
    "wide for the network to copy a one-hot input)",
    "max_minutes": "stop PPO after this long, then evaluate and save (0: no limit)",
    "advisor": "agent kind whose move the policy sees as input and cloning copies; 'none': "
    "the observation alone",
    "clone_games": "games of the advisor (or heuristic; with --selfplay, the --warm-start "
    "agent) cloned before PPO (0: start from scratch)",
    "clone_epochs": "passes over the cloning data",
    "clone_smoothing": "share of the cloning target spread over the legal moves",
    "dagger_rounds": "rounds of teacher labels on the clone's own games",
    "width": "units in each of the two hidden layers, actor and critic",
    "n_envs": "copies of the game stepped together",
    "subproc": "run each env copy in its own process (pays when cores are free)",
    "torch_threads": "torch threads for the network",
    "n_steps": "steps per env copy in each rollout",
    "batch_size": "minibatch size of the PPO update",
    "n_epochs": "passes over each rollout",
    "learning_rate": "Adam's learning rate",
    "clip_range": "PPO's clip range",
    "ent_coef": "entropy bonus weight",
    "target_kl": "stop an update early past this KL (0: never)",
    "snapshot_every": "steps between self-play snapshots",
    "eval_every": "steps between held-out evaluations (each saves a zip in the run folder)",
    "eval_games": "games per held-out evaluation, against each of random and heuristic",
    "tables": "games stepped in lockstep, one forward pass per policy per tick",
    "collect_workers": "processes the tables are shared out between, one core each (1: the "
    "training process; the update stays in it)",
    "rollout": "learner decisions per update",
    "gae_lambda": "GAE's lambda over each seat's trajectory",
    "reward_mode": "the env's rewards the learner is trained on: 'win' (the game's result) or "
    "'score' (points as they are won, e.g. a Victory card; evaluations still count wins)",
    "pool_size": "frozen snapshots of the learner kept (the newest)",
    "snapshot_share": "chance that a seat other than the learner's own is a snapshot",
    "opponent_kind": "built-in agent that may take the seats beside the learner",
    "opponent_share": "chance that a seat other than the learner's own is --opponent-kind "
    "(before snapshots are drawn)",
    "warm_start": "built-in agent whose moves the network clones before self-play ('none': "
    "from scratch)",
    "value_weight": "starting weight of the per-action values added to the logits, where the "
    "observation ends with a value per action id; learned from there",
    "central_critic": "with --selfplay: the value reads the whole table (every seat's "
    "observation) during training; the policy, and the saved network, its own observation "
    "alone. Collects in one process",
    "clone_temperature": "with --selfplay --warm-start: 0 clones the agent's moves; above 0, "
    "where the agent rates its moves, the softmax of its values at this temperature",
    "action_features": "with --selfplay: each action is also scored by a small network from "
    "its own features (what the seat would hold after it, what a card risks), a map of the "
    "observation the game declares",
    "algorithm": "with --selfplay: the update, 'ppo', or 'dmc' (Deep Monte-Carlo: each move's "
    "value fitted to the return that followed it; docs/training.md)",
    "q_temperature": "with --selfplay --algorithm dmc: the logits are the action values over "
    "this temperature, which is also the temperature collection explores at",
    "dmc_epsilon": "with --selfplay --algorithm dmc: 0 explores by the softmax; above 0, the "
    "learner plays its best move, or with this chance a random legal one (epsilon-greedy)",
    "critic_warmup": "first update cycles of the run that train the value alone, the moves "
    "unchanged (for a fresh central critic beside a resumed policy)",
}
SELFPLAY_HELP = (
    "batched self-play (docs/training.md, Self-play): every seat is the learner or a frozen "
    "snapshot of it, the network sees the observation alone; the flags marked 'with "
    "--selfplay' apply, and those it shares take its defaults"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=env_names(), help="the game to train an agent for")
    parser.add_argument(
        "--players", type=int, default=None, help="seats at the table (default: the game's)"
    )
    parser.add_argument("--selfplay", action="store_true", help=SELFPLAY_HELP)
    for key, default in {**PPO_DEFAULTS, **SELFPLAY_DEFAULTS}.items():
        flag = "--" + key.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, action="store_true", help=HELP[key])
        elif isinstance(default, tuple):
            parser.add_argument(
                flag,
                nargs="+",
                choices=OPPONENTS,
                default=list(default),
                help=f"{HELP[key]} (default: {' '.join(default)})",
            )
        else:  # None: the default of the mode (PPO or --selfplay), resolved by config_from_args
            kind = str if default is None else type(default)  # None: an agent kind or none
            parser.add_argument(flag, type=kind, default=None, help=default_help(key))
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="the .safetensors to write, its .json and .png beside it (default: in the run "
        "folder; the shipped agents/checkpoints/ change only when named here)",
    )
    parser.add_argument(
        "--resume",
        type=Path,
        default=None,
        help="continue from a .safetensors (fresh optimizer) or a run folder's step zip "
        "(optimizer kept; needs --trust-checkpoint); with --selfplay, a .safetensors of a "
        "network without an advisor (a run's clone.safetensors too)",
    )
    parser.add_argument("--trust-checkpoint", action="store_true", help=TRUST_HELP)
    parser.add_argument(
        "--logdir",
        default="runs",
        help="where each run gets its folder <game>-<time>: step zips, TensorBoard logs and, "
        "without --out, the trained policy (default: runs)",
    )


def default_help(key: str) -> str:
    """The help of a flag whose default depends on ``--selfplay``."""
    if key not in PPO_DEFAULTS:
        default = SELFPLAY_DEFAULTS[key]
        return f"{HELP[key]} (with --selfplay; default: {'none' if default is None else default})"
    if key not in SELFPLAY_DEFAULTS:
        return f"{HELP[key]} (default: {PPO_DEFAULTS[key]}; not with --selfplay)"
    if key == "advisor":
        return f"{HELP[key]} (default: {PPO_DEFAULTS[key]}; none with --selfplay)"
    ppo, selfplay = PPO_DEFAULTS[key], SELFPLAY_DEFAULTS[key]
    if key in GAME_SETTABLE:
        selfplay = f"{selfplay}, or the game's own"
    if ppo == selfplay:
        return f"{HELP[key]} (default: {ppo})"
    return f"{HELP[key]} (default: {ppo}; with --selfplay: {selfplay})"


TRUST_HELP = (
    "load a Stable-Baselines3 zip, which is unpickled and can run code: only for files you trust"
)


def run_paths(args: argparse.Namespace, now: datetime | None = None) -> tuple[Path, Path]:
    """The run's new folder under ``--logdir`` and where the trained policy goes: ``--out``, or
    ``<run folder>/<game>_ppo.safetensors``. Never the shipped checkpoint unless ``--out``
    names it."""
    run_dir = new_run_dir(Path(args.logdir), args.game, now)
    return run_dir, args.out or run_dir / f"{args.game}_ppo.safetensors"


def config_from_args(args: argparse.Namespace) -> Config:
    """The run's settings (player count resolved, every flag not given at the default of the
    mode: PPO, or ``--selfplay`` with the game's own), checked before a run folder is made."""
    keys = SELFPLAY_DEFAULTS if args.selfplay else PPO_DEFAULTS
    given = {key: getattr(args, key) for key in keys if getattr(args, key) is not None}
    for key in ("advisor", "warm_start"):
        if given.get(key) in ("none", ""):
            given[key] = None
    if args.selfplay:
        selfplay = default_config(args.game, args.players, **given)
        check_resume(selfplay, args.resume)
        return selfplay
    return ppo_config(args.game, args.players, **given)


def check_resume(config: SelfPlayConfig, resume: Path | None) -> None:
    """Refuse a self-play resume that is not a pure network's ``.safetensors`` or that is
    combined with a warm start (before a run folder is made)."""
    if resume is None:
        return
    if resume.suffix != ".safetensors":
        raise ValueError(
            f"--selfplay --resume {resume}: self-play continues from a .safetensors (a run "
            f"folder's .zip is the PPO trainer's)"
        )
    if config.warm_start is not None:
        raise ValueError("--resume continues a trained network: it takes no --warm-start")


def cmd_train(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    run_dir, out = run_paths(args)
    if isinstance(config, SelfPlayConfig):
        from card_envs.training.selfplay_ppo import train_selfplay

        result = train_selfplay(config, out, run_dir, args.resume)
    else:
        from card_envs.training.train_ppo import train

        result = train(config, out, run_dir, args.resume, trust=args.trust_checkpoint)
    print(summary_line(result, out), flush=True)
    return 0


def best(result: dict[str, Any]) -> dict[str, Any]:
    """The evaluation of the policy a run kept, at the steps it was kept at."""
    return {"timesteps": result["best_timesteps"], **(kept_evaluation(result) or {})}


def summary_line(result: dict[str, Any], out: Path) -> str:
    """A run's end in one line: what trained how long, how the kept network scored and where it
    is (its JSON beside it holds the whole record)."""
    config, kept = result["config"], best(result)
    shares = ", ".join(
        f"{value:.2f} vs {key.removeprefix('vs_')}"
        for key, value in kept.items()
        if key.startswith("vs_")
    )
    games = config.get("eval_games")
    scored = "not evaluated"
    if shares:
        each = f", {games:,} games each" if games else ""
        scored = f"win share {shares} (fair share {result['fair_share']:.2f}{each})"
    return (
        f"trained {config['env']} ({config['num_players']} players) for "
        f"{result['train_seconds']:.1f} s; kept the network of step {kept['timesteps']:,}: "
        f"{scored} -> {out}"
    )


def cmd_export(args: argparse.Namespace) -> int:
    """Convert a trusted SB3 zip; the game, seats and advisor come from the JSON beside it,
    else from the flags."""
    from card_envs.agents.checkpoint import (
        advisor_of,
        check_checkpoint_path,
        convert_checkpoint,
        read_metadata,
    )

    check_checkpoint_path(args.source, args.trust_checkpoint)
    meta = read_metadata(args.source)
    game = args.game or meta.get("env")
    if game is None:
        raise ValueError(f"no JSON beside {args.source} names its game: give --game")
    info = make(game, num_players=args.players or meta.get("num_players")).describe()
    advisor = args.advisor or advisor_of(meta)
    advisor = None if advisor == "none" else advisor
    written = convert_checkpoint(args.source, args.out, info, advisor, trust=args.trust_checkpoint)
    summary = {key: written[key] for key in ("env", "num_players")}
    print(json.dumps({"out": str(args.out), **summary, "advisor": advisor}))
    return 0


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs train`` and ``card-envs export-checkpoint``."""
    parser = subparsers.add_parser(
        "train", help="train a MaskablePPO agent: clone the heuristic, then PPO self-play"
    )
    add_arguments(parser)
    parser.set_defaults(func=cmd_train)
    export = subparsers.add_parser(
        "export-checkpoint",
        help="rewrite a trusted Stable-Baselines3 zip as .safetensors + .json, which then loads "
        "without unpickling",
    )
    export.add_argument("source", type=Path, help="the MaskablePPO .zip")
    export.add_argument("out", type=Path, help="the .safetensors to write (its .json beside it)")
    export.add_argument("--trust-checkpoint", action="store_true", help=TRUST_HELP)
    export.add_argument("--game", choices=env_names(), help="default: the JSON beside the zip")
    export.add_argument("--players", type=int, help="default: the JSON's, else the game's")
    export.add_argument(
        "--advisor", help="the agent kind it was trained with; default: the JSON's, else none"
    )
    export.set_defaults(func=cmd_export)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m card_envs.training.cli", description=__doc__)
    add_arguments(parser)
    return cmd_train(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
