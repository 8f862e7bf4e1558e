# cython: language_level=3, wraparound=False, boundscheck=False, cdivision=True
"""Seamless's legal mask and moves, compiled: the bytes :meth:`SeamlessGame.legal_mask_py` (the
reference: ``legal_actions`` set into a mask) sets, and the play or claim
:meth:`SeamlessGame.apply_py` makes, for every state (the round's end and the next deal stay
Python, in ``game.py``).

Both run at every decision; in Python they cost about 1.7 and 1.4 us of a rules-only step with
the observation (11 us), mostly in listing the legal ids and then setting them one by one, and in
decoding the id and reading the state field by field. Here the hand is read once, each id is a
byte store and the trick's winner is found in C. Every card code and seat is checked before it
is used, and every list index by a loop's bound or by hand, so a state out of range raises a
``ValueError`` instead of reading or writing outside a list or the mask.
"""

from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from libc.string cimport memset

import numpy as np

from card_envs.seamless.rules.cards import DECK_SIZE, EMPTY, NUM_RANKS, NUM_SUITS, TRICKS_PER_ROUND
from card_envs.seamless.rules.state import CLAIM, PLAY

cdef int C_DECK = DECK_SIZE
cdef int C_RANKS = NUM_RANKS
cdef int C_SUITS = NUM_SUITS
cdef int C_CLAIM = CLAIM
_PLAY, _EMPTY = PLAY, EMPTY  # the Python objects the reference stores

_zeros = np.zeros
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
        if n < 1 or not (0 <= play and play + C_DECK <= claim and claim + C_DECK <= size):
            raise ValueError(f"blocks at {play} and {claim} do not fit a mask of {size} for {n} seats")
        self.n, self.play, self.claim, self.size, self.void_rule = n, play, claim, size, void_rule

    def __reduce__(self):
        return Moves, (self.n, self.play, self.claim, self.size, self.void_rule)

    def mask(self, state):
        """``int8`` mask of length ``size`` for the player to act (all zero once over)."""
        mask = _zeros(self.size, _int8)  # four times cheaper than wrapping a bytearray
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
            if not state.over:
                self._set(state, <char*>view.buf)
        finally:
            PyBuffer_Release(&view)
        return 0

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

    def apply(self, state, int action):
        """Play or claim the card of the legal id ``action`` (as the phase says); whether the
        claim ended the round (the caller scores it and deals the next)."""
        if not self.play <= action < self.claim + C_DECK:
            raise ValueError(f"no such action {action} (ids {self.play}..{self.claim + C_DECK - 1})")
        cdef int card = action - self.claim if action >= self.claim else action - self.play
        if card >= C_DECK:
            raise ValueError(f"no such action {action}")
        if state.phase == C_CLAIM:
            return self._claim(state, card)
        self._play(state, card)
        return False

    cdef int _play(self, state, int card) except -1:
        cdef list trick = state.trick, hands = state.hands
        cdef long leader = state.leader
        cdef long player = (leader + len(trick)) % self.n
        if not 0 <= player < len(hands):
            raise ValueError(f"seat {player} to act has no hand ({len(hands)} hands)")
        (<list>hands[player]).remove(card)
        trick.append(card)
        (<list>state.played).append(card)
        if card == state.trump_card:
            state.trump_card = _EMPTY
        if len(trick) == self.n:
            state.winner = (leader + winner_index(trick, state.trump)) % self.n
            state.phase = C_CLAIM
        return 0

    cdef bint _claim(self, state, int card) except -1:
        cdef list rows = state.rows, discard = state.discard, trick = state.trick
        cdef long winner = state.winner
        if not 0 <= winner < len(rows):
            raise ValueError(f"trick winner {winner} has no row ({len(rows)} rows)")
        cdef list row = rows[winner]
        cdef int rank = card % C_RANKS
        if rank >= len(row):
            raise ValueError(f"row of seat {winner} has {len(row)} rank slots, not {C_RANKS}")
        cdef long held = row[rank]
        if held != -1:
            discard.append(held * C_RANKS + rank)
        row[rank] = card // C_RANKS
        for other in trick:
            if other != card:
                discard.append(other)
        state.trick = []
        state.leader = state.winner
        state.winner = _EMPTY
        state.phase = _PLAY
        number = state.trick_number + 1
        state.trick_number = number
        return number == TRICKS_PER_ROUND


cdef long winner_index(list trick, object trump_suit) except -1:
    """Index in ``trick`` of the winning card: highest trump, else highest of the led suit (as
    ``cards.trick_winner_index``)."""
    cdef long trump = trump_suit, best = 0, i, card, top, suit, top_suit
    cdef long lead_suit = card_code(trick[0]) // C_RANKS
    for i in range(1, len(trick)):
        card, top = card_code(trick[i]), trick[best]
        suit, top_suit = card // C_RANKS, top // C_RANKS
        if suit == top_suit:
            if card > top:
                best = i
        elif suit == trump or (top_suit != trump and suit == lead_suit):
            best = i
    return best
