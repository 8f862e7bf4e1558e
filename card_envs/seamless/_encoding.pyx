# cython: language_level=3, wraparound=False, boundscheck=False
"""Seamless's observation written by compiled code: :meth:`SeamlessEncoding.write_reference` (the
reference, in ``encoding.py``) entry for entry, from the same flat index tables held as C arrays.

The observation was two thirds of a rules-only step with it (5.7 of 11 us): about 60 Python-level
writes a decision, each an index lookup and a float store. Here each is a C store; only reading
the state's lists and fields stays Python. Every index read from the state is checked first, so a
state out of range raises a ``ValueError`` instead of writing outside the vector, and every list
index is checked by a loop's bound or by hand (Cython's own bounds checks cost 8% here).
"""

cimport cython
from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS,
    PyBUF_FORMAT,
    PyBUF_WRITABLE,
    PyBuffer_Release,
    PyObject_GetBuffer,
)
from libc.string cimport memset

import numpy as np

from card_envs.seamless.rules.cards import DECK_SIZE, NUM_RANKS, NUM_SUITS, TRICKS_PER_ROUND
from card_envs.seamless.rules.state import CLAIM

cdef enum:
    MAXP = 8  # seats (4) and then some
    C_DECK_MAX = 52  # cards a round can play

cdef int C_DECK = DECK_SIZE
cdef int C_RANKS = NUM_RANKS
cdef int C_SUITS = NUM_SUITS
cdef int C_TRICKS = TRICKS_PER_ROUND
cdef int C_CLAIM = CLAIM

_empty = np.empty
_float32 = np.float32


cdef inline int checked(long v, long limit, str what) except -1:
    """``v`` if in ``0..limit-1``: a state out of range would write out of bounds."""
    if not 0 <= v < limit:
        raise ValueError(f"{what} {v} is out of range 0..{limit - 1}")
    return <int>v


@cython.auto_pickle(False)  # built afresh by each encoding (see SeamlessEncoding._observer)
cdef class Observer:
    """Every observing seat's flat indices: piece starts, and by absolute seat the entries of
    the per-seat pieces (``[observer][seat]``)."""

    cdef int n, size, rounds
    cdef int hand, trump_suit, trump_card, claiming, played, round_at, trick_number
    cdef int dealer[MAXP][MAXP]
    cdef int trick[MAXP][MAXP]
    cdef int leader[MAXP][MAXP]
    cdef int rows[MAXP][MAXP]
    cdef int totals[MAXP][MAXP]
    cdef bint history, trump_lead_shows_trumps
    cdef int played_by, voids

    def __init__(self, int n, int size, int rounds, tables, history=None):
        """``tables``: the reference's ``SeatTables``, one per observing seat. ``history``:
        for ``seamless_v1``, where its ``played_by`` and ``voids`` pieces start and whether the
        ruling's trick-1 trump lead shows a hand of trumps only (None: version 0)."""
        cdef int seat, p
        if not 0 < n <= MAXP or len(tables) != n:
            raise ValueError(f"{len(tables)} seat tables for {n} seats (the writer takes 1..8)")
        self.n, self.size, self.rounds = n, size, rounds
        if history is not None:
            self.played_by, self.voids, self.trump_lead_shows_trumps = history
            if not (0 <= self.played_by and self.played_by + n * C_DECK <= size
                    and 0 <= self.voids and self.voids + n * C_SUITS <= size):
                raise ValueError(f"the history pieces do not fit in {size} entries")
            self.history = True
        t = tables[0]
        self.hand, self.trump_suit, self.trump_card = t.hand, t.trump_suit, t.trump_card
        self.claiming, self.played = t.claiming, t.played
        self.round_at, self.trick_number = t.round, t.trick_number
        for seat in range(n):
            t = tables[seat]
            for p in range(n):
                self.dealer[seat][p] = t.dealer[p]
                self.trick[seat][p] = t.trick[p]
                self.leader[seat][p] = t.leader[p]
                self.rows[seat][p] = t.rows[p]
                self.totals[seat][p] = t.totals[p]

    def observe(self, state, int seat):
        """A fresh float32 vector with what ``seat`` may know of ``state``."""
        checked(seat, self.n, "seat")
        buffer = _empty(self.size, _float32)  # zeroed below: cheaper than numpy.zeros
        cdef Py_buffer view
        PyObject_GetBuffer(buffer, &view, PyBUF_WRITABLE)
        try:
            memset(view.buf, 0, view.len)
            self._write(state, seat, <float*>view.buf)
        finally:
            PyBuffer_Release(&view)
        return buffer

    def write(self, state, int seat, out) -> None:
        """Set what ``seat`` may know of ``state`` in the zeroed float32 vector ``out`` (a row of
        a vector env's observations)."""
        checked(seat, self.n, "seat")
        cdef Py_buffer view
        PyObject_GetBuffer(out, &view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS)
        try:
            if view.len != self.size * 4 or view.format is NULL or view.format[0] != b"f":
                raise ValueError(f"out must be {self.size} float32 entries")
            self._write(state, seat, <float*>view.buf)
        finally:
            PyBuffer_Release(&view)

    cdef int _write_history(self, state, int seat, float* played_by, float* voids) except -1:
        """``seamless_v1``'s two pieces: who played each card of this round and the suits each
        seat has shown it lacks, seat-relative, as the rules' ``round_plays`` reads them (the
        reference)."""
        cdef int n = self.n, start, k, end, place, best, suit, lead, relative, other
        cdef int trump = checked(state.trump, C_SUITS, "trump suit")
        cdef int leader = (checked(state.dealer, n, "dealer") + 1) % n
        cdef list played = state.played
        cdef int count = len(played)
        cdef int cards[C_DECK_MAX]
        if count > C_DECK:
            raise ValueError(f"{count} cards played in a round of {C_DECK}")
        for k in range(count):
            cards[k] = checked(played[k], C_DECK, "card code")
        for start in range(0, count, n):
            end = min(start + n, count)
            lead = cards[start] // C_RANKS
            best = start
            for k in range(start, end):
                relative = (leader + k - start - seat + 2 * n) % n
                played_by[relative * C_DECK + cards[k]] = 1.0
                suit = cards[k] // C_RANKS
                if suit != lead:
                    voids[relative * C_SUITS + lead] = 1.0
                if k > start:  # the trick's best card so far (cards.trick_winner_index)
                    if suit == cards[best] // C_RANKS:
                        if cards[k] > cards[best]:
                            best = k
                    elif suit == trump or (cards[best] // C_RANKS != trump and suit == lead):
                        best = k
            if start == 0 and lead == trump and self.trump_lead_shows_trumps:
                relative = (leader - seat + n) % n
                for other in range(C_SUITS):
                    if other != trump:
                        voids[relative * C_SUITS + other] = 1.0
            if end - start == n:
                leader = (leader + best - start) % n
        return 0

    cdef int _write(self, state, int seat, float* out) except -1:
        cdef int n = self.n, p, i, leader, rank, suit
        cdef long card
        cdef list hands = state.hands
        if seat >= len(hands):
            raise ValueError(f"no hand for seat {seat} ({len(hands)} hands)")
        for card in <list>hands[seat]:
            out[self.hand + checked(card, C_DECK, "card code")] = 1.0
        out[self.trump_suit + checked(state.trump, C_SUITS, "trump suit")] = 1.0
        card = state.trump_card
        if card >= 0:
            out[self.trump_card + checked(card, C_DECK, "card code")] = 1.0
        out[self.dealer[seat][checked(state.dealer, n, "dealer")]] = 1.0
        leader = checked(state.leader, n, "leader")
        cdef list trick = state.trick
        checked(len(trick), n + 1, "trick length")
        for i in range(len(trick)):
            card = trick[i]
            out[self.trick[seat][(leader + i) % n] + checked(card, C_DECK, "card code")] = 1.0
        out[self.leader[seat][leader]] = 1.0
        if state.phase == C_CLAIM and state.winner == seat:
            out[self.claiming] = 1.0
        cdef list rows = state.rows, row
        checked(len(rows), n + 1, "rows")
        for p in range(len(rows)):
            row = rows[p]
            checked(len(row), C_RANKS + 1, "row length")
            for rank in range(len(row)):
                suit = row[rank]
                if suit >= 0:
                    out[self.rows[seat][p] + checked(suit, C_SUITS, "row suit") * C_RANKS + rank] = 1.0
        for card in <list>state.played:
            out[self.played + checked(card, C_DECK, "card code")] = 1.0
        cdef list totals = state.totals
        checked(len(totals), n + 1, "totals")
        for p in range(len(totals)):
            out[self.totals[seat][p]] = <long>totals[p]  # an int: no float object on the way
        out[self.round_at + checked(state.round, self.rounds, "round")] = 1.0
        out[self.trick_number + min(<int>checked(state.trick_number, C_TRICKS + 1, "trick number"), C_TRICKS - 1)] = 1.0
        if self.history:
            self._write_history(state, seat, out + self.played_by, out + self.voids)
        return 0
