"""Training throughput: env steps/s of MaskablePPO on each game beside a zero-cost env.

The zero-cost env has the game's spaces and episode length but does no work in ``step``, so
MaskablePPO on it is the network-bound limit of the same configuration; the ratio says how much
of training time the game (and its opponent seats) costs.

    python -m card_envs.training.throughput --game all \
        --json benchmarks/results/train_throughput.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, ClassVar

import gymnasium
import numpy as np

from card_envs.core.extras import require
from card_envs.registry import env_names
from card_envs.training.config import PPOConfig, ppo_config
from card_envs.training.single_agent import OpponentPool, SingleAgentEnv

with require("train"):
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv


class ZeroCostEnv(gymnasium.Env):
    """The spaces of ``like`` and episodes of ``length`` steps; every action legal, no work."""

    # gymnasium declares metadata an instance attribute, though it is read from the class
    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}  # type: ignore[misc]

    def __init__(self, like: gymnasium.Env, length: int):
        self.observation_space, self.action_space = like.observation_space, like.action_space
        # gymnasium types them as any Space; a card env's are a flat Box and a Discrete
        assert self.observation_space.shape is not None
        assert isinstance(self.action_space, gymnasium.spaces.Discrete)
        self.length, self.t = length, 0
        self.obs = np.zeros(self.observation_space.shape, dtype=np.float32)
        self.mask = np.ones(self.action_space.n, dtype=bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.t = 0
        return self.obs, {}

    def step(self, action: int):
        self.t += 1
        return self.obs, 0.0, self.t >= self.length, False, {}

    def action_masks(self) -> np.ndarray:
        return self.mask


def learner_steps_per_episode(env: SingleAgentEnv, episodes: int = 20) -> int:
    """The mean number of learner decisions per episode, under uniformly random legal play."""
    rng, steps = np.random.default_rng(0), 0
    for episode in range(episodes):
        env.reset(seed=episode)
        done = False
        while not done:
            action = rng.choice(np.flatnonzero(env.action_masks()))
            *_, terminated, truncated, _ = env.step(action)
            done, steps = terminated or truncated, steps + 1
    return max(1, round(steps / episodes))


def steps_per_second(make_env, config: PPOConfig, timesteps: int) -> float:
    """MaskablePPO with ``config``'s settings on ``n_envs`` copies; env steps/s of ``learn``."""
    vec = DummyVecEnv([make_env] * config.n_envs)
    model = MaskablePPO(
        "MlpPolicy",
        vec,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        policy_kwargs={"net_arch": [config.width] * 2},
        device="cpu",
        seed=0,
    )
    started = time.perf_counter()
    model.learn(timesteps)
    return model.num_timesteps / (time.perf_counter() - started)


def measure(env_name: str, opponent: str, timesteps: int) -> dict[str, Any]:
    config = ppo_config(env_name)  # the training defaults

    def game() -> SingleAgentEnv:
        return SingleAgentEnv(env_name, OpponentPool([opponent]), advisor=config.advisor)

    length = learner_steps_per_episode(game())
    real = steps_per_second(game, config, timesteps)
    limit = steps_per_second(lambda: ZeroCostEnv(game(), length), config, timesteps)
    return {
        "env": env_name,
        "opponents": opponent,
        "episode_length": length,
        "steps_per_s": round(real),
        "zero_cost_steps_per_s": round(limit),
        "ratio": round(real / limit, 3),
    }


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="all", choices=[*env_names(), "all"])
    parser.add_argument("--opponents", nargs="+", default=["random", "heuristic"])
    parser.add_argument("--timesteps", type=int, default=20_480)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    games = env_names() if args.game == "all" else [args.game]
    rows = []
    for name in games:
        for opponent in args.opponents:
            rows.append(measure(name, opponent, args.timesteps))
            print(json.dumps(rows[-1]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return rows


if __name__ == "__main__":
    main()
