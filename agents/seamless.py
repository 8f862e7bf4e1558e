"""A Seamless heuristic that reads only its own observation.

Play: win a trick cheaply when the win is safe (last to play, or holding the best card still
out), otherwise keep strength by dumping the weakest legal card. Claim: take the card that adds
the most to this round's row score, preferring ranks that sit next to owned ones.
"""

from __future__ import annotations

import numpy as np

from card_envs.agents.base import Agent
from card_envs.core.cards import DECK_SIZE, NUM_RANKS
from card_envs.core.env import EnvInfo
from card_envs.seamless.rules import ACTIONS, score_row
from card_envs.seamless.rules.cards import EMPTY

# The search agents' default budget (``Budget`` keywords), chosen by measurement
# (docs/agents.md, search agents): a decision in 0.3 s or less on average at the default player
# count on two cores.
SEARCH_BUDGET = {"iterations": 100, "horizon": "round", "rollout": "heuristic"}
# Self-play settings over the defaults: the fastest engine, so a narrower network keeps the
# update from being the bottleneck (docs/training.md).
SELFPLAY = {"width": 32}
# How card-envs evaluate (and arena --luck) measures this game's luck, chosen by measurement
# (docs/evaluation.md): the shipped value network, with alternatives drawn at each random step.
EVALUATION = {"value": "network", "samples": 8}
# The counts of ``action_feature_map`` as a network reads them: "at least 1" .. "at least 4"
# (a suit's length past four, or cards above past four, seldom changes a play).
ACTION_FEATURE_LEVELS = 4
# action_feature_map's features of a play, in order
PLAY_FEATURES = (
    "trump",  # the card is a trump
    "higher_out",  # cards of its suit above it that are neither played nor mine
    "lower_out",  # the same below it
    "higher_played",  # cards of its suit above it played this round
    "mine",  # my cards of its suit, itself included
    "mine_higher",  # my cards of its suit above it
    "trick_higher",  # cards of its suit above it in the trick
    "trick_lower",  # the same below it
    "trick_size",  # cards in the trick: my place in it
)


def _strength(card: int, trump: int, lead_suit: int) -> int:
    """Trick-taking power: trumps above the led suit above everything else."""
    suit, rank = divmod(card, NUM_RANKS)
    if suit == trump:
        return 2 * NUM_RANKS + rank
    if suit == lead_suit:
        return NUM_RANKS + rank
    return rank - NUM_RANKS


def _row_value(row: list[int]) -> float:
    """Points of a row plus a small bonus for owned neighbours (future runs)."""
    adjacency = sum(row[r] != EMPTY and row[r + 1] != EMPTY for r in range(NUM_RANKS - 1))
    return score_row(row).points + 0.1 * adjacency


class HeuristicAgent(Agent):
    name = "heuristic"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        views = self.views(observation)
        if ACTIONS.decode(int(legal[0]))[0] == "claim":
            return self._claim(views, legal)
        return ACTIONS.encode("play", self._play(views, legal))

    def _my_row(self, views: dict[str, np.ndarray]) -> list[int]:
        row = [EMPTY] * NUM_RANKS
        for card in np.flatnonzero(views["rows"][0]).tolist():
            row[card % NUM_RANKS] = card // NUM_RANKS
        return row

    def _claim(self, views: dict[str, np.ndarray], legal: np.ndarray) -> int:
        row = self._my_row(views)

        def value(action: int) -> float:
            suit, rank = divmod(ACTIONS.decode(int(action))[1], NUM_RANKS)
            after = list(row)
            after[rank] = suit
            return _row_value(after)

        return int(max(legal, key=value))

    def _play(self, views: dict[str, np.ndarray], legal: np.ndarray) -> int:
        """The card to play."""
        trump = int(np.argmax(views["trump_suit"]))
        trick = views["trick"]
        played_now = [int(np.flatnonzero(trick[s])[0]) for s in range(len(trick)) if trick[s].any()]
        cards = [ACTIONS.decode(int(a))[1] for a in legal]
        if not played_now:
            return self._lead(views, cards, trump)
        lead_suit = self._lead_suit(views, trick)
        best = max(_strength(c, trump, lead_suit) for c in played_now)
        winners = [c for c in cards if _strength(c, trump, lead_suit) > best]
        last_to_play = len(played_now) == len(trick) - 1
        if winners and (last_to_play or self._is_boss(views, max(winners), trump, lead_suit)):
            pick = min if last_to_play else max
            return pick(winners, key=lambda c: _strength(c, trump, lead_suit))
        return min(cards, key=lambda c: (_strength(c, trump, lead_suit), c % NUM_RANKS))

    def _lead_suit(self, views: dict[str, np.ndarray], trick: np.ndarray) -> int:
        leader = int(np.argmax(views["leader"]))
        return int(np.flatnonzero(trick[leader])[0]) // NUM_RANKS

    def _is_boss(self, views: dict[str, np.ndarray], card: int, trump: int, lead_suit: int) -> bool:
        """No unseen card could beat ``card`` in this trick."""
        seen = views["played"] + views["hand"]
        power = _strength(card, trump, lead_suit)
        return all(
            seen[other] or _strength(other, trump, lead_suit) < power
            for other in range(DECK_SIZE)
            if other // NUM_RANKS in (trump, lead_suit)
        )

    def _lead(self, views: dict[str, np.ndarray], cards: list[int], trump: int) -> int:
        bosses = [c for c in cards if self._is_boss(views, c, trump, c // NUM_RANKS)]
        if bosses:
            return min(bosses, key=lambda c: (c // NUM_RANKS == trump, -(c % NUM_RANKS)))
        return min(cards, key=lambda c: (c // NUM_RANKS == trump, c % NUM_RANKS))


def action_feature_map(info: EnvInfo) -> np.ndarray:
    """What each play risks and beats, as a linear map of the observation
    (``ActionFeaturePolicy``): per card, the ``PLAY_FEATURES`` counts of its suit around its
    rank, in the hand, the round's played cards and the trick. Claims get none (a network's
    claims already match the search's: docs/training-results.md).
    ``(actions, features, observation)``.

    "Neither played nor mine" counts 1 per rank less two planes; the 1 is the ``round`` piece,
    one-hot in every observation, so the map stays linear."""
    spec = info.obs_spec
    at = spec.offsets
    one = [at["round"] + i for i in range(spec.piece_size("round"))]  # they sum to 1
    feature = {name: index for index, name in enumerate(PLAY_FEATURES)}
    out = np.zeros((info.num_actions, len(PLAY_FEATURES), spec.size), np.float32)
    for card in range(DECK_SIZE):
        suit = card // NUM_RANKS
        row = out[ACTIONS.encode("play", card)]
        row[feature["trump"], at["trump_suit"] + suit] = 1
        for other in range(suit * NUM_RANKS, (suit + 1) * NUM_RANKS):
            side = "higher" if other > card else "lower" if other < card else None
            row[feature["mine"], at["hand"] + other] = 1
            if side is None:
                continue
            out_feature = feature[f"{side}_out"]
            row[out_feature, one] += 1
            row[out_feature, [at["hand"] + other, at["played"] + other]] -= 1
            seats = [at["trick"] + seat * DECK_SIZE + other for seat in range(info.num_players)]
            row[feature[f"trick_{side}"], seats] = 1
            if side == "higher":
                row[feature["higher_played"], at["played"] + other] = 1
                row[feature["mine_higher"], at["hand"] + other] = 1
        row[feature["trick_size"], at["trick"] : at["trick"] + spec.piece_size("trick")] = 1
    return out
