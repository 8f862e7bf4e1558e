"""Card codes for the standard 52-card deck.

A card is an ``int`` in ``0..51``: ``code = suit * 13 + rank`` with ``rank`` 0..12 for 2..A
(aces high) and ``suit`` 0..3 for clubs, diamonds, hearts, spades. Suits slice as contiguous
ranges and rank order is integer order, so following suit is a range check and a rank run is
a difference of one.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

NUM_RANKS = 13
NUM_SUITS = 4
DECK_SIZE = NUM_RANKS * NUM_SUITS
RANK_LABELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
SUIT_LETTERS = ("C", "D", "H", "S")


def card(rank: int, suit: int) -> int:
    """Code of the card of ``rank`` (0 = 2 .. 12 = A) and ``suit`` (0..3)."""
    return suit * NUM_RANKS + rank


def rank_of(code: int) -> int:
    return code % NUM_RANKS


def suit_of(code: int) -> int:
    return code // NUM_RANKS


def card_name(code: int) -> str:
    """Readable name such as ``"10♥"``."""
    return RANK_LABELS[code % NUM_RANKS] + SUIT_SYMBOLS[code // NUM_RANKS]


def parse_card(text: str) -> int:
    """Parse ``"10H"``, ``"Q♠"`` or ``"2c"`` into a card code."""
    text = text.strip().upper()
    rank_text, suit_text = text[:-1], text[-1]
    suits = {s: i for i, s in enumerate(SUIT_LETTERS)} | {s: i for i, s in enumerate(SUIT_SYMBOLS)}
    if rank_text not in RANK_LABELS or suit_text not in suits:
        raise ValueError(f"not a card: {text!r} (expected e.g. '10H', 'QS', 'A♦')")
    return card(RANK_LABELS.index(rank_text), suits[suit_text])


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Parse a space-separated string or an iterable of card names."""
    items = text.split() if isinstance(text, str) else text
    return [parse_card(item) for item in items]


def shuffled_deck(rng: np.random.Generator, size: int = DECK_SIZE) -> list[int]:
    """The codes ``0..size-1`` in an order drawn from ``rng``."""
    return rng.permutation(size).tolist()
