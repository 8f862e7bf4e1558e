"""Seals observation: what one seat may know, seat-relative (index 0 is the observer)."""

from __future__ import annotations

import numpy as np

from card_envs.core.game import Encoding
from card_envs.core.spec import ObsSpec, Piece
from card_envs.seals.rules.actions import ACTIONS
from card_envs.seals.rules.cards import COIN, DECK_SIZE, FACE, NUM_COLOURS, NUM_SYMBOLS, RED
from card_envs.seals.rules.game import MAX_BLASONS, SealsGame
from card_envs.seals.rules.series import NUM_SERIES, SERIES_SIZE
from card_envs.seals.rules.state import REVEAL, ROUND_COUNTER, SealsState

FACES = (NUM_COLOURS, NUM_SYMBOLS)  # a (colour, symbol) grid: red, yellow, green, blue, purple
MOST_OF_A_FACE = 3  # the three red coins
RED_COIN = RED * NUM_SYMBOLS + COIN  # their face
MOST_SERIES = DECK_SIZE // SERIES_SIZE


class SealsEncoding(Encoding[SealsState]):
    game: SealsGame

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

    def encode(self, state: SealsState, seat: int, views: dict[str, np.ndarray]) -> None:
        n = state.num_players
        _count_faces(views["hand"].reshape(-1), state.hands[seat])
        _count_faces(views["row"].reshape(-1), state.row)
        views["pile_size"][0] = len(state.pile)
        views["round_counter"][0] = state.counter
        views["round"][state.round] = 1
        seats = [(seat + rel) % n for rel in range(n)]  # relative order: me first
        views["hand_sizes"][:] = [len(state.hands[p]) for p in seats]
        views["blasons"][:] = [state.blasons[p] for p in seats]
        views["in_round"][:] = [state.active[p] for p in seats]
        views["first"][(self.game.first_seat(state) - seat) % n] = 1
        views["to_act"][(state.player - seat) % n] = 1
        if state.phase == REVEAL:
            views["revealing"][0] = 1
            views["shown"][:] = state.revealed
        if self.game.remember_takes:
            taken = views["taken"]
            for rel in range(1, n):
                _count_faces(taken[rel - 1].reshape(-1), state.hands[(seat + rel) % n])


def _count_faces(flat: np.ndarray, cards: list[int]) -> None:
    """Count ``cards`` by face into a zeroed ``flat``: one numpy write, as only the red coin
    face has more than one card."""
    faces = [FACE[c] for c in cards]
    flat[faces] = 1
    red_coins = faces.count(RED_COIN)
    if red_coins > 1:
        flat[RED_COIN] = red_coins
