"""A Seers Catalog heuristic: shed as many cheap cards as possible, keep high cards and wilds
for later, dump unusable artifacts early, and never take cards back with the Rod by choice.

It reads only its own observation (``self.views``): its hand, the meld it is building and the
meld to beat; it enumerates its own legal melds with the rules' generator.
"""

from __future__ import annotations

import numpy as np

from card_envs.agents.base import Agent
from card_envs.core.env import EnvInfo
from card_envs.seers_catalog.rules.actions import ADD_INDEX, action_spec, finish_action
from card_envs.seers_catalog.rules.cards import BONUS_LIMIT, NUM_SUITED, NUM_VALUES, WILD
from card_envs.seers_catalog.rules.melds import (
    K_CROWN,
    RUN,
    Finish,
    Key,
    Plays,
    legal_plays,
    meld_key,
)

# The search agents' default budget (``Budget`` keywords), chosen by measurement
# (docs/agents.md, search agents): a decision in 0.3 s or less on average at the default player
# count on two cores.
SEARCH_BUDGET = {
    "iterations": 128,
    "horizon": "round",
    "depth": 30,
    "rollout": "heuristic",
    "prior": 0.5,
    "gain": 0.5,
    "opponents": "heuristic",
}
# How card-envs evaluate (and arena --luck) measures this game's luck, chosen by measurement
# (docs/evaluation.md): the shipped value network, with alternatives drawn at each random step.
EVALUATION = {"value": "network", "samples": 8}


Meld = tuple[int, ...]
# the last hand and table, their plays, a prefix asked for and the best play that starts with it
LastPlays = tuple[tuple[Meld, Key | None], Plays, Meld, Meld | None]

HIGH_CARD_COST = 0.7  # a 13 is worth keeping this much; lower values proportionally less
WILD_COST = 0.8
CROWN_COST = 0.9
ARTIFACT_COST = -0.2  # artifacts other than Crown are worth shedding
FOLLOW_THRESHOLD = 0.3  # follow only when a play sheds at least this much net value


def card_cost(kind: int) -> float:
    """How much holding on to a card is worth: high values and wilds win tricks later."""
    if kind < NUM_SUITED:
        return (kind % NUM_VALUES) / (NUM_VALUES - 1) * HIGH_CARD_COST
    if kind == WILD:
        return WILD_COST
    if kind == K_CROWN:
        return CROWN_COST
    return ARTIFACT_COST


def play_value(cards: tuple[int, ...]) -> float:
    """Cards shed, less what they were worth keeping."""
    return len(cards) - sum(card_cost(k) for k in cards)


_RANKS: dict[tuple[int, ...], tuple[float, tuple[int, ...]]] = {}
RANK_CACHE_LIMIT = 1 << 18


def _rank(cards: tuple[int, ...]) -> tuple[float, tuple[int, ...]]:
    """How the heuristic orders melds (the most net value shed, ties to the higher cards),
    remembered: a search's playouts rank the same melds of large hands again and again."""
    rank = _RANKS.get(cards)
    if rank is None:
        if len(_RANKS) >= RANK_CACHE_LIMIT:
            _RANKS.clear()
        rank = _RANKS[cards] = (play_value(cards), cards)
    return rank


class HeuristicAgent(Agent):
    """Greedy shedding seer (see the module docstring)."""

    name = "heuristic"

    def __init__(self, info: EnvInfo, seed: int | None = None):
        super().__init__(info, seed)
        self.actions = action_spec(info.num_players)
        self._plays: LastPlays | None = None

    def _best_meld(
        self, hand: list[int], top: Key | None, prefix: Meld
    ) -> tuple[Plays, Meld | None]:
        """The legal plays and the best of those that start with ``prefix`` (None: none do).

        Kept for the last hand and table: the plays, and the best meld among those that start
        with the prefix it was asked for. A meld is built over several decisions with the same
        hand, each prefix extending the last by a card of that best meld, which stays the best
        for it; so listing and ranking the plays (thousands in a large hand) is done once a
        meld."""
        key = (tuple(hand), top)
        if self._plays is not None and self._plays[0] == key:
            _, plays, asked, best = self._plays
            if prefix[: len(asked)] == asked and (best is None or best[: len(prefix)] == prefix):
                return plays, best
        else:
            plays = legal_plays(hand, top)
        started = [c for c in plays if c[: len(prefix)] == prefix] if prefix else plays
        best = max(started, key=_rank) if started else None
        self._plays = (key, plays, prefix, best)
        return plays, best

    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = observation["action_mask"]
        legal = np.flatnonzero(mask)
        views = self.views(observation)
        choice = self._choose(views, mask)
        if choice is None or not mask[choice]:
            return int(legal[0])
        return int(choice)

    def _choose(self, views: dict[str, np.ndarray], mask: np.ndarray) -> int | None:
        lens_start = self.actions.start["lens"]
        lens = [a for a in np.flatnonzero(mask) if a >= lens_start]
        building = kinds_of(views["building"])
        if lens and not building:
            return int(lens[0])  # a free card to shed
        hand = kinds_of(views["hand"])
        top = top_key(views)
        prefix = tuple(building)
        plays, cards = self._best_meld(hand, top, prefix)
        if cards is None:
            return self._no_meld(views, mask)
        if prefix == cards:
            finish = max(plays[cards], key=lambda f: _strength(cards, f))
            return self.actions.encode(*finish_action(finish))
        if not building and top is not None and mask[self.actions.encode("pass")]:
            small = len(hand) <= BONUS_LIMIT + 2
            if play_value(cards) < FOLLOW_THRESHOLD and not small:
                return self._no_meld(views, mask)
        return self.actions.encode("add", ADD_INDEX[cards[len(building)]])

    def _no_meld(self, views: dict[str, np.ndarray], mask: np.ndarray) -> int | None:
        """No meld worth playing: Gift the lead to the seer with most cards, else pass, else
        (forced in the Bonus) the Rod."""
        gift, lens = self.actions.start["gift"], self.actions.start["lens"]
        gifts = [a for a in np.flatnonzero(mask) if gift <= a < lens]
        if gifts:
            sizes = views["hand_sizes"]
            return int(max(gifts, key=lambda a: sizes[a - gift + 1]))
        pass_, rod = self.actions.encode("pass"), self.actions.encode("rod")
        if mask[pass_]:
            return pass_
        return rod if mask[rod] else None


def kinds_of(counts: np.ndarray) -> list[int]:
    """Sorted kinds from a count vector."""
    kinds = []
    for kind in np.flatnonzero(counts):
        kinds += [int(kind)] * int(counts[kind])
    return kinds


def top_key(views: dict[str, np.ndarray]) -> Key | None:
    size = int(views["top_size"][0])
    if size == 0:
        return None
    return (int(views["top_type"][1] == 1) * RUN, size, round(float(views["top_rank"][0]) * 2))


def _strength(cards: tuple[int, ...], finish: Finish) -> int:
    return meld_key(cards, finish)[2]
