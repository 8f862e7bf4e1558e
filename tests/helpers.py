"""Shared test helpers: every registered environment at every player count, and random play."""

from __future__ import annotations

import importlib.util
import pickle
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium.spaces import Dict, Space

from card_envs import env_names, make, player_counts
from card_envs.agents.match import decisions
from card_envs.core.env import CardEnv

ROOT = Path(__file__).resolve().parents[1]


def load_script(name: str) -> ModuleType:
    """``benchmarks/<name>.py``, a script rather than a module of the package, imported under
    its name (registered, so that its dataclasses can look their module up)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


ENV_CASES = [(name, n) for name in env_names() for n in player_counts(name)]
CASE_IDS = [f"{name}-{n}p" for name, n in ENV_CASES]


def snapshot(env: CardEnv) -> bytes:
    """Every bit of an environment's game and bookkeeping, for bit-identity checks: the game,
    its generator, the AEC bookkeeping and the generators of the agents' spaces."""
    spaces = [env.action_spaces, env.observation_spaces]
    return pickle.dumps(
        (
            env.game_state,
            env.agents,
            env.agent_selection,
            env._skip_agent_selection,
            env.rewards,
            env._cumulative_rewards,
            env.terminations,
            env.truncations,
            env.infos,
            env._mask,
            env._rng.bit_generator.state,
            [[space_rng_state(space) for space in by_agent.values()] for by_agent in spaces],
        )
    )


def space_rng_state(space: Space) -> Any:
    """The state of a space's sampling generator (of each sub-space for a Dict), read without
    creating one: reading ``space.np_random`` would seed an unseeded space."""
    if isinstance(space, Dict):
        return [space_rng_state(sub) for sub in space.spaces.values()]
    generator = space._np_random
    return None if generator is None else generator.bit_generator.state


def random_steps(env: CardEnv, seed: int, max_steps: int | None = None) -> Iterator[int]:
    """Uniformly random legal moves until the game ends: yields each action, which the caller
    steps before asking for the next (the loop is :func:`card_envs.agents.match.decisions`)."""
    rng = np.random.default_rng(seed)
    for steps, (_agent, obs) in enumerate(decisions(env), start=1):
        legal = np.flatnonzero(obs["action_mask"])
        yield int(legal[rng.integers(len(legal))])
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
