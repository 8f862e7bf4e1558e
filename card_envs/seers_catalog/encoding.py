"""Seers Catalog observation: what one seer may know, seat-relative (index 0 is the observer).

Cards appear as *kinds* (suited 0-59 = suit*12 + value-2, 60 = wild, 61-70 = artifacts in
the order Go First, Crown, Rod, Gift, Cauldron, Prism, Half Moon, Echo, Stepping Stone, Lens)
with counts, since the wilds are identical.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.core.game import SparseEncoding
from card_envs.core.spec import OBS_DTYPE, ObsSpec, Piece
from card_envs.seers_catalog.rules.cards import (
    ARTIFACT_BASE,
    ARTIFACTS,
    KIND,
    MAX_WILDS,
    NUM_CODES,
    NUM_KINDS,
)
from card_envs.seers_catalog.rules.game import SeersCatalogGame
from card_envs.seers_catalog.rules.melds import CROWN_VALUE, RUN
from card_envs.seers_catalog.rules.state import SeersCatalogState

MAX_RANK = CROWN_VALUE + 0.5
ASIDE_CACHE_LIMIT = 4096


class SeersCatalogEncoding(SparseEncoding[SeersCatalogState]):
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
                Piece(
                    "trick_melds",
                    (n,),
                    "melds each relative seat played to the current trick",
                    high=cards,
                ),
                Piece(
                    "trick_cards",
                    (n, kinds),
                    "cards each relative seat played to the current trick (rows add up to `table`)",
                    high=MAX_WILDS,
                ),
                Piece("leader", (n,), "one-hot relative seat that led the current trick"),
                Piece("passed", (n,), "relative seats out of the current trick"),
                Piece(
                    "stuck",
                    (1,),
                    "start seers in a row who could lead nothing (n ends the round)",
                    high=n,
                ),
                Piece("aside", (kinds,), "cards put aside this round (face up)", high=MAX_WILDS),
                Piece(
                    "artifacts_played",
                    (n, len(ARTIFACTS)),
                    "artifacts each relative seat played face up this round (melds, Rod, Gift, "
                    "Lens), columns as kinds 61-70; 2: played again after a Rod pick-up",
                    high=2,
                ),
                Piece(
                    "lens_looks",
                    (n, n),
                    "Lens uses this round: row the relative seat that looked, column the one "
                    "looked at (what it saw is in the looker's `known` only)",
                ),
                Piece("totals", (n,), "game points so far, relative seats", high=total, low=-total),
                Piece("round", (self.game.num_rounds,), "one-hot round number"),
            ]
        )

    def __init__(self, game: SeersCatalogGame):
        super().__init__(game)
        self._tables()
        self._aside_cache: dict[tuple[int, ...], list[int]] = {}

    def __getstate__(self) -> dict[str, Any]:
        """Without the aside cache: a copy (a search agent's, a pickle) starts its own."""
        state = super().__getstate__()
        del state["_aside_cache"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._aside_cache = {}

    def _tables(self) -> None:
        """Flat indices precomputed per card code and per observer seat, so that building an
        observation is mostly ``map`` over card lists and table look-ups (it runs at every
        step)."""
        n, at = self.game.num_players, self.spec.offsets

        def slots(offset: int) -> tuple[int, ...]:
            return tuple(offset + kind for kind in KIND)

        def seats(piece: str, seat: int) -> list[int]:
            return [at[piece] + (p - seat) % n for p in range(n)]

        self._hand, self._building = slots(at["hand"]), slots(at["building"])
        self._table, self._aside = slots(at["table"]), slots(at["aside"])
        self._round, self._top_type = at["round"], at["top_type"]
        self._known = [
            [
                (p, slots(at["known"] + ((p - seat) % n - 1) * NUM_KINDS))
                for p in range(n)
                if p != seat
            ]
            for seat in range(n)
        ]
        self._owner = [seats("top_owner", seat) for seat in range(n)]
        # card code c played to the trick by seat p: (table entry, trick_cards entry)
        self._trick = [
            [
                tuple(
                    zip(
                        self._table,
                        slots(at["trick_cards"] + (p - seat) % n * NUM_KINDS),
                        strict=True,
                    )
                )
                for p in range(n)
            ]
            for seat in range(n)
        ]
        self._melds = [seats("trick_melds", seat) for seat in range(n)]
        # artifact code c played by seat p: self._artifacts[seat][p] + c
        row = len(ARTIFACTS)
        self._artifacts = [
            [at["artifacts_played"] + (p - seat) % n * row - ARTIFACT_BASE for p in range(n)]
            for seat in range(n)
        ]
        # seat p looked at seat t: self._looks[seat][p * n + t]
        self._looks = [
            [
                at["lens_looks"] + (p - seat) % n * n + (t - seat) % n
                for p in range(n)
                for t in range(n)
            ]
            for seat in range(n)
        ]
        self._leader = [seats("leader", seat) for seat in range(n)]
        self._scalars = []
        for seat in range(n):
            scalars = [*seats("hand_sizes", seat), *seats("passed", seat), *seats("totals", seat)]
            scalars.append(at["stuck"])
            without = np.array(scalars, np.intp)
            self._scalars.append((without, np.array([*scalars, at["top_size"], at["top_rank"]])))

    def observe(self, state: SeersCatalogState, seat: int) -> np.ndarray:
        """Counts by one ``bincount`` (repeated indices, the wilds, add up), then the other
        values at indices fixed per seat: few Python lists to convert, the cost here."""
        buffer = np.bincount(self._counted(state, seat), minlength=self.spec.size)
        buffer = buffer.astype(OBS_DTYPE)
        values: list[float] = [*map(len, state.hands), *state.passed, *state.totals, state.stuck]
        if state.table:
            _, size, rank2 = state.table[-1].key
            values += (size, rank2 / 2)
        buffer[self._scalars[seat][bool(state.table)]] = values
        return buffer

    def entries(self, state: SeersCatalogState, seat: int) -> tuple[list[int], list[float]]:
        """Flat indices and values of the observation's non-zero entries for ``seat``."""
        flat = self.observe(state, seat)
        index = np.flatnonzero(flat)
        return index.tolist(), flat[index].tolist()

    def _aside_slots(self, aside: list[int]) -> list[int]:
        """The aside's flat indices, the same for every seat and kept by its cards: the pile
        grows only between tricks, while every step observes it."""
        key = tuple(aside)
        slots = self._aside_cache.get(key)
        if slots is None:
            if len(self._aside_cache) > ASIDE_CACHE_LIMIT:
                self._aside_cache.clear()
            slots = self._aside_cache[key] = list(map(self._aside.__getitem__, aside))
        return slots

    def _counted(self, state: SeersCatalogState, seat: int) -> list[int]:
        """The flat index of every count and one-hot entry, once per card (wilds repeat)."""
        hands = state.hands
        index = list(map(self._hand.__getitem__, hands[seat]))
        if state.turn == seat and state.pending:
            index += map(self._building.__getitem__, state.pending)
        if state.table:
            trick, melds = self._trick[seat], self._melds[seat]
            for meld in state.table:  # few short melds: a plain loop beats two maps each
                pairs = trick[meld.seat]
                for card in meld.cards:
                    index += pairs[card]
                index.append(melds[meld.seat])
        index += self._aside_slots(state.aside)
        if state.artifacts_played:
            row = self._artifacts[seat]
            index += [row[p] + code for p, code in state.artifacts_played]
        if state.lens_looks:
            looks, n = self._looks[seat], self.game.num_players
            index += [looks[p * n + t] for p, t in state.lens_looks]
        known = state.known[seat]
        for p, slot in self._known[seat] if any(known) else ():
            mask = known[p]  # a subset of p's hand (an invariant of the rules)
            while mask:
                low = mask & -mask
                index.append(slot[low.bit_length() - 1])
                mask ^= low
        index += (self._leader[seat][state.leader], self._round + state.round)
        if state.table:
            top = state.table[-1]
            index += (self._top_type + (top.key[0] == RUN), self._owner[seat][top.seat])
        return index
