"""The value of a position to each seat, in [0, 1]: what a playout backs up."""

from __future__ import annotations

from typing import Any

from card_envs.core.game import Game

SOLO_SCALE = 10.0  # a solo score s is worth s / (s + SOLO_SCALE): more is better, never above 1


def horizon_mark(game: Game, state: Any) -> list[float]:
    """What a playout to the round's horizon watches: the round index where scores move within
    a round (``Game.scores_move_within_round``), else the scores (they change when a round is
    scored)."""
    if game.scores_move_within_round:
        return [float(game.round_index(state))]
    return [float(s) for s in game.scores(state)]


def values(
    game: Game, state: Any, before: list[float] | None = None, gain: float = 0.0
) -> list[float]:
    """Each seat's value of ``state``: its share of the win at the end (1 / number of winners),
    else its standing by score (1 above everyone, 0 below, a tie half), the score projected to
    the round's end (``Game.projected_scores``), mixed with weight ``gain`` with its
    standing by the points gained since the scores ``before`` (winning a round counts even
    for a seat too far behind or ahead for the round to change its standing); alone, the score
    squashed into [0, 1]."""
    if game.is_over(state):
        scores = [float(s) for s in game.scores(state)]
    else:
        scores = game.projected_scores(state)
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
