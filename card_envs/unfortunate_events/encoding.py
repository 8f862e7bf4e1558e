"""Catastrophic Card Game observation: what one seat may know, seat-relative (0 = observer).

Public: every laid set, the whole discard pile (all of it was seen face up), hand sizes, owed
sets, Victory cards, the pending attack, and the cards each hand is publicly known to hold.
Private: my hand, and each hand Olaf's Eye showed me this round, as it was then.
Never observed: other hands beyond what is public, and the pile's order or contents.
"""

from __future__ import annotations

import numpy as np

from card_envs.core.game import Encoding
from card_envs.core.spec import ObsSpec, Piece
from card_envs.unfortunate_events.rules.deck import (
    ATTACKS,
    DECK_SIZE,
    KIND_NAMES,
    NUM_KINDS,
    SETS,
    VICTORY_CARDS,
)
from card_envs.unfortunate_events.rules.game import UnfortunateEventsGame
from card_envs.unfortunate_events.rules.state import NONE, PHASE_NAMES, UEState

SEAT_FEATURES = (
    "cards in hand",
    "3-sets owed",
    "4-sets owed",
    "Victory cards",
    "1 if it is this seat's turn",
    "1 if this seat dealt",
    "1 if this seat is the target of the pending attack",
    "1 if Olaf's Eye showed me this hand this round",
    "sets on the table",
)
MAX_COPIES = 7  # the most copies of one kind


class UnfortunateEventsEncoding(Encoding[UEState]):
    game: UnfortunateEventsGame

    def build_spec(self) -> ObsSpec:
        n, k = self.game.num_players, NUM_KINDS
        kinds = "by kind (0-11 characters colour*3+i, 12-15 colour wilds, 16-20 specials)"
        return ObsSpec(
            [
                Piece("hand", (k,), f"my cards, counts {kinds}", high=MAX_COPIES),
                Piece("phase", (len(PHASE_NAMES),), "one-hot: " + ", ".join(PHASE_NAMES)),
                Piece(
                    "seats",
                    (n, len(SEAT_FEATURES)),
                    "per relative seat: " + "; ".join(SEAT_FEATURES),
                    high=DECK_SIZE,
                ),
                Piece("laid", (n, k), "cards each relative seat has on the table", high=MAX_COPIES),
                Piece(
                    "known",
                    (n, k),
                    "cards each relative seat is publicly known to hold (taken from the "
                    "discard, or asked for a Snicket), a lower bound",
                    high=MAX_COPIES,
                ),
                Piece(
                    "seen",
                    (n, k),
                    "each relative seat's hand as Olaf's Eye showed it to me (as of then)",
                    high=MAX_COPIES,
                ),
                Piece("discard_top", (k,), "one-hot kind of the discard's face-up top card"),
                Piece("discard", (k,), "cards in the discard pile by kind", high=MAX_COPIES),
                Piece(
                    "pending",
                    (len(ATTACKS),),
                    "one-hot attack being resolved: " + ", ".join(KIND_NAMES[a] for a in ATTACKS),
                ),
                Piece("burn_set", (k,), "cards of the set chosen to burn", high=4),
                Piece("pile", (1,), "cards in the draw pile", high=DECK_SIZE),
                Piece("centre", (1,), "Victory cards in the centre", high=VICTORY_CARDS),
                Piece("turn", (1,), "turns finished this round", high=self.game.turn_cap),
                Piece("round", (1,), "rounds finished", high=self.game.max_rounds),
            ]
        )

    def encode(self, state: UEState, seat: int, views: dict[str, np.ndarray]) -> None:
        n = self.game.num_players
        order = [(seat + r) % n for r in range(n)]  # relative row r is absolute seat order[r]
        views["hand"][:] = state.hands[seat]
        views["phase"][state.phase] = 1
        seen = state.seen[seat]
        views["seats"][:] = [
            [
                sum(state.hands[p]),
                state.owed3[p],
                state.owed4[p],
                state.victory[p],
                p == state.turn_player,
                p == state.dealer,
                p == state.target,
                seen[p] is not None,
                len(state.laid[p]),
            ]
            for p in order
        ]
        laid = views["laid"]
        for r, p in enumerate(order):
            for set_id in state.laid[p]:
                for kind in SETS[set_id].cards:
                    laid[r, kind] += 1
            if seen[p] is not None:
                views["seen"][r] = seen[p]
        views["known"][:] = [state.known[p] for p in order]
        if state.discard:
            views["discard_top"][state.discard[-1]] = 1
        views["discard"][:] = state.discard_counts
        if state.pending != NONE:
            views["pending"][ATTACKS.index(state.pending)] = 1
        if state.burn_set != NONE:
            for kind in SETS[state.burn_set].cards:
                views["burn_set"][kind] += 1
        views["pile"][0] = len(state.pile)
        views["centre"][0] = state.centre
        views["turn"][0] = state.turns
        views["round"][0] = state.round
