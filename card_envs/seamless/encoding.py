"""Seamless observation: what one seat may know, seat-relative (index 0 is the observer)."""

from __future__ import annotations

import numpy as np

from card_envs.core.cards import DECK_SIZE, NUM_RANKS, NUM_SUITS
from card_envs.core.game import Encoding
from card_envs.core.spec import ObsSpec, Piece
from card_envs.seamless.rules import CLAIM, SeamlessGame, SeamlessState
from card_envs.seamless.rules.cards import EMPTY, TRICKS_PER_ROUND


class SeamlessEncoding(Encoding[SeamlessState]):
    game: SeamlessGame

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

    def encode(self, state: SeamlessState, seat: int, views: dict[str, np.ndarray]) -> None:
        n = self.game.num_players
        views["hand"][state.hands[seat]] = 1
        views["trump_suit"][state.trump] = 1
        if state.trump_card != EMPTY:
            views["trump_card"][state.trump_card] = 1
        views["dealer"][(state.dealer - seat) % n] = 1
        trick = views["trick"]
        for i, card in enumerate(state.trick):
            trick[(state.leader + i - seat) % n, card] = 1
        views["leader"][(state.leader - seat) % n] = 1
        views["claiming"][0] = state.phase == CLAIM and state.winner == seat
        rows = views["rows"]
        for p in range(n):
            owned = [
                suit * NUM_RANKS + rank for rank, suit in enumerate(state.rows[p]) if suit >= 0
            ]
            rows[(p - seat) % n, owned] = 1
        views["played"][state.played] = 1
        totals = views["totals"]
        for p in range(n):
            totals[(p - seat) % n] = state.totals[p]
        views["round"][state.round] = 1
        views["trick_number"][min(state.trick_number, TRICKS_PER_ROUND - 1)] = 1
