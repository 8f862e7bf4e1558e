"""Checks on injected deals and chance outcomes.

Two chance events: ``deal``, the private cards ``[player_0's, player_1's]`` at the start, and
``public``, the public card dealt between the rounds. A deal gives them by hand
(``{"hands": [c0, c1], "public": c}``, the public card optional) or as the chance script
``deal_record`` writes (``{"chance": {"deal": [[c0, c1]], "public": [c]}}``), not both. Every
check runs before the game draws anything, so a bad deal leaves the generator as it was.
"""

from __future__ import annotations

from typing import Any

from card_envs.core.chance import chance_script
from card_envs.core.deal import check_codes, check_deal, check_int, check_once
from leduc.rules.cards import DECK_SIZE, card_name

DEAL, PUBLIC = "deal", "public"
EVENTS = (DEAL, PUBLIC)
DEAL_KEYS = ("hands", PUBLIC, "chance")


def checked_hands(value: Any, key: str, num_players: int) -> list[int]:
    """One private card per seat, no card twice."""
    hands = check_codes(value, key, DECK_SIZE, num_players)
    check_once(hands, key, card_name)
    return hands


def checked_public(value: Any, key: str, hands: list[int]) -> int:
    """A card code that no seat holds."""
    card = check_int(value, key, 0, DECK_SIZE - 1, "a card code")
    if card in hands:
        raise ValueError(
            f"{key} is {card_name(card)}, player_{hands.index(card)}'s card; "
            "the deck has one of each"
        )
    return card


def checked_script(deal: Any, num_players: int) -> dict[str, list[Any]]:
    """The deal as a chance script, every outcome checked (a hand-written deal becomes the
    script it stands for, so the game's record replays it)."""
    if deal is None:
        return {}
    check_deal(deal, DEAL_KEYS)
    script = chance_script(deal, EVENTS)
    given: dict[str, tuple[Any, str]] = {}  # event -> (outcome, the key that gave it)
    for event, key in ((DEAL, "hands"), (PUBLIC, PUBLIC)):
        outcomes = script.get(event, [])
        if key in deal and outcomes:
            raise ValueError(
                f"deal[{key!r}] and deal['chance'][{event!r}] both give the {event} outcome: "
                "give it once"
            )
        if len(outcomes) > 1:
            raise ValueError(
                f"deal['chance'][{event!r}] holds {len(outcomes)} outcomes; "
                f"a Leduc game has one {event} outcome at most"
            )
        if key in deal:
            given[event] = (deal[key], f"deal[{key!r}]")
        elif outcomes:
            given[event] = (outcomes[0], f"deal['chance'][{event!r}][0]")
    checked: dict[str, list[Any]] = {}
    if DEAL in given:
        checked[DEAL] = [checked_hands(*given[DEAL], num_players)]
    if PUBLIC in given:
        if DEAL not in checked:
            raise ValueError(
                f"{given[PUBLIC][1]} gives the public card without the hands: a deal that "
                "gives the public card gives the hands too, to be checked against them"
            )
        checked[PUBLIC] = [checked_public(*given[PUBLIC], checked[DEAL][0])]
    return checked
