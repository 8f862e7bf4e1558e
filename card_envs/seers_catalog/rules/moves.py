"""Seers Catalog's legal moves as tables. A meld is built card by card (``add``, in ascending
kind order) and played as a finish, so the legal actions at each build step are read from the
legal melds of the hand and the table: worked out on first use and kept, by the kinds that
matter (many hands share them) and, for the meld in progress, by the hand's codes."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from card_envs.core.spec import ActionSpec
from card_envs.seers_catalog.rules.actions import ADD_INDEX, RUN_TOPS, finish_action
from card_envs.seers_catalog.rules.cards import (
    ARTIFACT_BASE,
    CAULDRON,
    CROWN,
    GO_FIRST,
    HALF_MOON,
    KIND,
    MAX_VALUE,
    MIN_VALUE,
    NUM_VALUES,
    WILD,
    WILD_BASE,
)
from card_envs.seers_catalog.rules.melds import (
    ARTIFACT_SINGLE,
    CROWN_VALUE,
    K_CROWN,
    MATCH,
    RUN,
    Key,
    contenders,
    joiners,
    legal_plays,
    plays_from,
)
from card_envs.seers_catalog.rules.state import SeersCatalogState

CACHE_LIMIT = 50_000
BUILDS_LIMIT = 1024  # builds in progress at once (one per env sharing this game) and then some


class StepIds:
    """The action ids of build steps, worked out once per game: ``add`` by kind and the play
    actions by finish."""

    def __init__(self, actions: ActionSpec):
        self.adds = {kind: actions.start["add"] + i for kind, i in ADD_INDEX.items()}
        self.finishes = {finish: actions.encode(*finish_action(finish)) for finish in ALL_FINISHES}


ALL_FINISHES = (
    *[(MATCH, value) for value in range(MIN_VALUE, MAX_VALUE + 1)],
    *[(RUN, top) for top in RUN_TOPS],
    (ARTIFACT_SINGLE, 0),
)


class Moves:
    """The legal build steps for one hand and table: the next actions after each prefix of
    kinds, and their mask, worked out on first use (most turns only ever ask for the first
    step)."""

    def __init__(self, plays: dict[tuple[int, ...], set], actions: ActionSpec, ids: StepIds):
        self.plays = plays
        self.actions = actions
        self.ids = ids
        self.steps: dict[tuple[int, ...], list[int]] = {}
        self.masks: dict[tuple[int, ...], bytes] = {}

    def after(self, prefix: tuple[int, ...]) -> list[int]:
        steps = self.steps.get(prefix)
        if steps is None:
            depth, adds, finishes_ids = len(prefix), self.ids.adds, self.ids.finishes
            found = set()
            for cards, finishes in self.plays.items():
                if len(cards) > depth:
                    if not depth or cards[:depth] == prefix:
                        found.add(adds[cards[depth]])
                elif cards == prefix:
                    found.update(map(finishes_ids.__getitem__, finishes))
            steps = self.steps[prefix] = sorted(found)
        return steps

    def mask_after(self, prefix: tuple[int, ...]) -> bytes:
        """:meth:`after` as mask bytes, kept: a build step's mask is then one copy."""
        mask = self.masks.get(prefix)
        if mask is None:
            buffer = bytearray(self.actions.size)
            for action in self.after(prefix):
                buffer[action] = 1
            mask = self.masks[prefix] = bytes(buffer)
        return mask


def start_kinds(hand: Sequence[int], top: Key | None) -> list[int] | None:
    """The kinds that can start (be the lowest kind of) a legal meld from ``hand`` (codes,
    ascending), when that is quick to know without enumerating: leading (every suited card, a
    wild, Go First and Crown lead alone; no meld has a modifier, Echo or Stone as its lowest
    kind) and following a Single (a card starts a winning single iff it beats the top, with
    Cauldron and Half Moon at best). ``None`` otherwise. Read from slices of the ascending codes
    (suited, wilds, artifacts): a suited code is its kind."""
    wilds = bisect_left(hand, WILD_BASE)
    artifacts = bisect_left(hand, ARTIFACT_BASE, wilds)
    wild, held = wilds < artifacts, hand[artifacts:]
    if top is None:
        found = list(hand[:wilds])
        found += [WILD] * wild + [KIND[c] for c in _LEAD_ARTIFACTS if c in held]
        return found
    if top[:2] != (MATCH, 1):
        return None
    least = (top[2] - (HALF_MOON in held)) // 2 + 1  # the least value that beats it
    if least > MAX_VALUE:
        return [K_CROWN] if CROWN in held and least <= CROWN_VALUE else []
    low = least - MIN_VALUE - (CAULDRON in held)  # the least value index (code % 12) that does
    found = [c for c in hand[:wilds] if c % NUM_VALUES >= low]
    found += [WILD] * wild + [K_CROWN] * (CROWN in held)
    return found


_LEAD_ARTIFACTS = (GO_FIRST, CROWN)  # ascending, as their kinds are


class MoveTables:
    """One game's build steps, kept as they are asked for (see the module docstring)."""

    def __init__(self, actions: ActionSpec):
        self.actions = actions
        self.step_ids = StepIds(actions)
        self._add_ids = self.step_ids.adds
        self._cache: dict[tuple, Moves] = {}
        self._building: dict[tuple, Moves] = {}  # by (hand codes, top, first kind): see built

    def moves(self, hand: tuple[int, ...], top: Key | None, first: int | None) -> Moves:
        """Legal build steps, cached by the kinds that matter (few, so many hands share them):
        following a Set or Run, those of every meld from the kinds that can beat it; else those
        of the melds whose lowest kind is ``first``, from the kinds that can join it."""
        key: tuple[tuple[int, ...], Key | None, int | None]
        if top is not None and top[1] > 1:
            key = (contenders(hand, top), top, None)
        else:
            assert first is not None  # start_kinds leaves it None only after a Set or Run of 2+
            key = (joiners(hand, first, top), top, first)
        moves = self._cache.get(key)
        if moves is None:
            if len(self._cache) > CACHE_LIMIT:
                self._cache.clear()
            kinds, _, lowest = key
            plays = legal_plays(kinds, top) if lowest is None else plays_from(kinds, lowest, top)
            moves = self._cache[key] = Moves(plays, self.actions, self.step_ids)
        return moves

    def first_steps(self, hand: list[int], top: Key | None) -> list[int]:
        """The ``add`` actions that can start a meld: from the codes when that is quick to
        know (see :func:`start_kinds`), else from the legal melds."""
        kinds = start_kinds(hand, top)
        if kinds is None:
            return self.moves(tuple(map(KIND.__getitem__, hand)), top, None).after(())
        return list(map(self._add_ids.__getitem__, kinds))

    def built(self, state: SeersCatalogState, top: Key | None) -> Moves:
        """The build steps of the meld in progress, looked up by the hand's codes: they stay
        the same for the whole build, so each step after the first skips the kinds and key."""
        hand = state.hands[state.turn]
        first = KIND[state.pending[0]]
        key = (tuple(hand), top, first)
        moves = self._building.get(key)
        if moves is None:
            if len(self._building) > BUILDS_LIMIT:
                self._building.clear()
            kinds = tuple(map(KIND.__getitem__, hand))
            moves = self._building[key] = self.moves(kinds, top, first)
        return moves
