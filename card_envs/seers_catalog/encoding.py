"""Seers Catalog observation: what one seer may know, seat-relative (index 0 is the observer).

Cards appear as *kinds* (suited 0-59 = suit*12 + value-2, 60 = wild, 61-70 = artifacts in
the order Go First, Crown, Rod, Gift, Cauldron, Prism, Half Moon, Echo, Stepping Stone, Lens)
with counts, since the wilds are identical.
"""

from __future__ import annotations

import numpy as np

from card_envs.core.game import Encoding
from card_envs.core.spec import ObsSpec, Piece
from card_envs.seers_catalog.rules.cards import KIND, MAX_WILDS, NUM_CODES, NUM_KINDS, WILD
from card_envs.seers_catalog.rules.game import SeersCatalogGame, SeersState
from card_envs.seers_catalog.rules.melds import CROWN_VALUE, RUN

MAX_RANK = CROWN_VALUE + 0.5


class SeersCatalogEncoding(Encoding[SeersState]):
    game: SeersCatalogGame

    def build_spec(self) -> ObsSpec:
        n, kinds, cards = self.game.num_players, NUM_KINDS, NUM_CODES
        total = cards * self.game.num_rounds
        return ObsSpec(
            [
                Piece("hand", (kinds,), "count of each card kind in my hand", high=MAX_WILDS),
                Piece(
                    "building",
                    (kinds,),
                    "cards I have added to the meld I am building",
                    high=MAX_WILDS,
                ),
                Piece("hand_sizes", (n,), "cards in each relative seat's hand", high=cards),
                Piece(
                    "known",
                    (n - 1, kinds),
                    "cards I know are in each other seer's hand (relative seats 1..n-1): Go "
                    "First at the round start, Rod pick-ups, my Lens look",
                    high=MAX_WILDS,
                ),
                Piece("table", (kinds,), "every card played to the current trick", high=MAX_WILDS),
                Piece("top_type", (2,), "one-hot type of the meld to beat: matching, run"),
                Piece("top_size", (1,), "size of the meld to beat (0: I lead)", high=cards),
                Piece(
                    "top_rank",
                    (1,),
                    "value (top card for runs, .5 with Half Moon) to beat",
                    high=MAX_RANK,
                ),
                Piece("top_owner", (n,), "one-hot relative seat that played the meld to beat"),
                Piece("leader", (n,), "one-hot relative seat that led the current trick"),
                Piece("passed", (n,), "relative seats out of the current trick"),
                Piece("aside", (kinds,), "cards put aside this round (face up)", high=MAX_WILDS),
                Piece("totals", (n,), "game points so far, relative seats", high=total, low=-total),
                Piece("round", (self.game.num_rounds,), "one-hot round number"),
            ]
        )

    def encode(self, state: SeersState, seat: int, views: dict[str, np.ndarray]) -> None:
        n = self.game.num_players
        count_kinds(views["hand"], state.hands[seat])
        if state.turn == seat and state.pending:
            count_kinds(views["building"], state.pending)
        known, sizes, passed, totals = (
            views["known"],
            views["hand_sizes"],
            views["passed"],
            views["totals"],
        )
        for p in range(n):
            rel = (p - seat) % n
            sizes[rel] = len(state.hands[p])
            passed[rel] = state.passed[p]
            totals[rel] = state.totals[p]
            mask = state.known[seat][p]
            if mask and rel:
                count_kinds(known[rel - 1], [c for c in state.hands[p] if mask >> c & 1])
        if state.table:
            count_kinds(views["table"], [c for meld in state.table for c in meld.cards])
            top = state.table[-1]
            views["top_type"][int(top.key[0] == RUN)] = 1
            views["top_size"][0] = top.key[1]
            views["top_rank"][0] = top.key[2] / 2
            views["top_owner"][(top.seat - seat) % n] = 1
        views["leader"][(state.leader - seat) % n] = 1
        count_kinds(views["aside"], state.aside)
        views["round"][min(state.round, self.game.num_rounds - 1)] = 1


def count_kinds(view: np.ndarray, codes: list[int]) -> None:
    """Write the count of each kind among ``codes`` (only wilds can repeat)."""
    kinds = [KIND[c] for c in codes]
    view[kinds] = 1
    wilds = kinds.count(WILD)
    if wilds > 1:
        view[WILD] = wilds
