# cython: language_level=3, wraparound=False, boundscheck=False, cdivision=True
"""Seals's legal mask, compiled: the bytes :meth:`SealsGame.legal_mask_py` (the reference:
``legal_actions`` set into a mask) sets, for every state.

In Python the mask was the dearest part of a step after the observation: a set of colours and
one of symbols sorted into a list of ids, or the series a hand can add listed, then set one by
one. Here the row or the hand's symbol counts are read once and each id is a byte store. Every
card code and count list is checked before it is used, so a state out of range raises a
``ValueError`` instead of writing outside the mask.
"""

cimport cython
from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from libc.string cimport memset

import numpy as np

from card_envs.seals.rules.cards import COLOUR, DECK_SIZE, NUM_COLOURS, NUM_SYMBOLS, NUM_VALUES, SYMBOL
from card_envs.seals.rules.series import COINS, MAJOR, MINOR, NUM_SERIES, SERIES_SIZE, STRAIGHT
from card_envs.seals.rules.state import REVEAL

cdef enum:
    NCARDS = 57  # card codes, checked against the rules' below
    NVALUES = 10  # values 1-10 (symbol 10 is the coin)

if DECK_SIZE != NCARDS or NUM_VALUES != NVALUES or NUM_SYMBOLS != NVALUES + 1:
    raise ImportError(f"the kernel is built for {NCARDS} cards and {NVALUES} values")

cdef int C_COLOUR[NCARDS]
cdef int C_SYMBOL[NCARDS]
for _code in range(NCARDS):
    C_COLOUR[_code], C_SYMBOL[_code] = COLOUR[_code], SYMBOL[_code]
cdef int C_REVEAL = REVEAL, C_SERIES = NUM_SERIES, C_SIZE = SERIES_SIZE
cdef int C_MINOR = MINOR, C_MAJOR = MAJOR, C_COINS = COINS, C_STRAIGHT = STRAIGHT
cdef int C_COLOURS = NUM_COLOURS, C_SYMBOLS = NUM_SYMBOLS
cdef int MINOR_VALUES = 5  # values 1-5 are minor, 6-10 major

_zeros = np.zeros
_int8 = np.int8


cdef inline int checked(long v, long limit, str what) except -1:
    """``v`` if in ``0..limit-1``: a state out of range would write out of bounds."""
    if not 0 <= v < limit:
        raise ValueError(f"{what} {v} is out of range 0..{limit - 1}")
    return <int>v


@cython.final
cdef class LegalMask:
    """The legal mask of one configuration: where each action block starts, the mask's length
    and the reading of "four minor / major cards"."""

    cdef readonly int size, take_colour, take_symbol, reveal, stop
    cdef readonly bint of_a_kind

    def __init__(self, int size, int take_colour, int take_symbol, int reveal, int stop,
                 bint of_a_kind):
        """``of_a_kind``: "four minor cards" is four of one value (else any four values 1-5)."""
        if not (0 <= take_colour and take_colour + C_COLOURS <= take_symbol
                and take_symbol + C_SYMBOLS <= reveal and reveal + C_SERIES <= stop < size):
            raise ValueError(f"the blocks at {take_colour}, {take_symbol}, {reveal} and {stop} "
                             f"do not fit a mask of {size}")
        self.size, self.take_colour, self.take_symbol = size, take_colour, take_symbol
        self.reveal, self.stop, self.of_a_kind = reveal, stop, of_a_kind

    def __reduce__(self):
        return LegalMask, (self.size, self.take_colour, self.take_symbol, self.reveal, self.stop,
                           self.of_a_kind)

    def mask(self, state):
        """``int8`` mask of length ``size`` for the player to act (all zero once over)."""
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
            if state.over:
                return 0
            if state.phase == C_REVEAL:
                self._reveals(state, <char*>view.buf)
            else:
                self._takes(state.row, <char*>view.buf)
        finally:
            PyBuffer_Release(&view)
        return 0

    cdef int _takes(self, list row, char* m) except -1:
        """Take each face-up card's colour or its symbol."""
        cdef int card
        for item in row:
            card = checked(item, NCARDS, "card code")
            m[self.take_colour + C_COLOUR[card]] = 1
            m[self.take_symbol + C_SYMBOL[card]] = 1
        return 0

    cdef int _reveals(self, state, char* m) except -1:
        """``SealsGame._reveal_options``: what each value has left after the series shown
        decides every series at once; stopping is always allowed."""
        cdef list symbols = state.symbols[state.player], revealed = state.revealed
        cdef int left[NVALUES]
        cdef int v, straights, spare_minor = 0, spare_major = 0, least
        if len(symbols) != C_SYMBOLS or len(revealed) != C_SERIES:
            raise ValueError(f"{len(symbols)} symbol counts and {len(revealed)} series counts")
        straights = revealed[C_STRAIGHT]
        least = 1 << 30
        for v in range(NVALUES):
            left[v] = <long>symbols[v] - straights - C_SIZE * <long>revealed[v]
            if v < MINOR_VALUES:
                spare_minor += left[v]
            else:
                spare_major += left[v]
            if left[v] < least:
                least = left[v]
        spare_minor -= C_SIZE * <long>revealed[C_MINOR]
        spare_major -= C_SIZE * <long>revealed[C_MAJOR]
        if self.of_a_kind:
            for v in range(NVALUES):
                if left[v] >= C_SIZE:
                    m[self.reveal + v] = 1
        else:
            if spare_minor >= C_SIZE:
                m[self.reveal + C_MINOR] = 1
            if spare_major >= C_SIZE:
                m[self.reveal + C_MAJOR] = 1
        if <long>symbols[NVALUES] - C_SIZE * <long>revealed[C_COINS] >= C_SIZE:
            m[self.reveal + C_COINS] = 1
        if least >= 1 and spare_minor >= 5 and spare_major >= 5:
            m[self.reveal + C_STRAIGHT] = 1
        m[self.stop] = 1
        return 0
