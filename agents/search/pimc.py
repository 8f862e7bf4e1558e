"""Perfect information Monte Carlo: sample determinisations consistent with what the seat
knows, value every legal move in each by a playout, and play the move with the best mean value.
Every move is valued in the same determinisations, with the same rollout seed per
determinisation (common random numbers), so the comparison between moves is not drowned by
the differences between deals."""

from __future__ import annotations

import math
import random
import time
from statistics import mean, stdev
from typing import Any

import numpy as np

from card_envs.agents.search.base import SearchAgent
from card_envs.core.game import Game


class PIMCAgent(SearchAgent):
    """Kind ``"pimc"``: ``iterations`` playouts per decision, one per legal move in each of
    ``iterations // len(legal)`` determinisations (at least one); each move's weight is its
    mean value (the distribution: those means, normalised), leaned as :meth:`lean` says."""

    name = "pimc"

    def search(self, game: Game, state: Any, seat: int, legal: list[int]) -> dict[int, float]:
        found: dict[int, list[float]] = {action: [] for action in legal}
        start, iteration = time.perf_counter(), 0
        while iteration == 0 or not self.out_of_time(iteration + len(legal) - 1, start):
            world = game.resample_hidden(state, seat, self.rng)
            seed = int(self.rng.integers(2**63))
            for action in legal:
                found[action].append(self._value(game, world, action, seat, seed))
            iteration += len(legal)
        self._found = found
        return {action: mean(values) + 1e-9 for action, values in found.items()}

    def lean(self, counts: dict[int, float], guess: int) -> dict[int, float]:
        """Each other move's mean less ``prior`` standard errors of its paired difference
        with the heuristic's move ``guess``: another move is played only when it is better by
        more than that much."""
        prior, base = self.budget.prior, self._found[guess]
        leaned = {}
        for action, values in self._found.items():
            if action == guess or len(values) < 2:
                leaned[action] = counts[action]
                continue
            differences = [v - b for v, b in zip(values, base, strict=True)]
            error = stdev(differences) / math.sqrt(len(differences))
            leaned[action] = max(counts[action] - prior * error, 1e-9)
        return leaned

    def _value(self, game: Game, world: Any, action: int, seat: int, seed: int) -> float:
        """``seat``'s value of one playout after ``action`` in the determinisation ``world``,
        the playout's chance and random moves drawn from ``seed``."""
        copy, chance = game.clone(world), np.random.default_rng(seed)
        self.playout_rng = random.Random(seed)
        if self.rollout_agent is not None:
            self.rollout_agent.reset(seed)
        game.apply(copy, action, chance)
        return self.playout(game, copy, chance)[seat]
