"""Vector envs: many tables of one game stepped in one call, arrays in and arrays out.

- ``make``: every seat's turns, the seat to act's observation and mask per table.
- ``single_agent``: a Gymnasium ``VectorEnv`` of one learner seat per table, the other seats
  played inside by built-in agents.
- ``to_sb3``: that env as a Stable-Baselines3 ``VecEnv`` for sb3-contrib's ``MaskablePPO``
  (needs the ``train`` extra; imported only when called, so this package never imports torch).

The API, array shapes, the auto-reset rule and seeding: docs/vector.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from card_envs.vector.engine import CardVectorEnv
from card_envs.vector.single import SingleAgentVectorEnv

if TYPE_CHECKING:
    from card_envs.vector.sb3 import SB3VecEnv

__all__ = [
    "CardVectorEnv",
    "SingleAgentVectorEnv",
    "make",
    "random_actions",
    "single_agent",
    "to_sb3",
]


def make(env_id: str, num_envs: int, *, seed: int | None = None, **options: Any) -> CardVectorEnv:
    """``num_envs`` tables of ``env_id`` (options as ``card_envs.make`` takes them). Game ``k``
    of table ``i`` is dealt as ``card_envs.make(env_id, **options)`` deals after
    ``reset(seed=seed + i + k * num_envs)``; ``seed=None`` draws a fresh seed (``.seed``)."""
    return CardVectorEnv(env_id, num_envs, seed=seed, **options)


def single_agent(
    env_id: str,
    num_envs: int,
    *,
    opponents: str | Sequence[str] = "heuristic",
    seat: str | int = "rotate",
    seed: int | None = None,
    **options: Any,
) -> SingleAgentVectorEnv:
    """A Gymnasium ``VectorEnv`` of one learner seat per table against ``opponents`` (one agent
    kind for every other seat, or one per seat from the learner's left); ``seat`` is
    ``"rotate"`` (seat ``(i + k) % players`` in game ``k`` of table ``i``) or a fixed seat."""
    return SingleAgentVectorEnv(
        env_id, num_envs, opponents=opponents, seat=seat, seed=seed, **options
    )


def to_sb3(venv: SingleAgentVectorEnv) -> SB3VecEnv:
    """``venv`` as a Stable-Baselines3 ``VecEnv``: ``MaskablePPO("MlpPolicy", to_sb3(venv))``."""
    from card_envs.vector.sb3 import SB3VecEnv

    return SB3VecEnv(venv)


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of the ``(num_envs, A)`` bool ``masks``,
    drawn for all rows at once (every row must have a legal action)."""
    flat = np.flatnonzero(masks)
    counts = np.bincount(flat // masks.shape[1], minlength=masks.shape[0])
    if not counts.all():
        raise ValueError(f"row {int(np.argmin(counts))} of the masks has no legal action")
    starts = np.cumsum(counts) - counts
    return flat[starts + rng.integers(0, counts)] % masks.shape[1]
