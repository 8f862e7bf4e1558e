"""The Sequitur cards on a rack: which plays fit, why one does not, and what each does."""

from __future__ import annotations

from typing import TypeVar

import numpy as np

from card_envs.sequitur.rules import events
from card_envs.sequitur.rules.actions import CARD_BLOCKS, INSIDE_SPOTS
from card_envs.sequitur.rules.cards import (
    CARDS,
    EXCHANGE,
    EXTEND,
    LEFT,
    MAX_RACK,
    MOVE_INSIDE,
    MOVE_OUTSIDE,
    RIGHT,
    SWAP,
)
from card_envs.sequitur.rules.state import PLACE, SequiturState

T = TypeVar("T")
REARRANGING = (MOVE_INSIDE, MOVE_OUTSIDE, SWAP)  # the cards that only reorder the rack


def card_actions(state: SequiturState, start: dict[str, int]) -> list[int]:
    """Pass, and every placement of each unused Sequitur card that fits the rack (``start``:
    each block's first id)."""
    used, n = state.used[state.actor], len(state.racks[state.actor])
    out = [start["pass"]]
    if not used[MOVE_INSIDE]:
        out += [
            start["move_inside"] + end * INSIDE_SPOTS + p - 1
            for end in (LEFT, RIGHT)
            for p in range(1, n - 1)
        ]
    if not used[MOVE_OUTSIDE]:
        out += [
            start["move_outside"] + (i - 1) * 2 + end for i in range(1, n - 1) for end in (0, 1)
        ]
    if not used[SWAP]:
        out += [start["swap"] + i for i in range(n - 1)]
    if not used[EXCHANGE]:
        out += [start["exchange"] + i for i in range(n)]
    if not used[EXTEND] and n < MAX_RACK and state.bag:
        out.append(start["extend"])
    return out


def card_violation(state: SequiturState, block: str, k: int) -> str | None:
    """Why a Sequitur card play does not fit (``k`` indexes the card's block)."""
    if block == "pass":
        return None
    card = CARD_BLOCKS.index(block) - 1
    if state.used[state.actor][card]:
        return f"{CARDS[card]} was already played this round"
    n = len(state.racks[state.actor])
    if card == MOVE_INSIDE:
        position = k % INSIDE_SPOTS + 1
        return None if position <= n - 2 else f"inside positions are 1..{n - 2}"
    if card == MOVE_OUTSIDE:
        slot = k // 2 + 1
        return None if slot <= n - 2 else f"inside balls are at slots 1..{n - 2}"
    if card == SWAP:
        return None if k + 1 < n else f"neighbouring pairs start at slots 0..{n - 2}"
    if card == EXCHANGE:
        return None if k < n else f"the rack has slots 0..{n - 1}"
    if n >= MAX_RACK:
        return f"the rack already holds {MAX_RACK} balls"
    return None if state.bag else "the bag is empty"


def play_card(state: SequiturState, block: str, k: int, rng: np.random.Generator) -> bool:
    """Resolve a Sequitur card on the actor's rack (or a pass); ``False`` when the actor must
    still place the ball Extend drew, ``True`` when the turn is done."""
    if block == "pass":
        return True
    card = CARD_BLOCKS.index(block) - 1
    rack, bag = state.racks[state.actor], state.bag
    depth = _exchange_depth(state, rng) if card == EXCHANGE else 0
    state.used[state.actor][card] = True
    if card in REARRANGING:
        rearrange(rack, card, k)
    elif card == EXCHANGE:
        bag.insert(len(bag) - depth, rack[k])
        rack[k] = bag.pop()
    else:
        state.ball = bag.pop()
        state.decision = PLACE
        return False
    return True


def rearrange(rack: list[T], card: int, k: int) -> None:
    """Move Inside, Move Outside or Swap ``k`` (its block's index) on ``rack``, in place: the
    cards whose outcome is known before they are played (any list of balls or letters)."""
    if card == MOVE_INSIDE:
        end, position = divmod(k, INSIDE_SPOTS)
        ball = rack.pop(0 if end == LEFT else -1)
        rack.insert(position + 1, ball)
    elif card == MOVE_OUTSIDE:
        slot, end = divmod(k, 2)
        ball = rack.pop(slot + 1)
        rack.insert(0 if end == LEFT else len(rack), ball)
    else:
        rack[k], rack[k + 1] = rack[k + 1], rack[k]


def _exchange_depth(state: SequiturState, rng: np.random.Generator) -> int:
    """How deep Exchange puts its ball back into the bag, 0 on top (the ball is drawn straight
    back): the chance event ``exchange``, unless the deal scripts it."""
    size = len(state.bag)
    index = len(state.chance.log.get(events.EXCHANGE, []))
    return state.chance.take(
        rng,
        events.EXCHANGE,
        lambda rng: size - int(rng.integers(size + 1)),
        lambda given: events.check_depth(given, index, size),
    )


def place_ball(rack: list[int], ball: int, end: int) -> None:
    """Put ``ball`` on the ``end`` (``LEFT`` or ``RIGHT``) of ``rack``."""
    if end == LEFT:
        rack.insert(0, ball)
    else:
        rack.append(ball)
