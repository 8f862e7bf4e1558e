"""An injected Seals deal (``new_game(rng, deal)``): a position written by hand (hands, row,
pile top, blasons, counter, starter) and ``deal["chance"]["shuffle"]`` scripting the shuffles,
checked whole before the generator shuffles the rest."""

from __future__ import annotations

from typing import Any

from card_envs.core.chance import chance_script
from card_envs.core.deal import check_deal, check_int, check_list, check_seat
from card_envs.seals.rules.cards import DECK_SIZE, card_name, parse_cards
from card_envs.seals.rules.state import ROUND_COUNTER, ROW_SIZE, TARGET_BLASONS, SealsSetup

DEAL_KEYS = ("pile", "row", "hands", "blasons", "counter", "starter", "chance")
SHUFFLE = "shuffle"  # the chance event: a shuffled pile, its cards' codes top card first


def checked_deal(deal: Any, num_players: int) -> tuple[SealsSetup, dict[str, list]]:
    """The hand-written position and the checked chance script, checked whole before the
    generator shuffles the rest, or an error naming the key at fault."""
    if deal is None:
        return SealsSetup(), {}
    n = num_players
    check_deal(deal, DEAL_KEYS)
    hands, row, top = _deal_cards(deal, n)
    raw_blasons = check_list(deal.get("blasons", [0] * n), "deal['blasons']", n, "counts")
    blasons = [
        check_int(b, f"deal['blasons'][{seat}]", 0, TARGET_BLASONS - 1, "a blason count")
        for seat, b in enumerate(raw_blasons)
    ]
    counter = check_int(
        deal.get("counter", ROUND_COUNTER), "deal['counter']", 1, ROUND_COUNTER, "a count"
    )
    starter = check_seat(deal.get("starter", 0), "deal['starter']", n)
    given: dict[str, Any] = {
        "hands": hands,
        "row": row,
        "pile": top,
        "blasons": blasons,
        "counter": counter,
        "starter": starter,
    }
    setup = SealsSetup(**{key: value for key, value in given.items() if key in deal})
    script = chance_script(deal, (SHUFFLE,))
    placed = {c for cards in (*hands, row, top) for c in cards}
    if script.get(SHUFFLE):  # round 1 shuffles the cards left out, later rounds all of them
        script[SHUFFLE] = [
            checked_pile(pile, placed if i == 0 else set(), f"deal['chance']['shuffle'][{i}]")
            for i, pile in enumerate(script[SHUFFLE])
        ]
    return setup, script


def checked_pile(pile: Any, placed: set[int], key: str) -> list[int]:
    """A shuffled pile (top card first) of every card not ``placed``, as codes, or a
    ``ValueError`` naming ``key`` and the cards missing."""
    codes = parse_cards(pile, sorted(placed), key)
    if len(codes) != DECK_SIZE - len(placed):
        missing = sorted(set(range(DECK_SIZE)) - placed - set(codes))
        raise ValueError(
            f"{key} must list each of the {DECK_SIZE - len(placed)} cards shuffled into the pile "
            f"once, top card first; missing: {' '.join(map(card_name, missing))}"
        )
    return codes


def _deal_cards(deal: dict[str, Any], n: int) -> tuple[list[list[int]], list[int], list[int]]:
    """The injected hands, row and pile top as codes, every card at most once."""
    raw_hands = check_list(deal.get("hands", [[]] * n), "deal['hands']", n, "hands")
    hands: list[list[int]] = []
    used: list[int] = []
    for seat, raw in enumerate(raw_hands):
        hands.append(parse_cards(raw, used, f"deal['hands'][{seat}]"))
        used += hands[-1]
    row = parse_cards(deal.get("row", ()), used, "deal['row']")
    if len(row) > ROW_SIZE:
        raise ValueError(f"deal['row'] holds at most {ROW_SIZE} cards, got {len(row)}")
    return hands, row, parse_cards(deal.get("pile", ()), used + row, "deal['pile']")
