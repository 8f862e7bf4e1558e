# cython: language_level=3, wraparound=False, boundscheck=False, cdivision=True
"""Seals's observation written by compiled code: :meth:`SealsEncoding.write_reference` (the
reference, in ``encoding.py``) entry for entry, from the same piece offsets.

In Python the observation was a third of a rules step with it: about 40 writes a decision, each
an index lookup, a float conversion and a store. Here each is a C store; only reading the state's
lists and fields stays Python. Every card code and seat read from the state is checked before it
is used, so a state out of range raises a ``ValueError`` instead of writing outside the vector.
"""

cimport cython
from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS,
    PyBUF_FORMAT,
    PyBUF_WRITABLE,
    PyBuffer_Release,
    PyObject_GetBuffer,
)

from card_envs.seals.rules.cards import DECK_SIZE, FACE, NUM_COLOURS, NUM_SYMBOLS
from card_envs.seals.rules.series import NUM_SERIES
from card_envs.seals.rules.state import REVEAL

cdef enum:
    MAXP = 8  # seats (4) and then some
    NCARDS = 57  # card codes, checked against the rules' below
    NSERIES = 14  # series types, checked against the rules' below
    NFACES = 55  # (colour, symbol) faces, checked against the rules' below

if DECK_SIZE != NCARDS or NUM_SERIES != NSERIES or NUM_COLOURS * NUM_SYMBOLS != NFACES:
    raise ImportError(f"the kernel is built for {NCARDS} cards, {NFACES} faces, {NSERIES} series")

cdef int C_REVEAL = REVEAL
cdef int C_FACE[NCARDS]  # each card code's (colour, symbol) entry in a face grid
for _code, _face in enumerate(FACE):
    C_FACE[_code] = _face


cdef inline int checked(long v, long limit, str what) except -1:
    """``v`` if in ``0..limit-1``: a state out of range would write out of bounds."""
    if not 0 <= v < limit:
        raise ValueError(f"{what} {v} is out of range 0..{limit - 1}")
    return <int>v


cdef inline list sized(object value, Py_ssize_t length, str what):
    """``value``, a list of ``length`` entries (one per seat, or per series)."""
    cdef list row = value
    if len(row) != length:
        raise ValueError(f"{what} has {len(row)} entries, not {length}")
    return row


cdef inline int count_faces(float* out, int start, list cards) except -1:
    """Count ``cards`` by face into the zeroed face grid at ``start``."""
    for card in cards:
        out[start + C_FACE[checked(card, NCARDS, "card code")]] += 1.0
    return 0


@cython.final
cdef class Observer:
    """Where each piece starts, for one configuration; ``write(state, seat, out)`` fills a
    zeroed float32 vector with what ``seat`` may know."""

    cdef readonly int n, size, rounds
    cdef readonly bint taken
    cdef readonly dict offsets
    cdef int hand, row, hand_sizes, pile_size, blasons, round_counter, round, in_round, first
    cdef int to_act, revealing, shown, taken_at

    def __init__(self, int n, int size, int rounds, dict offsets):
        """``rounds``: the length of the one-hot ``round`` piece; ``offsets``: the spec's, by
        piece name (with ``taken`` when the other seats' takes are observed)."""
        if not 0 < n <= MAXP:
            raise ValueError(f"{n} seats: the compiled writer takes 1..{MAXP}")
        self.n, self.size, self.rounds, self.offsets = n, size, rounds, offsets
        self.hand, self.row, self.hand_sizes = offsets["hand"], offsets["row"], offsets["hand_sizes"]
        self.pile_size, self.blasons = offsets["pile_size"], offsets["blasons"]
        self.round_counter, self.round = offsets["round_counter"], offsets["round"]
        self.in_round, self.first, self.to_act = offsets["in_round"], offsets["first"], offsets["to_act"]
        self.revealing, self.shown = offsets["revealing"], offsets["shown"]
        self.taken = "taken" in offsets
        self.taken_at = offsets.get("taken", size)
        if self.shown + NSERIES > size or self.taken_at + (n - 1) * NFACES * self.taken > size:
            raise ValueError(f"the pieces do not fit a vector of {size}")

    def __reduce__(self):
        return Observer, (self.n, self.size, self.rounds, self.offsets)

    def write(self, state, int seat, out) -> None:
        """Set what ``seat`` may know of ``state`` in the zeroed float32 vector ``out``."""
        cdef Py_buffer view
        PyObject_GetBuffer(out, &view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS)
        try:
            if view.len != self.size * 4 or view.format is NULL or view.format[0] != b"f":
                raise ValueError(f"out must be {self.size} float32 entries")
            checked(seat, self.n, "seat")
            self._write(state, seat, <float*>view.buf)
        finally:
            PyBuffer_Release(&view)

    cdef int _write(self, state, int seat, float* out) except -1:
        cdef int n = self.n, p, rel, i
        cdef list hands = sized(state.hands, n, "hands")
        cdef list blasons = sized(state.blasons, n, "blasons")
        cdef list active = sized(state.active, n, "active")
        count_faces(out, self.hand, hands[seat])
        count_faces(out, self.row, state.row)
        out[self.pile_size] = len(<list>state.pile)
        out[self.round_counter] = <long>state.counter
        out[self.round + checked(state.round, self.rounds, "round")] = 1.0
        for p in range(n):
            rel = (p - seat + n) % n
            out[self.hand_sizes + rel] = len(<list>hands[p])
            out[self.blasons + rel] = <long>blasons[p]
            if active[p]:
                out[self.in_round + rel] = 1.0
        out[self.first + self._relative(self._first_seat(state, active), seat)] = 1.0
        out[self.to_act + self._relative(checked(state.player, n, "player"), seat)] = 1.0
        if state.phase == C_REVEAL:
            out[self.revealing] = 1.0
            i = self.shown
            for count in sized(state.revealed, NSERIES, "revealed"):
                out[i] = <long>count
                i += 1
        if self.taken:
            for rel in range(1, n):
                count_faces(out, self.taken_at + (rel - 1) * NFACES, hands[(seat + rel) % n])
        return 0

    cdef inline int _relative(self, int p, int seat):
        return (p - seat + self.n) % self.n

    cdef int _first_seat(self, state, list active) except -1:
        """``SealsGame.first_seat``: the round's starter, or the next seat that plays."""
        cdef int n = self.n, seat = (<long>state.starter % n + n) % n, tried
        for tried in range(n):
            if active[seat]:
                return seat
            seat = (seat + 1) % n
        raise ValueError("no seat plays this round")
