"""A Sequitur heuristic that reads only its own observation (plus the public dictionary and cards).

It values a rack by its best word: the goal points that word would earn (secret goal, face-up
public goals, its own face-down goal) plus a little for the word score (claim priority) and for
the number of words the rack can spell (room to improve). Placements and Sequitur cards take the
rack with the best value (Extend when no move helps: an extra ball never hurts); goal cards are
kept when a word of the rack already meets them; the spelling is the best word; claims take the
most points first (never passing: a claim only gains points).
"""

from __future__ import annotations

import numpy as np

from card_envs.agents.base import Agent
from card_envs.core.env import EnvInfo
from card_envs.sequitur.encoding import BALL_KINDS
from card_envs.sequitur.rules import SequiturGame
from card_envs.sequitur.rules.actions import INSIDE_SPOTS
from card_envs.sequitur.rules.cards import MAX_RACK
from card_envs.sequitur.rules.spelling import Spelled, spelled_words
from card_envs.sequitur.rules.state import (
    BLANK_LETTER,
    CLAIM_GOAL,
    COLOUR,
    KEEP,
    PLACE,
    Q_MODE,
    SPELL_KEEP,
)

SCORE_WEIGHT = 0.1  # a word-score point is worth a tenth of a goal point (claim order)
BREADTH_WEIGHT = 0.002  # per spellable word: keeps options open early in the round
MOVE_GAIN = 0.05  # a Sequitur card is played only for at least this much value
CACHE_LIMIT = 20_000  # cached racks (and rack-and-goals plans) before a cache is cleared
MET_LIMIT = 200_000  # cached (word, goal) answers before they are all cleared
GOAL_SETS = 64  # sets of goals with the points of words cached before those are cleared

GOAL_PIECES = ("secret", "public", "face_down")  # the goals my word could earn
Plan = tuple[float, int, int, int]  # value, spelling key, blank letter, Q mode


class HeuristicAgent(Agent):
    name = "heuristic"

    def __init__(self, info: EnvInfo, seed: int | None = None):
        super().__init__(info, seed)
        game = SequiturGame(info.num_players, **info.options)
        self.goals, self.dictionary = game.goals, game.dictionary
        self.actions = game.actions
        # Whether a word meets a goal, one dict per goal (word -> bool): looked up for every
        # word of every rack weighed, so without building a (word, goal) key each time.
        self._met: list[dict[str, bool]] = [{} for _ in self.goals]
        self._met_count = 0
        self._plan: Plan | None = None
        # Racks repeat across decisions (a card move is weighed again as the next rack), so the
        # words of a rack and the plan of a rack for some goals are cached.
        self._spelled: dict[tuple[int, ...], list[Spelled]] = {}
        self._plans: dict[tuple[tuple[int, ...], tuple[int, ...]], Plan] = {}
        # The goal points a word earns, by the goals it is weighed for (they change a few times
        # a round; the words of the racks weighed under them overlap).
        self._earned: dict[tuple[int, ...], dict[str, int]] = {}
        at = info.obs_spec.offsets
        self._decision = slice(at["decision"], at["round"])
        self._rack = slice(at["racks"], at["racks"] + MAX_RACK * BALL_KINDS)
        self._ball = slice(at["ball"], at["drawn"])
        self._drawn = slice(at["drawn"], at["drawn"] + len(self.goals))
        self._goals = [slice(at[piece], at[piece] + len(self.goals)) for piece in GOAL_PIECES]

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """Read the few pieces every decision needs from the flat vector (named views of all
        of it only for the decisions that need more)."""
        # numpy's nonzero is about 10x faster on booleans than on the int8 mask (2210 values)
        legal = np.flatnonzero(observation["action_mask"] != 0).tolist()
        vector = observation["observation"]
        decision = int(np.argmax(vector[self._decision]))
        rack = [i % BALL_KINDS for i in vector[self._rack].nonzero()[0].tolist()]  # one-hot slots
        targets = sorted({g for piece in self._goals for g in vector[piece].nonzero()[0].tolist()})
        if decision == COLOUR:
            return self._colour(self.views(observation), rack, legal)
        if decision == KEEP:
            return self._keep(vector[self._drawn].nonzero()[0].tolist(), rack, legal)
        if decision == PLACE:
            ball = int(np.argmax(vector[self._ball]))
            racks = [[ball, *rack], [*rack, ball]]
            left, right = (self._best(r, targets)[0] for r in racks)
            return self.actions.encode("place", int(right > left))  # the first of equals
        if decision == SPELL_KEEP:
            return self._spell(rack, targets, legal)
        if decision in (BLANK_LETTER, Q_MODE):
            return self._sub_choice(decision, legal)
        if decision == CLAIM_GOAL:
            views = self.views(observation)
            claims = [a for a in legal if self.actions.decode(a)[0] == "claim"]
            return max(claims, key=lambda a: self._claim_value(views, self.actions.decode(a)[1]))
        return self._card(rack, targets, legal)

    # -- values -------------------------------------------------------------------------------

    def _meets(self, word: str, goal: int) -> bool:
        met = self._met[goal].get(word)
        return self._judge(word, goal) if met is None else met

    def _judge(self, word: str, goal: int) -> bool:
        """Whether ``word`` meets ``goal``, decided and cached (the caches cleared when full)."""
        self._met_count += 1
        if self._met_count > MET_LIMIT:
            self._met_count = 1
            for cache in self._met:
                cache.clear()
        met = self._met[goal][word] = self.goals[goal].met_by(word, self.dictionary)
        return met

    def _words(self, rack: list[int]) -> list[Spelled]:
        """(key, blank, Q mode, word, word score) of every word the rack spells, in the order
        of ``find_spellings`` (cached by rack)."""
        letters = tuple(rack)
        spelled = self._spelled.get(letters)
        if spelled is None:
            if len(self._spelled) > CACHE_LIMIT:
                self._spelled.clear()
            spelled = self._spelled[letters] = spelled_words(letters, self.dictionary)
        return spelled

    def _best(self, rack: list[int], targets: list[int]) -> Plan:
        """The rack's value and the spelling that earns it (cached by rack and goals)."""
        cache_key = (tuple(rack), tuple(targets))
        plan = self._plans.get(cache_key)
        if plan is None:
            if len(self._plans) > CACHE_LIMIT:
                self._plans.clear()
            plan = self._plans[cache_key] = self._best_of(self._words(rack), targets)
        return plan

    def _best_of(self, spelled: list[Spelled], targets: list[int]) -> Plan:
        """The first spelling of the highest value, plus a little for the number of them."""
        best: Plan = (-1.0, -1, -1, -1)
        earned_by = self._earned.get(tuple(targets))
        if earned_by is None or len(earned_by) > MET_LIMIT:
            if len(self._earned) > GOAL_SETS:
                self._earned.clear()
            earned_by = self._earned[tuple(targets)] = {}
        for key, blank, q_mode, word, score in spelled:
            earned = earned_by.get(word)
            if earned is None:
                earned = earned_by[word] = self._points_earned(word, targets)
            value = SCORE_WEIGHT * score + earned
            if value > best[0]:
                best = (value, key, blank, q_mode)
        return (best[0] + BREADTH_WEIGHT * len(spelled), *best[1:])

    def _points_earned(self, word: str, targets: list[int]) -> int:
        """The goal points ``word`` would earn of ``targets``."""
        earned = 0
        for goal in targets:
            if self._meets(word, goal):
                earned += self.goals[goal].points
        return earned

    def _met_share(self, rack: list[int], goals: list[int]) -> float:
        """Share of ``goals`` that some word of the rack meets."""
        words = {word for *_, word, _ in self._words(rack)}
        met = sum(any(self._meets(w, g) for w in words) for g in goals)
        return met / max(len(goals), 1)

    # -- decisions ----------------------------------------------------------------------------
    def _colour(self, views, rack: list[int], legal: list[int]) -> int:
        """The deck whose unseen cards my rack is most likely to meet, by points."""
        seen = views["public"] + views["open_discards"] + views["my_discards"]
        seen = seen + views["stacks"].sum(axis=0)

        def expected(colour: int) -> float:
            unseen = [g.id for g in self.goals if g.colour_index == colour and not seen[g.id]]
            points = self.goals[unseen[0]].points if unseen else 0
            return points * (self._met_share(rack, unseen) + 0.1)

        return max(legal, key=lambda a: expected(self.actions.decode(a)[1]))

    def _keep(self, drawn: list[int], rack: list[int], legal: list[int]) -> int:
        """Keep a drawn goal a word of my rack meets (in solo: the better of two)."""
        words = {word for *_, word, _ in self._words(rack)}

        def value(goal: int) -> float:
            met = any(self._meets(w, goal) for w in words)
            return self.goals[goal].points * (1.0 if met else 0.25)

        keeps = [a for a in legal if a != self.actions.encode("discard")]
        best = max(keeps, key=lambda a: value(drawn[self.actions.decode(a)[1]]))
        if self.actions.encode("discard") in legal and value(drawn[0]) < 1.0:
            return self.actions.encode("discard")
        return best

    def _card(self, rack: list[int], targets: list[int], legal: list[int]) -> int:
        """The Sequitur card move that most improves the rack; else Extend; else pass."""
        now = self._best(rack, targets)[0]
        best_value, best_action = now + MOVE_GAIN, self.actions.encode("pass")
        for action in legal:
            after = self._moved(rack, action)
            if after is not None:
                value = self._best(after, targets)[0]
                if value > best_value:
                    best_value, best_action = value, action
        if best_action == self.actions.encode("pass") and self.actions.encode("extend") in legal:
            return self.actions.encode("extend")
        return best_action

    def _moved(self, rack: list[int], action: int) -> list[int] | None:
        """The rack after a deterministic card move (None for pass, draws and the rest)."""
        block, k = self.actions.decode(action)
        after = list(rack)
        if block == "move_inside":
            end, position = divmod(k, INSIDE_SPOTS)
            ball = after.pop(0 if end == 0 else -1)
            after.insert(position + 1, ball)
        elif block == "move_outside":
            slot, end = divmod(k, 2)
            ball = after.pop(slot + 1)
            after.insert(0 if end == 0 else len(after), ball)
        elif block == "swap":
            after[k], after[k + 1] = after[k + 1], after[k]
        else:
            return None
        return after if len(after) <= MAX_RACK else None

    def _spell(self, rack: list[int], targets: list[int], legal: list[int]) -> int:
        if legal == [self.actions.encode("spell_nothing")]:
            return legal[0]
        self._plan = self._best(rack, targets)
        return self.actions.encode("spell", self._plan[1])

    def _sub_choice(self, decision: int, legal: list[int]) -> int:
        """The blank letter or Q mode of the planned spelling."""
        plan = self._plan or (0.0, -1, -1, -1)
        if decision == Q_MODE:
            choice = self.actions.encode("q_mode", plan[3])
        else:
            choice = self.actions.encode("blank", plan[2])
        return choice if choice in legal else legal[0]

    def _claim_value(self, views, goal: int) -> float:
        """Points first; among equals, a goal another player could take next."""
        contested = views["meets"][1:, goal].any() if len(views["meets"]) > 1 else False
        return self.goals[goal].points + 0.5 * contested
