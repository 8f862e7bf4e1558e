"""Sequitur test positions built from exact states: shared by the rules and the ``sequitur_v1``
tests."""

from __future__ import annotations

import numpy as np

from card_envs.sequitur.rules import SequiturGame
from card_envs.sequitur.rules.cards import NUM_BALLS, balls_of
from card_envs.sequitur.rules.state import ACTION, SPELL, SPELL_KEEP


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def play_until(game: SequiturGame, state, stop, r: np.random.Generator | None = None) -> None:
    """Take the first legal action until ``stop(state)``."""
    r = r or rng()
    while not stop(state):
        game.apply(state, game.legal_actions(state)[0], r)


def set_rack(state, seat: int, letters: str) -> None:
    """Give ``seat`` the rack ``letters`` (balls taken from the bag), shown to everyone."""
    state.bag.extend(state.racks[seat])
    taken = set(range(NUM_BALLS)) - set(state.bag)
    balls = balls_of(letters, taken)
    for ball in balls:
        state.bag.remove(ball)
    state.racks[seat] = balls
    state.shown_racks[seat] = list(balls)


def spell_name(slots: list[int], reverse: bool = False) -> str:
    return f"spell slots {','.join(map(str, sorted(slots)))} " + (
        "right-to-left" if reverse else "left-to-right"
    )


def at_spelling(game: SequiturGame, seed: int = 0, deal: dict | None = None):
    """A game (dealt with ``deal``) at the spelling step, seat 0 to spell."""
    state = game.new_game(rng(seed), deal)
    play_until(game, state, lambda s: s.phase == SPELL, rng(seed))
    assert state.actor == 0 and state.decision == SPELL_KEEP
    return state


def at_action(game: SequiturGame, letters: str, seed: int = 0):
    state = game.new_game(rng(seed))
    play_until(game, state, lambda s: s.phase == ACTION, rng(seed))
    set_rack(state, 0, letters)
    return state
