"""Intervals over deals: a mean of per-deal values with its Student-t interval.

The deal is the independent unit of an evaluation (its tables share the cards), so a plain win
share and a luck-adjusted one are both the mean of one value per deal, and both intervals come
from the same t-interval over those values: their widths compare like for like.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

LEVEL = 0.95
BETA_ITERATIONS = 300  # continued-fraction terms: far more than doubles need for any df here
BISECTIONS = 80


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, BETA_ITERATIONS):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function ``I_x(a, b)``."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(log_front + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1 - front * _beta_fraction(b, a, 1 - x) / b


def t_cdf(t: float, df: float) -> float:
    """The Student-t distribution function with ``df`` degrees of freedom."""
    tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t))
    return 1 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (bisection on :func:`t_cdf`)."""
    if not 0 < p < 1 or df <= 0:
        raise ValueError(f"t_quantile needs 0 < p < 1 and df > 0; got p={p}, df={df}")
    low, high = -1e6, 1e6
    for _ in range(BISECTIONS):
        middle = (low + high) / 2
        low, high = (middle, high) if t_cdf(middle, df) < p else (low, middle)
    return (low + high) / 2


@dataclass(frozen=True)
class Interval:
    """A mean over deals and its two-sided 95% t-interval."""

    value: float
    low: float
    high: float

    @property
    def half(self) -> float:
        return (self.high - self.low) / 2

    def to_json(self) -> dict[str, float | list[float]]:
        return {"value": self.value, "ci": [self.low, self.high]}


def mean_interval(per_deal: Sequence[float], level: float = LEVEL) -> Interval:
    """The mean of ``per_deal`` and its t-interval; one deal leaves the whole real line."""
    n = len(per_deal)
    if n == 0:
        raise ValueError("an interval needs at least one deal")
    mean = math.fsum(per_deal) / n
    if n == 1:
        return Interval(mean, -math.inf, math.inf)
    spread = math.sqrt(math.fsum((v - mean) ** 2 for v in per_deal) / (n - 1) / n)
    half = t_quantile(0.5 + level / 2, n - 1) * spread
    return Interval(mean, mean - half, mean + half)


def games_for_width(games: int, plain: Interval, adjusted: Interval) -> float:
    """The games a plain estimate would need for the adjusted interval's width: the variance
    of a mean falls as one over the games."""
    if adjusted.half == 0:
        return math.inf
    return games * (plain.half / adjusted.half) ** 2
