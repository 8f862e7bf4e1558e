"""What a seat has not seen, and redraws of it: the opponent's private card, and the public
card while it is undealt. A redraw keeps everything the seat saw: its own card, the public card
once dealt, and both cards once shown at the showdown. The betting says nothing certain about
a card (any card can be bet any way), so every unseen card stays possible."""

from __future__ import annotations

import numpy as np

from leduc.rules.cards import DECK_SIZE, NO_CARD
from leduc.rules.state import NO_SEAT, LeducState


def shown_down(state: LeducState) -> bool:
    """Whether the game ended at a showdown, where both private cards are shown."""
    return state.over and state.folded == NO_SEAT


def visible_hands(state: LeducState, seat: int) -> list[int]:
    """The seats whose private card ``seat`` sees: its own, and every one after a showdown."""
    return list(range(len(state.hands))) if shown_down(state) else [seat]


def unseen_cards(state: LeducState, observer: int) -> list[int]:
    """The cards ``observer`` has not seen, ascending: where the hidden cards come from."""
    seen = {state.hands[p] for p in visible_hands(state, observer)}
    if state.public_card != NO_CARD:
        seen.add(state.public_card)
    return [card for card in range(DECK_SIZE) if card not in seen]


def redraw_hidden_hands(state: LeducState, observer: int, rng: np.random.Generator) -> None:
    """Deal the cards ``observer`` has not seen to the seats whose card it has not seen, in
    place (the public card, if undealt, is drawn later from what is left)."""
    hidden = [p for p in range(len(state.hands)) if p not in visible_hands(state, observer)]
    pool = unseen_cards(state, observer)
    for seat, pick in zip(hidden, rng.permutation(len(pool)), strict=False):
        state.hands[seat] = pool[int(pick)]
