"""Seers Catalog cards: codes, kinds, names and the deck of each player count.

A card is an ``int`` code in ``0..74``, the same for every player count:

* suited ``0..59``: ``suit * 12 + (value - 2)`` for values 2..13 and suits 0..4 (plum, green,
  teal, amber, rose), so a suit is a contiguous range and a run is a difference of one;
* wilds ``60..64`` (one per seer; all wilds are interchangeable);
* artifacts ``65..74`` in the order of :data:`ARTIFACTS`.

A *kind* folds the five wild codes into one: suited kinds ``0..59``, ``WILD`` = 60, artifact
kinds ``61..70``. Observations and meld-building actions use kinds, since wilds are identical.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

MIN_VALUE, MAX_VALUE = 2, 13
NUM_VALUES = MAX_VALUE - MIN_VALUE + 1
MAX_SUITS = 5
NUM_SUITED = MAX_SUITS * NUM_VALUES
WILD_BASE = NUM_SUITED
MAX_WILDS = 5
ARTIFACT_BASE = WILD_BASE + MAX_WILDS
ARTIFACTS = (
    "Go First",
    "Crown",
    "Rod of Reincarnation",
    "Gift of Fate",
    "Cauldron of Sorcery",
    "Prism",
    "Half Moon",
    "Echo",
    "Stepping Stone",
    "Lens",
)
ARTIFACT_TAGS = (
    "GoFirst",
    "Crown",
    "Rod",
    "Gift",
    "Cauldron",
    "Prism",
    "HalfMoon",
    "Echo",
    "Stone",
    "Lens",
)
NUM_CODES = ARTIFACT_BASE + len(ARTIFACTS)
(
    GO_FIRST,
    CROWN,
    ROD,
    GIFT,
    CAULDRON,
    PRISM,
    HALF_MOON,
    ECHO,
    STEPPING_STONE,
    LENS,
) = range(ARTIFACT_BASE, NUM_CODES)

WILD = WILD_BASE  # the kind of every wild
NUM_KINDS = NUM_SUITED + 1 + len(ARTIFACTS)
KIND = tuple(c if c < WILD_BASE else WILD if c < ARTIFACT_BASE else c - 4 for c in range(NUM_CODES))
SUIT_LETTERS = "PGTAR"


@dataclass(frozen=True)
class Deck:
    """The cards of one player count: suits, top suited value, and suited cards removed."""

    suits: int
    max_value: int
    removed: int

    def suited(self) -> list[int]:
        return [
            suit * NUM_VALUES + value - MIN_VALUE
            for suit in range(self.suits)
            for value in range(MIN_VALUE, self.max_value + 1)
        ]


DECKS = {
    2: Deck(suits=3, max_value=10, removed=3),
    3: Deck(suits=3, max_value=MAX_VALUE, removed=0),
    4: Deck(suits=4, max_value=MAX_VALUE, removed=0),
    5: Deck(suits=5, max_value=MAX_VALUE, removed=0),
}
ARTIFACTS_PER_SEER = 2
BONUS_LIMIT = 5  # a seer with this many cards or fewer is "in the Bonus"


def suited(value: int, suit: int) -> int:
    """Code of the suited card of ``value`` (2..13) and ``suit`` (0..4)."""
    return suit * NUM_VALUES + value - MIN_VALUE


def value_of(code: int) -> int:
    """Printed value of a suited code (wilds and artifacts have none: use :func:`score_value`)."""
    return code % NUM_VALUES + MIN_VALUE


def suit_of(code: int) -> int:
    return code // NUM_VALUES


def score_value(code: int) -> int:
    """Value at scoring: a suited card's number; wilds and artifacts are worth 0."""
    return code % NUM_VALUES + MIN_VALUE if code < WILD_BASE else 0


def card_name(code: int) -> str:
    """``"7P"`` (plum 7), ``"W"`` (a wild), or an artifact tag such as ``"Crown"``."""
    if code < WILD_BASE:
        return f"{value_of(code)}{SUIT_LETTERS[suit_of(code)]}"
    if code < ARTIFACT_BASE:
        return "W"
    return ARTIFACT_TAGS[code - ARTIFACT_BASE]


def kind_name(kind: int) -> str:
    return card_name(kind if kind <= WILD else kind + 4)


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Codes for ``"5P 5G W Crown"``; each ``W`` takes the next unused wild code."""
    items = text.split() if isinstance(text, str) else list(text)
    codes, wilds = [], 0
    for item in items:
        if item.upper() == "W":
            codes.append(WILD_BASE + wilds)
            wilds += 1
        elif item in ARTIFACT_TAGS:
            codes.append(ARTIFACT_BASE + ARTIFACT_TAGS.index(item))
        elif item[:-1].isdecimal() and item[-1].upper() in SUIT_LETTERS:
            value = int(item[:-1])
            if not MIN_VALUE <= value <= MAX_VALUE:
                raise ValueError(f"no card {item!r}: values are 2..13")
            codes.append(suited(value, SUIT_LETTERS.index(item[-1].upper())))
        else:
            raise ValueError(f"not a card: {item!r} (e.g. '7P', 'W', 'Crown')")
    return codes


def bits(codes: Iterable[int]) -> int:
    """The set of ``codes`` as an int bitmask (cheap to copy, intersect and compare)."""
    mask = 0
    for code in codes:
        mask |= 1 << code
    return mask
