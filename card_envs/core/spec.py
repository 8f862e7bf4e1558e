"""Layout specs: named observation pieces and action-id blocks.

One spec drives three things, so they cannot drift apart: the flat observation array (and its
named views), the Gymnasium spaces, and the Markdown tables in ``docs/<game>.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

OBS_DTYPE = np.float32


@dataclass(frozen=True)
class Piece:
    """One named block of the observation: ``shape`` values in ``[low, high]``."""

    name: str
    shape: tuple[int, ...]
    meaning: str
    high: float = 1.0
    low: float = 0.0

    @property
    def size(self) -> int:
        return math.prod(self.shape)


class ObsSpec:
    """An ordered list of pieces laid out in one flat ``float32`` vector."""

    def __init__(self, pieces: Sequence[Piece]):
        names = [p.name for p in pieces]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate piece names in {names}")
        self.pieces = tuple(pieces)
        self.offsets: dict[str, int] = {}
        offset = 0
        for piece in self.pieces:
            self.offsets[piece.name] = offset
            offset += piece.size
        self.size = offset
        self.low = np.concatenate([np.full(p.size, p.low, OBS_DTYPE) for p in self.pieces])
        self.high = np.concatenate([np.full(p.size, p.high, OBS_DTYPE) for p in self.pieces])
        self._slices = [
            (
                p.name,
                self.offsets[p.name],
                self.offsets[p.name] + p.size,
                p.shape if len(p.shape) > 1 else None,
            )
            for p in self.pieces
        ]

    def __deepcopy__(self, memo: dict[int, Any]) -> ObsSpec:
        """The spec itself: a layout is never changed after it is built, so copies of an env
        share it (copying a large state layout is most of the cost of copying an env)."""
        return self

    def new(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """A zeroed observation vector and its named, shaped views."""
        buffer = np.zeros(self.size, OBS_DTYPE)
        return buffer, self.views(buffer)

    def views(self, buffer: np.ndarray) -> dict[str, np.ndarray]:
        """Named views into ``buffer`` (an observation from this spec): writes go through."""
        return {
            name: buffer[start:stop] if shape is None else buffer[start:stop].reshape(shape)
            for name, start, stop, shape in self._slices
        }

    def seat_offsets(self, piece: str, seat: int, num_players: int) -> tuple[int, ...]:
        """Where each absolute seat's entry of a per-seat ``piece`` (first axis: relative seats,
        0 = the observer) starts when ``seat`` observes, ``p`` at ``(p - seat) % n``: tables
        of these spare an encoding's hot path the seat arithmetic."""
        stride = self.piece_size(piece) // num_players
        return tuple(
            self.offsets[piece] + (p - seat) % num_players * stride for p in range(num_players)
        )

    def piece_size(self, piece: str) -> int:
        """The number of entries of ``piece``."""
        return next(p.size for p in self.pieces if p.name == piece)

    def markdown(self) -> str:
        """The observation table for the docs."""
        rows = ["| piece | shape | offset | range | meaning |", "|---|---|---|---|---|"]
        for p in self.pieces:
            shape = " x ".join(map(str, p.shape))
            value_range = f"{_num(p.low)}..{_num(p.high)}"
            rows.append(
                f"| `{p.name}` | {shape} | {self.offsets[p.name]} | {value_range} | {p.meaning} |"
            )
        rows.append(f"| **total** | {self.size} | | | |")
        return "\n".join(rows)


def state_spec(spec: ObsSpec, agents: Sequence[str]) -> ObsSpec:
    """The layout of ``env.state()``: each agent's observation pieces in seat order (named
    ``player_1.hand``: seat-relative to that agent, with its bounds), then ``to_act``."""
    pieces = [
        Piece(f"{agent}.{p.name}", p.shape, p.meaning, p.high, p.low)
        for agent in agents
        for p in spec.pieces
    ]
    to_act = Piece("to_act", (len(agents),), "one-hot seat to act, absolute (0 once it is over)")
    return ObsSpec([*pieces, to_act])


@dataclass(frozen=True)
class ActionBlock:
    """A contiguous range of action ids with one meaning and a decode rule."""

    name: str
    size: int
    meaning: str
    decode: str


def block_layout(
    blocks: Sequence[ActionBlock],
) -> tuple[dict[str, int], tuple[tuple[str, int], ...]]:
    """Each block's first id, and every id decoded as ``(block name, index in the block)``:
    for rules that need the layout before their [`ActionSpec`][] exists."""
    start: dict[str, int] = {}
    decoded: list[tuple[str, int]] = []
    for block in blocks:
        start[block.name] = len(decoded)
        decoded += [(block.name, k) for k in range(block.size)]
    return start, tuple(decoded)


class ActionSpec:
    """Action ids as consecutive named blocks; ``names`` maps every id to readable text."""

    def __init__(self, blocks: Sequence[ActionBlock], name_of: Callable[[int], str]):
        self.blocks = tuple(blocks)
        self.start, self.decoded = block_layout(self.blocks)
        self.size = len(self.decoded)
        self.names: tuple[str, ...] = tuple(name_of(a) for a in range(self.size))
        self.ids: dict[str, int] = {name: a for a, name in enumerate(self.names)}
        if len(self.ids) != self.size:
            raise ValueError("action names must be unique")

    def encode(self, block: str, index: int = 0) -> int:
        """The id of the ``index``-th action of ``block``."""
        return self.start[block] + index

    def decode(self, action: int) -> tuple[str, int]:
        """``(block name, index in the block)`` of an id in ``0..size-1``."""
        return self.decoded[action]

    def markdown(self) -> str:
        """The action-id table for the docs."""
        rows = ["| ids | block | meaning | decode |", "|---|---|---|---|"]
        for block in self.blocks:
            first = self.start[block.name]
            ids = f"{first}" if block.size == 1 else f"{first}-{first + block.size - 1}"
            rows.append(f"| {ids} | `{block.name}` | {block.meaning} | {block.decode} |")
        rows.append(f"| **total** | {self.size} | | |")
        return "\n".join(rows)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
