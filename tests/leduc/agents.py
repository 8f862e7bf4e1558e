"""A Leduc heuristic that reads only its own observation, and the declarations the generic
layers read (the search agents' budget, self-play settings).

Raise with a king or a pair with the public card (call once the raises are spent), call with a
queen, and with a jack check, or fold when facing a bet.
"""

from __future__ import annotations

import numpy as np

from card_envs.agents.base import Agent
from leduc.rules import CALL, FOLD, RAISE
from leduc.rules.cards import RANK_LABELS, rank_of

KING, QUEEN = RANK_LABELS.index("K"), RANK_LABELS.index("Q")

# The search agents' default budget (``Budget`` keywords): a game lasts at most eight moves, so
# a small budget plays whole games in every playout.
SEARCH_BUDGET = {"iterations": 100}
# Self-play settings over the defaults: three actions and a small observation need no wide
# network.
SELFPLAY = {"width": 32}


class HeuristicAgent(Agent):
    name = "heuristic"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        views = self.views(observation)
        rank = rank_of(int(np.argmax(views["card"])))
        public = views["public_card"]
        pair = bool(public.any()) and rank_of(int(np.argmax(public))) == rank
        if pair or rank == KING:
            return RAISE if RAISE in legal else CALL
        if rank == QUEEN or FOLD not in legal:
            return CALL
        return FOLD
