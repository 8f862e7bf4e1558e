"""Leduc observation: what one seat may know, seat-relative (index 0 is the observer)."""

from __future__ import annotations

import numpy as np

from card_envs.core.game import Encoding
from card_envs.core.spec import ObsSpec, Piece
from leduc.rules import ACTIONS, DECK_SIZE, NO_CARD, LeducGame, LeducState
from leduc.rules.hidden import visible_hands
from leduc.rules.state import ROUNDS


class LeducEncoding(Encoding[LeducState]):
    game: LeducGame

    def build_spec(self) -> ObsSpec:
        n, stake, raises = self.game.num_players, self.game.max_stake, self.game.max_raises
        return ObsSpec(
            [
                Piece("card", (DECK_SIZE,), "my private card (code = rank*2 + suit; J, Q, K)"),
                Piece("public_card", (DECK_SIZE,), "the public card, once dealt (round 2)"),
                Piece("shown_card", (DECK_SIZE,), "the opponent's card, shown at the showdown"),
                Piece("round", (ROUNDS,), "one-hot betting round"),
                Piece("first_to_act", (1,), "1 when I open each betting round (player_0)"),
                Piece(
                    "contributions",
                    (n,),
                    "chips each relative seat has put in the pot, ante included",
                    high=stake,
                ),
                Piece("raises", (raises + 1,), "one-hot number of raises this round"),
                Piece(
                    "history",
                    (ROUNDS, raises + 2, ACTIONS.size),
                    "each round's actions in order, one-hot (fold, call, raise)",
                ),
                Piece(
                    "totals",
                    (n,),
                    "chips won (+) or lost (-) by each relative seat, once the game is over",
                    high=stake,
                    low=-stake,
                ),
            ]
        )

    def encode(self, state: LeducState, seat: int, views: dict[str, np.ndarray]) -> None:
        n = self.game.num_players
        views["card"][state.hands[seat]] = 1
        if state.public_card != NO_CARD:
            views["public_card"][state.public_card] = 1
        for other in visible_hands(state, seat):
            if other != seat:
                views["shown_card"][state.hands[other]] = 1
        views["round"][state.round] = 1
        views["first_to_act"][0] = seat == 0
        scores = self.game.scores(state)
        for p in range(n):
            views["contributions"][(p - seat) % n] = state.contributions[p]
            views["totals"][(p - seat) % n] = scores[p]
        views["raises"][state.raises] = 1
        for number, actions in enumerate(state.history):
            for k, action in enumerate(actions):
                views["history"][number, k, action] = 1
