"""A Catastrophic Card Game heuristic that reads only its own observation.

It plans toward its owed sets with a cheap coverage measure (how many of the owed cards the hand
could already fill, colour by colour), takes the discard only when it raises that measure, lays
a set as soon as it can (keeping wilds), and discards the card whose loss costs the least,
preferring to fire Mr. Poe and Burning House at the player closest to going out. It keeps one
Lemony Snicket (a free last discard and a shield), cancels Poe and Burning House with it, and
steals Victory cards from a leader.

``OutsAgent`` (kind ``"heuristic_outs"``) plays the same but breaks coverage ties by counting
outs, the unseen cards that would raise coverage if drawn next: the advisor of the shipped
trained agent (docs/agents.md).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from card_envs.agents.base import Agent
from card_envs.core.env import EnvInfo
from card_envs.unfortunate_events.rules.actions import action_spec
from card_envs.unfortunate_events.rules.cards import (
    BEATRICE,
    BURN,
    COPIES,
    EYE,
    NUM_COLOURS,
    NUM_KINDS,
    PER_COLOUR,
    POE,
    SET_SIZES,
    SETS,
    SNICKET,
    WILD_BASE,
    colour_of,
)
from card_envs.unfortunate_events.rules.game import MAJORITY
from card_envs.unfortunate_events.rules.state import (
    BURN_SET,
    DISCARD,
    DRAW,
    MAIN,
    REACT,
    TARGET,
    VICTORY,
)

HAND_SIZE, OWED3, OWED4, VICTORIES = 0, 1, 2, 3  # columns of the "seats" piece
SETS_LAID = 8
# Cards of each 3-set type, rows in the order of the "laid3" piece's columns.
SET3_CARDS = np.array(
    [[s.cards.count(k) for k in range(NUM_KINDS)] for s in SETS if s.size == 3], np.float32
)

# Stronger heuristics beside HeuristicAgent, by kind; ``supports(info)`` says where they play.
STRONGER_HEURISTICS = {"heuristic_outs": "card_envs.agents.unfortunate_events:OutsAgent"}
# The search agents' default budget (``Budget`` keywords), chosen by measurement
# (docs/agents.md, search agents): a decision in 0.3 s or less on average at the default player
# count on two cores.
SEARCH_BUDGET = {
    "iterations": 100,
    "horizon": "round",
    "rollout": "heuristic",
    "prior": 0.5,
    "gain": 0.5,
    "lean": "heuristic_outs",
    "opponents": "heuristic",
}
# How eagerly each kind is discarded when losing it costs no coverage (higher goes first).
DISCARD_PRIORITY = {POE: 6.0, BURN: 5.0, EYE: 4.0, SNICKET: -1.0, BEATRICE: -3.0}
WILD_PRIORITY = -2.0
# How many outs one card is worth giving up to keep it from a player known to collect its colour.
FEED_PENALTY = 4.0
# Hands whose coverage and raising kinds are remembered (a game meets a few hundred).
CACHE_SIZE = 1 << 14
# The counts of ``action_feature_map`` as a network reads them: "at least 1" .. "at least 4"
# (a 4-set needs four cards; a hand holds at most seven of a kind, rarely more than four).
ACTION_FEATURE_LEVELS = 4


def _use(naturals: list[int], size: int) -> list[int]:
    """The naturals (one colour's three counts) that best fill a set of ``size``."""
    best = max(range(PER_COLOUR), key=lambda i: naturals[i])
    group = [0] * PER_COLOUR
    group[best] = min(size, naturals[best])
    if size == 3:
        other = [min(1, n) for n in naturals]
    else:
        top = sorted(range(PER_COLOUR), key=lambda i: -naturals[i])[:2]
        other = [min(2, naturals[i]) if i in top else 0 for i in range(PER_COLOUR)]
    return other if sum(other) > sum(group) else group


def laid_cards(views: dict[str, np.ndarray]) -> np.ndarray:
    """Cards by kind in every set on the table (3-sets by type, 4-sets by card)."""
    return views["laid3"].sum(axis=0) @ SET3_CARDS + views["laid4"].sum(axis=0)


def coverage(hand: list[int], needs: list[int]) -> int:
    """How many of the owed cards ``hand`` fills, set by set (greedy, both need orders). It
    reads only the characters, colour wilds and whether Beatrice is held."""
    codes = tuple(_CANONICAL[code] for code in _colour_codes(hand))
    return _covered(codes, hand[BEATRICE] > 0, tuple(sorted(needs)))


# A colour's part of a hand as one int, ((c0 * 16 + c1) * 16 + c2) * 8 + wilds: room for every
# count the deck allows plus the card a draw would add.
_CHARACTER_ROOM, _WILD_ROOM = 16, 8
# What one more card of each kind 0..EYE-1 (characters, colour wilds) adds to its colour's code.
_CODE_STEP = tuple(
    _WILD_ROOM * _CHARACTER_ROOM ** (PER_COLOUR - 1 - kind % PER_COLOUR) if kind < WILD_BASE else 1
    for kind in range(EYE)
)


def _colour_codes(hand: list[int]) -> tuple[int, ...]:
    """The four colours' codes of a hand."""
    return tuple(
        ((hand[c] * _CHARACTER_ROOM + hand[c + 1]) * _CHARACTER_ROOM + hand[c + 2]) * _WILD_ROOM
        + hand[WILD_BASE + colour]
        for colour, c in enumerate(range(0, WILD_BASE, PER_COLOUR))
    )


def _decoded(code: int) -> tuple[int, int, int, int]:
    """A colour code's three character counts and its wilds."""
    rest, wilds = divmod(code, _WILD_ROOM)
    rest, c2 = divmod(rest, _CHARACTER_ROOM)
    c0, c1 = divmod(rest, _CHARACTER_ROOM)
    return c0, c1, c2, wilds


class _Canonical(dict[int, int]):
    """A colour code with its character counts in descending order. Which of a colour's
    characters a hand holds does not change its coverage (sets are three alike, three
    different, four alike or two pairs: only the counts matter, and so do the counts left after
    a set), so hands that differ only by that share one remembered entry."""

    def __missing__(self, code: int) -> int:
        *counts, wilds = _decoded(code)
        c0, c1, c2 = sorted(counts, reverse=True)
        self[code] = ((c0 * _CHARACTER_ROOM + c1) * _CHARACTER_ROOM + c2) * _WILD_ROOM + wilds
        return self[code]


_CANONICAL = _Canonical()


class _Steps(dict[int, tuple[int, int]]):
    """One greedy step for a set of ``size`` by colour code: (the cards of that colour it
    covers, the colour's code after they are used), worked out on first use."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def __missing__(self, code: int) -> tuple[int, int]:
        c0, c1, c2, wilds = _decoded(code)
        used = _use([c0, c1, c2], self.size)
        cover = min(self.size, sum(used) + wilds) if any(used) else 0
        spent = sum(step * n for step, n in zip(_CODE_STEP[:PER_COLOUR], used, strict=True))
        self[code] = cover, code - spent - max(0, cover - sum(used))
        return self[code]


_STEPS = {size: _Steps(size) for size in SET_SIZES}


@lru_cache(maxsize=CACHE_SIZE)
def _covered(codes: tuple[int, ...], beatrice: bool, needs: tuple[int, ...]) -> int:
    """:func:`coverage` of the hand with these canonical colour codes and Beatrice or not,
    ``needs`` ascending. Each order of the needs takes, set by set, the first colour that covers
    most, and Beatrice adds one to an order that leaves a set short but not empty."""
    if not needs:
        return 0
    best = 0
    for order in (needs[::-1], needs) if needs[0] != needs[-1] else (needs,):
        left, total, short = list(codes), 0, 0
        for size in order:
            steps = _STEPS[size]
            pick, (cover, after) = 0, steps[left[0]]
            for colour in range(1, NUM_COLOURS):
                step = steps[left[colour]]
                if step[0] > cover:
                    pick, (cover, after) = colour, step
            left[pick] = after
            total += cover
            short = max(short, size - cover)
        if beatrice and 0 < short < needs[-1]:
            total += 1
        best = max(best, total)
    return best


class HeuristicAgent(Agent):
    name = "heuristic"

    def __init__(self, info: EnvInfo, seed: int | None = None):
        super().__init__(info, seed)
        self.n = info.num_players
        self.start = action_spec(self.n).start

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        if len(legal) == 1:
            return legal[0]
        views = self.views(observation)
        phase = int(np.argmax(views["phase"]))
        hand = [int(c) for c in views["hand"]]
        seats = views["seats"]
        needs = [3] * int(seats[0, OWED3]) + [4] * int(seats[0, OWED4])
        if phase == DRAW:
            return self._draw(views, hand, needs, legal)
        if phase == TARGET:
            return self._target(views, legal)
        if phase == BURN_SET:
            return max(legal, key=lambda a: SETS[a - self.start["burn"]].size)
        if phase == REACT:
            attack = int(np.argmax(views["pending"]))
            cancel = self.start["react"]
            return cancel if cancel in legal and attack != 0 else cancel + 1
        if phase == VICTORY:
            return self._victory(views, legal)
        lays = [a for a in legal if a < self.start["discard"]]
        if lays:
            return self._lay(views, hand, needs, lays)
        return self._discard(views, hand, needs, legal)

    def _draw(self, views, hand: list[int], needs: list[int], legal: list[int]) -> int:
        top = int(np.argmax(views["discard_top"]))
        take = self.start["draw"] + 1
        if take in legal:
            after = list(hand)
            after[top] += 1
            if coverage(after, needs) > coverage(hand, needs):
                return take
        return self.start["draw"]

    def _lay(self, views, hand: list[int], needs: list[int], lays: list[int]) -> int:
        def value(action: int) -> tuple[float, ...]:
            kind = SETS[action - self.start["lay"]]
            rest = list(hand)
            for card in kind.cards:
                rest[card] -= 1
            left = list(needs)
            left.remove(kind.size)
            return *self._rest_value(views, rest, left), -(kind.wilds + kind.beatrice)

        return max(lays, key=value)

    def _rest_value(self, views, rest: list[int], left: list[int]) -> tuple[float, ...]:
        """How good the hand left after a lay is for the sets still owed (higher is better)."""
        return (coverage(rest, left) if left else 0,)

    def _discard(self, views, hand: list[int], needs: list[int], legal: list[int]) -> int:
        base = self.start["discard"]
        priority = self._discard_priority(views, hand)

        def value(action: int) -> tuple[int, float]:
            rest = list(hand)
            rest[action - base] -= 1
            return coverage(rest, needs), priority(action - base)

        return max((a for a in legal if a >= base), key=value)

    def _discard_priority(self, views, hand: list[int]):
        """How eagerly each kind goes when losing it costs no coverage (higher goes first)."""
        gone = views["discard"] + laid_cards(views)
        burnable = views["seats"][1:, SETS_LAID].any()

        def priority(kind: int) -> float:
            if kind >= EYE:
                if kind == SNICKET and hand[SNICKET] > 1:
                    return 1.5
                return DISCARD_PRIORITY[kind] if kind != BURN or burnable else 1.0
            if kind >= WILD_BASE:
                return WILD_PRIORITY
            colour = colour_of(kind)
            first = colour * PER_COLOUR
            mates = sum(hand[first : first + PER_COLOUR]) + hand[WILD_BASE + colour]
            return 3.0 - hand[kind] - 0.5 * mates + float(gone[kind]) / 7

        return priority

    def _target(self, views, legal: list[int]) -> int:
        """The opponent closest to going out (fewest cards owed), then most Victory cards."""
        seats = views["seats"]

        def threat(action: int) -> tuple[float, float, float]:
            r = action - self.start["target"] + 1
            return (
                -float(seats[r, HAND_SIZE]),
                float(seats[r, VICTORIES]),
                -float(views["known"][r, SNICKET]),
            )

        return max(legal, key=threat)

    def _victory(self, views, legal: list[int]) -> int:
        """Steal from the richest opponent when they lead me or threaten a majority; else take
        from the centre, which brings the end nearer."""
        seats = views["seats"]
        base = self.start["victory"]
        steals = [a for a in legal if a > base]
        if steals:
            richest = max(steals, key=lambda a: seats[a - base, VICTORIES])
            theirs, mine = float(seats[richest - base, VICTORIES]), float(seats[0, VICTORIES])
            if theirs > mine + 1 or theirs >= MAJORITY - 1:
                return richest
        return base if base in legal else legal[0]


def unseen(views: dict[str, np.ndarray]) -> np.ndarray:
    """Cards by kind this seat cannot place: the box minus its hand, the discard, the sets on
    the table and what it knows or saw of the other hands (an estimate of the pile's make-up)."""
    others = np.maximum(views["known"][1:], views["seen"][1:]).sum(axis=0)
    placed = views["hand"] + views["discard"] + laid_cards(views) + others
    return np.maximum(np.asarray(COPIES) - placed, 0)


def outs(hand: list[int], needs: list[int], pool: np.ndarray) -> float:
    """How many of the ``pool`` cards would raise ``hand``'s coverage if drawn next."""
    raising = _raising(_colour_codes(hand), hand[BEATRICE] > 0, tuple(sorted(needs)))
    return sum((float(pool[kind]) for kind in raising if pool[kind] > 0), 0.0)


@lru_cache(maxsize=CACHE_SIZE)
def _raising(codes: tuple[int, ...], beatrice: bool, needs: tuple[int, ...]) -> tuple[int, ...]:
    """The kinds whose draw would raise the coverage of the hand with these colour codes (of
    those that can: characters, colour wilds, Beatrice; ascending): what :func:`outs` counts,
    whatever the pool."""
    canonical = [_CANONICAL[code] for code in codes]
    base = _covered(tuple(canonical), beatrice, needs)
    raising = []
    for kind in range(EYE):
        more, colour = list(canonical), colour_of(kind)
        more[colour] = _CANONICAL[codes[colour] + _CODE_STEP[kind]]
        if _covered(tuple(more), beatrice, needs) > base:
            raising.append(kind)
    if _covered(tuple(canonical), True, needs) > base:
        raising.append(BEATRICE)
    return tuple(raising)


class OutsAgent(HeuristicAgent):
    """The heuristic with a card counter's tie-break, as mahjong players count tiles: among
    discards (and sets to lay) that keep the same coverage, keep the hand with the most unseen
    cards that would improve it, and do not feed the next player a colour it is known to take.
    Draws, attacks, reactions and Victory choices are the heuristic's."""

    name = "heuristic_outs"

    def _discard(self, views, hand: list[int], needs: list[int], legal: list[int]) -> int:
        base = self.start["discard"]
        pool = unseen(views)
        priority = self._discard_priority(views, hand)
        collecting = views["known"][1]  # the next player takes the discard's top first

        def feeds(kind: int) -> float:
            if kind >= EYE:
                return 0.0  # a special cannot be taken from the discard
            colour = colour_of(kind)
            first = colour * PER_COLOUR
            characters = collecting[first : first + PER_COLOUR].sum()
            return float(characters + collecting[WILD_BASE + colour])

        def value(action: int) -> tuple[int, float, float]:
            kind = action - base
            rest = list(hand)
            rest[kind] -= 1
            return (
                coverage(rest, needs),
                outs(rest, needs, pool) - FEED_PENALTY * feeds(kind),
                priority(kind),
            )

        return max((a for a in legal if a >= base), key=value)

    def _rest_value(self, views, rest: list[int], left: list[int]) -> tuple[float, ...]:
        if not left:
            return 0, 0.0
        return coverage(rest, left), outs(rest, left, unseen(views))


def action_feature_map(info: EnvInfo) -> np.ndarray:
    """What a draw or a discard leaves, as a linear map of the observation
    (``ActionFeaturePolicy``): per action, the hand's kind counts after it and the 3-sets and
    4-sets still owed; the other actions get none. ``(actions, NUM_KINDS + 2, observation)``.

    A discard takes a fixed card away, which is not linear in the observation; it is the phase's
    one-hot times that card, exact in the phases where a discard is legal (the features of an
    illegal action are never read). Lays are left to the network's own logits: their 256 ids
    would make the scorer the bulk of a decision's cost, and a turn seldom offers two."""
    offsets, start = info.obs_spec.offsets, action_spec(info.num_players).start
    hand, phase, top = offsets["hand"], offsets["phase"], offsets["discard_top"]
    owed3, owed4 = offsets["seats"] + OWED3, offsets["seats"] + OWED4  # row 0: my seat
    out = np.zeros((info.num_actions, NUM_KINDS + 2, info.obs_spec.size), np.float32)
    scored = [start["draw"], start["draw"] + 1]
    scored += [start["discard"] + kind for kind in range(NUM_KINDS)]
    for action in scored:
        for kind in range(NUM_KINDS):
            out[action, kind, hand + kind] = 1
        out[action, NUM_KINDS, owed3] = 1
        out[action, NUM_KINDS + 1, owed4] = 1
    for kind in range(NUM_KINDS):
        out[start["draw"] + 1, kind, top + kind] = 1  # taking the discard adds its top card
        for discarding in (MAIN, DISCARD):  # discarded in the main phase or after laying
            out[start["discard"] + kind, kind, phase + discarding] -= 1
    return out
