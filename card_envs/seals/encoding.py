"""Seals observation: what one seat may know, seat-relative (index 0 is the observer).

:meth:`SealsEncoding.write_reference` is the reference; the compiled ``_encoding.pyx`` writes the
same entries, and is used when it is importable and ``CARD_ENVS_PURE_PYTHON=1`` is not set
(:data:`OBSERVER`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from card_envs.core.game import FlatEncoding
from card_envs.core.kernels import compiled
from card_envs.core.spec import ObsSpec, Piece
from card_envs.seals.rules.actions import ACTIONS
from card_envs.seals.rules.cards import DECK_SIZE, FACE, NUM_COLOURS, NUM_SYMBOLS
from card_envs.seals.rules.game import MAX_BLASONS, SealsGame
from card_envs.seals.rules.series import NUM_SERIES, SERIES_SIZE
from card_envs.seals.rules.state import REVEAL, ROUND_COUNTER, SealsState

if TYPE_CHECKING:
    from card_envs.seals._encoding import Observer

OBSERVER: type[Observer] | None = compiled("card_envs.seals._encoding", "Observer")

FACES = (NUM_COLOURS, NUM_SYMBOLS)  # a (colour, symbol) grid: red, yellow, green, blue, purple
MOST_OF_A_FACE = 3  # the three red coins
MOST_SERIES = DECK_SIZE // SERIES_SIZE


class SealsEncoding(FlatEncoding[SealsState]):
    game: SealsGame

    def __init__(self, game: SealsGame):
        super().__init__(game)
        n, spec, rounds = game.num_players, self.spec, ROUND_COUNTER + game.tie_rounds
        self._observer = None if OBSERVER is None else OBSERVER(n, spec.size, rounds, spec.offsets)

    def build_spec(self) -> ObsSpec:
        n, game = self.game.num_players, self.game
        pieces = [
            Piece("hand", FACES, "my cards, counted by (colour, symbol)", MOST_OF_A_FACE),
            Piece("row", FACES, "face-up cards, counted by (colour, symbol)", MOST_OF_A_FACE),
            Piece("hand_sizes", (n,), "cards in each relative seat's hand", DECK_SIZE),
            Piece("pile_size", (1,), "face-down cards left in the pile", DECK_SIZE),
            Piece("blasons", (n,), "blasons won by each relative seat", MAX_BLASONS),
            Piece("round_counter", (1,), "blasons left on the round counter", ROUND_COUNTER),
            Piece(
                "round",
                (ROUND_COUNTER + game.tie_rounds,),
                "one-hot round number (tie rounds after the fifth)",
            ),
            Piece("in_round", (n,), "1 for each relative seat playing this round (tie rounds)"),
            Piece("first", (n,), "one-hot relative seat that took the round's first turn"),
            Piece("to_act", (n,), "one-hot relative seat to act"),
            Piece("revealing", (1,), "1 once the player to act has taken and may show series"),
            Piece(
                "shown",
                (NUM_SERIES,),
                "series shown this turn by the player to act, by reveal id - "
                f"{ACTIONS.start['reveal']}",
                MOST_SERIES,
            ),
        ]
        if game.remember_takes:
            pieces.append(
                Piece(
                    "taken",
                    (n - 1, *FACES),
                    "cards taken this round by relative seats 1.. (their whole hands)",
                    MOST_OF_A_FACE,
                )
            )
        return ObsSpec(pieces)

    def write(self, state: SealsState, seat: int, out: memoryview[float]) -> None:
        """By the compiled writer where it is in use, else by :meth:`write_reference`."""
        if self._observer is not None:
            self._observer.write(state, seat, out)
        else:
            self.write_reference(state, seat, out)

    def write_reference(self, state: SealsState, seat: int, out: memoryview[float]) -> None:
        """The compiled writer's spec and fallback. Flat indices read from tables made once
        (:meth:`_tables`), so the hot path does no seat arithmetic and no piece lookups."""
        t = self._tables[seat]
        _count_faces(out, t.hand, state.hands[seat])
        _count_faces(out, t.row, state.row)
        out[t.pile_size] = float(len(state.pile))
        out[t.round_counter] = float(state.counter)
        out[t.round + state.round] = 1.0
        for p, hand in enumerate(state.hands):
            out[t.hand_sizes[p]] = float(len(hand))
            out[t.blasons[p]] = float(state.blasons[p])
            out[t.in_round[p]] = float(state.active[p])
        out[t.first[self.game.first_seat(state)]] = 1.0
        out[t.to_act[state.player]] = 1.0
        if state.phase == REVEAL:
            out[t.revealing] = 1.0
            for i, count in enumerate(state.revealed, t.shown):
                out[i] = float(count)
        for p, start in t.taken:
            _count_faces(out, start, state.hands[p])

    @cached_property
    def _tables(self) -> list[SeatTables]:
        """For each observing seat, where every piece starts, and for the per-seat pieces where
        each absolute seat's entry lies (``taken``: the other seats and their blocks)."""
        n, spec = self.game.num_players, self.spec
        at = spec.offsets
        faces = NUM_COLOURS * NUM_SYMBOLS
        return [
            SeatTables(
                hand=at["hand"],
                row=at["row"],
                hand_sizes=spec.seat_offsets("hand_sizes", seat, n),
                pile_size=at["pile_size"],
                blasons=spec.seat_offsets("blasons", seat, n),
                round_counter=at["round_counter"],
                round=at["round"],
                in_round=spec.seat_offsets("in_round", seat, n),
                first=spec.seat_offsets("first", seat, n),
                to_act=spec.seat_offsets("to_act", seat, n),
                revealing=at["revealing"],
                shown=at["shown"],
                taken=tuple(
                    ((seat + rel) % n, at["taken"] + (rel - 1) * faces) for rel in range(1, n)
                )
                if self.game.remember_takes
                else (),
            )
            for seat in range(n)
        ]


@dataclass(frozen=True)
class SeatTables:
    """Flat indices for one observing seat (tuples by absolute seat for per-seat pieces)."""

    hand: int
    row: int
    hand_sizes: tuple[int, ...]
    pile_size: int
    blasons: tuple[int, ...]
    round_counter: int
    round: int
    in_round: tuple[int, ...]
    first: tuple[int, ...]
    to_act: tuple[int, ...]
    revealing: int
    shown: int
    taken: tuple[tuple[int, int], ...]  # (absolute seat, start of its block) for the others


def _count_faces(out: memoryview[float], start: int, cards: list[int]) -> None:
    """Count ``cards`` by face into the zeroed face grid at ``start``."""
    for card in cards:
        out[start + FACE[card]] += 1.0
