"""The Seals heuristic with a learned afterstate value added to how it rates a take.

A take's outcome for the taker is known before it is made: the hand after it and the face-up
cards it leaves. :class:`AfterstateValue` is a small MLP, fitted by ``python -m
card_envs.training.seals_value`` to the blason margin the taker went on to make in that round
(its blasons won minus the others' mean) over heuristic self-play games, that scores such an
afterstate.
:class:`ValueHeuristicAgent` rates each legal take by the heuristic's hand value plus this
learned value and plays the best; reveal decisions stay the heuristic's. The weights ship in
``agents/checkpoints/seals_v0_value.npz`` (numpy only: no torch at play time).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from card_envs.agents.seals import HeuristicAgent
from card_envs.core.env import EnvInfo
from card_envs.seals.rules.actions import ACTIONS

WEIGHTS = Path(__file__).resolve().parent / "checkpoints" / "seals_v0_value.npz"
LAYERS = 3  # two hidden ReLU layers and a linear output: W0, b0 .. W2, b2


def take_features(views: dict[str, np.ndarray], action: int) -> np.ndarray:
    """What the taker knows right after ``action``: its symbol counts, the symbols left face
    up, blasons, round counter, pile and hand sizes, the round and who started it (44 values)."""
    return takes_features(views, np.array([action]))[0]


def takes_features(views: dict[str, np.ndarray], actions: np.ndarray) -> np.ndarray:
    """:func:`take_features` of every take in ``actions`` at once, one row each: a few numpy
    calls for the whole decision instead of a dozen per take."""
    row = views["row"]
    symbols = row.shape[1]
    taken = row * _take_selection(actions, row.shape)
    fixed = np.concatenate(
        [views["blasons"] / 5, views["round_counter"] / 5, views["pile_size"] / 57]
    )
    sizes = views["hand_sizes"] / 20
    seats = np.concatenate([views["round"], views["first"]])
    out = np.empty((len(actions), 2 * symbols + fixed.size + sizes.size + seats.size), np.float32)
    out[:, :symbols] = (views["hand"] + taken).sum(axis=1) / 4
    out[:, symbols : 2 * symbols] = (row - taken).sum(axis=1) / 4
    at = 2 * symbols + fixed.size
    out[:, 2 * symbols : at] = fixed
    out[:, at : at + sizes.size] = sizes
    out[:, at] = (views["hand_sizes"][0] + taken.sum(axis=(1, 2))) / 20  # the taker's, after
    out[:, at + sizes.size :] = seats
    return out


def _take_selection(actions: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """For each take, 1 over the (colour x symbol) cells it lifts from the row, else 0."""
    colours, symbols = shape
    first_symbol = ACTIONS.start["take_symbol"]
    by_colour = actions < first_symbol  # take_colour ids come first, then take_symbol
    index = np.where(by_colour, actions - ACTIONS.start["take_colour"], actions - first_symbol)
    colour_hit = by_colour[:, None] & (np.arange(colours)[None, :] == index[:, None])
    symbol_hit = ~by_colour[:, None] & (np.arange(symbols)[None, :] == index[:, None])
    return (colour_hit[:, :, None] | symbol_hit[:, None, :]).astype(np.float32)


class AfterstateValue:
    """A numpy MLP (ReLU hidden layers) loaded from an ``.npz`` of ``W0, b0, W1, b1, W2, b2``."""

    def __init__(self, weights: list[np.ndarray]):
        self.weights = weights

    @classmethod
    def load(cls, path: Path | str = WEIGHTS) -> AfterstateValue:
        path = Path(path)
        if not path.exists():
            fix = "python -m card_envs.training.seals_value"
            raise ValueError(f"afterstate value weights {path} not found: {fix}")
        try:  # plain arrays only: an object array would be unpickled, and could run code
            with np.load(path, allow_pickle=False) as data:
                weights = [data[f"{kind}{i}"] for i in range(LAYERS) for kind in ("W", "b")]
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(
                f"afterstate value weights {path} are corrupt or not plain arrays (pickled "
                f"objects are refused): {error}"
            ) from error
        return cls(weights)

    @property
    def inputs(self) -> int:
        return self.weights[0].shape[0]

    def __call__(self, features: np.ndarray) -> np.ndarray:
        x = features
        for i in range(LAYERS):
            x = x @ self.weights[2 * i] + self.weights[2 * i + 1]
            if i < LAYERS - 1:
                x = np.maximum(x, 0.0)
        return x[:, 0]


class ValueHeuristicAgent(HeuristicAgent):
    name = "heuristic_value"

    def __init__(
        self, info: EnvInfo, seed: int | None = None, value: AfterstateValue | None = None
    ):
        super().__init__(info, seed)
        value = shipped_value() if value is None else value
        if feature_count(info) != value.inputs:
            raise ValueError(
                f"the afterstate value takes {value.inputs} features; a {info.num_players}-player"
                f" table with these options gives {feature_count(info)} (fitted at 4 players)"
            )
        self.value = value

    @classmethod
    def supports(cls, info: EnvInfo) -> bool:
        """Whether the shipped value exists and fits this table (fitted at 4 players)."""
        return WEIGHTS.exists() and feature_count(info) == shipped_value().inputs

    def _take_values(self, views: dict[str, np.ndarray], legal: np.ndarray) -> np.ndarray:
        learned = self.value(takes_features(views, legal))
        return super()._take_values(views, legal) + learned


def feature_count(info: EnvInfo) -> int:
    """How many values :func:`take_features` gives at this table (44 at 4 players)."""
    views = info.obs_spec.views(np.zeros(info.obs_spec.size, np.float32))
    return 2 * 11 + 2 + sum(views[k].size for k in ("hand_sizes", "blasons", "round", "first"))


@functools.cache
def shipped_value() -> AfterstateValue:
    """The shipped weights, loaded once per process."""
    return AfterstateValue.load()
