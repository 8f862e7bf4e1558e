"""An injected Seers Catalog deal (``new_game(rng, deal)``): round 1's hands written by hand
(and its leader), or every round's hands scripted in ``deal["chance"]["deal"]``, checked whole
before anything is dealt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from card_envs.core.chance import chance_script, check_written_or_scripted
from card_envs.core.deal import check_deal, check_int, check_list, check_once, check_seat
from card_envs.seers_catalog.rules.cards import (
    ARTIFACT_BASE,
    DECKS,
    NUM_CODES,
    WILD_BASE,
    card_name,
    parse_cards,
)

DEAL_KEYS = ("hands", "leader", "chance")
DEAL = "deal"  # the chance event: one round's hands, seat 0 first (cards in none are out)


def checked_deal(
    deal: Any, num_players: int, all_codes: Sequence[int], artifact_pool: Sequence[str]
) -> tuple[list[list[int]] | None, int | None, dict[str, list]]:
    """The hand-written round 1 (or ``None``), its leader (``None``: the Go First holder)
    and the checked chance script, or an error naming the key at fault. Hand-written hands
    are the first ``deal`` outcome, so ``deal["chance"]`` may not script deals too.
    ``all_codes`` and ``artifact_pool`` are the game's (see :func:`checked_hands`)."""
    if deal is None:
        return None, None, {}
    game_cards = (num_players, all_codes, artifact_pool)  # what checked_hands checks against
    scripted = isinstance(deal, dict) and "chance" in deal
    check_deal(deal, DEAL_KEYS, required=() if scripted else ("hands",))
    written = None
    if "hands" in deal:
        written = checked_hands(deal["hands"], "deal['hands']", *game_cards)
    leader = None
    if "leader" in deal:
        leader = check_seat(deal["leader"], "deal['leader']", num_players)
    script = chance_script(deal, (DEAL,))
    check_written_or_scripted(script, DEAL, "round 1", ["hands"] if written is not None else [])
    deals = script.get(DEAL, [])
    if deals:
        script[DEAL] = [
            checked_hands(hands, f"deal['chance']['deal'][{i}]", *game_cards)
            for i, hands in enumerate(deals)
        ]
    return written, leader, script


def checked_hands(
    raw_hands: Any,
    key: str,
    num_players: int,
    all_codes: Sequence[int],
    artifact_pool: Sequence[str],
) -> list[list[int]]:
    """One round's hands as ascending codes (wilds numbered seat by seat), or a
    ``ValueError`` naming ``key``: one non-empty hand per seer, every card of this game's
    deck (``all_codes``, with the artifacts of ``artifact_pool``) at most once, at most one
    wild per seer."""
    n = num_players
    raw = check_list(raw_hands, key, n, "hands (card names or codes)")
    hands, wilds = [], WILD_BASE
    for seat, hand in enumerate(raw):
        codes = _hand_codes(hand, f"{key}[{seat}]")
        for i, code in enumerate(codes):
            if WILD_BASE <= code < ARTIFACT_BASE:
                codes[i], wilds = wilds, wilds + 1
        hands.append(sorted(codes))
    if wilds - WILD_BASE > n:
        raise ValueError(f"{key} holds {wilds - WILD_BASE} wilds; the {n}-seer deck has {n}")
    check_once([c for hand in hands for c in hand], key, card_name)
    deck = DECKS[n]
    for seat, hand in enumerate(hands):
        if not hand:
            raise ValueError(f"{key}[{seat}] is empty: every hand must hold a card")
        foreign = [card_name(c) for c in hand if c not in all_codes]
        if foreign:
            raise ValueError(
                f"{key}[{seat}] holds {', '.join(foreign)}, not in this game's deck "
                f"({n} seers: {deck.suits} suits of 2..{deck.max_value}, "
                f"artifact_pool {list(artifact_pool)})"
            )
    return hands


def _hand_codes(hand: Any, key: str) -> list[int]:
    """One injected hand as codes: a string of card names (``"5P W Crown"``) or a list of
    card names and codes."""
    if isinstance(hand, str):
        try:
            return parse_cards(hand)
        except ValueError as error:
            raise ValueError(f"{key}: {error}") from None
    codes = []
    for i, card in enumerate(check_list(hand, key, what="card names or codes")):
        if isinstance(card, str):
            try:
                codes += parse_cards([card])
            except ValueError as error:
                raise ValueError(f"{key}[{i}]: {error}") from None
        else:
            what = "a card name ('7P', 'W', 'Crown', ...) or a code"
            codes.append(check_int(card, f"{key}[{i}]", 0, NUM_CODES - 1, what))
    return codes
