"""A Seals heuristic that reads only its own observation.

Take: the colour or symbol whose cards bring the hand closest to valuable series (the blasons
it could show at once, plus four of a kind, four coins and a straight under way, each weighted
by how near it is). Reveal: show the set of series
worth the most blasons, unless waiting is better: cashing in the last round without
overtaking the leader would end the game lost, and a small series is worth holding early in a
round when a bigger one is one card away.
"""

from __future__ import annotations

import numpy as np

from card_envs.agents.base import Agent
from card_envs.core.env import EnvInfo
from card_envs.seals.rules.actions import ACTIONS
from card_envs.seals.rules.cards import COIN, NUM_COLOURS, NUM_SYMBOLS, NUM_VALUES
from card_envs.seals.rules.game import TARGET_BLASONS
from card_envs.seals.rules.series import (
    BLASONS,
    MAJOR_VALUES,
    MINOR_VALUES,
    OF_A_KIND,
    SERIES_SIZE,
    best_reveal,
)
from card_envs.seals.rules.state import ROUND_COUNTER

# Stronger heuristics beside HeuristicAgent, by kind; ``supports(info)`` says where they play.
STRONGER_HEURISTICS = {"heuristic_value": "card_envs.agents.seals_value:ValueHeuristicAgent"}
# The search agents' default budget (``Budget`` keywords), chosen by measurement
# (docs/agents.md, search agents): a decision in 0.3 s or less on average at the default player
# count on two cores.
SEARCH_BUDGET = {
    "iterations": 120,
    "horizon": "round",
    "rollout": "heuristic",
    "prior": 0.5,
    "gain": 0.5,
    "lean": "heuristic_value",
    "opponents": "heuristic",
}
# The counts of ``action_feature_map`` as a network reads them: "at least 1" .. "at least 6"
# (a series is four of a kind; a take can bring a symbol past it).
ACTION_FEATURE_LEVELS = 6
# How card-envs evaluate (and arena --luck) measures this game's luck, chosen by measurement
# (docs/evaluation.md): the shipped value network, with alternatives drawn at each random step.
EVALUATION = {"value": "network", "samples": 8}


# How much a partial series is worth, by cards held out of the 4 needed (0..4).
KIND_PROGRESS = (0.0, 0.06, 0.2, 0.5, 1.0)
STRAIGHT_PROGRESS = 0.3  # weight of the straight's (distinct values / 10) ** 3
CASH_WEIGHT = 1.5  # a series in hand is worth more than the same blasons still to collect
EARLY_PILE = 30  # with this many cards still face down, a 1-blason series may wait


class HeuristicAgent(Agent):
    name = "heuristic"

    def __init__(self, info: EnvInfo, seed: int | None = None):
        super().__init__(info, seed)
        self.reading = info.options.get("minor_major_series", OF_A_KIND)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        views = self.views(observation)
        mask = observation["action_mask"]
        if views["revealing"][0]:
            return self._reveal(views, mask)
        return self._take(views, mask)

    def action_values(self, observation: dict[str, np.ndarray]) -> np.ndarray | None:
        """Each legal take's value (:meth:`_take_values`); reveals are rated none."""
        views = self.views(observation)
        if views["revealing"][0]:
            return None
        legal = np.flatnonzero(observation["action_mask"])
        values = np.full(self.info.num_actions, np.nan, np.float32)
        values[legal] = self._take_values(views, legal)
        return values

    # -- taking -------------------------------------------------------------------------------
    def _take(self, views: dict[str, np.ndarray], mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        values = self._take_values(views, legal) + 0.01 * self.rng.random(len(legal))
        return int(legal[int(np.argmax(values))])

    def _take_values(self, views: dict[str, np.ndarray], legal: np.ndarray) -> np.ndarray:
        """How good a hand each legal take leaves (see :meth:`_hand_value`)."""
        hand = _symbols(views["hand"])
        row = [[int(count) for count in colour] for colour in views["row"].tolist()]
        values = []
        for action in legal:
            after = [h + t for h, t in zip(hand, taken_symbols(row, int(action)), strict=True)]
            values.append(self._hand_value(after))
        return np.array(values)

    def _hand_value(self, symbols: list[int]) -> float:
        """Blasons the hand can show now (weighted up) plus partial progress to more."""
        cash = sum(BLASONS[s] for s in best_reveal(symbols, self.reading))
        return CASH_WEIGHT * cash + self._progress(symbols)

    def _progress(self, symbols: list[int]) -> float:
        """Blasons of the series still under way, each weighted by how near it is."""
        value = 0.0
        if symbols[COIN] < SERIES_SIZE:
            value += 3 * KIND_PROGRESS[symbols[COIN]]
        distinct = sum(symbols[v] > 0 for v in range(NUM_VALUES))
        if distinct < NUM_VALUES:
            value += 4 * STRAIGHT_PROGRESS * (distinct / NUM_VALUES) ** 3
        if self.reading == OF_A_KIND:
            for v in range(NUM_VALUES):
                if symbols[v] < SERIES_SIZE:
                    value += BLASONS[v] * KIND_PROGRESS[symbols[v]]
        else:
            for values, worth in ((MINOR_VALUES, 1), (MAJOR_VALUES, 2)):
                value += worth * KIND_PROGRESS[sum(symbols[v] for v in values) % SERIES_SIZE]
        return value

    # -- revealing ----------------------------------------------------------------------------
    def _reveal(self, views: dict[str, np.ndarray], mask: np.ndarray) -> int:
        symbols = _symbols(views["hand"])
        plan = best_reveal(symbols, self.reading)
        shown = [int(x) for x in views["shown"]]
        for series in plan:
            if shown[series]:
                shown[series] -= 1
            elif mask[ACTIONS.encode("reveal", series)]:
                if any(views["shown"]) or self._cash(views, symbols, plan):
                    return ACTIONS.encode("reveal", series)
                break
        return ACTIONS.encode("stop")

    def _cash(self, views: dict[str, np.ndarray], symbols: list[int], plan: list[int]) -> bool:
        """Whether to win the round now with ``plan`` rather than wait for more."""
        gain = sum(BLASONS[s] for s in plan)
        mine, leader = views["blasons"][0] + gain, max(views["blasons"][1:])
        if mine >= TARGET_BLASONS or views["round"][ROUND_COUNTER:].any():
            return True  # the game is won (a tie round is won by any reveal)
        if views["round_counter"][0] == 1:  # the last round: cash only to lead or tie
            return mine >= leader
        if gain == 1 and views["pile_size"][0] >= EARLY_PILE and leader < TARGET_BLASONS - 1:
            return not self._upgrade_near(symbols)
        return True

    def _upgrade_near(self, symbols: list[int]) -> bool:
        """One card from a series worth 2 or more."""
        if symbols[COIN] == SERIES_SIZE - 1:
            return True
        if sum(symbols[v] > 0 for v in range(NUM_VALUES)) == NUM_VALUES - 1:
            return True
        return any(symbols[v] == SERIES_SIZE - 1 for v in MAJOR_VALUES)


def action_feature_map(info: EnvInfo) -> np.ndarray:
    """What a take leaves, as a linear map of the observation (``ActionFeaturePolicy``): per take
    action, the hand's symbol counts after it, the row's symbol and colour counts it leaves and
    the cards it lifts; reveals and stop get none. ``(actions, 28, observation)``."""
    hand, row = (info.obs_spec.offsets[name] for name in ("hand", "row"))
    features = 2 * NUM_SYMBOLS + NUM_COLOURS + 1
    out = np.zeros((info.num_actions, features, info.obs_spec.size), np.float32)
    for action in range(ACTIONS.start["reveal"]):  # the takes: colours, then symbols
        lifted = taken_cards(np.ones((NUM_COLOURS, NUM_SYMBOLS)), action) > 0
        for colour, symbol in np.ndindex(NUM_COLOURS, NUM_SYMBOLS):
            cell = colour * NUM_SYMBOLS + symbol  # the grids are stored colour by colour
            out[action, symbol, hand + cell] = 1
            if lifted[colour, symbol]:
                out[action, symbol, row + cell] = 1
                out[action, features - 1, row + cell] = 1
            else:
                out[action, NUM_SYMBOLS + symbol, row + cell] = 1
                out[action, 2 * NUM_SYMBOLS + colour, row + cell] = 1
    return out


def taken_symbols(row: list[list[int]], action: int) -> list[int]:
    """The symbol counts a take action lifts from the face-up row (colour x symbol counts), in
    plain Python: a handful of small lists costs less than numpy's per-call overhead."""
    block, index = ACTIONS.decode(action)
    if block == "take_colour":
        return row[index]
    taken = [0] * NUM_SYMBOLS
    taken[index] = sum(colour[index] for colour in row)
    return taken


def taken_cards(row: np.ndarray, action: int) -> np.ndarray:
    """The (colour x symbol) counts a take action lifts from the face-up row."""
    taken = np.zeros_like(row)
    block, index = ACTIONS.decode(action)
    if block == "take_colour":
        taken[index] = row[index]
    else:
        taken[:, index] = row[:, index]
    return taken


def _symbols(grid: np.ndarray) -> list[int]:
    """Count per symbol (values 1-10, coin) of a (colour x symbol) grid of counts."""
    assert grid.shape == (NUM_COLOURS, NUM_SYMBOLS)
    return [int(x) for x in grid.sum(axis=0)]
