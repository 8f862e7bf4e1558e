"""Seamless cards: the standard 52-card deck (codes in :mod:`card_envs.core.cards`), dealt out
in full (13 each), and which card wins a trick."""

from __future__ import annotations

from card_envs.core.cards import DECK_SIZE, NUM_RANKS, NUM_SUITS, card_name, shuffled_deck

__all__ = [
    "DECK_SIZE",
    "EMPTY",
    "NUM_RANKS",
    "NUM_SUITS",
    "TRICKS_PER_ROUND",
    "card_name",
    "shuffled_deck",
    "trick_winner_index",
]

TRICKS_PER_ROUND = 13
EMPTY = -1  # no card: an empty row slot, a played trump card, no trick winner yet


def trick_winner_index(trick: list[int], trump: int) -> int:
    """Index in ``trick`` of the winning card: highest trump, else highest of the led suit."""
    lead_suit = trick[0] // NUM_RANKS
    best = 0
    for i in range(1, len(trick)):
        card, top = trick[i], trick[best]
        suit, top_suit = card // NUM_RANKS, top // NUM_RANKS
        if suit == top_suit:
            if card > top:
                best = i
        elif suit == trump or (top_suit != trump and suit == lead_suit):
            best = i
    return best
