"""``card-envs train-rllib GAME``: PPO self-play on Ray RLlib, locally or on a Ray cluster.

    card-envs train-rllib seamless_v0 --timesteps 200000 --env-runners 2
    card-envs train-rllib seals_v0 --players 3 --policy per-seat --address auto

Every seat is an RLlib agent of one multi-agent env (RLlib's PettingZoo wrapper over the AEC
env); ``--policy shared`` trains one network for all seats (self-play), ``per-seat`` one per
seat. ``--out`` receives the algorithm checkpoint with ``card_envs_meta.json`` beside it, which
:func:`card_envs.agents.rllib.load_rllib_agent` (and so the arena) loads. Ray is imported only
when the command runs; install it with ``pip install card-envs[rllib]``. Scaling:
``docs/scaling.md``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from card_envs.agents.checkpoint import PickleCheckpointWarning
from card_envs.agents.rllib import META_FILE, load_rllib_agent
from card_envs.core.extras import install_hint, require
from card_envs.registry import env_names, make, player_counts
from card_envs.training.rllib.env import ENV_NAME, ILLEGAL_ACTIONS, count_illegal_actions, register

# The run settings saved in the metadata beside the checkpoint.
CONFIG_KEYS = ("env_runners", "envs_per_runner", "batch_size", "width", "torch_threads", "seed")

SHARED = "shared"  # the module id of the one network every seat uses
POLICIES = (SHARED, "per-seat")
DEFAULT_TIMESTEPS = 100_000
EVAL_FIRST_SEED = 1_000_000  # evaluation deals, away from the seeds training draws
TB_SCALARS = ("env_runners", "learners", "timers")  # result sections logged to TensorBoard


def shared_policy(agent_id: str, episode: Any, **_: Any) -> str:
    """Self-play: every seat maps to the one shared module."""
    return SHARED


def seat_policy(agent_id: str, episode: Any, **_: Any) -> str:
    """One module per seat, named after the seat's agent (``player_0`` ...)."""
    return agent_id


def module_ids(policy: str, num_players: int) -> list[str]:
    return [SHARED] if policy == SHARED else [f"player_{seat}" for seat in range(num_players)]


def build_config(args: argparse.Namespace, num_players: int):
    """The PPO config: masking module per policy, sampling and learner settings from ``args``."""
    with require("rllib"):
        from ray.rllib.algorithms.ppo import PPOConfig
        from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from card_envs.agents.rllib_module import MaskedPPOTorchRLModule

    spec = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule, model_config={"fcnet_hiddens": [args.width] * 2}
    )
    modules = module_ids(args.policy, num_players)
    return (
        PPOConfig()
        # RLlib's env check steps unmasked random actions, which would count as illegal here.
        .environment(
            ENV_NAME,
            env_config={"game": args.game, "num_players": num_players},
            disable_env_checking=True,
        )
        # Several games per runner batch the network's forward pass, which samples several times
        # faster than one game per runner (docs/scaling.md).
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=args.envs_per_runner)
        .multi_agent(
            policies=set(modules),
            policy_mapping_fn=shared_policy if args.policy == SHARED else seat_policy,
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(modules, spec)))
        .training(
            train_batch_size_per_learner=args.batch_size,
            minibatch_size=min(512, args.batch_size),
            num_epochs=4,
            lr=3e-4,
            gamma=1.0,  # rewards come at the end of a finite game
            lambda_=0.95,
            entropy_coeff=0.01,
        )
        .callbacks(on_episode_end=count_illegal_actions)
        .debugging(seed=args.seed)
    )


def out_dir(args: argparse.Namespace) -> Path:
    return Path(args.out or f"runs/{args.game}_rllib").resolve()


def start_ray(address: str | None, env_runners: int) -> None:
    """Join the cluster at ``address``, or start a local Ray with a CPU per env runner."""
    with require("rllib"):
        import ray

    if address:
        ray.init(address=address)
    else:
        ray.init(num_cpus=max(os.cpu_count() or 1, env_runners + 1), include_dashboard=False)


def train(args: argparse.Namespace) -> dict[str, Any]:
    """Train, export ``args.out`` with its metadata, evaluate against random seats."""
    num_players = args.players or make(args.game).describe().num_players
    if num_players not in player_counts(args.game):
        raise ValueError(f"{args.game} is played by {player_counts(args.game)} players")
    with require("rllib"):
        import ray
        import torch

    # The learner (and with --env-runners 0 the sampler) runs here; more torch threads than
    # free cores made sampling several times slower on a busy machine (docs/scaling.md). Ray
    # gives each remote env runner one thread itself (OMP_NUM_THREADS from its CPU share).
    torch.set_num_threads(args.torch_threads)
    start_ray(args.address, args.env_runners)
    try:
        register()
        algo = build_config(args, num_players).build_algo()
        summary = run_iterations(algo, args)
        out = out_dir(args)
        algo.save_to_path(str(out))
        algo.stop()
    finally:
        ray.shutdown()
    return export(args, num_players, out, summary)


def run_iterations(algo: Any, args: argparse.Namespace) -> dict[str, Any]:
    """``algo.train()`` until the iteration or env-step budget is spent; TensorBoard logs."""
    with require("rllib"):
        from tensorboardX import SummaryWriter  # an RLlib requirement, unlike tensorboard

    logdir = Path(args.logdir) / f"{args.game}_rllib_{time.strftime('%Y%m%d-%H%M%S')}"
    writer = SummaryWriter(str(logdir))
    started, steps, iteration = time.perf_counter(), 0, 0
    while budget_left(args, iteration, steps):
        result = algo.train()
        iteration += 1
        runners = result["env_runners"]
        steps = int(runners["num_env_steps_sampled_lifetime"])
        log_scalars(writer, result, steps)
        print(
            f"iteration {iteration}: {steps} env steps, "
            f"{steps / (time.perf_counter() - started):.0f} steps/s, "
            f"illegal actions {int(runners.get(ILLEGAL_ACTIONS, 0))}"
        )
    writer.close()
    seconds = time.perf_counter() - started
    return {
        "iterations": iteration,
        "env_steps": steps,
        "train_seconds": round(seconds, 1),
        "env_steps_per_s": round(steps / seconds),
        "episodes": int(runners.get("num_episodes_lifetime", 0)),
        ILLEGAL_ACTIONS: int(runners.get(ILLEGAL_ACTIONS, 0)),
        "logdir": str(logdir),
    }


def budget_left(args: argparse.Namespace, iteration: int, steps: int) -> bool:
    if args.iterations:
        return iteration < args.iterations
    return steps < (args.timesteps or DEFAULT_TIMESTEPS)


def log_scalars(writer: Any, result: dict[str, Any], step: int) -> None:
    """Every finite number in the result's sampling, learner and timer sections, named by its
    path (``env_runners/episode_return_mean``, ``learners/shared/entropy`` ...). RLlib reports
    its parameter counts once, then NaN."""

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(f"{prefix}/{key}", inner)
        elif isinstance(value, int | float) and math.isfinite(value):
            writer.add_scalar(prefix, value, step)

    for section in TB_SCALARS:
        walk(section, result.get(section, {}))


def module_path(module_id: str) -> str:
    """Where ``algo.save_to_path`` puts a module's own checkpoint, relative to the directory."""
    with require("rllib"):
        from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE

    return "/".join((COMPONENT_LEARNER_GROUP, COMPONENT_LEARNER, COMPONENT_RL_MODULE, module_id))


def export(
    args: argparse.Namespace, num_players: int, out: Path, summary: dict[str, Any]
) -> dict[str, Any]:
    """Write the metadata the loader checks, then the held-out win share against random."""
    with require("rllib"):
        import ray

    info = make(args.game, num_players=num_players).describe()
    modules = module_ids(args.policy, num_players)
    meta = {
        "env": args.game,
        "num_players": num_players,
        "policy": args.policy,
        "modules": {m: module_path(m) for m in modules},
        "default_module": modules[0],
        "obs_size": info.obs_spec.size,
        "num_actions": info.num_actions,
        "ray": ray.__version__,
        "config": {key: getattr(args, key) for key in CONFIG_KEYS},
        **summary,
    }
    (out / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")
    if args.eval_games:
        meta["win_share_vs_random"] = evaluate(out, args.game, num_players, args.eval_games)
        meta["fair_share"] = round(1 / num_players, 4)
        (out / META_FILE).write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def evaluate(out: Path, game: str, num_players: int, games: int) -> float:
    """Win share of the exported agent in one seat (rotated) against random players."""
    from card_envs.agents.match import win_share

    with warnings.catch_warnings():  # this run wrote the export moments ago
        warnings.simplefilter("ignore", PickleCheckpointWarning)
        agent = load_rllib_agent(out, make(game, num_players=num_players).describe(), trust=True)
    return win_share(game, num_players, lambda info, seat: agent, "random", games, EVAL_FIRST_SEED)


def cmd_train_rllib(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("ray") is None:
        print(f"card-envs: error: train-rllib needs Ray: {install_hint('rllib')}", file=sys.stderr)
        return 2
    meta = train(args)
    keys = ("env_steps", "train_seconds", "env_steps_per_s", ILLEGAL_ACTIONS, "win_share_vs_random")
    print(json.dumps({key: meta.get(key) for key in keys}))
    print(f"checkpoint: {out_dir(args)}")
    return 0


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs train-rllib``."""
    parser = subparsers.add_parser(
        "train-rllib",
        help="PPO self-play on Ray RLlib (needs card-envs[rllib])",
        description="PPO self-play on Ray RLlib, locally or on a Ray cluster.",
    )
    parser.add_argument("game", choices=env_names())
    parser.add_argument("--players", type=int, default=None, help="default: the game's")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--iterations", type=int, default=None, help="training iterations")
    budget.add_argument(
        "--timesteps", type=int, default=None, help=f"env steps (default {DEFAULT_TIMESTEPS})"
    )
    parser.add_argument(
        "--env-runners", type=int, default=2, help="sampling processes (0: sample in the driver)"
    )
    parser.add_argument("--envs-per-runner", type=int, default=8, help="games each runner steps")
    parser.add_argument("--policy", choices=POLICIES, default=SHARED, help="default: shared")
    parser.add_argument(
        "--address", default=None, help="a Ray cluster to join ('auto' or host:port); default local"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=4000, help="env steps per iteration")
    parser.add_argument("--width", type=int, default=256, help="units in each of 2 hidden layers")
    parser.add_argument("--torch-threads", type=int, default=1, help="for the learner")
    parser.add_argument(
        "--eval-games", type=int, default=200, help="games vs random after training (0: none)"
    )
    parser.add_argument(
        "--out", default=None, help="checkpoint directory (default runs/GAME_rllib)"
    )
    parser.add_argument("--logdir", default="runs", help="TensorBoard logs (default runs/)")
    parser.set_defaults(func=cmd_train_rllib)
