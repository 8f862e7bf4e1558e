"""Luck-adjusted outcomes (AIVAT, Burch et al. 2018): what luck gave each seat of one game.

At every transition whose result was random, the estimator subtracts what the randomness did
to each seat's value: the value after the transition minus its expectation over the
transition's randomness, estimated from ``samples`` replays of the transition from the state
before it, each with a fresh generator and no script. The randomness is

- ``deal``: the first deal (``new_game``);
- ``chance``: the chance events of a move (``ChanceLog.take``), at a seat whose policy is not
  known (a heuristic is deterministic: its move is no luck);
- ``decisions``: a move of a seat whose action distribution is known (the random agent),
  its chance included: the alternatives draw the action too.

Each term has mean zero given everything before it, whatever the value estimate says, so the
adjusted outcome ``outcome - weight * luck`` has the outcome's mean for any estimate and weight
(``tests/test_evaluation_luck.py`` checks it by simulation); a good estimate makes it vary less.
The luck of a game is computed after it, by replaying its deal record and moves: the games'
time and the adjustment's are measured apart. An agent must decide from its observation alone
(never the state), as every built-in agent does: one that read the cards still to come could
be lucky in a way no replay sees.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from card_envs.core.env import CardEnv
from card_envs.evaluation.values import ValueEstimate

PARTS = ("deal", "chance", "decisions")
Policy = Callable[[np.ndarray], np.ndarray]  # the legal ids -> a probability for each


def uniform(legal: np.ndarray) -> np.ndarray:
    """The random agent's action distribution: uniform over the legal ids."""
    return np.full(len(legal), 1 / len(legal))


def known_policy(kind: str) -> Policy | None:
    """The action distribution of an agent kind, where it is known: ``random``'s. A heuristic
    is deterministic (its move carries no luck), a trained or search agent's distribution is
    not exposed."""
    return uniform if kind == "random" else None


def chance_taken(state: Any) -> int:
    """How many chance outcomes the game has taken so far."""
    return sum(len(outcomes) for outcomes in state.chance.log.values())


@dataclass(frozen=True)
class Luck:
    """What luck gave each seat of one game: ``win`` and ``score`` are ``(parts, seats)``
    arrays, one row per :data:`PARTS`."""

    win: np.ndarray
    score: np.ndarray

    @classmethod
    def none(cls, seats: int) -> Luck:
        return cls(np.zeros((len(PARTS), seats)), np.zeros((len(PARTS), seats)))

    def to_json(self) -> dict[str, list[list[float]]]:
        return {"win": self.win.tolist(), "score": self.score.tolist()}


def game_luck(
    env: CardEnv,
    deal: dict[str, Any],
    actions: Sequence[int],
    policies: Sequence[Policy | None],
    value: ValueEstimate,
    samples: int,
    seed: int,
    chance_counts: Sequence[int] | None = None,
) -> Luck:
    """The luck of the game ``deal`` + ``actions`` (a record's) played on ``env``'s game, where
    ``policies[seat]`` is the known action distribution of each seat's agent (or None) and
    ``seed`` seeds the alternatives' generators. ``chance_counts[t]``, :func:`chance_taken`
    before move ``t`` (and after the last), saves a replay that finds them."""
    if chance_counts is None:
        chance_counts = replayed_counts(env, deal, actions)
    if len(chance_counts) != len(actions) + 1:
        raise ValueError("chance_counts needs one count before each move and one at the end")
    if samples < 1:
        raise ValueError(f"samples must be at least 1; got {samples}")
    game = env.game
    luck = Luck.none(game.num_players)
    state = game.new_game(np.random.default_rng(seed), deal=deal)
    fresh = [game.new_game(np.random.default_rng([seed, 0, j])) for j in range(samples)]
    _add(luck, 0, value(env, [state, *fresh]))
    draw = np.random.default_rng([seed, 1])
    for t, action in enumerate(actions):
        policy = policies[game.current_player(state)]
        random_step = chance_counts[t + 1] > chance_counts[t]
        if policy is None and not random_step:
            game.apply(state, action, draw)
            continue
        before = game.clone_without_chance(state)
        moves = [action] * samples
        if policy is not None:
            legal = np.asarray(game.legal_actions(before))
            moves = [int(a) for a in draw.choice(legal, size=samples, p=policy(legal))]
        game.apply(state, action, draw)
        alternatives = []
        for j, move in enumerate(moves):
            other = before if j == samples - 1 else game.clone(before)
            game.apply(other, move, np.random.default_rng([seed, 2, t, j]))
            alternatives.append(other)
        _add(luck, 2 if policy is not None else 1, value(env, [state, *alternatives]))
    return luck


def replayed_counts(env: CardEnv, deal: dict[str, Any], actions: Sequence[int]) -> list[int]:
    """:func:`chance_taken` before each move of a replay of ``deal`` and ``actions``, and after."""
    game = env.game
    state = game.new_game(np.random.default_rng(0), deal=deal)
    counts = [chance_taken(state)]
    for action in actions:
        game.apply(state, action, np.random.default_rng(0))
        counts.append(chance_taken(state))
    return counts


def _add(luck: Luck, part: int, values: np.ndarray) -> None:
    """Add the value at the real position (``values[0]``) less the alternatives' mean."""
    change = values[0] - values[1:].mean(axis=0)
    luck.win[part] += change[:, 0]
    luck.score[part] += change[:, 1]
