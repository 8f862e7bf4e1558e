"""The deck as data: card kinds, copies, names, and the table of every set that may be laid.

Copies of a character are identical, so a card is its *kind*, an ``int`` in ``0..20``:
characters ``colour * 3 + i`` (0..11), colour wilds ``12 + colour`` (12..15), then Olaf's Eye,
Burning House, Mr. Poe, Lemony Snicket and Beatrice (16..20). Hands are count vectors by kind.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import product

import numpy as np

COLOURS = ("green", "blue", "gold", "purple")
CHARACTERS = (
    ("Violet", "Klaus", "Sunny"),  # Baudelaire Orphans
    ("Monty", "Josephine", "Quagmire"),  # Baudelaire Confidants
    ("Stephano", "Captain Sham", "Coach Genghis"),  # Count Olaf in Disguise
    ("Hook-Handed Man", "Bald Man", "White-Faced Woman"),  # Count Olaf's Minions
)
NUM_COLOURS = len(COLOURS)
PER_COLOUR = 3
NUM_CHARACTERS = NUM_COLOURS * PER_COLOUR
WILD_BASE = NUM_CHARACTERS
EYE, BURN, POE, SNICKET, BEATRICE = range(WILD_BASE + NUM_COLOURS, WILD_BASE + NUM_COLOURS + 5)
NUM_KINDS = BEATRICE + 1
SPECIALS = (EYE, BURN, POE, SNICKET, BEATRICE)
ATTACKS = (EYE, BURN, POE)  # the specials played against another player (Snicket may cancel)

CHARACTER_COPIES = 7
WILD_COPIES = 3
SPECIAL_COPIES = {EYE: 2, BURN: 2, POE: 2, SNICKET: 2, BEATRICE: 1}
COPIES: tuple[int, ...] = tuple(
    CHARACTER_COPIES if k < WILD_BASE else WILD_COPIES if k < EYE else SPECIAL_COPIES[k]
    for k in range(NUM_KINDS)
)
DECK_SIZE = sum(COPIES)  # 105 playing cards
VICTORY_CARDS = 7
HAND_SIZE = 7  # cards dealt to each seat
TOTAL_CARDS = DECK_SIZE + VICTORY_CARDS  # the 112 cards in the box

KIND_NAMES: tuple[str, ...] = (
    *(name for names in CHARACTERS for name in names),
    *(f"{colour} wild" for colour in COLOURS),
    "Olaf's Eye",
    "Burning House",
    "Mr. Poe",
    "Lemony Snicket",
    "Beatrice",
)
_KIND_IDS = {name.lower(): k for k, name in enumerate(KIND_NAMES)}


def colour_of(kind: int) -> int:
    """Colour of a character or colour wild (meaningless for the specials)."""
    return kind // PER_COLOUR if kind < WILD_BASE else kind - WILD_BASE


def parse_kind(name: str | int, key: str = "card") -> int:
    """A kind from its code (a Python or numpy integer) or name (case-insensitive), e.g.
    ``"Klaus"``, ``"green wild"``; anything else is a ``ValueError`` naming ``key``."""
    if isinstance(name, int | np.integer) and not isinstance(name, bool) and 0 <= name < NUM_KINDS:
        return int(name)
    if isinstance(name, str) and name.strip().lower() in _KIND_IDS:
        return _KIND_IDS[name.strip().lower()]
    raise ValueError(
        f"{key} is not a card: {name!r}; a card is a kind 0..{NUM_KINDS - 1} or a name: "
        f"{', '.join(KIND_NAMES)}"
    )


def parse_kinds(names: Iterable[str | int], key: str = "cards") -> list[int]:
    """Kinds from codes or names; a bad one is a ``ValueError`` naming ``key[i]``."""
    return [parse_kind(name, f"{key}[{i}]") for i, name in enumerate(names)]


def counts_of(kinds: Iterable[int]) -> list[int]:
    """Count vector (length ``NUM_KINDS``) of a list of kinds."""
    counts = [0] * NUM_KINDS
    for kind in kinds:
        counts[kind] += 1
    return counts


# -- sets ---------------------------------------------------------------------------------------
SET_SIZES = (3, 4)
# Fillers for ``f`` non-natural cards: (colour wilds, Beatrice), colour wilds first.
_FILLERS = {0: ((0, 0),), 1: ((1, 0), (0, 1)), 2: ((2, 0), (1, 1)), 3: ((3, 0), (2, 1))}


@dataclass(frozen=True)
class SetType:
    """One layable set as a multiset of kinds (a laid set is identified by its type)."""

    size: int
    colour: int
    cards: tuple[int, ...]  # kinds, naturals first
    naturals: tuple[int, int, int]  # count of each of the colour's three characters
    wilds: int
    beatrice: int

    @property
    def name(self) -> str:
        return "+".join(KIND_NAMES[k] for k in self.cards)


def _completes(size: int, naturals: tuple[int, int, int]) -> bool:
    """Whether the natural characters (with wilds for the rest) can make a set of ``size``."""
    present = [n for n in naturals if n]
    if size == 3:  # three of a kind, or three different characters
        return len(present) == 1 or max(naturals) == 1
    return len(present) == 1 or (len(present) == 2 and max(naturals) <= 2)  # 4 alike / 2 pairs


def _patterns(size: int) -> list[tuple[tuple[int, int, int], int, int]]:
    """Every (naturals, wilds, beatrice) of one colour forming a set of ``size``, at least one
    natural card (a set may not be all wilds), in a fixed documented order."""
    out: list[tuple[tuple[int, int, int], int, int]] = []
    for n in range(size, 0, -1):
        shapes = [c for c in product(range(n + 1), range(n + 1), range(n + 1)) if sum(c) == n]
        for naturals in sorted(shapes, reverse=True):
            if _completes(size, naturals):
                out.extend((naturals, w, b) for w, b in _FILLERS[size - n])
    return out


def _build_sets() -> tuple[SetType, ...]:
    sets = []
    for size in SET_SIZES:
        for colour in range(NUM_COLOURS):
            for naturals, wilds, beatrice in _patterns(size):
                cards = [colour * PER_COLOUR + i for i, n in enumerate(naturals) for _ in range(n)]
                cards += [WILD_BASE + colour] * wilds + [BEATRICE] * beatrice
                sets.append(SetType(size, colour, tuple(cards), naturals, wilds, beatrice))
    return tuple(sets)


SETS = _build_sets()
NUM_SETS = len(SETS)
SET_COUNTS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(sorted((k, s.cards.count(k)) for k in set(s.cards))) for s in SETS
)
SETS_PER_COLOUR = {size: len(_patterns(size)) for size in SET_SIZES}
SIZE_BASE = {3: 0, 4: NUM_COLOURS * SETS_PER_COLOUR[3]}
_CAP = 4  # no set holds more than four of one character


def _lay_table(size: int) -> dict[tuple[int, ...], tuple[int, ...]]:
    """(capped natural counts, wilds, beatrice) of a hand's colour -> the local set indices it
    can lay."""
    table: dict[tuple[int, ...], tuple[int, ...]] = {}
    local = _patterns(size)
    for key in product(range(_CAP + 1), range(_CAP + 1), range(_CAP + 1), range(4), range(2)):
        table[key] = tuple(
            i
            for i, (naturals, wilds, beatrice) in enumerate(local)
            if all(n <= h for n, h in zip(naturals, key, strict=False))
            and wilds <= key[3]
            and beatrice <= key[4]
        )
    return table


# (3-set ids, 4-set ids), and one colour's table of them by (naturals, wilds, beatrice).
LayIds = tuple[tuple[int, ...], tuple[int, ...]]
LayTable = dict[tuple[int, int, int, int, int], LayIds]


def _lay_ids() -> tuple[LayTable, ...]:
    """Per colour: (natural counts, wilds, beatrice) of a hand, uncapped over every count the
    deck allows -> (the 3-set ids, the 4-set ids) it holds: the fast path of the legal-move
    generator, one lookup per colour."""
    capped = {size: _lay_table(size) for size in SET_SIZES}
    counts = range(CHARACTER_COPIES + 1)
    local: LayTable = {}  # the same for every colour, as indices within the colour's sets
    for a, b, c, wilds, beatrice in product(
        counts, counts, counts, range(WILD_COPIES + 1), range(SPECIAL_COPIES[BEATRICE] + 1)
    ):
        key = (min(a, _CAP), min(b, _CAP), min(c, _CAP), wilds, beatrice)
        local[a, b, c, wilds, beatrice] = (capped[3][key], capped[4][key])
    out: list[LayTable] = []
    for colour in range(NUM_COLOURS):
        start3, start4 = (SIZE_BASE[size] + colour * SETS_PER_COLOUR[size] for size in SET_SIZES)
        shifted: dict[LayIds, LayIds] = {
            (ids3, ids4): (tuple(start3 + i for i in ids3), tuple(start4 + i for i in ids4))
            for ids3, ids4 in set(local.values())
        }
        out.append({key: shifted[value] for key, value in local.items()})
    return tuple(out)


LAY_IDS = _lay_ids()


def layable_sets(hand: list[int]) -> tuple[list[int], list[int]]:
    """Ids of the 3-sets and of the 4-sets that ``hand`` (a count vector) holds, each
    ascending."""
    beatrice = hand[BEATRICE]
    threes: list[int] = []
    fours: list[int] = []
    for colour, table in enumerate(LAY_IDS):
        first = colour * PER_COLOUR
        a, b, c = hand[first], hand[first + 1], hand[first + 2]
        if a or b or c:
            ids3, ids4 = table[a, b, c, hand[WILD_BASE + colour], beatrice]
            threes += ids3
            fours += ids4
    return threes, fours


def layable(hand: list[int], size: int) -> list[int]:
    """Ids of the sets of ``size`` that ``hand`` (a count vector) holds, ascending."""
    return layable_sets(hand)[SET_SIZES.index(size)]


def holds(hand: list[int], set_id: int) -> bool:
    """Whether ``hand`` holds every card of the set (the slow, obvious check)."""
    return all(hand[kind] >= count for kind, count in SET_COUNTS[set_id])
