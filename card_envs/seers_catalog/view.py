"""What the browser table draws for one Seers Catalog seat: its hand and the cards on the table,
from the seat's observation views (:mod:`card_envs.core.view`)."""

from __future__ import annotations

from card_envs.core.view import Card, Group, Owner, Views, counted, per_seat
from card_envs.seers_catalog.rules import cards

COLOURS = ("plum", "green", "teal", "amber", "rose")  # suits P G T A R


def card(kind: int) -> Card:
    suited = kind < cards.WILD
    colour = COLOURS[kind // cards.NUM_VALUES] if suited else "grey"
    return {"label": cards.kind_name(kind), "colour": colour}


def groups(views: Views, owner: Owner) -> list[Group]:
    return [
        {"title": owner.own("hand"), "cards": counted(views["hand"], card)},
        *per_seat("trick", views["trick_cards"], owner, lambda plane: counted(plane, card)),
    ]
