"""Train a MaskablePPO agent by self-play against a pool of opponents.

    python -m training.train_ppo --game seamless_v0 --timesteps 300000

Logs go to TensorBoard (``--logdir``, default ``runs/``); the checkpoint and a JSON of its
metadata and evaluation go to ``--out`` (default ``training/checkpoints/<game>_ppo.zip``).
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv
from tqdm import tqdm

from agents import shipped_checkpoint
from agents.match import win_share
from card_envs import make
from training.policy import PolicyAgent, metadata_path
from training.single_agent import OpponentPool, SingleAgentEnv


class SelfPlayCallback(BaseCallback):
    """Adds a frozen copy of the learner to the opponent pool every ``every`` steps, and
    drives a tqdm progress bar."""

    def __init__(self, pool: OpponentPool, every: int, total: int):
        super().__init__()
        self.pool, self.every = pool, every
        self.bar = tqdm(total=total, unit="step", desc="training")

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        if self.num_timesteps % self.every < self.training_env.num_envs:
            frozen = copy.deepcopy(self.model.policy)
            frozen.set_training_mode(False)
            model = _FrozenModel(frozen)
            self.pool.add_snapshot(lambda info, seed: PolicyAgent(model, info, seed))
        return True

    def _on_training_end(self) -> None:
        self.bar.close()


class _FrozenModel:
    """The ``predict`` of a policy snapshot, without the training machinery."""

    def __init__(self, policy):
        self.policy = policy

    def predict(self, observation, action_masks, deterministic=True):
        return self.policy.predict(
            observation, deterministic=deterministic, action_masks=action_masks
        )


def evaluate(
    model: MaskablePPO, game: str, num_players: int, opponent: str, games: int, first_seed: int
) -> float:
    """Share of wins of the trained policy against ``opponent`` agents, seats rotated, on
    deals seeded from ``first_seed`` (held out: training draws its deals from its own stream)."""

    def policy(info, seat: int) -> PolicyAgent:
        return PolicyAgent(model, info)

    return win_share(game, num_players, policy, opponent, games, first_seed)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="seamless_v0")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--timesteps", type=int, default=300_000)
    parser.add_argument("--opponents", nargs="+", default=["random", "heuristic"])
    parser.add_argument("--snapshot-every", type=int, default=50_000)
    parser.add_argument("--n-envs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--logdir", default="runs")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)

    probe = make(args.game, num_players=args.players)
    num_players = probe.game.num_players
    pool = OpponentPool(args.opponents)
    vec_env = DummyVecEnv(
        [
            lambda: SingleAgentEnv(args.game, pool, num_players=num_players)
            for _ in range(args.n_envs)
        ]
    )
    vec_env.seed(args.seed)
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        n_steps=512,
        batch_size=1024,
        learning_rate=3e-4,
        gamma=1.0,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [128, 128]},
        tensorboard_log=args.logdir,
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    started = time.perf_counter()
    model.learn(
        args.timesteps,
        callback=SelfPlayCallback(pool, args.snapshot_every, args.timesteps),
        tb_log_name=f"{args.game}_ppo",
    )
    seconds = time.perf_counter() - started
    out = Path(args.out) if args.out else shipped_checkpoint(args.game)
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    result = {
        "env": args.game,
        "num_players": num_players,
        "timesteps": args.timesteps,
        "train_seconds": round(seconds, 1),
        "opponents": args.opponents,
        "seed": args.seed,
        "eval_games": args.eval_games,
        "win_share_vs_random": evaluate(
            model, args.game, num_players, "random", args.eval_games, 10_000
        ),
        "win_share_vs_heuristic": evaluate(
            model, args.game, num_players, "heuristic", args.eval_games, 20_000
        ),
        "fair_share": 1 / num_players,
    }
    metadata_path(out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
