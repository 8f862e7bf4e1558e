"""What the browser table draws for one Seamless seat: its hand, the trump, the trick and the
rows, from the seat's observation views (:mod:`card_envs.core.view`)."""

from __future__ import annotations

import numpy as np

from card_envs.core.cards import SUIT_SYMBOLS, card_name, suit_of
from card_envs.core.view import Card, Group, Owner, Views, per_seat

FRENCH_COLOURS = ("black", "red", "red", "black")  # ♣ ♦ ♥ ♠


def french(code: int) -> Card:
    return {"label": card_name(code), "colour": FRENCH_COLOURS[suit_of(code)]}


def french_cards(plane: np.ndarray) -> list[Card]:
    return [french(int(c)) for c in np.flatnonzero(plane)]


def groups(views: Views, owner: Owner) -> list[Group]:
    """The trump is always shown: its revealed card while it lies there, else its suit."""
    suit = int(np.argmax(views["trump_suit"]))
    revealed = french_cards(views["trump_card"])
    trump = {"label": SUIT_SYMBOLS[suit], "colour": FRENCH_COLOURS[suit]}
    title = "trump, revealed card" if revealed else "trump (its card has been played)"
    return [
        {"title": owner.own("hand"), "cards": french_cards(views["hand"])},
        {"title": title, "cards": revealed or [trump]},
        *per_seat("trick", views["trick"], owner, french_cards),
        *per_seat("row", views["rows"], owner, french_cards),
    ]
