"""Statistics for the arena: Wilson score intervals and openskill Plackett-Luce ratings."""

from __future__ import annotations

import math
from collections.abc import Sequence

from openskill.models import PlackettLuce

Z_95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(successes: float, trials: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (no continuity correction).

    ``successes`` may be fractional (a shared win counts ``1/k``); with no trials the interval is
    the whole ``[0, 1]``. Unlike the normal (Wald) interval it stays inside ``[0, 1]`` and keeps
    its coverage near 0 and 1, where strong agents' win rates sit.
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))  # exact at 0 and 1


def finishing_ranks(winners: Sequence[int], scores: Sequence[float]) -> list[int]:
    """Rank per seat (1 = best, ties share): winners first, then by final score, higher better."""
    keys = [(seat in winners, score) for seat, score in enumerate(scores)]
    return [1 + sum(other > key for other in keys) for key in keys]


class Ratings:
    """openskill Plackett-Luce ratings of arena entries, updated one table at a time.

    Every seat is its own team. An entry that fills several seats of one table (fewer agents
    than seats) gets the mean of its seats' updated ``mu`` and ``sigma``: one table counts once.
    """

    def __init__(self, entries: int):
        self.model = PlackettLuce()
        self.ratings = [self.model.rating() for _ in range(entries)]

    def update(self, seat_entries: Sequence[int], ranks: Sequence[int]) -> None:
        """Rate one finished table; a table of one entry only carries no information."""
        if len(set(seat_entries)) < 2:
            return
        teams = [[self.ratings[entry]] for entry in seat_entries]
        rated = self.model.rate(teams, ranks=list(ranks))
        for entry in sorted(set(seat_entries)):
            mine = [rated[s][0] for s, e in enumerate(seat_entries) if e == entry]
            self.ratings[entry] = self.model.rating(
                mu=sum(r.mu for r in mine) / len(mine),
                sigma=sum(r.sigma for r in mine) / len(mine),
            )

    def ordinal(self, entry: int) -> float:
        """The conservative leaderboard value ``mu - 3 sigma``."""
        return float(self.ratings[entry].ordinal())
