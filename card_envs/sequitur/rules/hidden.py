"""Putting what a seat cannot see into a fixed order before it is redrawn, so that
:meth:`SequiturGame.resample_hidden` depends only on what the seat knows, and redrawing the
balls other seats drew earlier in the current simultaneous step."""

from __future__ import annotations

import numpy as np

from card_envs.sequitur.rules.decks import GoalDecks
from card_envs.sequitur.rules.goals import COLOURS
from card_envs.sequitur.rules.state import EMPTY, SequiturState


def sort_hidden(state: SequiturState, decks: GoalDecks, observer: int) -> None:
    """In place: the bag (with a ball another seat is placing) and each colour's unseen goal
    cards sorted into their places, keeping who discarded each face-down position."""
    if state.ball != EMPTY and state.actor != observer:
        balls = sorted([*state.bag, state.ball])
        state.ball, state.bag = balls.pop(), balls
    else:
        state.bag.sort()
    owners = [[state.discarder[g] for g in pile] for pile in state.discards]
    for colour in range(len(COLOURS)):
        slots = decks.hidden_slots(state, observer, colour)
        for (holder, i), card in zip(slots, sorted(h[i] for h, i in slots), strict=True):
            holder[i] = card
    state.discarder = {
        g: owners[c][i] for c, pile in enumerate(state.discards) for i, g in enumerate(pile)
    }


def redraw_new_balls(state: SequiturState, observer: int, rng: np.random.Generator) -> None:
    """In place: the balls other seats put on their racks in this step (not on the racks shown
    at its start), which ``observer`` has not seen, redrawn with the bag; they keep their
    places on the racks. A ball shown on a rack is never drawn into one of those places."""
    shown = {ball for rack in state.shown_racks for ball in rack}
    slots = [
        (rack, i)
        for seat, rack in enumerate(state.racks)
        if seat != observer
        for i, ball in enumerate(rack)
        if ball not in shown
    ]
    if not slots:
        return
    pool = sorted([*state.bag, *(rack[i] for rack, i in slots)])
    fresh = [ball for ball in pool if ball not in shown]
    fresh = [fresh[int(i)] for i in rng.permutation(len(fresh))]
    for rack, i in slots:
        rack[i] = fresh.pop()
    rest = sorted([*fresh, *(ball for ball in pool if ball in shown)])
    state.bag = [rest[int(i)] for i in rng.permutation(len(rest))]
