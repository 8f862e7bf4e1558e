"""Seals cards: 5 colours x (values 1-10 and a coin), plus 2 more red coins (57 cards).

A card is an ``int`` in ``0..56``: ``code = colour * 11 + symbol`` for ``0..54``, where
``symbol`` 0..9 is the value 1..10 and 10 is the coin; codes 55 and 56 are the two extra red
coins. Every series depends only on symbols, so the rules read the :data:`COLOUR` and
:data:`SYMBOL` tables, and the three red coins are interchangeable.
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Integral

COLOURS = ("red", "yellow", "green", "blue", "purple")
COLOUR_LETTERS = ("R", "Y", "G", "B", "P")
NUM_COLOURS = len(COLOURS)
NUM_VALUES = 10
COIN = NUM_VALUES  # the symbol index of a coin
NUM_SYMBOLS = NUM_VALUES + 1
SYMBOL_LABELS = (*(str(v) for v in range(1, NUM_VALUES + 1)), "c")
SYMBOL_NAMES = (*(str(v) for v in range(1, NUM_VALUES + 1)), "coin")
EXTRA_RED_COINS = 2
RED = 0
NUM_TYPES = NUM_COLOURS * NUM_SYMBOLS  # distinct faces: (colour, symbol)
DECK_SIZE = NUM_TYPES + EXTRA_RED_COINS

COLOUR: tuple[int, ...] = tuple(c // NUM_SYMBOLS for c in range(NUM_TYPES)) + (RED,) * 2
SYMBOL: tuple[int, ...] = tuple(c % NUM_SYMBOLS for c in range(NUM_TYPES)) + (COIN,) * 2
FACE: tuple[int, ...] = tuple(COLOUR[c] * NUM_SYMBOLS + SYMBOL[c] for c in range(DECK_SIZE))


def card_name(code: int) -> str:
    """Short name such as ``"R7"`` (red 7) or ``"Bc"`` (blue coin)."""
    return COLOUR_LETTERS[COLOUR[code]] + SYMBOL_LABELS[SYMBOL[code]]


def parse_cards(items: str | Iterable[str | int], used: Iterable[int] = ()) -> list[int]:
    """Card codes from names (``"R7 Rc Rc Y10"``) or codes; repeated red coins get distinct codes.

    ``used`` holds codes already taken elsewhere (so a second list's red coin gets a fresh code).
    """
    items = items.split() if isinstance(items, str) else list(items)
    taken = set(used)
    codes = []
    for item in items:
        code = int(item) if isinstance(item, Integral) else _free_code(_parse_face(item), taken)
        if not 0 <= code < DECK_SIZE or code in taken:
            raise ValueError(f"card {item!r} is not a free Seals card")
        taken.add(code)
        codes.append(code)
    return codes


def _parse_face(text: str) -> int:
    text = text.strip().upper()
    letters = {letter: i for i, letter in enumerate(COLOUR_LETTERS)}
    labels = {label.upper(): i for i, label in enumerate(SYMBOL_LABELS)}
    if len(text) < 2 or text[0] not in letters or text[1:] not in labels:
        raise ValueError(f"not a Seals card: {text!r} (expected e.g. 'R7', 'B10', 'Gc')")
    return letters[text[0]] * NUM_SYMBOLS + labels[text[1:]]


def _free_code(face: int, taken: set[int]) -> int:
    """The first code of this face not yet taken (only red coins have several)."""
    for code in range(DECK_SIZE):
        if FACE[code] == face and code not in taken:
            return code
    raise ValueError(f"no {COLOURS[face // NUM_SYMBOLS]} {SYMBOL_NAMES[face % NUM_SYMBOLS]} left")
