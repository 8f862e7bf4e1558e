"""Series, their blasons, and whether a hand can show a set of series with disjoint cards.

Only symbols matter (never colours), so a hand is read as its 11 symbol counts and a reveal
as a count per series type; a card never serves two series because the check below counts
every card once across all the series revealed so far plus the new one.
"""

from __future__ import annotations

from collections.abc import Sequence

from card_envs.seals.rules.cards import COIN, NUM_VALUES, SYMBOL_NAMES

SERIES_SIZE = 4  # cards in a four of a kind, four minor/major cards or four coins
MINOR_VALUES = range(0, 5)  # symbol indices of values 1-5
MAJOR_VALUES = range(5, NUM_VALUES)  # values 6-10

# Series types, in action-id order: four of a kind of each value, then the any-four reading's
# minor and major series, four coins and the 1-10 straight.
KIND = 0  # KIND + v: four cards of symbol v (value v + 1)
MINOR = NUM_VALUES
MAJOR = MINOR + 1
COINS = MAJOR + 1
STRAIGHT = COINS + 1
NUM_SERIES = STRAIGHT + 1
BLASONS: tuple[int, ...] = (
    *(1 if v in MINOR_VALUES else 2 for v in range(NUM_VALUES)),
    1,  # four minor cards
    2,  # four major cards
    3,  # four coins
    4,  # a 1-10 straight
)

# Readings of the rulebook's "4 cartes mineures / majeures".
OF_A_KIND, ANY_FOUR = "four_of_a_kind", "any_four"
READINGS = (OF_A_KIND, ANY_FOUR)
KIND_SERIES = (*range(KIND, KIND + NUM_VALUES), COINS, STRAIGHT)
ANY_SERIES = (MINOR, MAJOR, COINS, STRAIGHT)


def series_name(series: int) -> str:
    """``"four 7s"``, ``"four minor cards"``, ``"four coins"``, ``"straight 1-10"``."""
    if series < NUM_VALUES:
        return f"four {SYMBOL_NAMES[series]}s"
    return ("four minor cards", "four major cards", "four coins", "straight 1-10")[
        series - NUM_VALUES
    ]


def series_for(reading: str) -> tuple[int, ...]:
    """The series types that exist under a reading of "four minor/major cards"."""
    return KIND_SERIES if reading == OF_A_KIND else ANY_SERIES


def fits(symbols: Sequence[int], revealed: Sequence[int]) -> bool:
    """True if a hand with these symbol counts holds all ``revealed`` series (counts per type)
    with no card used twice.

    Straights take one card of every value; what is left of each value serves its four of a
    kind, and what is left of values 1-5 (6-10) serves the four-minor (four-major) series.
    """
    straights = revealed[STRAIGHT]
    spare_minor = spare_major = 0
    for v in range(NUM_VALUES):
        left = symbols[v] - straights - SERIES_SIZE * revealed[KIND + v]
        if left < 0:
            return False
        if v < MAJOR_VALUES.start:
            spare_minor += left
        else:
            spare_major += left
    return (
        spare_minor >= SERIES_SIZE * revealed[MINOR]
        and spare_major >= SERIES_SIZE * revealed[MAJOR]
        and symbols[COIN] >= SERIES_SIZE * revealed[COINS]
    )


def can_add(symbols: Sequence[int], revealed: list[int], series: int) -> bool:
    """True if the hand can show ``series`` besides those already ``revealed``."""
    revealed[series] += 1
    ok = fits(symbols, revealed)
    revealed[series] -= 1
    return ok


def blasons_of(revealed: Sequence[int]) -> int:
    """Blasons won by a reveal: the series' values add up."""
    return sum(count * value for count, value in zip(revealed, BLASONS, strict=True))


def best_reveal(symbols: Sequence[int], reading: str) -> list[int]:
    """The series (types, with repeats) worth the most blasons that the hand can show at once.

    For each number of straights, what is left of each value, of the minor and major cards
    and of the coins is independent, so taking every series it allows is best.
    """
    best: list[int] = []
    for straights in range(min(symbols[:NUM_VALUES]) + 1):
        left = [symbols[v] - straights for v in range(NUM_VALUES)]
        plan = [STRAIGHT] * straights + [COINS] * (symbols[COIN] // SERIES_SIZE)
        if reading == OF_A_KIND:
            plan += [KIND + v for v in range(NUM_VALUES) for _ in range(left[v] // SERIES_SIZE)]
        else:
            plan += [MINOR] * (sum(left[:5]) // SERIES_SIZE)
            plan += [MAJOR] * (sum(left[5:]) // SERIES_SIZE)
        if sum(BLASONS[s] for s in plan) > sum(BLASONS[s] for s in best):
            best = plan
    return best
