"""Perfect information Monte Carlo: sample determinisations consistent with what the seat
knows, value every legal move in each by a playout, and let each determinisation vote for its
best move (ties between moves split the vote)."""

from __future__ import annotations

import time
from typing import Any

from card_envs.agents.search.base import SearchAgent
from card_envs.core.game import Game


class PIMCAgent(SearchAgent):
    """Kind ``"pimc"``: ``iterations`` playouts per decision, one per legal move in each of
    ``iterations // len(legal)`` determinisations (at least one)."""

    name = "pimc"

    def search(self, game: Game, state: Any, seat: int, legal: list[int]) -> dict[int, float]:
        votes = dict.fromkeys(legal, 0.0)
        start, iteration = time.perf_counter(), 0
        while iteration == 0 or not self.out_of_time(iteration + len(legal) - 1, start):
            world = game.resample_hidden(state, seat, self.rng)
            worth = {action: self._value(game, world, action, seat) for action in legal}
            best = max(worth.values())
            winners = [action for action, value in worth.items() if value == best]
            for action in winners:
                votes[action] += 1.0 / len(winners)
            iteration += len(legal)
        return votes

    def _value(self, game: Game, world: Any, action: int, seat: int) -> float:
        """``seat``'s value of one playout after ``action`` in the determinisation ``world``."""
        copy = game.clone(world)
        game.apply(copy, action, self.rng)
        return self.playout(game, copy)[seat]
