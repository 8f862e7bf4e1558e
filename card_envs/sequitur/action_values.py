"""What each legal action is worth to the seat that takes it: ``sequitur_v1``'s
``action_values`` piece, and the word arithmetic the heuristic weighs racks with.

An action's value is that of the best word the seat's rack could spell once the action is done,
for the goals the seat would then be playing for (its secret goal, its face-down public goal and
the face-up public goals): the goal points the word meets plus a tenth of its word score (the
word score orders the claims). Where the action's outcome is left to chance (a goal deck's
colour, Exchange, Extend) its value is the rack's as it stands; a claim is worth its goal's
points. A network cannot work out from the rack's letters which of 2,048 spellings is a word,
nor what it earns: this is those facts, one number per action id.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

import numpy as np

from card_envs.sequitur.rules import SequiturGame, SequiturState
from card_envs.sequitur.rules.actions import CARD_BLOCKS
from card_envs.sequitur.rules.cards import BALL_LETTER
from card_envs.sequitur.rules.rack import REARRANGING, rearrange
from card_envs.sequitur.rules.spelling import CODE_POINTS, Spelled, spelled_words
from card_envs.sequitur.rules.state import (
    BLANK_LETTER,
    CARD,
    CLAIM_GOAL,
    EMPTY,
    KEEP,
    OVER,
    PLACE,
    Q_MODE,
    SPELL_KEEP,
)

SCORE_WEIGHT = 0.1  # a word-score point is worth a tenth of a goal point (claim order)
CACHE_LIMIT = 20_000  # cached racks before the cache is cleared
EARNED_LIMIT = 500_000  # cached (goal set, word) points before they are all cleared

Plan = tuple[float, int, int, int, int]  # see WordValues.plan


class WordValues:
    """The words a rack spells and the goal points a word earns, cached: racks and words repeat
    across the decisions of a round. :meth:`shared` gives the one instance of a process for a
    dictionary and goal deck."""

    def __init__(self, game: SequiturGame):
        self.goals, self.dictionary = game.goals, game.dictionary
        # The goals a word meets, as bit sets over the goal deck (bit g: goal g): ``_judged``
        # those decided, ``_met`` those met. Only dictionary words are weighed, so they stay
        # within the dictionary's size and are never cleared (clearing them when a fixed count
        # was reached made training decide the same goals again and again).
        self._judged: dict[str, int] = {}
        self._met: dict[str, int] = {}
        self._spelled: dict[tuple[int, ...], list[Spelled]] = {}
        # The goal points a word earns, by the goals it is weighed for (they change a few times
        # a round; the words of the racks weighed under them overlap).
        self._earned: dict[tuple[int, ...], dict[str, int]] = {}
        self._earned_count = 0
        self._plans: dict[tuple[tuple[int, ...], tuple[int, ...]], Plan] = {}

    @classmethod
    def shared(cls, game: SequiturGame) -> WordValues:
        """The process's instance for ``game``'s dictionary and goal deck: ``sequitur_v1``'s
        observation and the heuristics at its tables weigh the same racks (a heuristic's move
        is weighed again by the next observation), so they share the caches; the values are
        pure functions of the rack and goals, so sharing changes no value."""
        key = (id(game.dictionary), tuple(map(repr, game.goals)))
        entry = _SHARED.get(key)
        if entry is None:  # the dictionary is kept with it, so its id is not reused
            entry = _SHARED[key] = (game.dictionary, cls(game))
        return entry[1]

    def words(self, letters: Iterable[int]) -> list[Spelled]:
        """(key, blank, Q mode, word, word score) of every word a rack of letter codes spells,
        in the order of ``find_spellings``."""
        letters = tuple(letters)
        spelled = self._spelled.get(letters)
        if spelled is None:
            if len(self._spelled) > CACHE_LIMIT:
                self._spelled.clear()
            spelled = self._spelled[letters] = spelled_words(letters, self.dictionary)
        return spelled

    def meets(self, word: str, goal: int) -> bool:
        bit = 1 << goal
        if self._judged.get(word, 0) & bit:
            return bool(self._met[word] & bit)
        return self._judge(word, goal)

    def _judge(self, word: str, goal: int) -> bool:
        """Whether ``word`` meets ``goal``, decided and cached."""
        met = self.goals[goal].met_by(word, self.dictionary)
        bit = 1 << goal
        self._judged[word] = self._judged.get(word, 0) | bit
        self._met[word] = self._met.get(word, 0) | (bit if met else 0)
        return met

    def earned_by(self, targets: tuple[int, ...]) -> dict[str, int]:
        """The cache of the goal points words earn of ``targets`` (fill it with :meth:`earned`)."""
        earned_by = self._earned.get(targets)
        if earned_by is None:
            if self._earned_count > EARNED_LIMIT:
                self._earned.clear()
                self._earned_count = 0
            earned_by = self._earned[targets] = {}
        return earned_by

    def earned(self, word: str, targets: tuple[int, ...], earned_by: dict[str, int]) -> int:
        """The goal points ``word`` would earn of ``targets`` (``earned_by``: their cache)."""
        earned = earned_by.get(word)
        if earned is None:
            self._earned_count += 1
            earned = earned_by[word] = sum(
                self.goals[goal].points for goal in targets if self.meets(word, goal)
            )
        return earned

    def best(self, letters: Iterable[int], targets: tuple[int, ...]) -> float:
        """The value of a rack's best word for ``targets`` (0 when it spells none)."""
        return max(self.plan(letters, targets)[0], 0.0)

    def plan(self, letters: Iterable[int], targets: tuple[int, ...]) -> Plan:
        """(value, spelling key, blank letter, Q mode, words) of the first of a rack's most
        valuable words for ``targets``, and how many words it spells; (-1, -1, -1, -1, 0) for
        none. Cached: a rack is weighed by the observation and again by the heuristic."""
        letters = tuple(letters)
        plan = self._plans.get((letters, targets))
        if plan is None:
            if len(self._plans) > CACHE_LIMIT:
                self._plans.clear()
            plan = self._plans[letters, targets] = self._plan(letters, targets)
        return plan

    def _plan(self, letters: tuple[int, ...], targets: tuple[int, ...]) -> Plan:
        """:meth:`plan` uncached: by the compiled search where it is built (a third of
        ``sequitur_v1``'s training time was this loop in Python), else over :meth:`words`."""
        earned_by = self.earned_by(targets)
        tree = self.dictionary.tree
        if tree is not None:
            earn = partial(self.earned, targets=targets, earned_by=earned_by)
            return tree.best(letters, CODE_POINTS, earned_by, earn, SCORE_WEIGHT)
        spelled = self.words(letters)
        best = (-1.0, -1, -1, -1)
        for key, blank, q_mode, word, score in spelled:
            value = SCORE_WEIGHT * score + self.earned(word, targets, earned_by)
            if value > best[0]:
                best = (value, key, blank, q_mode)
        return (*best, len(spelled))


_SHARED: dict[tuple[int, tuple[str, ...]], tuple[object, WordValues]] = {}


class ActionValues:
    """Writes the ``action_values`` piece: for the seat to act, each legal action's value (the
    module's docstring); zeros for every other seat and every other id."""

    def __init__(self, game: SequiturGame):
        self.game, self.actions = game, game.actions
        self.words = WordValues.shared(game)

    def write(self, state: SequiturState, seat: int, out: np.ndarray) -> None:
        """Fill ``out`` (the piece, zeroed) with ``seat``'s action values."""
        if state.actor != seat or state.phase == OVER:
            return
        decision, targets = state.decision, self.targets(state, seat)
        letters = [BALL_LETTER[ball] for ball in state.racks[seat]]
        encode = self.actions.encode
        if decision in (SPELL_KEEP, BLANK_LETTER, Q_MODE):
            self._spelling(state, letters, targets, out)
        elif decision == CLAIM_GOAL:
            for action in self.game.legal_actions(state):
                block, goal = self.actions.decode(action)
                if block == "claim":
                    out[action] = self.game.goals[goal].points
        elif decision == PLACE:
            ball = BALL_LETTER[state.ball]
            out[encode("place", 0)] = self.words.best([ball, *letters], targets)
            out[encode("place", 1)] = self.words.best([*letters, ball], targets)
        else:
            now = self.words.best(letters, targets)
            for action in self.game.legal_actions(state):
                out[action] = self._after(decision, action, letters, targets, state, now)

    def targets(self, state: SequiturState, seat: int) -> tuple[int, ...]:
        """The goals ``seat``'s word could earn: secret, own face-down public, face-up public."""
        own = [g for g in (state.secret[seat], state.kept[seat]) if g != EMPTY]
        return tuple(sorted({*own, *state.public}))

    def _after(
        self,
        decision: int,
        action: int,
        letters: list[int],
        targets: tuple[int, ...],
        state: SequiturState,
        now: float,
    ) -> float:
        """The value after a goal-card or Sequitur-card action (``now``: the rack's value)."""
        block, k = self.actions.decode(action)
        if decision == KEEP and block == "keep":
            return self.words.best(letters, tuple(sorted({*targets, state.drawn[k]})))
        if decision == CARD and block in CARD_BLOCKS:
            card = CARD_BLOCKS.index(block) - 1
            if card in REARRANGING:
                after = list(letters)
                rearrange(after, card, k)
                return self.words.best(after, targets)
        return now

    def _spelling(
        self, state: SequiturState, letters: list[int], targets: tuple[int, ...], out: np.ndarray
    ) -> None:
        """Each spelling, blank letter or Q mode: its best word (given the choices made)."""
        decision, encode = state.decision, self.actions.encode
        earned_by = self.words.earned_by(targets)
        for key, blank, q_mode, word, score in self.words.words(letters):
            if decision == SPELL_KEEP:
                action = encode("spell", key)
            elif key != state.spell_key:
                continue
            elif decision == BLANK_LETTER:
                action = encode("blank", blank)
            elif blank != state.blank:
                continue
            else:
                action = encode("q_mode", q_mode)
            value = SCORE_WEIGHT * score + self.words.earned(word, targets, earned_by)
            out[action] = max(out[action], value)
