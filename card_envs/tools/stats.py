"""Statistics for the arena: win-share intervals over deals, and openskill ratings."""

from __future__ import annotations

import math
from collections.abc import Sequence

from openskill.models import PlackettLuce

Z_95 = 1.959963984540054  # two-sided 95% normal quantile
MIN_SPREAD_DEALS = 30  # deals needed before their spread is trusted over independent games


def wilson_interval(successes: float, trials: float, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (no continuity correction).

    ``successes`` may be fractional (a shared win counts ``1/k``) and so may ``trials`` (an
    effective sample size); with no trials the interval is the whole ``[0, 1]``. Unlike the
    normal (Wald) interval it stays inside ``[0, 1]`` and keeps its coverage near 0 and 1, where
    strong agents' win rates sit.
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))  # exact at 0 and 1


def deal_interval(
    wins_per_deal: Sequence[float], games_per_deal: int, z: float = Z_95
) -> tuple[float, float]:
    """95% interval of a win share from deals that each give ``games_per_deal`` seat-games.

    The seat-games of one deal are not independent: they are the same cards in every seating,
    so an agent that wins in one seat mostly loses in the others and the deal's share varies
    less than independent games would. The deal is the independent unit: the interval is the
    Wilson interval at the effective sample size ``p(1 - p) / var``, ``var`` the variance of the
    mean of the deals' shares (Kish's design effect ``deff``), with ``deff`` at least
    ``1 / games_per_deal`` so that deals that happened to agree still leave an interval. With
    fewer than :data:`MIN_SPREAD_DEALS` deals, too few to measure their spread, or a share of
    exactly 0 or 1, where the spread says nothing, the seat-games count as independent (which
    errs wide here).
    """
    deals = len(wins_per_deal)
    games = deals * games_per_deal
    wins = float(sum(wins_per_deal))
    p = wins / games if games else 0.0
    if deals < MIN_SPREAD_DEALS or p in (0.0, 1.0):
        return wilson_interval(wins, games, z)
    shares = [w / games_per_deal for w in wins_per_deal]
    spread = sum((s - p) ** 2 for s in shares) / (deals - 1) / deals  # variance of the mean
    deff = max(spread / (p * (1 - p) / games), 1 / games_per_deal)
    return wilson_interval(wins / deff, games / deff, z)


def win_ranks(winners: Sequence[int], num_seats: int) -> list[int] | None:
    """Rank per seat for a rating of wins: winners 1, everyone else 2; ``None`` when the
    table says nothing about who won (no winner, or every seat won)."""
    if not 0 < len(winners) < num_seats:
        return None
    return [1 if seat in winners else 2 for seat in range(num_seats)]


class Ratings:
    """openskill Plackett-Luce ratings of arena entries, updated one table at a time.

    Every seat is its own team. An entry that fills several seats of one table (fewer agents
    than seats) gets the mean of its seats' updated ``mu`` and ``sigma``: one table counts once.
    """

    def __init__(self, entries: int):
        self.model = PlackettLuce()
        self.ratings = [self.model.rating() for _ in range(entries)]

    def update(self, seat_entries: Sequence[int], ranks: Sequence[int] | None) -> None:
        """Rate one finished table; a table of one entry only, or without ranks, carries no
        information."""
        if ranks is None or len(set(seat_entries)) < 2:
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
