"""What the browser table draws for one Seals seat: the face-up row and its hand, from the
seat's observation views (:mod:`card_envs.core.view`); its scores are the blasons."""

from __future__ import annotations

import numpy as np

from card_envs.core.view import Card, Group, Owner, Views, counted
from card_envs.seals.rules import cards


def card(face: int) -> Card:
    colour, symbol = divmod(face, cards.NUM_SYMBOLS)
    label = cards.COLOUR_LETTERS[colour] + cards.SYMBOL_LABELS[symbol]
    return {"label": label, "colour": cards.COLOURS[colour]}


def groups(views: Views, owner: Owner) -> list[Group]:
    return [
        {"title": "face up", "cards": counted(views["row"].ravel(), card)},
        {"title": owner.own("hand"), "cards": counted(views["hand"].ravel(), card)},
    ]


def scores(views: Views) -> np.ndarray:
    """Blasons won, seat-relative."""
    return views["blasons"]
