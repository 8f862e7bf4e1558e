"""Shared test helpers: every registered environment at every player count, and random play."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator

import numpy as np

from card_envs import env_names, make, player_counts
from card_envs.core.env import CardEnv

ENV_CASES = [(name, n) for name in env_names() for n in player_counts(name)]
CASE_IDS = [f"{name}-{n}p" for name, n in ENV_CASES]


def snapshot(env: CardEnv) -> bytes:
    """Every bit of an environment's game and bookkeeping, for bit-identity checks."""
    return pickle.dumps(
        (
            env.game_state,
            env.agent_selection,
            env.rewards,
            env._cumulative_rewards,
            env.terminations,
            env.truncations,
            env._rng.bit_generator.state,
        )
    )


def random_steps(env: CardEnv, seed: int, max_steps: int | None = None) -> Iterator[int]:
    """Play uniformly random legal moves until the game ends, yielding before each action."""
    rng = np.random.default_rng(seed)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        yield int(legal[rng.integers(len(legal))])
        steps += 1
        if max_steps is not None and steps >= max_steps:
            return


def play_random(
    name: str,
    num_players: int,
    seed: int,
    each: Callable[[CardEnv, int], None] | None = None,
    **options,
) -> CardEnv:
    """A seeded random game to the end; ``each(env, action)`` runs before every action."""
    env = make(name, num_players=num_players, **options)
    env.reset(seed=seed)
    for action in random_steps(env, seed):
        if each is not None:
            each(env, action)
        env.step(action)
    return env
