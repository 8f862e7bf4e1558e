"""What the browser table draws for one seat of Leduc: its card, the public card and the
opponent's card once shown, from the seat's observation views alone."""

from __future__ import annotations

from typing import Any

import numpy as np

from leduc.rules.cards import SUIT_COLOURS, card_name, suit_of


def card(code: int) -> dict[str, str]:
    return {"label": card_name(code), "colour": SUIT_COLOURS[suit_of(code)]}


def cards(plane: np.ndarray) -> list[dict[str, str]]:
    return [card(int(code)) for code in np.flatnonzero(plane)]


def groups(views: dict[str, np.ndarray], seat: int) -> list[dict[str, Any]]:
    """The card groups the page draws (an empty group is not drawn)."""
    return [
        {"title": "your card", "cards": cards(views["card"])},
        {"title": "public card", "cards": cards(views["public_card"])},
        {"title": f"player_{1 - seat}'s card, shown", "cards": cards(views["shown_card"])},
    ]
