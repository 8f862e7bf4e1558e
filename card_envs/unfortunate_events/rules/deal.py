"""An injected Catastrophic Card Game deal (``new_game(rng, deal)``): round 1 written by hand
(hands, discard, pile top) or every round scripted in ``deal["chance"]["deal"]``, and the
reshuffles in ``deal["chance"]["reshuffle"]``, checked before the generator shuffles anything
(a reshuffle's cards when it happens)."""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.core.chance import chance_script, check_written_or_scripted
from card_envs.core.deal import check_deal, check_list, check_seat, show
from card_envs.unfortunate_events.rules.cards import (
    COPIES,
    DECK_SIZE,
    HAND_SIZE,
    KIND_NAMES,
    NUM_KINDS,
    counts_of,
    parse_kinds,
)

DEAL_KEYS = ("hands", "discard", "pile", "dealer", "chance")
ROUND_KEYS = ("hands", "discard", "pile")  # the keys of a round 1 written by hand
# The chance events: a round's deal, [hands, discard, pile], and the pile a reshuffle makes
# (next drawn first). Lists, not dicts: a string equal to a state attribute's name would be
# shared with it in the state but not in an unpickled copy, so the two would pickle differently.
DEAL, RESHUFFLE = "deal", "reshuffle"

# A round 1 written by hand: the hands, the top of the pile and the discard.
Written = tuple[list[list[int]], list[int], list[int]]


def checked_deal(deal: Any, num_players: int) -> tuple[Written | None, int, dict[str, list]]:
    """The hand-written round 1 (hands, pile top, discard; or ``None``), the first dealer and
    the checked chance script, or an error naming the key at fault, all before the generator
    shuffles anything. A hand-written round 1 is the first ``deal`` outcome, so
    ``deal["chance"]`` may not script deals too."""
    if deal is None:
        return None, 0, {}
    n = num_players
    by_hand = isinstance(deal, dict) and any(key in deal for key in ROUND_KEYS)
    scripted = isinstance(deal, dict) and "chance" in deal
    check_deal(deal, DEAL_KEYS, required=("hands",) if by_hand or not scripted else ())
    written = None
    if by_hand:
        raw = check_list(deal["hands"], "deal['hands']", n, f"hands of {HAND_SIZE} cards")
        hands = [
            _deal_kinds(hand, f"deal['hands'][{seat}]", HAND_SIZE) for seat, hand in enumerate(raw)
        ]
        discard = _deal_kinds(deal.get("discard", []), "deal['discard']")
        top_pile = _deal_kinds(deal.get("pile", []), "deal['pile']")
        written = hands, top_pile, discard
    dealer = check_seat(deal.get("dealer", 0), "deal['dealer']", n)
    if written is not None:
        _check_copies(*written)
    script = chance_script(deal, (DEAL, RESHUFFLE))
    check_written_or_scripted(script, DEAL, "round 1", [key for key in ROUND_KEYS if key in deal])
    if DEAL in script:
        script[DEAL] = [
            checked_round(outcome, f"deal['chance']['deal'][{i}]", n)
            for i, outcome in enumerate(script[DEAL])
        ]
    if RESHUFFLE in script:  # their cards are checked when they happen: see checked_reshuffle
        script[RESHUFFLE] = [
            _deal_kinds(pile, f"deal['chance']['reshuffle'][{i}]")
            for i, pile in enumerate(script[RESHUFFLE])
        ]
    return written, dealer, script


def checked_round(outcome: Any, key: str, num_players: int) -> list[list[Any]]:
    """A scripted round's deal ``[hands, discard, pile]`` as kinds, or a ``ValueError``
    naming ``key``: a hand of 7 per seat, at least the face-up card on the discard, and
    with the pile every card of the deck exactly once."""
    n = num_players
    if not isinstance(outcome, list | tuple) or len(outcome) != 3:
        raise ValueError(
            f"{key} must be a round's deal [hands, discard, pile]: {n} hands of {HAND_SIZE} "
            f"cards, the discard (top card last) and the pile (next drawn first), together "
            f"the whole deck, got {show(outcome)}"
        )
    raw = check_list(outcome[0], f"{key}[0]", n, f"hands of {HAND_SIZE} cards")
    hands = [
        sorted(_deal_kinds(hand, f"{key}[0][{seat}]", HAND_SIZE)) for seat, hand in enumerate(raw)
    ]
    discard = _deal_kinds(outcome[1], f"{key}[1]")
    if not discard:
        raise ValueError(f"{key}[1] must hold the face-up card: the discard is never empty")
    pile = _deal_kinds(outcome[2], f"{key}[2]")
    used = counts_of([k for hand in hands for k in hand] + discard + pile)
    wrong = [
        f"{KIND_NAMES[kind]} {count} times (the deck holds {copies})"
        for kind, (count, copies) in enumerate(zip(used, COPIES, strict=True))
        if count != copies
    ]
    if wrong:
        raise ValueError(
            f"{key} must deal the whole deck of {DECK_SIZE} cards, each as often as the "
            f"deck holds it; it deals {', '.join(wrong)}"
        )
    return [hands, discard, pile]


def checked_reshuffle(pile: Any, rest: list[int], key: str) -> list[int]:
    """A scripted reshuffle as kinds: the cards reshuffled from the discard (all but its top
    card), in any order, or a ``ValueError`` naming ``key`` and those cards."""
    kinds = _deal_kinds(pile, key)
    if counts_of(kinds) != counts_of(rest):
        cards = counts_of(rest)
        names = ", ".join(f"{KIND_NAMES[k]} x{c}" for k, c in enumerate(cards) if c)
        raise ValueError(
            f"{key} must be the {len(rest)} cards reshuffled from the discard (all but its top "
            f"card), next drawn first: {names}; got {show(pile)}"
        )
    return kinds


def completed_round(
    hands: list[list[int]], top_pile: list[int], discard: list[int], rng: np.random.Generator
) -> list[list[Any]]:
    """A hand-written round 1 as a ``deal`` outcome: the cards it leaves out shuffled under the
    given pile top (the last of them turned up when it gives no discard)."""
    used = counts_of([k for h in hands for k in h] + discard + top_pile)
    rest = [k for k in range(NUM_KINDS) for _ in range(COPIES[k] - used[k])]
    rest = [rest[i] for i in rng.permutation(len(rest))]
    if not discard:
        discard = [rest.pop()]
    return [[sorted(hand) for hand in hands], list(discard), top_pile + rest[::-1]]


def _deal_kinds(value: Any, key: str, length: int | None = None) -> list[int]:
    """A deal's list of cards (names or kinds) as kinds, or an error naming ``key``."""
    return parse_kinds(check_list(value, key, length, "cards (names or kinds)"), key)


def _check_copies(hands: list[list[int]], top_pile: list[int], discard: list[int]) -> None:
    """A hand-written round 1 uses no card more often than the deck holds it, and leaves a
    card to turn up if it gives no discard; else a ``ValueError`` naming the keys."""
    used = counts_of([k for h in hands for k in h] + discard + top_pile)
    for kind, (count, copies) in enumerate(zip(used, COPIES, strict=True)):
        if count > copies:
            raise ValueError(
                f"deal['hands'], ['discard'] and ['pile'] use {count} copies of "
                f"{KIND_NAMES[kind]} between them; the deck holds {copies}"
            )
    if not discard and sum(used) == DECK_SIZE:
        raise ValueError("deal['discard'] is needed: the deal leaves no card to turn up")
