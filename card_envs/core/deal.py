"""Checks for injected deals, shared by the five games so that a bad deal fails the same way in
every game.

A deal is a dict of known keys. A deal that is not a dict is a ``TypeError``; an unknown or
missing key, or a value of the wrong type or out of range, is a ``ValueError`` whose message
names the key (with the index where useful) and says what is allowed. Nothing is coerced: an
integer field takes a Python or numpy integer, never a bool, a float (even ``2.0``) or a
string. A game checks a whole deal with these before it builds any state or draws from its
generator, so a bad deal leaves both as they were.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

# The sequence types a list field accepts: never a string (a sequence of characters) or a dict.
LIST_TYPES = (list, tuple, np.ndarray)
SHOW_CHARS = 60  # a value longer than this is cut short in messages


def show(value: Any) -> str:
    """``repr(value)``, cut short, for an error message."""
    text = repr(value)
    return text if len(text) <= SHOW_CHARS else text[: SHOW_CHARS - 3] + "..."


def is_int(value: Any) -> bool:
    """A Python or numpy integer, not a bool (``True == 1`` would pass for a seat or card)."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def check_deal(deal: Any, keys: Sequence[str], required: Sequence[str] = ()) -> dict[str, Any]:
    """``deal`` itself, once it is a dict with only ``keys`` and every ``required`` key."""
    listed = ", ".join(map(repr, keys))
    if not isinstance(deal, dict):
        raise TypeError(f"deal must be a dict with keys among {listed}, got {type(deal).__name__}")
    unknown = [key for key in deal if key not in keys]
    if unknown:
        raise ValueError(
            f"unknown deal key(s) {', '.join(map(show, unknown))}; allowed keys: {listed}"
        )
    missing = [key for key in required if key not in deal]
    if missing:
        raise ValueError(
            f"deal[{missing[0]!r}] is missing: the deal must give {', '.join(map(repr, required))}"
            f" (allowed keys: {listed})"
        )
    return deal


def check_int(value: Any, key: str, low: int, high: int, what: str = "a number") -> int:
    """``value`` as an ``int`` in ``low..high``, e.g. ``check_int(v, "deal['dealer']", 0, 3,
    "a seat")``, or a ``ValueError`` such as "deal['dealer'] must be a seat 0..3 (an integer),
    got '1'"."""
    if not is_int(value) or not low <= value <= high:
        raise ValueError(f"{key} must be {what} {low}..{high} (an integer), got {show(value)}")
    return int(value)


def check_seat(value: Any, key: str, num_players: int) -> int:
    """A seat ``0..num_players - 1``."""
    return check_int(value, key, 0, num_players - 1, "a seat")


def check_list(value: Any, key: str, length: int | None = None, what: str = "items") -> list:
    """``value`` as a list: a list, tuple or numpy array (not a string), of ``length`` items
    when given; ``what`` names the items in the message (``"hands"``, ``"card codes"``)."""
    count = "" if length is None else f"{length} "
    if not isinstance(value, LIST_TYPES) or (isinstance(value, np.ndarray) and value.ndim == 0):
        raise ValueError(f"{key} must be a list of {count}{what}, got {show(value)}")
    items = list(value)
    if length is not None and len(items) != length:
        raise ValueError(f"{key} must be a list of {count}{what}, got {len(items)}: {show(value)}")
    return items


def check_codes(value: Any, key: str, size: int, length: int | None = None) -> list[int]:
    """A list of card codes ``0..size - 1`` (``length`` of them when given)."""
    items = check_list(value, key, length, "card codes")
    return [
        check_int(item, f"{key}[{i}]", 0, size - 1, "a card code") for i, item in enumerate(items)
    ]


def check_str(value: Any, key: str, what: str) -> str:
    """A string (``what`` says which, e.g. ``"a string of 5 letters"``)."""
    if not isinstance(value, str):
        raise ValueError(f"{key} must be {what}, got {show(value)}")
    return value


def check_once(
    cards: Iterable[int], key: str, name: Callable[[int], str] = str, deck: str = "the deck"
) -> None:
    """A ``ValueError`` naming the first card given twice, where ``deck`` holds one of each."""
    seen: set[int] = set()
    for card in cards:
        if card in seen:
            raise ValueError(f"{key} holds {name(card)} twice; {deck} has one of each")
        seen.add(card)
