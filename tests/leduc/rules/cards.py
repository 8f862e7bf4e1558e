"""Leduc cards: J, Q and K in two suits, six cards in all.

A card is an ``int`` in ``0..5``: ``code = rank * 2 + suit``, ``rank`` 0..2 for J, Q, K and
``suit`` 0..1 for spades and hearts. These are OpenSpiel's ``leduc_poker`` card ids, so its
chance outcomes are our deals.
"""

from __future__ import annotations

NUM_RANKS = 3
NUM_SUITS = 2
DECK_SIZE = NUM_RANKS * NUM_SUITS
NO_CARD = -1  # the public card before it is dealt, a hand not yet shown
RANK_LABELS = ("J", "Q", "K")
SUIT_SYMBOLS = ("♠", "♥")
SUIT_COLOURS = ("black", "red")


def rank_of(card: int) -> int:
    return card // NUM_SUITS


def suit_of(card: int) -> int:
    return card % NUM_SUITS


def card_name(card: int) -> str:
    """Readable name such as ``"K♠"``."""
    return RANK_LABELS[rank_of(card)] + SUIT_SYMBOLS[suit_of(card)]


def parse_card(text: str) -> int:
    """The code of ``"K♠"`` or ``"qh"`` (rank J/Q/K, suit ♠/♥ or S/H)."""
    symbols = {"S": 0, "H": 1, "♠": 0, "♥": 1}
    rank, suit = text.strip().upper()[:-1], text.strip().upper()[-1:]
    if rank not in RANK_LABELS or suit not in symbols:
        raise ValueError(f"{text!r} is not a Leduc card: J, Q or K, then ♠/S or ♥/H")
    return RANK_LABELS.index(rank) * NUM_SUITS + symbols[suit]


def hand_strength(card: int, public: int) -> int:
    """What a hand is worth at the showdown: a pair with the public card beats any single
    card, then the higher rank; equal strengths split the pot."""
    rank = rank_of(card)
    return NUM_RANKS + rank if rank == rank_of(public) else rank
