"""What a Seals seat cannot see, and a redeal of it that :meth:`SealsGame.resample_hidden`
makes: the pile, and the other hands unless ``remember_takes`` shows every take."""

from __future__ import annotations

import numpy as np

from card_envs.seals.rules.cards import symbol_counts
from card_envs.seals.rules.state import REVEAL, SealsState


def hidden_hands(
    state: SealsState, observer: int, remember_takes: bool, skip_forced_stop: bool
) -> list[int]:
    """The seats whose hands ``observer`` cannot see: the others, or none under
    ``remember_takes``. A hand that is showing series (or whose reveal step itself shows it
    can, under ``skip_forced_stop``) is seen."""
    showing = state.phase == REVEAL and (any(state.revealed) or skip_forced_stop)
    seats = [] if remember_takes else list(range(state.num_players))
    return [s for s in seats if s != observer and not (showing and s == state.player)]


def redeal_hidden(state: SealsState, seats: list[int], rng: np.random.Generator) -> None:
    """In place: the pile and the hands of ``seats`` shuffled together and dealt back, each
    hand keeping its size."""
    pool = sorted(state.pile + [c for s in seats for c in state.hands[s]])  # not where they were
    pool = [pool[i] for i in rng.permutation(len(pool))]
    for s in seats:
        size = len(state.hands[s])
        state.hands[s], pool = pool[:size], pool[size:]
        state.symbols[s] = symbol_counts(state.hands[s])
    state.pile = pool
