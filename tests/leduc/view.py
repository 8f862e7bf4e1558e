"""What the browser table draws for one seat of Leduc: its card, the public card and the
opponent's card once shown, from the seat's observation views alone (card_envs.core.view)."""

from __future__ import annotations

import numpy as np

from card_envs.core.view import Card, Group, Owner, Views
from leduc.rules.cards import SUIT_COLOURS, card_name, suit_of


def card(code: int) -> Card:
    return {"label": card_name(code), "colour": SUIT_COLOURS[suit_of(code)]}


def cards(plane: np.ndarray) -> list[Card]:
    return [card(int(code)) for code in np.flatnonzero(plane)]


def groups(views: Views, owner: Owner) -> list[Group]:
    """The card groups the page draws (an empty group is not drawn)."""
    return [
        {"title": owner.own("card"), "cards": cards(views["card"])},
        {"title": "public card", "cards": cards(views["public_card"])},
        {"title": f"{owner.of(1)}'s card, shown", "cards": cards(views["shown_card"])},
    ]
