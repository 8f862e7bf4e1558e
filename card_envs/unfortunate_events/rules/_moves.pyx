# cython: language_level=3, wraparound=False, boundscheck=False, cdivision=True
"""The Catastrophic Card Game's legal mask, compiled: the bytes
:meth:`UnfortunateEventsGame.legal_mask_py` (the reference) sets, for every state and phase.

In Python the mask was a third of a rules step with the observation: the sets a hand can lay
looked up colour by colour into lists, then set one by one. Here each set type is checked against
the hand's counts in C and each id is a byte store. Every seat, kind and set read from the state
is checked before it is used, so a state out of range raises a ``ValueError`` instead of writing
outside the mask.
"""

cimport cython
from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from libc.string cimport memset

import numpy as np

from card_envs.unfortunate_events.rules.actions import ALLOW, CANCEL, DRAW_DISCARD, DRAW_PILE
from card_envs.unfortunate_events.rules.cards import (
    BEATRICE,
    BURN,
    EYE,
    NUM_KINDS,
    NUM_SETS,
    PER_COLOUR,
    SETS,
    SNICKET,
    WILD_BASE,
)
from card_envs.unfortunate_events.rules.state import (
    BURN_SET,
    DISCARD,
    DRAW,
    MAIN,
    REACT,
    TARGET,
    VICTORY,
)

cdef enum:
    MAXP = 8  # seats (6) and then some
    KINDS = 21  # card kinds, checked against the rules' below
    NSETS = 256  # set types, checked against the rules' below

if NUM_KINDS != KINDS or NUM_SETS != NSETS:
    raise ImportError(f"the kernel is built for {KINDS} kinds and {NSETS} sets")

cdef int C_DRAW = DRAW, C_MAIN = MAIN, C_DISCARD = DISCARD, C_TARGET = TARGET
cdef int C_BURN_SET = BURN_SET, C_REACT = REACT, C_VICTORY = VICTORY
cdef int C_BURN = BURN, C_EYE = EYE, C_SNICKET = SNICKET, C_BEATRICE = BEATRICE
cdef int C_PILE = DRAW_PILE, C_TAKE = DRAW_DISCARD, C_CANCEL = CANCEL, C_ALLOW = ALLOW


cdef struct SetType:
    int size
    int first  # the kind of the colour's first character
    int naturals[3]
    int wild  # the colour wild's kind
    int wilds
    int beatrice


cdef SetType C_SETS[NSETS]
for _set_id, _set in enumerate(SETS):
    C_SETS[_set_id].size = _set.size
    C_SETS[_set_id].first = _set.colour * PER_COLOUR
    C_SETS[_set_id].naturals = list(_set.naturals)
    C_SETS[_set_id].wild = WILD_BASE + _set.colour
    C_SETS[_set_id].wilds = _set.wilds
    C_SETS[_set_id].beatrice = _set.beatrice

_zeros = np.zeros
_int8 = np.int8


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
cdef class LegalMask:
    """The legal mask of one configuration: seats, where each action block starts, the
    mask's length."""

    cdef readonly int n, size
    cdef readonly dict start
    cdef int draw, lay, discard, target, burn, react, victory

    def __init__(self, int n, int size, dict start):
        """``start``: the action spec's block starts, by block name."""
        if not 1 < n <= MAXP:
            raise ValueError(f"{n} seats: the compiled mask takes 2..{MAXP}")
        self.n, self.size, self.start = n, size, start
        self.draw, self.lay, self.discard = start["draw"], start["lay"], start["discard"]
        self.target, self.burn, self.react = start["target"], start["burn"], start["react"]
        self.victory = start["victory"]
        if not (0 <= self.draw and self.draw + 2 <= self.lay and self.lay + NSETS <= self.discard
                and self.discard + KINDS <= self.target and self.target + n - 1 <= self.burn
                and self.burn + NSETS <= self.react and self.react + 2 <= self.victory
                and self.victory + n <= size):
            raise ValueError(f"the blocks {start} do not fit a mask of {size}")

    def __reduce__(self):
        return LegalMask, (self.n, self.size, self.start)

    def mask(self, state):
        """``int8`` mask of length ``size`` for the seat to act (all zero once the game is
        over or stopped)."""
        mask = _zeros(self.size, _int8)
        self._write(state, mask)
        return mask

    def write(self, state, out) -> None:
        """The mask written into ``out``, ``size`` writable bytes (a vector env's mask row):
        zeroed, then set, with no array made."""
        self._write(state, out)

    cdef int _write(self, state, out) except -1:
        cdef Py_buffer view
        PyObject_GetBuffer(out, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS)
        try:
            if view.len != self.size or view.itemsize != 1:
                raise ValueError(f"out must be {self.size} bytes")
            memset(view.buf, 0, self.size)
            if not (state.over or state.truncated):
                self._set(state, <char*>view.buf)
        finally:
            PyBuffer_Release(&view)
        return 0

    cdef int _set(self, state, char* m) except -1:
        cdef int phase = state.phase, actor = checked(state.actor, self.n, "actor"), k
        cdef list hand
        if phase == C_DRAW:
            self._draws(state.pile, state.discard, m)
            return 0
        hand = sized(sized(state.hands, self.n, "hands")[actor], KINDS, "a hand")
        if phase == C_MAIN or phase == C_DISCARD:
            if phase == C_MAIN:
                self._lays(state, actor, hand, m)
            for k in range(KINDS):
                if hand[k]:
                    m[self.discard + k] = 1
        elif phase == C_TARGET:
            self._targets(state, m)
        elif phase == C_BURN_SET:
            k = checked(state.target, self.n, "target")
            for set_id in <list>sized(state.laid, self.n, "laid")[k]:
                m[self.burn + checked(set_id, NSETS, "set id")] = 1
        elif phase == C_REACT:
            if hand[C_SNICKET]:
                m[self.react + C_CANCEL] = 1
            m[self.react + C_ALLOW] = 1
        elif phase == C_VICTORY:
            self._victories(state, actor, m)
        else:
            raise ValueError(f"phase {phase} is out of range")
        return 0

    cdef int _draws(self, list pile, list discard, char* m) except -1:
        """The pile while it or the discard to reshuffle has cards; the discard's top unless
        it is a special card."""
        if pile or len(discard) > 1:
            m[self.draw + C_PILE] = 1
        if discard and not <long>discard[len(discard) - 1] >= C_EYE:
            m[self.draw + C_TAKE] = 1
        return 0

    cdef int _lays(self, state, int actor, list hand, char* m) except -1:
        """Every set the actor owes a set of that size for and holds the cards of."""
        cdef bint threes = <long>sized(state.owed3, self.n, "owed3")[actor] != 0
        cdef bint fours = <long>sized(state.owed4, self.n, "owed4")[actor] != 0
        cdef int counts[KINDS]
        cdef int k, s
        cdef SetType* t
        if not (threes or fours):
            return 0
        for k in range(KINDS):
            counts[k] = hand[k]
        for s in range(NSETS):
            t = &C_SETS[s]
            if (threes if t.size == 3 else fours) and (
                t.naturals[0] <= counts[t.first] and t.naturals[1] <= counts[t.first + 1]
                and t.naturals[2] <= counts[t.first + 2] and t.wilds <= counts[t.wild]
                and t.beatrice <= counts[C_BEATRICE]
            ):
                m[self.lay + s] = 1
        return 0

    cdef int _targets(self, state, char* m) except -1:
        """Each other seat, but one with no set laid when a Burning House is played."""
        cdef int n = self.n, k, turn = checked(state.turn_player, n, "turn player")
        cdef bint burn = <long>state.pending == C_BURN
        cdef list laid = sized(state.laid, n, "laid")
        for k in range(1, n):
            if not burn or <list>laid[(turn + k) % n]:
                m[self.target + k - 1] = 1
        return 0

    cdef int _victories(self, state, int actor, char* m) except -1:
        """The centre's Victory cards while there are some, and each other seat's."""
        cdef int n = self.n, k
        cdef list victory = sized(state.victory, n, "victory")
        if state.centre:
            m[self.victory] = 1
        for k in range(1, n):
            if victory[(actor + k) % n]:
                m[self.victory + k] = 1
        return 0
