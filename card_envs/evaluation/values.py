"""Value estimates for luck adjustment: what a position is worth to each seat, read from the whole
table (every hand), as a win share and a final score.

An estimate may read everything in the state but the chance still to come, and the estimator
stays unbiased whatever it says (``docs/evaluation.md``); a better one only removes more luck.
Three kinds, each a :class:`ValueEstimate`:

- :class:`Standing`: the standing by projected scores (``Game.projected_scores``), the search
  agents' value. Free, but blind to the cards: a deal moves it only where the projected
  scores count the cards held.
- :class:`Network`: a small network that reads every seat's observation, trained on heuristic
  self-play (:mod:`card_envs.evaluation.fit`) and shipped per game as numpy weights
  (``card_envs/evaluation/data/<env>.npz``); one batched forward pass per position set.
- :class:`Rollout`: the heuristic plays every seat to the end of the round, then an inner
  estimate values the position it reaches. It costs a round of play per position.
"""

from __future__ import annotations

import functools
import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents import Agent, make_agent
from card_envs.agents.search.values import values as standing_values
from card_envs.core.env import CardEnv

DATA = Path(__file__).resolve().parent / "data"
LAYERS = 3  # two hidden ReLU layers and a linear output of two units a seat: win logit, score
KINDS = ("standing", "network", "rollout")


def terminal(env: CardEnv, state: Any) -> np.ndarray | None:
    """``(seats, 2)``: the win share and score a finished game gave each seat (a truncated game
    gives no win), or None while it is being played."""
    game = env.game
    over = game.is_over(state)
    if not (over or game.is_truncated(state)):
        return None
    winners = game.winners(state) if over else []
    out = np.zeros((game.num_players, 2))
    for seat in winners:
        out[seat, 0] = 1 / len(winners)
    out[:, 1] = [float(s) for s in game.scores(state)]
    return out


class ValueEstimate(ABC):
    """Each seat's expected win share and final score at each of a batch of positions."""

    name = "value"

    def __call__(self, env: CardEnv, states: Sequence[Any]) -> np.ndarray:
        """``(len(states), seats, 2)``: win share and final score; a finished game's own."""
        out = self.estimate(env, states)
        for i, state in enumerate(states):
            end = terminal(env, state)
            if end is not None:
                out[i] = end
        return out

    @abstractmethod
    def estimate(self, env: CardEnv, states: Sequence[Any]) -> np.ndarray:
        """The estimate at positions still being played (finished ones are overwritten)."""


class Standing(ValueEstimate):
    """The search agents' standing by projected scores, and the projected scores."""

    name = "standing"

    def estimate(self, env: CardEnv, states: Sequence[Any]) -> np.ndarray:
        game = env.game
        out = np.zeros((len(states), game.num_players, 2))
        for i, state in enumerate(states):
            out[i, :, 0] = standing_values(game, state)
            out[i, :, 1] = game.projected_scores(state)
        return out


class Network(ValueEstimate):
    """A numpy MLP, the same weights for every seat, over the seat's observation divided by
    ``scale`` (with ``table``, every seat's observation from its own on round the table): its
    first output, a softmax over the seats, is the win share; its second, times
    ``score_scale``, the final score."""

    name = "network"

    def __init__(
        self,
        weights: Sequence[np.ndarray],
        scale: np.ndarray,
        score_scale: float,
        table: bool = False,
    ):
        self.weights = [np.asarray(w, np.float32) for w in weights]
        self.scale = np.asarray(scale, np.float32)
        self.score_scale = float(score_scale)
        self.table = table

    @classmethod
    def load(cls, path: Path) -> Network:
        """Weights from an ``.npz`` of plain arrays (an object array is refused: it would be
        unpickled, which can run code)."""
        if not path.exists():
            raise ValueError(
                f"no value network at {path}: python -m card_envs.evaluation.fit writes one"
            )
        try:
            with np.load(path, allow_pickle=False) as data:
                weights = [data[f"{kind}{i}"] for i in range(LAYERS) for kind in ("W", "b")]
                table = bool(data["table"]) if "table" in data else False
                return cls(weights, data["scale"], float(data["score_scale"]), table)
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(
                f"value network {path} is corrupt or not plain arrays: {error}"
            ) from None

    def forward(self, x: np.ndarray) -> np.ndarray:
        """The two outputs for each row of observations ``x`` (already scaled)."""
        for i in range(LAYERS):
            x = x @ self.weights[2 * i] + self.weights[2 * i + 1]
            if i < LAYERS - 1:
                np.maximum(x, 0.0, out=x)
        return x

    def estimate(self, env: CardEnv, states: Sequence[Any]) -> np.ndarray:
        seats = env.game.num_players
        encoding = env.encoding
        x = np.empty((len(states), seats, self.scale.size), np.float32)
        for i, state in enumerate(states):
            for seat in range(seats):
                x[i, seat] = encoding.observe_underived(state, seat)
        out = self.forward(round_table(x / self.scale) if self.table else x / self.scale)
        logits = out[..., 0] - out[..., 0].max(axis=-1, keepdims=True)
        shares = np.exp(logits)
        shares /= shares.sum(axis=-1, keepdims=True)
        return np.stack([shares, out[..., 1] * self.score_scale], axis=-1).astype(np.float64)


def round_table(x: np.ndarray) -> np.ndarray:
    """``(rows, seats, size)`` to ``(rows, seats, seats * size)``: each seat's row is every
    seat's observation, its own first and then round the table."""
    seats = x.shape[1]
    return np.concatenate([np.roll(x, -k, axis=1) for k in range(seats)], axis=-1)


class Rollout(ValueEstimate):
    """The game's heuristic in every seat plays each position on to the end of its round (the
    chance to come drawn afresh, never read from the state), then ``inner`` values where it
    got to."""

    name = "rollout"

    def __init__(self, env: CardEnv, inner: ValueEstimate, seed: int = 0):
        self.inner = inner
        info = env.describe()
        self.players: list[Agent] = [
            make_agent("heuristic", info, seed + seat) for seat in range(info.num_players)
        ]
        self.seed = seed

    def estimate(self, env: CardEnv, states: Sequence[Any]) -> np.ndarray:
        return self.inner.estimate(env, [self.round_end(env, state) for state in states])

    def round_end(self, env: CardEnv, state: Any) -> Any:
        """A copy of ``state`` played on by the heuristics until its round ends."""
        game, encoding = env.game, env.encoding
        state = game.clone_without_chance(state)
        rng = np.random.default_rng(self.seed)
        start = game.round_index(state)
        for player in self.players:
            player.reset(self.seed)
        while not (game.is_over(state) or game.is_truncated(state)):
            if game.round_index(state) != start:
                break
            seat = game.current_player(state)
            observation = {
                "observation": encoding.observe_underived(state, seat),
                "action_mask": game.legal_mask(state),
            }
            game.apply(state, self.players[seat].act(observation), rng)
        return state


def network_path(env_name: str) -> Path:
    """Where a game's value network ships: ``card_envs/evaluation/data/<env>.npz``."""
    return DATA / f"{env_name}.npz"


@functools.cache
def shipped_network(env_name: str) -> Network:
    """The game's shipped value network, loaded once per process."""
    return Network.load(network_path(env_name))


def network_facts(env_name: str) -> dict[str, Any]:
    """What the shipped network's JSON says of its training (empty without one)."""
    path = network_path(env_name).with_suffix(".json")
    return json.loads(path.read_text()) if path.exists() else {}


def make_value(kind: str, env: CardEnv) -> ValueEstimate:
    """The value estimate ``kind`` (:data:`KINDS`) for ``env``'s game: a rollout's inner
    estimate is the network where the game ships one, else the standing."""
    if kind == "standing":
        return Standing()
    name = env.metadata["name"]
    if kind == "network":
        return shipped_network(name)
    if kind == "rollout":
        inner = shipped_network(name) if network_path(name).exists() else Standing()
        return Rollout(env, inner)
    raise ValueError(f"unknown value estimate {kind!r}: one of {', '.join(KINDS)}")
