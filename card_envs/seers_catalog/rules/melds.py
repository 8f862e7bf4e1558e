"""Melds: the legal-play generator, an independent detector, and meld keys.

A meld is played as a multiset of card *kinds* plus a *finish* that says how it counts:
``(MATCH, v)`` a Single (one card) or Matching Set of value ``v``; ``(RUN, t)`` a Suited Run
whose top card is ``t``; ``(ARTIFACT_SINGLE, 0)`` Go First or Crown played as a Single.
A meld's *key* ``(type, size, rank2)`` decides what beats it: the same type and size and a
strictly higher ``rank2 = 2 * value + half`` (Half Moon adds the half step).

Size counts suited cards, wilds, Echo and Stepping Stone; the modifiers Cauldron, Prism and
Half Moon join a meld without counting toward its size.

:func:`legal_plays` is the compiled kernel ``_melds.pyx`` when it is importable and
``CARD_ENVS_PURE_PYTHON=1`` is not set (read once, at import), else :func:`legal_plays_py`, the
reference it follows loop for loop: both list the same melds in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import combinations, pairwise

from card_envs.core.kernels import compiled
from card_envs.seers_catalog.rules.cards import (
    CAULDRON,
    CROWN,
    ECHO,
    GIFT,
    GO_FIRST,
    HALF_MOON,
    KIND,
    LENS,
    MAX_SUITS,
    MAX_VALUE,
    MIN_VALUE,
    NUM_VALUES,
    PRISM,
    ROD,
    STEPPING_STONE,
    WILD,
)

MATCH, RUN, ARTIFACT_SINGLE = 0, 1, 2
GO_FIRST_VALUE, CROWN_VALUE = 1, 15  # below every suited single; above 13 and a half
K_GO_FIRST, K_CROWN, K_ROD, K_GIFT = KIND[GO_FIRST], KIND[CROWN], KIND[ROD], KIND[GIFT]
K_CAULDRON, K_PRISM, K_HALF = KIND[CAULDRON], KIND[PRISM], KIND[HALF_MOON]
K_ECHO, K_STONE, K_LENS = KIND[ECHO], KIND[STEPPING_STONE], KIND[LENS]
MODIFIERS = frozenset((K_CAULDRON, K_PRISM, K_HALF))
NOT_IN_MELDS = frozenset((K_ROD, K_GIFT, K_LENS))
_ALONE = NOT_IN_MELDS | {K_GO_FIRST, K_CROWN}  # in no meld with another card (but Half Moon)
_LIFTS = frozenset((K_CAULDRON, K_HALF))  # all that may join a Single
_SET_KINDS = frozenset((WILD, K_ECHO, K_CAULDRON, K_HALF))  # beside suited cards
_RUN_KINDS = frozenset((WILD, K_STONE, K_PRISM, K_CAULDRON, K_HALF))
MIN_RUN = 2

Key = tuple[int, int, int]
Finish = tuple[int, int]
Plays = dict[tuple[int, ...], set[Finish]]


def meld_key(kinds: Sequence[int], finish: Finish) -> Key:
    """The key of a meld of ``kinds`` played with ``finish`` (assumed valid)."""
    half = K_HALF in kinds
    size = sum(k not in MODIFIERS for k in kinds)
    kind, value = finish
    if kind == ARTIFACT_SINGLE:
        value = GO_FIRST_VALUE if K_GO_FIRST in kinds else CROWN_VALUE
        kind = MATCH
    return (kind, size, 2 * value + half)


def beats(key: Key, top: Key | None) -> bool:
    """``key`` may be played on ``top`` (``None``: an empty table, anything leads)."""
    return top is None or (key[0] == top[0] and key[1] == top[1] and key[2] > top[2])


# -- the generator ------------------------------------------------------------------------------
def legal_plays_py(hand: Sequence[int], top: Key | None, focus: bool = False) -> Plays:
    """Every meld ``hand`` (kinds) may play on ``top`` (``None`` = leading), by sorted kinds.

    With ``focus``, when the hand's lowest kind is suited, only the melds that hold it (it is
    then their lowest kind): other suits, values and run windows far from it are skipped.
    """
    first = min(hand) if focus and hand and min(hand) < WILD else None
    gen = _Generator(hand, top, first)
    gen.artifact_singles()
    gen.matching()
    gen.runs()
    return gen.plays


def plays_from(hand: Sequence[int], first: int, top: Key | None) -> Plays:
    """At least the melds of ``legal_plays(hand, top)`` whose lowest kind is ``first``."""
    return legal_plays(joiners(hand, first), top, focus=True)


def joiners(hand: Sequence[int], first: int, top: Key | None = None) -> tuple[int, ...]:
    """The kinds of ``hand`` that can be in a meld beating ``top`` whose lowest kind is
    ``first``: far fewer than the hand (so many hands share them). A suited card sets with cards
    within one value (with the Cauldron) and runs in its suit (any suit with the Prism; without
    Prism or Cauldron, only as far up as the wilds and the Stone fill the gaps); Go First and
    Crown take only Half Moon; on a Single, a single card takes only the Cauldron and Half
    Moon."""
    if top is not None and top[1] == 1:
        return tuple([k for k in hand if k == first or k in _LIFTS])
    if first in (K_GO_FIRST, K_CROWN):
        return tuple([k for k in hand if k in (first, K_HALF)])
    rest = [k for k in hand if k >= first and k not in _ALONE]
    if first >= WILD or K_PRISM in rest:
        return tuple(rest)
    suit, value = divmod(first, NUM_VALUES)
    if K_CAULDRON in rest:
        return tuple(
            [
                k
                for k in rest
                if k >= WILD or k // NUM_VALUES == suit or abs(k % NUM_VALUES - value) <= 1
            ]
        )
    reach = value + rest.count(WILD) + (K_STONE in rest)  # the highest value its run covers
    for above in sorted(
        k % NUM_VALUES for k in rest if first < k < WILD and k // NUM_VALUES == suit
    ):
        if above > reach + 1:
            break
        reach += 1  # a card held next to it or in its way moves the reach one value up
    return tuple(
        [
            k
            for k in rest
            if k >= WILD
            or (k % NUM_VALUES == value if k // NUM_VALUES != suit else k % NUM_VALUES <= reach)
        ]
    )


def contenders(hand: Sequence[int], top: Key) -> tuple[int, ...]:
    """The kinds of ``hand`` that can be in a meld beating ``top``, a Set or Run of two or more
    cards (so many hands share their melds): no Go First or Crown (they go alone), no Prism or
    Stone in a Set, no Echo in a Run, and no card too low even with the Cauldron's lift."""
    kind, size, rank2 = top
    if size < 2:
        return tuple(hand)
    least = (rank2 - 1) // 2 + 1  # the least value (Set) or top card (Run) to beat it
    low, keep = (least - 1, _SET_KINDS) if kind == MATCH else (least - size, _RUN_KINDS)
    return tuple([k for k in hand if k in keep or (k < WILD and k % NUM_VALUES + MIN_VALUE >= low)])


class _Generator:
    """Enumerates melds per type, keeping those that beat the table."""

    def __init__(self, hand: Sequence[int], top: Key | None, first: int | None):
        self.top = top
        # ``first``: a suited kind every meld wanted must hold; it counts as a value in ``near``
        # (its own; with the Cauldron +-1), so a run is past it from the value ``past`` on
        self.first = first
        self.near = (MIN_VALUE, MAX_VALUE)
        self.past = MAX_VALUE + 2
        if first is not None:
            value = first % NUM_VALUES + MIN_VALUE
            lift = K_CAULDRON in hand
            self.near = (value - lift, value + lift)
            self.past = value + lift + 1
        self.wilds = hand.count(WILD)
        self.arts = {k for k in hand if k > WILD}
        self.suited = [k for k in hand if k < WILD]
        self.held = set(self.suited)
        self.by_value: dict[int, list[int]] = {}
        for k in self.suited:
            self.by_value.setdefault(k % NUM_VALUES + MIN_VALUE, []).append(k)
        self.halves = (0, 1) if K_HALF in self.arts else (0,)
        self.floor = -1 if top is None else top[2]  # the rank2 to beat
        self.plays: Plays = {}
        self._special: list[list[tuple[int, frozenset[int]]]] = []

    def _record(self, cards: list[int], finish: Finish, kind: int, size: int, value: int) -> None:
        first, top, plays = self.first, self.top, self.plays
        if first is not None and first not in cards:
            return
        if top is not None and (kind != top[0] or size != top[1]):
            return
        rank2, floor = 2 * value, self.floor
        if rank2 + self.halves[-1] <= floor:
            return
        cards = sorted(cards)
        for half in self.halves:
            if rank2 + half > floor:
                key = tuple(cards) if not half else tuple(sorted([*cards, K_HALF]))
                found = plays.get(key)
                if found is None:
                    plays[key] = {finish}
                else:
                    found.add(finish)

    def artifact_singles(self) -> None:
        if K_GO_FIRST in self.arts and self.top is None:
            self._record([K_GO_FIRST], (ARTIFACT_SINGLE, 0), MATCH, 1, GO_FIRST_VALUE)
        if K_CROWN in self.arts:
            self._record([K_CROWN], (ARTIFACT_SINGLE, 0), MATCH, 1, CROWN_VALUE)

    def _lowest(self, value: int) -> int:
        """The lowest value worth trying when ``value`` is the least a meld could have."""
        if self.top is None:
            return value
        return max(value, (self.top[2] - self.halves[-1]) // 2 + 1)

    def matching(self) -> None:
        if self.top is not None and self.top[0] != MATCH:
            return
        need = None if self.top is None else self.top[1]
        echoes = (0, 1) if K_ECHO in self.arts else (0,)
        cauldron, focus = K_CAULDRON in self.arts, self.first
        near_low, near_high = self.near
        for value in range(max(self._lowest(MIN_VALUE), near_low), min(MAX_VALUE, near_high) + 1):
            naturals = self.by_value.get(value, [])
            shifted: list[int | None] = [None]
            if cauldron:
                shifted += self.by_value.get(value - 1, []) + self.by_value.get(value + 1, [])
            most = len(naturals) + len(echoes) - 1 + (len(shifted) > 1) + self.wilds
            if most < (need or 1):
                continue  # too few cards for a set of this value
            for count in range(len(naturals) + 1 if need is None else min(need, len(naturals)) + 1):
                for subset in combinations(naturals, count):
                    for echo in echoes:
                        for extra in shifted:
                            if focus is not None and focus not in subset and extra != focus:
                                continue  # every meld wanted holds ``first`` (suited)
                            fixed = count + echo + (extra is not None)
                            if need is None:
                                wild_counts: Iterable[int] = range(self.wilds + 1)
                            elif 0 <= need - fixed <= self.wilds:
                                wild_counts = (need - fixed,)
                            else:
                                continue
                            for wilds in wild_counts:
                                size = fixed + wilds
                                if size == 0 or (echo and size < 2):
                                    continue
                                cards = [*subset, *[WILD] * wilds, *[K_ECHO] * echo]
                                if extra is not None:
                                    cards += [extra, K_CAULDRON]
                                self._record(cards, (MATCH, value), MATCH, size, value)

    def runs(self) -> None:
        if self.top is not None and self.top[0] != RUN:
            return
        lengths = range(MIN_RUN, NUM_VALUES + 1) if self.top is None else (self.top[1],)
        values = [0] * MAX_SUITS  # per suit, the values held as a bitmask
        for k in self.suited:
            values[k // NUM_VALUES] |= 1 << (k % NUM_VALUES + MIN_VALUE)
        present = [s for s in range(MAX_SUITS) if values[s]]
        spare = [s for s in range(MAX_SUITS) if not values[s]][:1]
        held = self.held
        arts = frozenset(self.arts & _RUN_ARTS)
        simple = not arts & {K_PRISM, K_CAULDRON}
        helpers = self.wilds + len(arts)
        suits = present + spare
        if self.first is not None:  # its suit, or with the Prism any suit above it
            own = self.first // NUM_VALUES
            suits = [t for t in present if t >= own] if K_PRISM in arts else [own]
        for suit in suits:
            mask = values[suit]
            total = mask.bit_count()
            base = suit * NUM_VALUES - MIN_VALUE
            ready = simple  # the slot table for Prism and Cauldron: built when first needed
            for length in lengths:
                if length > total + helpers:
                    break
                window = (1 << length) - 1
                first = max(self._lowest(MIN_VALUE + length - 1), self.near[0])
                for top in range(first, min(MAX_VALUE, self.near[1] + length - 1) + 1):
                    low = top - length + 1
                    if (mask >> low & window).bit_count() + helpers < length:
                        continue
                    if simple:
                        self._plain_runs(base, low, top)
                        continue
                    if not ready:
                        self._special, ready = self._specials(suit), True
                    self._fill(suit, low, top, low, [], held, 0, arts)

    def _plain_runs(self, base: int, low: int, top: int) -> None:
        """Runs without Prism or Cauldron: the held cards of the window, less any of them left
        to the fillers (wilds, the Stone), which then fill every gap."""
        held = [base + rank for rank in range(low, top + 1) if base + rank in self.held]
        length = top - low + 1
        spare = self.wilds + (K_STONE in self.arts) - (length - len(held))
        optional = held
        if self.first is not None:
            if self.first not in held:
                return
            optional = [c for c in held if c != self.first]
        for dropped in range(min(spare, len(optional)) + 1):
            for left in combinations(optional, dropped):
                cards = [c for c in held if c not in left] if left else held
                self._close_run(cards, length - len(cards), length, top, self.arts)

    def _specials(self, suit: int) -> list[list[tuple[int, frozenset[int]]]]:
        """For each rank, the cards that fill it in ``suit`` only with Prism and/or Cauldron
        (only those whose artifacts the hand holds: the others could never be placed)."""
        table: list[list[tuple[int, frozenset[int]]]] = [[] for _ in range(MAX_VALUE + 2)]
        prism, cauldron = K_PRISM in self.arts, K_CAULDRON in self.arts
        suited = self.suited
        if self.first is not None and self.first // NUM_VALUES != suit:
            # the first card needs the Prism here, so no other card of another suit fits
            suited = [k for k in suited if k == self.first or k // NUM_VALUES == suit]
        for card in suited:
            value, own = card % NUM_VALUES + MIN_VALUE, card // NUM_VALUES == suit
            if not own and prism:
                table[value].append((card, _PRISM))
            if cauldron and (own or prism):
                for rank in (value - 1, value + 1):
                    if MIN_VALUE <= rank <= MAX_VALUE:
                        table[rank].append((card, _CAULDRON if own else _BOTH))
        return table

    def _fill(
        self,
        suit: int,
        low: int,
        top: int,
        rank: int,
        cards: list[int],
        free: set[int],
        gaps: int,
        arts: frozenset[int],
    ) -> None:
        """Place cards in slots ``rank..top`` of a run in ``suit`` (a slot may stay a gap for
        the fillers: wilds are alike, so placing them slot by slot would repeat each meld)."""
        if rank > top:
            self._close_run(cards, gaps, top - low + 1, top, arts)
            return
        if rank == self.past and self.first not in cards:
            return
        nxt = rank + 1
        own = suit * NUM_VALUES + rank - MIN_VALUE
        if own in free:
            self._fill(suit, low, top, nxt, [*cards, own], free - {own}, gaps, arts)
        if gaps < self.wilds + (K_STONE in arts):
            self._fill(suit, low, top, nxt, cards, free, gaps + 1, arts)
        for card, needs in self._special[rank]:
            if card in free and needs <= arts:
                self._fill(
                    suit, low, top, nxt, [*cards, card, *needs], free - {card}, gaps, arts - needs
                )

    def _close_run(
        self, cards: list[int], gaps: int, length: int, top: int, arts: Iterable[int]
    ) -> None:
        """Record a run whose ``gaps`` are filled by wilds, or by wilds and the Stone."""
        if gaps <= self.wilds:
            self._finish_run([*cards, *[WILD] * gaps], length, top, arts)
        if gaps and K_STONE in arts and gaps <= self.wilds + 1:
            self._finish_run([*cards, *[WILD] * (gaps - 1), K_STONE], length, top, arts)

    def _finish_run(self, cards: list[int], length: int, top: int, arts: Iterable[int]) -> None:
        self._record(cards, (RUN, top), RUN, length, top)
        if K_PRISM in arts and any(k < WILD for k in cards):
            self._record([*cards, K_PRISM], (RUN, top), RUN, length, top)


_RUN_ARTS = frozenset((K_STONE, K_PRISM, K_CAULDRON))
_PRISM, _CAULDRON, _BOTH = frozenset((K_PRISM,)), frozenset((K_CAULDRON,)), _RUN_ARTS - {K_STONE}

legal_plays: Callable[..., Plays] = (
    compiled("card_envs.seers_catalog.rules._melds", "legal_plays") or legal_plays_py
)
COMPILED = legal_plays is not legal_plays_py


# -- the detector -------------------------------------------------------------------------------
def classify(kinds: Iterable[int]) -> set[Finish]:
    """Every finish under which ``kinds`` form a valid meld, the table aside.

    Written from the meld definitions, independently of :func:`legal_plays`: the two are tested
    against each other on random hands.
    """
    kinds = sorted(kinds)
    if not kinds or any(k in NOT_IN_MELDS for k in kinds):
        return set()
    if any(a == b and a != WILD for a, b in pairwise(kinds)):
        return set()
    core = [k for k in kinds if k != K_HALF]
    if K_GO_FIRST in core or K_CROWN in core:
        return {(ARTIFACT_SINGLE, 0)} if len(core) == 1 else set()
    return _as_matching(core) | _as_runs(core)


def _as_matching(core: list[int]) -> set[Finish]:
    if K_PRISM in core or K_STONE in core:
        return set()
    suited = [k for k in core if k < WILD]
    size = len(suited) + core.count(WILD) + (K_ECHO in core)
    cauldron = K_CAULDRON in core
    if size == 0 or (K_ECHO in core and size < 2) or (cauldron and not suited):
        return set()
    values = [k % NUM_VALUES + MIN_VALUE for k in suited]
    found = set()
    for value in range(MIN_VALUE, MAX_VALUE + 1):
        off = [v for v in values if v != value]
        if (not cauldron and not off) or (cauldron and len(off) == 1 and abs(off[0] - value) == 1):
            found.add((MATCH, value))
    return found


def _as_runs(core: list[int]) -> set[Finish]:
    if K_ECHO in core:
        return set()
    suited = [k for k in core if k < WILD]
    size = len(suited) + core.count(WILD) + (K_STONE in core)
    prism, cauldron = K_PRISM in core, K_CAULDRON in core
    if size < MIN_RUN or ((prism or cauldron) and not suited):
        return set()
    found = set()
    prism_targets = range(len(suited)) if prism else (None,)
    cauldron_moves = [(i, d) for i in range(len(suited)) for d in (-1, 1)] if cauldron else [None]
    for target in prism_targets:
        for move in cauldron_moves:
            cards = [[k % NUM_VALUES + MIN_VALUE, k // NUM_VALUES] for k in suited]
            if move is not None:
                cards[move[0]][0] += move[1]
            values = sorted(v for v, _ in cards)
            suits = {s for i, (_, s) in enumerate(cards) if i != target}
            if len(suits) > 1 or len(set(values)) < len(values):
                continue
            if values and (values[0] < MIN_VALUE or values[-1] > MAX_VALUE):
                continue
            for top in range(MIN_VALUE + size - 1, MAX_VALUE + 1):
                if not values or (values[0] >= top - size + 1 and values[-1] <= top):
                    found.add((RUN, top))
    return found


# -- completion search (the detector behind the mask checks) ------------------------------------
def completable(
    available: Sequence[int], prefix: Sequence[int], top: Key | None, leading: bool
) -> bool:
    """Whether ``prefix`` (kinds, ascending) extends with kinds from ``available`` (the rest of
    the hand) to a meld that :func:`classify` accepts and that beats ``top``.

    A depth-first search in ascending kind order, pruned only by :func:`_could_grow`, so it
    agrees with the generator by construction of the meld definitions, not by sharing code.
    """
    last = prefix[-1] if prefix else -1
    rest = sorted(k for k in available if k > last or (k == last == WILD))
    return _search(list(prefix), rest, top, leading)


def _search(chosen: list[int], rest: list[int], top: Key | None, leading: bool) -> bool:
    if chosen and any(valid_on_table(chosen, finish, top, leading) for finish in classify(chosen)):
        return True
    for i, kind in enumerate(rest):
        if i and kind == rest[i - 1]:
            continue  # equal wilds: trying the first is enough
        grown = [*chosen, kind]
        if _could_grow(grown, top) and _search(grown, rest[i + 1 :], top, leading):
            return True
    return False


def valid_on_table(kinds: Sequence[int], finish: Finish, top: Key | None, leading: bool) -> bool:
    """A classified meld may be played now: Go First only as a lead, and it must beat ``top``."""
    if K_GO_FIRST in kinds and not leading:
        return False
    return beats(meld_key(kinds, finish), top)


def _could_grow(kinds: list[int], top: Key | None) -> bool:
    """False only when no superset of ``kinds`` can be a meld (a sound pruning test)."""
    if any(k in NOT_IN_MELDS for k in kinds):
        return False
    size = sum(k not in MODIFIERS for k in kinds)
    if top is not None and size > top[1]:
        return False
    if K_GO_FIRST in kinds or K_CROWN in kinds:
        return size == 1
    suited = [k for k in kinds if k < WILD]
    values = [k % NUM_VALUES + MIN_VALUE for k in suited]
    as_set = K_PRISM not in kinds and K_STONE not in kinds and len(set(values)) <= 2
    as_set = as_set and (len(set(values)) < 2 or max(values) - min(values) == 1)
    suits = sorted(k // NUM_VALUES for k in suited)
    as_run = K_ECHO not in kinds and len(values) - len(set(values)) <= 1
    as_run = as_run and (len(set(suits)) <= 1 or (len(set(suits)) == 2 and _one_off(suits)))
    return as_set or as_run


def _one_off(suits: list[int]) -> bool:
    """Two suits, one of them held by a single card (the Prism's)."""
    first = suits.count(suits[0])
    return first == 1 or first == len(suits) - 1
