# cython: language_level=3, wraparound=False, boundscheck=False, cdivision=True
"""The Catastrophic Card Game's observation written by compiled code: what
:meth:`UnfortunateEventsEncoding.observe_reference` (the reference, in ``encoding.py``) builds,
entry for entry, written straight into a zeroed vector.

The reference builds the vector as bytes from a dozen lists rotated to the observer, a third of
the AEC step, and it is dearer still when the states of many tables come in turn (its cache of
the laid sets serves one game). Here every entry is a C store at an offset worked out once per
configuration; only reading the state's lists stays Python. Every seat, kind, set and attack read
from the state is checked before it is used, so a state out of range raises a ``ValueError``
instead of writing outside the vector.
"""

cimport cython
from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS,
    PyBUF_FORMAT,
    PyBUF_WRITABLE,
    PyBuffer_Release,
    PyObject_GetBuffer,
)

from card_envs.unfortunate_events.rules.cards import ATTACKS, NUM_KINDS, NUM_SETS, SETS, SIZE_BASE
from card_envs.unfortunate_events.rules.state import NONE, PHASE_NAMES

cdef enum:
    MAXP = 8  # seats (6) and then some
    KINDS = 21  # card kinds, checked against the rules' below
    NSETS = 256  # set types, checked against the rules' below
    WIDTH = 11  # features per seat in the ``seats`` piece (SEAT_FEATURES)
    # columns of the ``seats`` piece
    HAND_SIZE = 0, OWED3, OWED4, VICTORY, TURN, DEALER, TARGET, SEEN, SETS_LAID, ATTACKER, ATTACKED

if NUM_KINDS != KINDS or NUM_SETS != NSETS:
    raise ImportError(f"the kernel is built for {KINDS} kinds and {NSETS} sets")

cdef int C_NONE = NONE
cdef int C_PHASES = len(PHASE_NAMES)
cdef int C_SETS3 = SIZE_BASE[4]  # 3-set types come first in the set table
cdef int C_EYE = ATTACKS[0]
cdef int C_ATTACKS = len(ATTACKS)
cdef unsigned char SET_CARDS[NSETS][KINDS]  # each set type's count of every kind
for _set_id, _set in enumerate(SETS):
    for _kind in _set.cards:
        SET_CARDS[_set_id][_kind] += 1
if tuple(ATTACKS) != tuple(range(C_EYE, C_EYE + C_ATTACKS)):
    raise ImportError("the kernel reads the attacks as consecutive kinds")


cdef inline int checked(long v, long limit, str what) except -1:
    """``v`` if in ``0..limit-1``: a state out of range would write out of bounds."""
    if not 0 <= v < limit:
        raise ValueError(f"{what} {v} is out of range 0..{limit - 1}")
    return <int>v


cdef inline list sized(object value, Py_ssize_t length, str what):
    """``value``, a list of ``length`` entries (by seat, or by kind)."""
    cdef list row = value
    if len(row) != length:
        raise ValueError(f"{what} has {len(row)} entries, not {length}")
    return row


@cython.final
cdef class Observer:
    """Where each piece starts, for one player count; ``write(state, seat, out)`` fills a
    zeroed float32 vector with what ``seat`` may know."""

    cdef readonly int n, size
    cdef readonly dict offsets
    cdef int hand, phase, seats, laid3, laid4, known, seen, discard_top, discard, pending
    cdef int burn_set, last_attack, last_burn_set, last_cancelled, pile, centre, turn, round

    def __init__(self, int n, int size, dict offsets):
        """``offsets``: the spec's, by piece name."""
        if not 0 < n <= MAXP:
            raise ValueError(f"{n} seats: the compiled writer takes 1..{MAXP}")
        self.n, self.size, self.offsets = n, size, offsets
        self.hand, self.phase, self.seats = offsets["hand"], offsets["phase"], offsets["seats"]
        self.laid3, self.laid4, self.known = offsets["laid3"], offsets["laid4"], offsets["known"]
        self.seen, self.discard_top = offsets["seen"], offsets["discard_top"]
        self.discard, self.pending = offsets["discard"], offsets["pending"]
        self.burn_set, self.last_attack = offsets["burn_set"], offsets["last_attack"]
        self.last_burn_set, self.last_cancelled = offsets["last_burn_set"], offsets["last_cancelled"]
        self.pile, self.centre = offsets["pile"], offsets["centre"]
        self.turn, self.round = offsets["turn"], offsets["round"]
        if self.round != size - 1:
            raise ValueError(f"the pieces end at {self.round + 1}, not at the size {size}")

    def __reduce__(self):
        return Observer, (self.n, self.size, self.offsets)

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

    cdef inline int _seat_row(self, long p, int seat, str what) except -1:
        """The ``seats`` row of absolute seat ``p`` for the observer ``seat``."""
        return self.seats + ((checked(p, self.n, what) - seat + self.n) % self.n) * WIDTH

    cdef int _write(self, state, int seat, float* out) except -1:
        cdef int n = self.n, p, rel, kind, row, total
        cdef long v
        cdef list hands = sized(state.hands, n, "hands")
        cdef list owed3 = sized(state.owed3, n, "owed3"), owed4 = sized(state.owed4, n, "owed4")
        cdef list victory = sized(state.victory, n, "victory"), laid = sized(state.laid, n, "laid")
        cdef list known = sized(state.known, n, "known"), seen = sized(state.seen, n, "seen")
        cdef list hand = sized(hands[seat], KINDS, "a hand")
        for kind in range(KINDS):
            v = hand[kind]
            if v:
                out[self.hand + kind] = v
        out[self.phase + checked(state.phase, C_PHASES, "phase")] = 1.0
        for p in range(n):
            rel = (p - seat + n) % n
            row = self.seats + rel * WIDTH
            hand = sized(hands[p], KINDS, "a hand")
            total = 0
            for kind in range(KINDS):
                total += <long>hand[kind]
            out[row + HAND_SIZE] = total
            out[row + OWED3] = <long>owed3[p]
            out[row + OWED4] = <long>owed4[p]
            out[row + VICTORY] = <long>victory[p]
            out[row + SETS_LAID] = len(<list>laid[p])
            self._laid(<list>laid[p], rel, out)
            hand = sized(known[p], KINDS, "a known row")
            row = self.known + rel * KINDS
            for kind in range(KINDS):
                v = hand[kind]
                if v:
                    out[row + kind] = v
        out[self._seat_row(state.turn_player, seat, "turn player") + TURN] = 1.0
        out[self._seat_row(state.dealer, seat, "dealer") + DEALER] = 1.0
        v = state.target
        if v != C_NONE:
            out[self._seat_row(v, seat, "target") + TARGET] = 1.0
        self._seen(sized(seen[seat], n, "a seen row"), seat, out)
        self._public(state, out)
        last = state.last_attack
        if last is not None:
            self._last(<tuple>last, seat, out)
        return 0

    cdef int _laid(self, list sets, int rel, float* out) except -1:
        """Relative seat ``rel``'s laid sets: 3-sets counted by type, the 4-set's cards."""
        cdef int set_id, kind
        for value in sets:
            set_id = checked(value, NSETS, "set id")
            if set_id < C_SETS3:
                out[self.laid3 + rel * C_SETS3 + set_id] += 1.0
            else:
                for kind in range(KINDS):
                    out[self.laid4 + rel * KINDS + kind] = SET_CARDS[set_id][kind]
        return 0

    cdef int _seen(self, list looks, int seat, float* out) except -1:
        """The hands Olaf's Eye showed ``seat`` this round, and the ``seats`` flags of them."""
        cdef int n = self.n, p, rel, kind
        cdef long v
        cdef list hand
        for p in range(n):
            if looks[p] is None:
                continue
            rel = (p - seat + n) % n
            out[self.seats + rel * WIDTH + SEEN] = 1.0
            hand = sized(looks[p], KINDS, "a hand seen")
            for kind in range(KINDS):
                v = hand[kind]
                if v:
                    out[self.seen + rel * KINDS + kind] = v
        return 0

    cdef int _public(self, state, float* out) except -1:
        """The discard, the pending attack and its burn set, the pile and the counters."""
        cdef list discard = state.discard
        cdef list counts = sized(state.discard_counts, KINDS, "discard_counts")
        cdef int kind
        cdef long v
        if discard:
            out[self.discard_top + checked(discard[len(discard) - 1], KINDS, "kind")] = 1.0
        for kind in range(KINDS):
            v = counts[kind]
            if v:
                out[self.discard + kind] = v
        v = state.pending
        if v != C_NONE:
            out[self.pending + checked(v - C_EYE, C_ATTACKS, "attack")] = 1.0
        self._set_cards(state.burn_set, self.burn_set, out)
        out[self.pile] = len(<list>state.pile)
        out[self.centre] = <long>state.centre
        out[self.turn] = <long>state.turns
        out[self.round] = <long>state.round
        return 0

    cdef int _last(self, tuple last, int seat, float* out) except -1:
        """The round's last attack: its kind, attacker and target, burn set, cancellation."""
        if len(last) != 5:
            raise ValueError(f"last_attack has {len(last)} entries, not 5")
        if <long>last[0] != C_NONE:
            out[self.last_attack + checked(<long>last[0] - C_EYE, C_ATTACKS, "attack")] = 1.0
        if <long>last[1] != C_NONE:
            out[self._seat_row(last[1], seat, "attacker") + ATTACKER] = 1.0
        if <long>last[2] != C_NONE:
            out[self._seat_row(last[2], seat, "attack target") + ATTACKED] = 1.0
        self._set_cards(last[3], self.last_burn_set, out)
        if last[4]:
            out[self.last_cancelled] = 1.0
        return 0

    cdef int _set_cards(self, long set_id, int start, float* out) except -1:
        """The cards of set ``set_id`` (none for NONE) counted by kind at ``start``."""
        cdef int kind, s
        if set_id == C_NONE:
            return 0
        s = checked(set_id, NSETS, "set id")
        for kind in range(KINDS):
            if SET_CARDS[s][kind]:
                out[start + kind] = SET_CARDS[s][kind]
        return 0
