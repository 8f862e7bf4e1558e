"""Common random numbers through chance as data: each chance event draws from its own stream.

A game's rules take every random outcome through ``state.chance.take(rng, event, ...)``.
Played from one seeded generator, the outcomes after the first that draws a varying amount
(a reshuffle of a discard pile, a lot among tied players) fall out of step between two tables
of the same deal played differently. :class:`StreamedChance` draws the ``k``-th outcome of
each event from a generator of its own, seeded by the deal and ``(event, k)``: two tables of
one deal see the same ``k``-th outcome of every event whatever their players did, wherever the
outcome depends on the random numbers alone (a fresh shuffle of the whole deck). Each outcome
is still a draw from the rules' own sampler with fresh random numbers, so the game is a game of
the same distribution.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from card_envs.core.chance import ChanceLog
from card_envs.core.env import CardEnv

Outcome = TypeVar("Outcome")


@dataclass
class StreamedChance(ChanceLog):
    """A [`ChanceLog`][card_envs.core.chance.ChanceLog] whose unscripted outcomes come from one
    generator per event and outcome index, seeded from ``root``, not from the table's."""

    root: int = 0

    def take(
        self,
        rng: np.random.Generator,
        event: str,
        sample: Callable[[np.random.Generator], Outcome],
        check: Callable[[Any], Outcome],
    ) -> Outcome:
        if self.script.get(event):
            return super().take(rng, event, sample, check)
        index = len(self.log.get(event, []))
        stream = np.random.default_rng([self.root, zlib.crc32(event.encode()), index])
        return super().take(stream, event, sample, check)


def deal_streamed(env: CardEnv, deal_seed: int) -> None:
    """Reset ``env`` to the deal ``deal_seed`` (the first outcomes drawn from it, as
    ``reset(seed=deal_seed)`` draws them) and draw every later outcome from the deal's streams."""
    env.reset(seed=deal_seed)
    state = env.game_state
    chance = state.chance
    state.chance = StreamedChance(script=chance.script, log=chance.log, root=deal_seed)
