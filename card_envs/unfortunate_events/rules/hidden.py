"""What a seat cannot see, redealt by :meth:`UnfortunateEventsGame.resample_hidden`: the pile
and the cards of the other hands beyond what it knows they hold. It knows a hand holds its
publicly known cards or, if its Olaf's Eye looked at that hand this round, what the look showed
less what the hand has visibly given up since (``eye_known``)."""

from __future__ import annotations

import numpy as np

from card_envs.unfortunate_events.rules.cards import NUM_KINDS
from card_envs.unfortunate_events.rules.state import UnfortunateEventsState


def redeal_hidden(state: UnfortunateEventsState, observer: int, rng: np.random.Generator) -> None:
    """In place: the cards ``observer`` cannot see redealt among the pile and the other hands,
    each hand keeping its size and what ``observer`` knows it holds."""
    others = [p for p in range(len(state.hands)) if p != observer]
    held = {p: state.eye_known.get((observer, p), state.known[p]) for p in others}
    pool = list(state.pile)
    for p in others:
        for kind in range(NUM_KINDS):
            pool += [kind] * (state.hands[p][kind] - held[p][kind])
    pool.sort()  # so the redeal depends on what is unseen, not on where it is
    pool = [pool[i] for i in rng.permutation(len(pool))]
    for p in others:
        hand = list(held[p])
        for _ in range(sum(state.hands[p]) - sum(hand)):
            hand[pool.pop()] += 1
        state.hands[p] = hand
    state.pile = pool


def show_redealt_hands(state: UnfortunateEventsState, observer: int) -> None:
    """In place: what another seat's look showed of a redealt hand is hidden from ``observer``
    too, so that look sees the new hand."""
    for viewer, p in state.eye_known:
        if viewer != observer and p != observer:
            state.seen[viewer][p] = list(state.hands[p])
            state.eye_known[viewer, p] = list(state.hands[p])
