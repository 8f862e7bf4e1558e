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
from card_envs.sequitur.action_values import WordValues
from card_envs.sequitur.encoding import BALL_KINDS
from card_envs.sequitur.rules import SequiturGame
from card_envs.sequitur.rules.actions import CARD_BLOCKS
from card_envs.sequitur.rules.cards import MAX_RACK
from card_envs.sequitur.rules.rack import REARRANGING, rearrange
from card_envs.sequitur.rules.state import (
    BLANK_LETTER,
    CLAIM_GOAL,
    COLOUR,
    KEEP,
    PLACE,
    Q_MODE,
    SPELL_KEEP,
)

# The search agents' default budget (``Budget`` keywords), chosen by measurement
# (docs/agents.md, search agents): a decision in 0.3 s or less on average at the default player
# count on two cores.
SEARCH_BUDGET = {
    "iterations": 40,
    "horizon": "round",
    "rollout": "heuristic",
    "prior": 0.25,
    "gain": 0.5,
    "opponents": "heuristic",
}
# Self-play settings over the defaults: the network's update on 2,210 action ids would be the
# bottleneck, so a narrower network and one epoch a rollout (docs/training.md).
SELFPLAY = {"width": 32, "n_epochs": 1}

BREADTH_WEIGHT = 0.002  # per spellable word: keeps options open early in the round
MOVE_GAIN = 0.05  # a Sequitur card is played only for at least this much value

GOAL_PIECES = ("secret", "public", "face_down")  # the goals my word could earn
Plan = tuple[float, int, int, int]  # value, spelling key, blank letter, Q mode


class HeuristicAgent(Agent):
    name = "heuristic"
    reads_derived = False  # it weighs its racks itself, from the pieces version 0 has

    def __init__(self, info: EnvInfo, seed: int | None = None):
        super().__init__(info, seed)
        game = SequiturGame(info.num_players, **info.options)
        self.goals, self.actions = game.goals, game.actions
        self.words = WordValues.shared(game)
        self._plan: Plan | None = None
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

    def _best(self, rack: list[int], targets: list[int]) -> Plan:
        """The rack's value and the spelling that earns it: the first spelling of the highest
        value, plus a little for the number of them."""
        value, key, blank, q_mode, count = self.words.plan(rack, tuple(targets))
        return (value + BREADTH_WEIGHT * count, key, blank, q_mode)

    def _met_share(self, rack: list[int], goals: list[int]) -> float:
        """Share of ``goals`` that some word of the rack meets."""
        words = {word for *_, word, _ in self.words.words(rack)}
        met = sum(any(self.words.meets(w, g) for w in words) for g in goals)
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
        words = {word for *_, word, _ in self.words.words(rack)}

        def value(goal: int) -> float:
            met = any(self.words.meets(w, goal) for w in words)
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
        """The rack after a card move known in advance (None for pass, draws and the rest)."""
        block, k = self.actions.decode(action)
        card = CARD_BLOCKS.index(block) - 1 if block in CARD_BLOCKS else None
        if card is None or card not in REARRANGING:
            return None
        after = list(rack)
        rearrange(after, card, k)
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
