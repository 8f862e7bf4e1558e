"""What the browser table draws for one Sequitur seat: racks, the ball to place, words, goal
cards and action cards, from the seat's observation views (:mod:`card_envs.core.view`)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from card_envs.core.view import Card, Group, Owner, Views, per_seat
from card_envs.sequitur.rules.cards import CARDS
from card_envs.sequitur.rules.words import ALPHABET, BLANK


def letters(slots: Iterable[np.ndarray]) -> list[Card]:
    """A ball per filled slot: its letter, ``?`` for the blank."""
    shown = []
    for slot in slots:
        if slot.any():
            code = int(np.argmax(slot))
            shown.append(
                {"label": "?" if code == BLANK else ALPHABET[code].upper(), "colour": "ball"}
            )
    return shown


def goal_cards(plane: np.ndarray) -> list[Card]:
    """Goal cards by number, as the text view names them (``#57``)."""
    return [{"label": f"#{int(k)}", "colour": "grey"} for k in np.flatnonzero(plane)]


def action_cards(used: np.ndarray) -> list[Card]:
    """The action cards a seat has not played yet."""
    return [
        {"label": name, "colour": "grey"}
        for name, gone in zip(CARDS, used, strict=True)
        if not gone
    ]


def groups(views: Views, owner: Owner) -> list[Group]:
    return [
        *per_seat("rack", views["racks"], owner, letters),
        {"title": owner.own("ball to place"), "cards": letters([views["ball"]])},
        *per_seat("word", views["words"], owner, letters),
        {"title": owner.own("secret goal"), "cards": goal_cards(views["secret"])},
        {"title": owner.own("goals drawn"), "cards": goal_cards(views["drawn"])},
        {"title": "public goals", "cards": goal_cards(views["public"])},
        {"title": owner.own("action cards"), "cards": action_cards(views["used"][0])},
    ]
