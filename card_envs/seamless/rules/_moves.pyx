# cython: language_level=3, wraparound=False, boundscheck=False, cdivision=True
"""Seamless's legal mask, compiled: the bytes :meth:`SeamlessGame.legal_mask_py` (the reference:
``legal_actions`` set into a mask) sets, for every state.

The mask is built at every decision; in Python it cost about 1.7 us of a rules-only step with
the observation (11 us), mostly in listing the legal ids and then setting them one by one. Here
the hand is read once and each id is a byte store. Every card code is checked before it is
used, so a state out of range raises a ``ValueError`` instead of writing outside the mask.
"""

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_FromStringAndSize
from libc.string cimport memset

import numpy as np

from card_envs.seamless.rules.cards import DECK_SIZE, NUM_RANKS, NUM_SUITS
from card_envs.seamless.rules.state import CLAIM

cdef int C_DECK = DECK_SIZE
cdef int C_RANKS = NUM_RANKS
cdef int C_SUITS = NUM_SUITS
cdef int C_CLAIM = CLAIM

_frombuffer = np.frombuffer
_int8 = np.int8


cdef inline int card_code(object card) except -1:
    """``card`` if it is a card code: a state out of range would write out of bounds."""
    cdef long v = card
    if not 0 <= v < C_DECK:
        raise ValueError(f"card code {v} is out of range 0..{C_DECK - 1}")
    return <int>v


cdef class Moves:
    """The legal mask of one configuration: seats, where the play and claim blocks start, the
    mask's length and the trick-1 trump-lead rule."""

    cdef readonly int n, play, claim, size
    cdef readonly bint void_rule

    def __init__(self, int n, int play, int claim, int size, bint void_rule):
        """``void_rule``: trump may be led on trick 1 by a hand void in another suit (the
        ``"void_in_a_suit"`` option) rather than only by a hand of trumps alone."""
        if n < 1 or not (0 <= play and play + C_DECK <= size and 0 <= claim and claim + C_DECK <= size):
            raise ValueError(f"blocks at {play} and {claim} do not fit a mask of {size} for {n} seats")
        self.n, self.play, self.claim, self.size, self.void_rule = n, play, claim, size, void_rule

    def __reduce__(self):
        return Moves, (self.n, self.play, self.claim, self.size, self.void_rule)

    def mask(self, state):
        """``int8`` mask of length ``size`` for the player to act (all zero once over)."""
        buffer = PyByteArray_FromStringAndSize(NULL, self.size)
        cdef char* m = PyByteArray_AS_STRING(buffer)
        memset(m, 0, self.size)
        if not state.over:
            self._set(state, m)
        return _frombuffer(buffer, _int8)

    cdef int _set(self, state, char* m) except -1:
        cdef list trick = state.trick, hand
        cdef int c, lead, trump, suits = 0, others, count = 0
        if state.phase == C_CLAIM:
            for card in trick:
                m[self.claim + card_code(card)] = 1
            return 0
        cdef list hands = state.hands
        cdef long player = (<long>state.leader + len(trick)) % self.n
        if not 0 <= player < len(hands):
            raise ValueError(f"seat {player} to act has no hand ({len(hands)} hands)")
        hand = hands[player]
        if trick:
            lead = card_code(trick[0]) // C_RANKS
            for card in hand:
                c = card_code(card)
                if c // C_RANKS == lead:
                    m[self.play + c] = 1
                    count += 1
            if count:
                return 0
        elif state.trick_number == 0:
            trump = state.trump
            if not 0 <= trump < C_SUITS:
                raise ValueError(f"trump suit {trump} is out of range 0..{C_SUITS - 1}")
            for card in hand:
                suits |= 1 << (card_code(card) // C_RANKS)
            others = suits & ~(1 << trump) & ((1 << C_SUITS) - 1)
            if not self._may_lead_trump(others, trump):
                for card in hand:
                    c = card_code(card)
                    if c // C_RANKS != trump:
                        m[self.play + c] = 1
                return 0
        for card in hand:
            m[self.play + card_code(card)] = 1
        return 0

    cdef inline bint _may_lead_trump(self, int others, int trump):
        """The trick-1 restriction from the non-trump suits held (a bit per suit)."""
        cdef int non_trump = ((1 << C_SUITS) - 1) & ~(1 << trump)
        if self.void_rule:
            return others != non_trump
        return others == 0
