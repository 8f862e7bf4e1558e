"""Putting what a seat cannot see into a fixed order before it is redrawn, so that
:meth:`SequiturGame.resample_hidden` depends only on what the seat knows."""

from __future__ import annotations

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
