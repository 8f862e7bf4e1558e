"""Single-observer information-set MCTS (Cowling, Powley and Whitehouse, "Information Set Monte
Carlo Tree Search", IEEE TCIAIG 2012): one tree over the searching seat's information set, a
fresh determinisation of the hidden state per iteration, UCB over the children legal in it
(counted by availability), a random playout, and each move's node valued for the seat that
made it."""

from __future__ import annotations

import math
import time
from typing import Any

from card_envs.agents.search.base import SearchAgent
from card_envs.core.game import Game


class Node:
    """A move in the tree: who made it, its visits, availability and summed value."""

    __slots__ = ("avail", "children", "player", "total", "visits")

    def __init__(self, player: int):
        self.player = player
        self.visits = 0
        self.avail = 1
        self.total = 0.0
        self.children: dict[int, Node] = {}


class ISMCTSAgent(SearchAgent):
    """Kind ``"ismcts"``: SO-ISMCTS over the Game contract, the same code for every game."""

    name = "ismcts"

    def search(self, game: Game, state: Any, seat: int, legal: list[int]) -> dict[int, float]:
        root = Node(seat)
        start, iteration = time.perf_counter(), 0
        while not self.out_of_time(iteration, start):
            self._iterate(game, game.resample_hidden(state, seat, self.rng), root)
            iteration += 1
        return {action: float(root.children[action].visits) for action in root.children}

    def _iterate(self, game: Game, world: Any, root: Node) -> None:
        """One iteration on the determinisation ``world`` (changed in place)."""
        path, node, rng = [root], root, self.playout_rng
        modelled = self.budget.opponents == "heuristic"
        while not (game.is_over(world) or game.is_truncated(world)):
            if modelled and game.current_player(world) != root.player:
                game.apply(world, self.guided(game, world), self.rng)
                continue
            legal = game.legal_actions(world)
            children = node.children
            untried = [a for a in legal if a not in children]
            for action in legal:
                child = children.get(action)
                if child is not None:
                    child.avail += 1
            player = game.current_player(world)
            if untried:
                action = untried[int(rng.random() * len(untried))]
                node = children[action] = Node(player)
                game.apply(world, action, self.rng)
                path.append(node)
                break
            action = self._select(children, legal)
            node = children[action]
            game.apply(world, action, self.rng)
            path.append(node)
        result = self.playout(game, world)
        for node in path:
            node.visits += 1
            node.total += result[node.player]

    def _select(self, children: dict[int, Node], legal: list[int]) -> int:
        """The legal child with the highest UCB, exploration over its availability."""
        c, best, best_score = self.budget.c, legal[0], -math.inf
        for action in legal:
            child = children[action]
            score = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
            if score > best_score:
                best, best_score = action, score
        return best
