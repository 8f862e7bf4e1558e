"""The value of a position to each seat, in [0, 1]: what a playout backs up."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from card_envs.core.game import Game

SOLO_SCALE = 10.0  # a solo score s is worth s / (s + SOLO_SCALE): more is better, never above 1

# Games whose scores move only when a round is scored, and a projection of the scores if the
# round ended now, for playouts cut off mid-round. Seers Catalog: every card held costs a point.
PROJECTIONS: dict[str, Callable[[Any], list[float]]] = {
    "seers_catalog": lambda state: [
        t - len(h) for t, h in zip(state.totals, state.hands, strict=True)
    ],
}

# Games whose scores change more than once a round, and the round a state is in: a playout to
# the round's horizon runs until it changes. Sequitur: each goal claimed scores at once.
ROUNDS: dict[str, Callable[[Any], int]] = {"sequitur": lambda state: state.round}


def horizon_mark(game: Game, state: Any) -> list[float]:
    """What a playout to the round's horizon watches: the round where :data:`ROUNDS` has the
    game, else the scores (they change when a round is scored)."""
    round_of = ROUNDS.get(game.name)
    if round_of is not None:
        return [float(round_of(state))]
    return [float(s) for s in game.scores(state)]


def values(
    game: Game, state: Any, before: list[float] | None = None, gain: float = 0.0
) -> list[float]:
    """Each seat's value of ``state``: its share of the win at the end (1 / number of winners),
    else its standing by score (1 above everyone, 0 below, a tie half), the score projected to
    the round's end where :data:`PROJECTIONS` has the game, mixed with weight ``gain`` with its
    standing by the points gained since the scores ``before`` (winning a round counts even
    for a seat too far behind or ahead for the round to change its standing); alone, the score
    squashed into [0, 1]."""
    project = PROJECTIONS.get(game.name)
    if project is None or game.is_over(state):
        scores = [float(s) for s in game.scores(state)]
    else:
        scores = project(state)
    n = len(scores)
    if n == 1:
        return [max(scores[0], 0.0) / (max(scores[0], 0.0) + SOLO_SCALE)]
    if game.is_over(state):
        winners = game.winners(state)
        return [1.0 / len(winners) if seat in winners else 0.0 for seat in range(n)]
    if not gain or before is None:
        return [standing(scores, seat) for seat in range(n)]
    gained = [s - b for s, b in zip(scores, before, strict=True)]
    return [
        (1 - gain) * standing(scores, seat) + gain * standing(gained, seat) for seat in range(n)
    ]


def standing(scores: list[float], seat: int) -> float:
    """``seat``'s share of the others it is ahead of (a tie counts half)."""
    mine = scores[seat]
    ahead = sum(1.0 if s < mine else 0.5 if s == mine else 0.0 for s in scores)
    return (ahead - 0.5) / (len(scores) - 1)
