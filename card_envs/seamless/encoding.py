"""Seamless observation: what one seat may know, seat-relative (index 0 is the observer).

:meth:`SeamlessEncoding.write_reference` is the reference; the compiled ``_encoding.pyx`` writes
the same entries from the same index tables, and is used when it is importable and
``CARD_ENVS_PURE_PYTHON=1`` is not set (:data:`OBSERVER`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from card_envs.core.cards import DECK_SIZE, NUM_RANKS, NUM_SUITS
from card_envs.core.game import FlatEncoding
from card_envs.core.kernels import compiled
from card_envs.core.spec import OBS_DTYPE, ObsSpec, Piece
from card_envs.seamless.rules import CLAIM, SeamlessGame, SeamlessState
from card_envs.seamless.rules.cards import EMPTY, TRICKS_PER_ROUND
from card_envs.seamless.rules.hidden import round_plays

if TYPE_CHECKING:
    from card_envs.seamless._encoding import Observer


OBSERVER: type[Observer] | None = compiled("card_envs.seamless._encoding", "Observer")


def row_cards(suits: list[int]) -> tuple[int, ...]:
    """The card codes in a row (``suits[rank]`` is the owned suit or EMPTY)."""
    return tuple(suit * NUM_RANKS + rank for rank, suit in enumerate(suits) if suit >= 0)


class SeamlessEncoding(FlatEncoding[SeamlessState]):
    game: SeamlessGame

    def __init__(self, game: SeamlessGame):
        super().__init__(game)
        # Each seat's row as last seen (a copy) and its card codes: a row changes only when its
        # owner claims, and reading its 13 slots in Python was the dearest part of observing.
        self._rows_seen: list[tuple[list[int], tuple[int, ...]]] = [([], ())] * game.num_players
        # The cards seen played this round as last written, and that piece: a round only adds
        # to it, so the next observation copies it and writes the few cards played since.
        self._played_seen: list[int] = []
        self._played = np.zeros(DECK_SIZE, OBS_DTYPE)

    def build_spec(self) -> ObsSpec:
        n, cards = self.game.num_players, DECK_SIZE
        return ObsSpec(
            [
                Piece("hand", (cards,), "1 for each card in my hand (card code = suit*13 + rank)"),
                Piece(
                    "trump_suit",
                    (NUM_SUITS,),
                    "one-hot trump suit (clubs, diamonds, hearts, spades)",
                ),
                Piece(
                    "trump_card",
                    (cards,),
                    "the dealer's revealed card while still in the dealer's hand",
                ),
                Piece("dealer", (n,), "one-hot dealer, relative seat (0 = me, 1 = my left, ...)"),
                Piece(
                    "trick", (n, cards), "card played to the current trick by each relative seat"
                ),
                Piece("leader", (n,), "one-hot leader of the current trick, relative seat"),
                Piece("claiming", (1,), "1 when I won the trick and must claim a card"),
                Piece("rows", (n, cards), "each relative seat's row as cards (rank slot, suit)"),
                Piece("played", (cards,), "cards seen played this round (tricks so far)"),
                Piece(
                    "totals",
                    (n,),
                    "game totals (added at each round end), relative seats",
                    high=self.game.max_total,
                ),
                Piece("round", (self.game.max_rounds,), "one-hot round number"),
                Piece("trick_number", (TRICKS_PER_ROUND,), "one-hot trick number in the round"),
            ]
        )

    def __getstate__(self) -> dict[str, Any]:
        """Without the compiled writer: a copy (a search agent's, a pickle) builds its own."""
        state = super().__getstate__()
        state.pop("_observer", None)
        return state

    def observe(self, state: SeamlessState, seat: int) -> np.ndarray:
        """The compiled writer's vector when it is built, else the base's (through
        :meth:`write`): the same vector either way."""
        observer = self._observer
        if observer is None:
            return super().observe(state, seat)
        return observer.observe(state, seat)

    @cached_property
    def _observer(self) -> Observer | None:
        """The compiled writer for every seat, from the same tables as :meth:`write`."""
        if OBSERVER is None:
            return None
        game = self.game
        layout = self.history_layout()
        return OBSERVER(game.num_players, self.spec.size, game.max_rounds, self._tables, layout)

    def history_layout(self) -> tuple[int, int, bool] | None:
        """Version 1's history pieces for the compiled writer (:class:`SeamlessEncodingV1`)."""
        return None

    def write(self, state: SeamlessState, seat: int, out: memoryview[float]) -> None:
        """By the compiled writer when it is built, else by :meth:`write_reference`."""
        observer = self._observer
        if observer is None:
            self.write_reference(state, seat, out)
        else:
            observer.write(state, seat, out)

    def write_reference(self, state: SeamlessState, seat: int, out: memoryview[float]) -> None:
        """The compiled writer's spec and fallback. Flat indices read from tables made once
        (:meth:`_tables`): the hot path does no seat arithmetic and no piece lookups."""
        t = self._tables[seat]
        for card in state.hands[seat]:
            out[t.hand + card] = 1.0
        out[t.trump_suit + state.trump] = 1.0
        if state.trump_card != EMPTY:
            out[t.trump_card + state.trump_card] = 1.0
        out[t.dealer[state.dealer]] = 1.0
        trick, n = t.trick, len(t.trick)
        for i, card in enumerate(state.trick, state.leader):
            out[trick[i % n] + card] = 1.0
        out[t.leader[state.leader]] = 1.0
        if state.phase == CLAIM and state.winner == seat:
            out[t.claiming] = 1.0
        seen, rows = self._rows_seen, t.rows
        for p, suits in enumerate(state.rows):
            known, cards = seen[p]
            if suits != known:
                cards = row_cards(suits)
                seen[p] = (suits[:], cards)
            row = rows[p]
            for card in cards:
                out[row + card] = 1.0
        self._write_played(state.played, out, t.played)
        for at, total in zip(t.totals, state.totals, strict=True):
            out[at] = float(total)
        out[t.round + state.round] = 1.0
        out[t.trick_number + min(state.trick_number, TRICKS_PER_ROUND - 1)] = 1.0

    def _write_played(self, played: list[int], out: memoryview[float], start: int) -> None:
        """The ``played`` piece at ``start``: the remembered piece plus the cards played since
        (rebuilt when ``played`` does not extend what was seen: a new round, another game)."""
        seen, piece = self._played_seen, self._played
        if played[: len(seen)] != seen:
            piece.fill(0)
            seen = []
        view = cast("memoryview[float]", piece.data)
        for card in played[len(seen) :]:
            view[card] = 1.0
        self._played_seen = played[:]
        out[start : start + DECK_SIZE] = view

    @cached_property
    def _tables(self) -> list[SeatTables]:
        """For each observing seat, where every piece starts, and for the per-seat pieces where
        each absolute seat's entry lies."""
        n, spec = self.game.num_players, self.spec
        at = spec.offsets
        return [
            SeatTables(
                hand=at["hand"],
                trump_suit=at["trump_suit"],
                trump_card=at["trump_card"],
                dealer=spec.seat_offsets("dealer", seat, n),
                trick=spec.seat_offsets("trick", seat, n),
                leader=spec.seat_offsets("leader", seat, n),
                claiming=at["claiming"],
                rows=spec.seat_offsets("rows", seat, n),
                played=at["played"],
                totals=spec.seat_offsets("totals", seat, n),
                round=at["round"],
                trick_number=at["trick_number"],
            )
            for seat in range(n)
        ]


class SeamlessEncodingV1(SeamlessEncoding):
    """``seamless_v1``: version 0's vector followed by what a player with perfect memory knows
    of this round's plays and version 0 does not show: who played each card (``played_by``) and
    the suits each seat has shown it holds none of (``voids``, the constraint the search keeps
    when it deals the unseen cards)."""

    def build_spec(self) -> ObsSpec:
        n = self.game.num_players
        history = [
            Piece("played_by", (n, DECK_SIZE), "cards each relative seat played this round"),
            Piece(
                "voids",
                (n, NUM_SUITS),
                "suits each relative seat has shown it holds none of this round (it did not "
                "follow them)",
            ),
        ]
        return ObsSpec([*super().build_spec().pieces, *history])

    def history_layout(self) -> tuple[int, int, bool]:
        """Where ``played_by`` and ``voids`` start, and whether the ruling's trick-1 trump lead
        shows a hand of trumps only: the compiled writer writes them after version 0's pieces."""
        at = self.spec.offsets
        return at["played_by"], at["voids"], self.game.trick_one_trump_lead == "no_other_suit"

    def write(self, state: SeamlessState, seat: int, out: memoryview[float]) -> None:
        """Every piece by the compiled writer when it is built, else by the references."""
        super().write(state, seat, out)
        if self._observer is None:
            self.write_history_reference(state, seat, out)

    def write_history_reference(
        self, state: SeamlessState, seat: int, out: memoryview[float]
    ) -> None:
        """The two pieces from the rules' :func:`round_plays`: the compiled writer's spec and
        fallback."""
        n, (played_by, void_at, _) = self.game.num_players, self.history_layout()
        seats, voids = round_plays(state, n, self.game.trick_one_trump_lead)
        for card, player in zip(state.played, seats, strict=True):
            out[played_by + (player - seat) % n * DECK_SIZE + card] = 1.0
        for player, suits in enumerate(voids):
            for suit in suits:
                out[void_at + (player - seat) % n * NUM_SUITS + suit] = 1.0


@dataclass(frozen=True)
class SeatTables:
    """Flat indices for one observing seat (``by absolute seat`` tuples for per-seat pieces)."""

    hand: int
    trump_suit: int
    trump_card: int
    dealer: tuple[int, ...]
    trick: tuple[int, ...]
    leader: tuple[int, ...]
    claiming: int
    rows: tuple[int, ...]
    played: int
    totals: tuple[int, ...]
    round: int
    trick_number: int
