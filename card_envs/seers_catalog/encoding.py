"""Seers Catalog observation: what one seer may know, seat-relative (index 0 is the observer).

Cards appear as *kinds* (suited 0-59 = suit*12 + value-2, 60 = wild, 61-70 = artifacts in
the order Go First, Crown, Rod, Gift, Cauldron, Prism, Half Moon, Echo, Stepping Stone, Lens)
with counts, since the wilds are identical.

:meth:`SeersCatalogEncoding.write_reference` is the reference; the compiled ``_encoding.pyx``
writes the same entries from the same index tables, and is used when it is importable and
``CARD_ENVS_PURE_PYTHON=1`` is not set (:data:`OBSERVER`).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from card_envs.core.game import FlatEncoding
from card_envs.core.kernels import compiled
from card_envs.core.spec import OBS_DTYPE, ObsSpec, Piece
from card_envs.seers_catalog.rules.cards import (
    ARTIFACT_BASE,
    ARTIFACTS,
    KIND,
    MAX_WILDS,
    NUM_CODES,
    NUM_KINDS,
    WILD_BASE,
)
from card_envs.seers_catalog.rules.game import SeersCatalogGame
from card_envs.seers_catalog.rules.melds import CROWN_VALUE, RUN
from card_envs.seers_catalog.rules.state import SeersCatalogState

if TYPE_CHECKING:
    from card_envs.seers_catalog._encoding import Observer

MAX_RANK = CROWN_VALUE + 0.5
ASIDE_CACHE_LIMIT = 4096


OBSERVER: type[Observer] | None = compiled("card_envs.seers_catalog._encoding", "Observer")


class SeersCatalogEncoding(FlatEncoding[SeersCatalogState]):
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
        at = self.spec.offsets
        self._table = tuple(at["table"] + kind for kind in KIND)  # by card code
        self._aside, self._round, self._stuck = at["aside"], at["round"], at["stuck"]
        self._top_type, self._top_size, self._top_rank = (
            at["top_type"],
            at["top_size"],
            at["top_rank"],
        )
        self._aside_cache: dict[tuple[int, ...], memoryview[float]] = {}

    def __getstate__(self) -> dict[str, Any]:
        """Without the aside cache and the compiled observers: a copy (a search agent's, a
        pickle) starts its own."""
        state = super().__getstate__()
        del state["_aside_cache"]
        state.pop("_observers", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._aside_cache = {}

    def observe(self, state: SeersCatalogState, seat: int) -> np.ndarray:
        """The compiled observer's vector when it is built, else the base's (through
        :meth:`write`): the same vector either way."""
        observers = self._observers
        if observers is None:
            return super().observe(state, seat)
        buffer = np.zeros(self.spec.size, OBS_DTYPE)
        observers[seat].write(state, buffer)
        return buffer

    @cached_property
    def _observers(self) -> list[Observer] | None:
        """One compiled observer per observing seat, from the same tables as :meth:`write`."""
        if OBSERVER is None:
            return None
        n, size, at = self.game.num_players, self.spec.size, self.spec.offsets
        return [OBSERVER(seat, n, size, t, self._table, at) for seat, t in enumerate(self._seats)]

    def write(self, state: SeersCatalogState, seat: int, out: memoryview[float]) -> None:
        """By the compiled observer when it is built, else by :meth:`write_reference`."""
        observers = self._observers
        if observers is None:
            self.write_reference(state, seat, out)
        else:
            observers[seat].write(state, out)

    def write_reference(self, state: SeersCatalogState, seat: int, out: memoryview[float]) -> None:
        """The compiled observer's spec and fallback. Flat indices read from tables made once
        per observing seat (:attr:`_seats`); only the wilds share a kind, so only their entries,
        and the per-trick ones, are counted."""
        t = self._seats[seat]
        hand, slots = state.hands[seat], t.hand
        for card in hand:
            out[slots[card]] = 1.0
        wilds = bisect_left(hand, ARTIFACT_BASE) - bisect_left(hand, WILD_BASE)  # codes ascend
        if wilds > 1:
            out[slots[WILD_BASE]] = float(wilds)
        if state.pending and state.turn == seat:
            for card in state.pending:
                out[t.building[card]] += 1.0
        for p, cards in enumerate(state.hands):
            out[t.hand_sizes[p]] = float(len(cards))
        for p, total in enumerate(state.totals):
            if total:
                out[t.totals[p]] = float(total)
        for p, passed in enumerate(state.passed):
            if passed:
                out[t.passed[p]] = 1.0
        if state.stuck:
            out[self._stuck] = float(state.stuck)
        if state.table:
            self._write_table(state, t, out)
        if state.aside:
            out[self._aside : self._aside + NUM_KINDS] = self._aside_block(state.aside)
        for p, code in state.artifacts_played:
            out[t.artifacts[p] + code] += 1.0
        for p, target in state.lens_looks:
            out[t.looks[p][target]] += 1.0
        known = state.known[seat]
        if any(known):
            for p, row in t.known:
                mask = known[p]  # a subset of p's hand (an invariant of the rules)
                while mask:
                    low = mask & -mask
                    out[row[low.bit_length() - 1]] += 1.0
                    mask ^= low
        out[t.leader[state.leader]] = 1.0
        out[self._round + state.round] = 1.0

    def _write_table(self, state: SeersCatalogState, t: SeatTables, out: memoryview[float]) -> None:
        """The current trick: every meld's cards in ``table`` and its seat's row, the melds per
        seat, and the meld to beat (type, size, rank, owner)."""
        table = self._table
        for meld in state.table:
            row = t.trick[meld.seat]
            for card in meld.cards:
                out[table[card]] += 1.0
                out[row[card]] += 1.0
            out[t.melds[meld.seat]] += 1.0
        top = state.table[-1]
        kind, size, rank2 = top.key
        out[self._top_type + (kind == RUN)] = 1.0
        out[self._top_size] = float(size)
        out[self._top_rank] = rank2 / 2
        out[t.top_owner[top.seat]] = 1.0

    def _aside_block(self, aside: list[int]) -> memoryview[float]:
        """The aside's counts as a block, the same for every seat and kept by its cards: the
        pile grows only between tricks, while every step observes it."""
        key = tuple(aside)
        block = self._aside_cache.get(key)
        if block is None:
            if len(self._aside_cache) > ASIDE_CACHE_LIMIT:
                self._aside_cache.clear()
            counts = np.bincount([KIND[c] for c in aside], minlength=NUM_KINDS)
            block = cast("memoryview[float]", counts.astype(OBS_DTYPE).data)  # format "f"
            self._aside_cache[key] = block
        return block

    @cached_property
    def _seats(self) -> list[SeatTables]:
        """For each observing seat, the flat index of every entry it writes: per card code for
        the card pieces, per absolute seat for the per-seat ones."""
        n, spec = self.game.num_players, self.spec
        at = spec.offsets

        def slots(offset: int) -> tuple[int, ...]:
            return tuple(offset + kind for kind in KIND)

        def by_seat(piece: str, seat: int) -> tuple[int, ...]:
            return spec.seat_offsets(piece, seat, n)

        return [
            SeatTables(
                hand=slots(at["hand"]),
                building=slots(at["building"]),
                hand_sizes=by_seat("hand_sizes", seat),
                totals=by_seat("totals", seat),
                passed=by_seat("passed", seat),
                known=tuple(
                    (p, slots(at["known"] + ((p - seat) % n - 1) * NUM_KINDS))
                    for p in range(n)
                    if p != seat
                ),
                trick=tuple(map(slots, by_seat("trick_cards", seat))),
                melds=by_seat("trick_melds", seat),
                top_owner=by_seat("top_owner", seat),
                artifacts=tuple(
                    start - ARTIFACT_BASE for start in by_seat("artifacts_played", seat)
                ),
                looks=tuple(
                    tuple(start + (t - seat) % n for t in range(n))
                    for start in by_seat("lens_looks", seat)
                ),
                leader=by_seat("leader", seat),
            )
            for seat in range(n)
        ]


@dataclass(frozen=True, slots=True)
class SeatTables:
    """Flat indices for one observing seat: card pieces by card code (wilds share their kind's
    entry), per-seat pieces by absolute seat."""

    hand: tuple[int, ...]
    building: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    totals: tuple[int, ...]
    passed: tuple[int, ...]
    known: tuple[tuple[int, tuple[int, ...]], ...]  # (other seat, its row by card code)
    trick: tuple[tuple[int, ...], ...]  # trick_cards rows by card code
    melds: tuple[int, ...]
    top_owner: tuple[int, ...]
    artifacts: tuple[int, ...]  # plus an artifact's code: its artifacts_played entry
    looks: tuple[tuple[int, ...], ...]  # [looker][target]
    leader: tuple[int, ...]
