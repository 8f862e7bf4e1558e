"""After the words are spelled: secret goals are settled, then players claim public goals their
words meet, in word-score order."""

from __future__ import annotations

import numpy as np

from card_envs.sequitur.rules import events
from card_envs.sequitur.rules.decks import GoalDecks
from card_envs.sequitur.rules.state import EMPTY, SequiturState
from card_envs.sequitur.rules.words import Dictionary


def settle_words(
    state: SequiturState, rng: np.random.Generator, decks: GoalDecks, dictionary: Dictionary
) -> None:
    """Reveal the words, settle secret goals, order the claims by word score, ties by lot: the
    chance event ``claim_ties`` (the seats in lot order), unless the deal scripts it."""
    n, goals = state.num_players, decks.goals
    state.words_shown = True
    state.shown_secret = [False] * n
    for seat, goal in enumerate(state.secret):
        word = state.words[seat]
        if goal == EMPTY:
            continue
        if word and goals[goal].met_by(word, dictionary):
            decks.stack(state, seat, goal)
        else:
            decks.discard(state, goal, seat)
    state.secret = [EMPTY] * n
    lot = state.chance.take(rng, events.CLAIM_TIES, lambda rng: _lot(rng, n), lambda given: given)
    rank = {seat: i for i, seat in enumerate(lot)}
    spellers = [p for p in range(n) if state.words[p]]
    state.claim_order = sorted(spellers, key=lambda p: (-state.scores[p], rank[p]))
    for p in spellers:
        word = state.words[p]
        state.meets[p] = [g for g in state.public if goals[g].met_by(word, dictionary)]


def _lot(rng: np.random.Generator, num_players: int) -> list[int]:
    """The seats in the order a drawn lot ranks them (the first wins every tie)."""
    rank = rng.permutation(num_players).tolist()
    return sorted(range(num_players), key=rank.__getitem__)


def claimable(state: SequiturState, seat: int) -> list[int]:
    """The public goals on the table that ``seat``'s word meets, ascending."""
    return sorted(g for g in state.meets[seat] if g in state.public)


def claim_violation(
    state: SequiturState, goal: int, decks: GoalDecks, dictionary: Dictionary
) -> str | None:
    """Why the actor may not claim ``goal`` (checked against the word, not ``meets``)."""
    if goal not in state.public:
        return "that goal is not a public goal on the table"
    word = state.words[state.actor]
    return None if decks.goals[goal].met_by(word, dictionary) else "your word misses it"
