"""A leaderboard: agents of one game seated together in line-ups chosen so that every pair
meets, each line-up played on the protocol's deals in every rotation, and a multiplayer
Bradley-Terry rating fitted to the luck-adjusted seat outcomes, with intervals from a bootstrap
over deals (``docs/evaluation.md``).

The rating is the strength ``theta`` of the Plackett-Luce model's first place: at a table the
seat of agent ``a`` wins with probability ``exp(theta_a) / sum(exp(theta_b))`` over the seats.
It is fitted by maximising ``sum w log p`` over every seat of every table, ``w`` the seat's
win share less its luck: the same equations as the likelihood of the plain outcomes (each
agent's expected wins equal its observed ones), with luck-adjusted wins, whose mean is the
same. A weak prior on ``theta`` keeps an agent that never wins finite. Ratings are anchored at
the heuristic's 0 (else the first agent's): ``theta`` 1 above another is ``e`` times its odds.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from card_envs.evaluation.protocol import Protocol
from card_envs.evaluation.run import LuckSettings
from card_envs.evaluation.tables import Table, TableResult

PRIOR = 0.01  # weight of the N(0, 1/PRIOR) prior on each theta, against tables of weight 1
NEWTON_STEPS = 50
BOOTSTRAP = 200


def lineups(count: int, seats: int) -> list[tuple[int, ...]]:
    """Line-ups of ``seats`` entries out of ``count`` in which every pair meets at least once:
    greedily the line-up that seats the most pairs not yet met (the first such in order).
    With no more entries than seats, one line-up cycling through them."""
    if count < 1:
        raise ValueError("a leaderboard needs at least one agent")
    if count <= seats:
        return [tuple(i % count for i in range(seats))]
    unmet = set(itertools.combinations(range(count), 2))
    chosen = []
    while unmet:
        best = max(
            itertools.combinations(range(count), seats),
            key=lambda lineup: len(unmet & set(itertools.combinations(lineup, 2))),
        )
        chosen.append(best)
        unmet -= set(itertools.combinations(best, 2))
    return chosen


def rotations(lineup: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The line-up's entry in each seat at each of its tables: every entry in every seat."""
    n = len(lineup)
    return [tuple(lineup[(seat - shift) % n] for seat in range(n)) for shift in range(n)]


def deal_tables(
    env_name: str,
    num_players: int,
    protocol: Protocol,
    deal: int,
    kinds: Sequence[str],
    schedule: Sequence[tuple[int, ...]],
    luck: LuckSettings,
    trust: bool = False,
) -> list[tuple[tuple[int, ...], Table]]:
    """Every table of deal ``deal``: each line-up in each rotation, with its seat entries."""
    out = []
    seated = [entries for lineup in schedule for entries in rotations(lineup)]
    for index, entries in enumerate(seated):
        table = Table(
            env_name,
            num_players,
            tuple(kinds[e] for e in entries),
            protocol.deal_seed(deal),
            protocol.agent_seeds(deal, index, num_players),
            luck.value,
            luck.samples,
            trust,
        )
        out.append((entries, table))
    return out


@dataclass(frozen=True)
class Outcome:
    """One table for the rating: its deal, the entry in each seat and each seat's win share
    (plain or less its luck)."""

    deal: int
    entries: tuple[int, ...]
    wins: tuple[float, ...]


def outcomes(
    deal: int, entries: tuple[int, ...], result: TableResult, weight: float | None
) -> Outcome:
    """A played table as an :class:`Outcome`, luck subtracted with ``weight`` unless None."""
    wins = np.array(result.win, float)
    if weight is not None and result.luck is not None:
        wins = wins - weight * result.luck.win.sum(axis=0)
    return Outcome(deal, entries, tuple(float(w) for w in wins))


def fit_strengths(tables: Sequence[Outcome], count: int, anchor: int = 0) -> np.ndarray:
    """Each entry's ``theta`` (anchored at ``anchor``'s 0) by Newton's method on the weighted
    first-place log-likelihood plus the prior."""
    theta = np.zeros(count)
    seats = np.array([t.entries for t in tables])
    wins = np.array([t.wins for t in tables], float)
    totals = wins.sum(axis=1)
    onehot = np.eye(count)[seats]  # tables x seats x entries
    for _ in range(NEWTON_STEPS):
        logits = theta[seats]
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        residual = wins - totals[:, None] * p
        gradient = np.einsum("ts,tse->e", residual, onehot) - PRIOR * theta
        by_entry = np.einsum("ts,tse->te", p, onehot)
        weighted = totals[:, None, None] * (
            np.einsum("te,tf->tef", by_entry, by_entry)
            - np.einsum("ts,tse,tsf->tef", p, onehot, onehot)
        )
        hessian = weighted.sum(axis=0) - PRIOR * np.eye(count)
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if np.abs(step).max() < 1e-10:
            break
    return theta - theta[anchor]


@dataclass(frozen=True)
class Rating:
    """One agent's leaderboard line."""

    agent: str
    rating: float
    low: float
    high: float
    win_share: float
    adjusted: float
    games: int

    def to_json(self) -> dict[str, object]:
        return {
            "agent": self.agent,
            "rating": self.rating,
            "ci": [self.low, self.high],
            "win_share": self.win_share,
            "adjusted": self.adjusted,
            "games": self.games,
        }


def ratings(
    kinds: Sequence[str],
    plain: Sequence[Outcome],
    adjusted: Sequence[Outcome],
    anchor: int = 0,
    seed: int = 0,
) -> list[Rating]:
    """Each agent's rating on the ``adjusted`` outcomes with its bootstrap 95% interval over
    deals, and its plain and adjusted mean win share a seat-game; best first."""
    count = len(kinds)
    theta = fit_strengths(adjusted, count, anchor)
    deals = sorted({t.deal for t in adjusted})
    by_deal = {d: [t for t in adjusted if t.deal == d] for d in deals}
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(BOOTSTRAP if len(deals) > 1 else 0):
        picked = rng.choice(len(deals), size=len(deals))
        sample = [t for i in picked for t in by_deal[deals[i]]]
        draws.append(fit_strengths(sample, count, anchor))
    low, high = (
        np.percentile(draws, [2.5, 97.5], axis=0)
        if draws
        else (np.full(count, -np.inf), np.full(count, np.inf))
    )
    lines = []
    for e, kind in enumerate(kinds):
        mine = [
            (t.wins[s], a.wins[s])
            for t, a in zip(plain, adjusted, strict=True)
            for s, entry in enumerate(t.entries)
            if entry == e
        ]
        lines.append(
            Rating(
                kind,
                float(theta[e]),
                float(low[e]),
                float(high[e]),
                float(np.mean([m[0] for m in mine])) if mine else float("nan"),
                float(np.mean([m[1] for m in mine])) if mine else float("nan"),
                len(mine),
            )
        )
    return sorted(lines, key=lambda r: -r.rating)
