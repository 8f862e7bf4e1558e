"""Seers Catalog observation: what one seer may know, seat-relative (index 0 is the observer).

Cards appear as *kinds* (suited 0-59 = suit*12 + value-2, 60 = wild, 61-70 = artifacts in
the order Go First, Crown, Rod, Gift, Cauldron, Prism, Half Moon, Echo, Stepping Stone, Lens)
with counts, since the wilds are identical.
"""

from __future__ import annotations

from card_envs.core.game import SparseEncoding
from card_envs.core.spec import ObsSpec, Piece
from card_envs.seers_catalog.rules.cards import KIND, MAX_WILDS, NUM_CODES, NUM_KINDS, WILD
from card_envs.seers_catalog.rules.game import SeersCatalogGame, SeersState
from card_envs.seers_catalog.rules.melds import CROWN_VALUE, RUN

MAX_RANK = CROWN_VALUE + 0.5


class SeersCatalogEncoding(SparseEncoding[SeersState]):
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
                Piece(
                    "top_size", (1,), "size of the meld to beat (0: the table is empty)", high=cards
                ),
                Piece(
                    "top_rank",
                    (1,),
                    "value (top card for runs, .5 with Half Moon) to beat",
                    high=MAX_RANK,
                ),
                Piece("top_owner", (n,), "one-hot relative seat that played the meld to beat"),
                Piece("leader", (n,), "one-hot relative seat that led the current trick"),
                Piece("passed", (n,), "relative seats out of the current trick"),
                Piece(
                    "stuck",
                    (1,),
                    "start seers in a row who could lead nothing (n ends the round)",
                    high=n,
                ),
                Piece("aside", (kinds,), "cards put aside this round (face up)", high=MAX_WILDS),
                Piece("totals", (n,), "game points so far, relative seats", high=total, low=-total),
                Piece("round", (self.game.num_rounds,), "one-hot round number"),
            ]
        )

    def entries(self, state: SeersState, seat: int) -> tuple[list[int], list[float]]:
        """Flat indices and values of the observation's non-zero entries for ``seat``."""
        n, at = self.game.num_players, self.spec.offsets
        index: list[int] = []
        value: list[float] = []
        add_counts(index, value, at["hand"], state.hands[seat])
        if state.turn == seat and state.pending:
            add_counts(index, value, at["building"], state.pending)
        for p in range(n):
            rel = (p - seat) % n
            index += [at["hand_sizes"] + rel, at["passed"] + rel, at["totals"] + rel]
            value += [len(state.hands[p]), state.passed[p], state.totals[p]]
            mask = state.known[seat][p]
            if mask and rel:
                seen = [c for c in state.hands[p] if mask >> c & 1]
                add_counts(index, value, at["known"] + (rel - 1) * NUM_KINDS, seen)
        if state.table:
            add_counts(index, value, at["table"], [c for m in state.table for c in m.cards])
            top = state.table[-1]
            index += [
                at["top_type"] + (top.key[0] == RUN),
                at["top_size"],
                at["top_rank"],
                at["top_owner"] + (top.seat - seat) % n,
            ]
            value += [1, top.key[1], top.key[2] / 2, 1]
        index += [at["leader"] + (state.leader - seat) % n, at["round"] + state.round, at["stuck"]]
        value += [1, 1, state.stuck]
        add_counts(index, value, at["aside"], state.aside)
        return index, value


def add_counts(index: list[int], value: list[float], offset: int, codes: list[int]) -> None:
    """Append the count of each kind among ``codes`` at ``offset`` (only wilds repeat)."""
    kinds = [KIND[c] for c in codes]
    wilds = kinds.count(WILD)
    if wilds:
        kinds = [k for k in kinds if k != WILD]
        index.append(offset + WILD)
        value.append(wilds)
    index.extend([offset + k for k in kinds])
    value.extend([1] * len(kinds))
