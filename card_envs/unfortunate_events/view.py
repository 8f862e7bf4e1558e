"""What the browser table draws for one seat of the Catastrophic Card Game: its hand, the discard
top and the 4-sets laid, from the seat's observation views (:mod:`card_envs.core.view`); its
scores are the Victory cards."""

from __future__ import annotations

import numpy as np

from card_envs.core.view import Card, Group, Owner, Views, counted, per_seat
from card_envs.unfortunate_events.rules import cards

COLOURS = ("green", "blue", "gold", "purple")


def card(kind: int) -> Card:
    coloured = kind < cards.EYE
    colour = COLOURS[cards.colour_of(kind)] if coloured else "grey"
    return {"label": cards.KIND_NAMES[kind], "colour": colour}


def groups(views: Views, owner: Owner) -> list[Group]:
    return [
        {"title": owner.own("hand"), "cards": counted(views["hand"], card)},
        {"title": "discard top", "cards": counted(views["discard_top"], card)},
        *per_seat("4-set laid", views["laid4"], owner, lambda plane: counted(plane, card)),
    ]


def scores(views: Views) -> np.ndarray:
    """Victory cards, seat-relative."""
    return views["seats"][:, 3]
