"""What a seer cannot see, redrawn kind for kind by :meth:`SeersCatalogGame.resample_hidden`:
suited cards among the other hands and the removed cards, artifacts among the other hands and
the undealt ones. Known cards (Go First at the start, Rod pick-ups, Lens looks) and a
builder's chosen cards stay where they are."""

from __future__ import annotations

import numpy as np

from card_envs.seers_catalog.rules.cards import ARTIFACT_BASE, WILD_BASE, bits
from card_envs.seers_catalog.rules.state import SeersCatalogState


def redraw_hidden(state: SeersCatalogState, observer: int, rng: np.random.Generator) -> None:
    """In place: every card ``observer`` cannot see redrawn among the places it could be; what
    other seers knew of a hand is kept only where the hand still holds it."""
    n = len(state.hands)
    others = [p for p in range(n) if p != observer]
    for is_artifact, spare in ((False, "removed"), (True, "undealt")):
        _redraw(state, observer, others, is_artifact, spare, rng)
    for o in others:
        for p in range(n):
            state.known[o][p] &= bits(state.hands[p])


def _redraw(
    state: SeersCatalogState,
    observer: int,
    others: list[int],
    is_artifact: bool,
    spare: str,
    rng: np.random.Generator,
) -> None:
    """In place: the hidden suited cards (or artifacts) of ``others`` and of the ``spare``
    pile, shuffled back into the same places."""
    owners, codes = [], []
    for p in [*others, -1]:
        pile = getattr(state, spare) if p < 0 else state.hands[p]
        keep = state.known[observer][p] | bits(state.pending) if p >= 0 else 0
        for code in pile:
            hidden = code >= ARTIFACT_BASE if is_artifact else code < WILD_BASE
            if hidden and not keep >> code & 1:
                owners.append(p)
                codes.append(code)
    codes.sort()  # so the redraw depends on what is hidden, not on where it is
    gone = set(codes)
    piles = {p: [c for c in state.hands[p] if c not in gone] for p in others}
    piles[-1] = [c for c in getattr(state, spare) if c not in gone]
    for owner, i in zip(owners, rng.permutation(len(codes)), strict=True):
        piles[owner].append(codes[i])
    for p in others:
        state.hands[p] = sorted(piles[p])
    setattr(state, spare, sorted(piles[-1]))
