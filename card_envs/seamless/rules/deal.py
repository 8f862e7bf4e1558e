"""An injected Seamless deal (``new_game(rng, deal)``): round 1 written by hand or every round
scripted in ``deal["chance"]["deal"]``, checked whole before anything is dealt."""

from __future__ import annotations

from typing import Any

from card_envs.core.chance import chance_script, check_written_or_scripted
from card_envs.core.deal import (
    check_codes,
    check_deal,
    check_int,
    check_list,
    check_once,
    check_seat,
    show,
)
from card_envs.seamless.rules.cards import DECK_SIZE, TRICKS_PER_ROUND, card_name

DEAL_KEYS = ("hands", "trump_card", "dealer", "chance")
ROUND_KEYS = ("hands", "trump_card")  # the keys of a round 1 written by hand
# The chance event: one round's deal, [hands, trump_card]. A list, not a dict: a string equal
# to a state attribute's name would be shared with it in the state but not in an unpickled
# copy, so the two would pickle differently.
DEAL = "deal"


def checked_deal(deal: Any, num_players: int) -> tuple[list[Any] | None, int, dict[str, list]]:
    """The hand-written round 1 (or ``None``), the first dealer and the checked chance
    script, or an error naming the key at fault. A hand-written round 1 is the first
    ``deal`` outcome, so ``deal["chance"]`` may not script deals too."""
    if deal is None:
        return None, 0, {}
    by_hand = isinstance(deal, dict) and ("hands" in deal or "trump_card" in deal)
    check_deal(deal, DEAL_KEYS, required=ROUND_KEYS if by_hand else ())
    dealer = check_seat(deal.get("dealer", 0), "deal['dealer']", num_players)
    written = None
    if by_hand:
        keys = ("deal['hands']", "deal['trump_card']")
        written = checked_round(deal["hands"], deal["trump_card"], keys, dealer, num_players)
    n = num_players
    script = chance_script(deal, (DEAL,))
    check_written_or_scripted(script, DEAL, "round 1", [key for key in ROUND_KEYS if key in deal])
    deals = script.get(DEAL, [])
    if deals:
        script[DEAL] = [
            checked_outcome(outcome, f"deal['chance']['deal'][{i}]", (dealer + i) % n, n)
            for i, outcome in enumerate(deals)
        ]
    return written, dealer, script


def checked_outcome(outcome: Any, key: str, dealer: int, num_players: int) -> list[Any]:
    """A scripted round's deal ``[hands, trump_card]``, or a ``ValueError`` naming ``key``."""
    if not isinstance(outcome, list | tuple) or len(outcome) != 2:
        raise ValueError(
            f"{key} must be a round's deal [hands, trump_card]: 4 lists of 13 card codes "
            f"and a code in the dealer's hand, got {show(outcome)}"
        )
    keys = (f"{key}[0]", f"{key}[1]")
    return checked_round(outcome[0], outcome[1], keys, dealer, num_players)


def checked_round(
    raw_hands: Any, raw_trump: Any, keys: tuple[str, str], dealer: int, num_players: int
) -> list[Any]:
    """One round's deal as plain data ``[hands, trump_card]``, or a ``ValueError`` naming
    the key at fault (``keys`` name the hands and the trump card)."""
    hands_key, trump_key = keys
    raw = check_list(raw_hands, hands_key, num_players, "hands")
    hands = [
        check_codes(hand, f"{hands_key}[{seat}]", DECK_SIZE, TRICKS_PER_ROUND)
        for seat, hand in enumerate(raw)
    ]
    check_once((c for hand in hands for c in hand), hands_key, card_name)
    trump_card = check_int(raw_trump, trump_key, 0, DECK_SIZE - 1, "a card code")
    if trump_card not in hands[dealer]:
        raise ValueError(
            f"{trump_key} must be in the dealer's hand (seat {dealer}), "
            f"got {card_name(trump_card)} ({trump_card})"
        )
    return [hands, trump_card]
