# cython: language_level=3, wraparound=False
"""The observation written by compiled code: :meth:`SeersCatalogEncoding.write_reference` (the
reference, in ``encoding.py``) entry for entry, from the same flat index tables held as C arrays.

A quarter of a random-play step was the observation: a few hundred Python-level writes, each
an index lookup and a float store. Here each is a C store; only reading the state's lists and
fields stays Python.
"""

cimport cython
from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS,
    PyBUF_FORMAT,
    PyBUF_WRITABLE,
    PyBuffer_Release,
    PyObject_GetBuffer,
)
from libc.stdint cimport uint64_t

from card_envs.seers_catalog.rules.cards import ARTIFACT_BASE, KIND, NUM_CODES, WILD_BASE
from card_envs.seers_catalog.rules.melds import RUN

cdef extern from *:
    int __builtin_ctzll(unsigned long long)

cdef enum:
    NCODES = 80  # card codes (75) and then some
    MAXP = 8  # seats (5) and then some

cdef int C_CODES = NUM_CODES
cdef int C_WILD_BASE = WILD_BASE
cdef int C_ARTIFACT_BASE = ARTIFACT_BASE
cdef int C_RUN = RUN
cdef int C_KIND[NCODES]
for _code, _kind in enumerate(KIND):
    C_KIND[_code] = _kind


cdef inline int checked(int v, int limit, str what) except -1:
    """``v`` if in ``0..limit-1``: a state out of range would write out of bounds."""
    if not 0 <= v < limit:
        raise ValueError(f"{what} {v} is out of range 0..{limit - 1}")
    return v


@cython.auto_pickle(False)  # built afresh by each encoding (see its __getstate__)
cdef class Observer:
    """What one observing seat writes, as C arrays of flat indices: by card code for the card
    pieces (wilds share their kind's entry), by absolute seat for the per-seat ones."""

    cdef int n, seat, size
    cdef int hand[NCODES]
    cdef int building[NCODES]
    cdef int table[NCODES]
    cdef int known[MAXP][NCODES]
    cdef int trick[MAXP][NCODES]
    cdef int hand_sizes[MAXP]
    cdef int totals[MAXP]
    cdef int passed[MAXP]
    cdef int melds[MAXP]
    cdef int top_owner[MAXP]
    cdef int artifacts[MAXP]
    cdef int leader[MAXP]
    cdef int looks[MAXP][MAXP]
    cdef int aside, round_at, stuck, top_type, top_size, top_rank

    def __init__(self, int seat, int n, int size, tables, table, dict at):
        """``tables``: the reference's ``SeatTables`` for ``seat``; ``table``: the ``table``
        entry by card code; ``at``: the spec's offsets."""
        cdef int code, p, q
        if not 0 < n <= MAXP or not 0 <= seat < n:
            raise ValueError(f"seat {seat} of {n}: the compiled writer takes up to {MAXP} seats")
        self.n, self.seat, self.size = n, seat, size
        for code in range(C_CODES):
            self.hand[code] = tables.hand[code]
            self.building[code] = tables.building[code]
            self.table[code] = table[code]
        for p in range(n):
            self.hand_sizes[p] = tables.hand_sizes[p]
            self.totals[p] = tables.totals[p]
            self.passed[p] = tables.passed[p]
            self.melds[p] = tables.melds[p]
            self.top_owner[p] = tables.top_owner[p]
            self.artifacts[p] = tables.artifacts[p]
            self.leader[p] = tables.leader[p]
            for q in range(n):
                self.looks[p][q] = tables.looks[p][q]
            for code in range(C_CODES):
                self.trick[p][code] = tables.trick[p][code]
        for p, row in tables.known:
            for code in range(C_CODES):
                self.known[p][code] = row[code]
        self.aside, self.round_at, self.stuck = at["aside"], at["round"], at["stuck"]
        self.top_type, self.top_size, self.top_rank = at["top_type"], at["top_size"], at["top_rank"]

    def write(self, state, out) -> None:
        """Set what this seat may know in the zeroed float32 vector ``out``."""
        cdef Py_buffer view
        PyObject_GetBuffer(out, &view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS)
        try:
            if view.len != self.size * 4 or view.format is NULL or view.format[0] != b"f":
                raise ValueError(f"out must be {self.size} float32 entries")
            self._write(state, <float*>view.buf)
        finally:
            PyBuffer_Release(&view)

    cdef int _write(self, state, float* out) except -1:
        cdef int n = self.n, seat = self.seat, c, p, wilds = 0, target
        cdef list hands = state.hands
        cdef list hand = hands[seat]
        for card in hand:
            c = checked(card, C_CODES, "card code")
            out[self.hand[c]] = 1.0
            if C_WILD_BASE <= c < C_ARTIFACT_BASE:
                wilds += 1
        if wilds > 1:
            out[self.hand[C_WILD_BASE]] = wilds
        cdef list pending = state.pending
        if pending and state.turn == seat:
            for card in pending:
                out[self.building[checked(card, C_CODES, "card code")]] += 1.0
        for p in range(n):
            out[self.hand_sizes[p]] = len(<list>hands[p])
        cdef list totals = state.totals, passed = state.passed
        for p in range(n):
            if totals[p]:
                out[self.totals[p]] = <int>totals[p]
            if passed[p]:
                out[self.passed[p]] = 1.0
        stuck = state.stuck
        if stuck:
            out[self.stuck] = <int>stuck
        cdef list table = state.table
        if table:
            self._write_table(table, out)
        for card in state.aside:
            out[self.aside + C_KIND[checked(card, C_CODES, "card code")]] += 1.0
        for p, c in state.artifacts_played:
            out[self.artifacts[checked(p, n, "seat")] + checked(c, C_CODES, "card code")] += 1.0
        for p, target in state.lens_looks:
            out[self.looks[checked(p, n, "seat")][checked(target, n, "seat")]] += 1.0
        cdef list known = state.known[seat]
        for p in range(n):
            mask = known[p]
            if p != seat and mask:
                self._write_known(p, mask, out)
        out[self.leader[checked(state.leader, n, "seat")]] = 1.0
        out[self.round_at + checked(state.round, self.size - self.round_at, "round")] = 1.0
        return 0

    cdef int _write_table(self, list table, float* out) except -1:
        cdef int c, s
        cdef int* trick
        for meld in table:
            s = checked(meld.seat, self.n, "seat")
            trick = self.trick[s]
            for card in meld.cards:
                c = checked(card, C_CODES, "card code")
                out[self.table[c]] += 1.0
                out[trick[c]] += 1.0
            out[self.melds[s]] += 1.0
        top = table[len(table) - 1]
        kind, size, rank2 = top.key
        out[self.top_type + (kind == C_RUN)] = 1.0
        out[self.top_size] = <int>size
        out[self.top_rank] = <int>rank2 / 2.0
        out[self.top_owner[checked(top.seat, self.n, "seat")]] = 1.0
        return 0

    cdef int _write_known(self, int p, object mask, float* out) except -1:
        """Each code in the bitmask ``mask`` (codes below 128) counts once in ``p``'s row."""
        if mask < 0 or mask >> C_CODES:
            raise ValueError(f"known cards {mask:#x} are not a set of card codes")
        cdef uint64_t low = mask & 0xFFFFFFFFFFFFFFFF
        cdef uint64_t high = mask >> 64
        cdef int* row = self.known[p]
        while low:
            out[row[__builtin_ctzll(low)]] += 1.0
            low &= low - 1
        while high:
            out[row[64 + __builtin_ctzll(high)]] += 1.0
            high &= high - 1
        return 0
