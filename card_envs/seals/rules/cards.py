"""Seals cards: 5 colours x (values 1-10 and a coin), plus 2 more red coins (57 cards).

A card is an ``int`` in ``0..56``: ``code = colour * 11 + symbol`` for ``0..54``, where
``symbol`` 0..9 is the value 1..10 and 10 is the coin; codes 55 and 56 are the two extra red
coins. Every series depends only on symbols, so the rules read the :data:`COLOUR` and
:data:`SYMBOL` tables, and the three red coins are interchangeable.
"""

from __future__ import annotations

from collections.abc import Iterable

from card_envs.core.deal import check_int, check_list

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


def parse_cards(
    items: str | Iterable[str | int], used: Iterable[int] = (), key: str = "cards"
) -> list[int]:
    """Card codes from names (``"R7 Rc Rc Y10"``), or from a list of names and codes; repeated
    red coins get distinct codes.

    ``used`` holds codes already taken elsewhere (so a second list's red coin gets a fresh code).
    A bad card is a ``ValueError`` naming ``key`` (e.g. ``"deal['row']"``) and saying why.
    """
    if isinstance(items, str):
        named = [(key, item) for item in items.split()]
    else:
        listed = check_list(items, key, what="card names or codes")
        named = [(f"{key}[{i}]", item) for i, item in enumerate(listed)]
    taken = set(used)
    codes = []
    for where, item in named:
        if isinstance(item, str):
            code = _free_code(_parse_face(item, where), taken, where)
        else:
            code = check_int(item, where, 0, DECK_SIZE - 1, "a card name such as 'R7' or a code")
        if code in taken:
            raise ValueError(f"{where}: card {item!r} is not a free Seals card: it is given twice")
        taken.add(code)
        codes.append(code)
    return codes


def _parse_face(text: str, where: str) -> int:
    face = text.strip().upper()
    letters = {letter: i for i, letter in enumerate(COLOUR_LETTERS)}
    labels = {label.upper(): i for i, label in enumerate(SYMBOL_LABELS)}
    if len(face) < 2 or face[0] not in letters or face[1:] not in labels:
        raise ValueError(
            f"{where}: not a Seals card: {text!r} (a colour letter R, Y, G, B, P then 1..10 or "
            "c for the coin, e.g. 'R7', 'B10', 'Gc')"
        )
    return letters[face[0]] * NUM_SYMBOLS + labels[face[1:]]


def _free_code(face: int, taken: set[int], where: str) -> int:
    """The first code of this face not yet taken (only red coins have several)."""
    for code in range(DECK_SIZE):
        if FACE[code] == face and code not in taken:
            return code
    copies = FACE.count(face)
    raise ValueError(
        f"{where}: no {COLOURS[face // NUM_SYMBOLS]} {SYMBOL_NAMES[face % NUM_SYMBOLS]} left "
        f"(the deck has {copies})"
    )


def symbol_counts(hand: list[int]) -> list[int]:
    """How many cards of each symbol (values 1-10, coin) a hand holds."""
    counts = [0] * NUM_SYMBOLS
    for c in hand:
        counts[SYMBOL[c]] += 1
    return counts
