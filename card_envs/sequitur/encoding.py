"""Sequitur observation: what one seat may know, seat-relative (index 0 is the observer).

Racks are public, but during a simultaneous step other seats are shown as they were when the step
began (``shown_racks``), so nobody sees another player's choices before the step ends. Secret
goals, face-down public goals, drawn goal cards, a ball being placed and the bag are private.
"""

from __future__ import annotations

import numpy as np

from card_envs.core.game import Encoding
from card_envs.core.spec import ObsSpec, Piece
from card_envs.sequitur.goals import COLOURS
from card_envs.sequitur.rules import (
    BALL_LETTER,
    CARDS,
    CLAIM,
    DECISIONS,
    EMPTY,
    MAX_RACK,
    MAX_WORD,
    NUM_ROUNDS,
    OVER,
    PHASES,
    SequiturGame,
    SequiturState,
)
from card_envs.sequitur.words import ALPHABET, BLANK, MAX_SLOTS

BALL_KINDS = BLANK + 1  # 26 letters and the blank
MAX_WORD_SCORE = 64  # 11 letters + the ten best skill points (7+5+5+5+5+3+3+3+3+3 = 42)


class SequiturEncoding(Encoding[SequiturState]):
    game: SequiturGame

    def build_spec(self) -> ObsSpec:
        n, goals = self.game.num_players, len(self.game.goals)
        max_total = sum(card.points for card in self.game.goals)
        return ObsSpec(
            [
                Piece("phase", (len(PHASES),), "one-hot step: " + ", ".join(PHASES)),
                Piece("decision", (len(DECISIONS),), "my decision now: " + ", ".join(DECISIONS)),
                Piece("round", (NUM_ROUNDS,), "one-hot round"),
                Piece("goal_step", (len(COLOURS),), "colour of the current goal/action step"),
                Piece(
                    "racks",
                    (n, MAX_RACK, BALL_KINDS),
                    "each relative seat's rack, slot by slot: letter one-hot (a..z, blank); "
                    "others as of the last step's end",
                ),
                Piece("ball", (BALL_KINDS,), "the ball I drew and must place"),
                Piece("drawn", (goals,), "goal cards I drew and must keep or discard"),
                Piece("secret", (goals,), "my secret goal this round"),
                Piece("face_down", (goals,), "my face-down public goal of this goal step"),
                Piece("public", (goals,), "face-up public goals on the table"),
                Piece("open_discards", (goals,), "unclaimed public goals discarded face up"),
                Piece(
                    "secret_colour",
                    (n, len(COLOURS)),
                    "each relative seat's secret goal colour (card backs, shown after setup)",
                ),
                Piece(
                    "used", (n, len(CARDS)), "Sequitur cards played this round: " + ", ".join(CARDS)
                ),
                Piece("stacks", (n, goals), "goal cards each relative seat has claimed"),
                Piece("totals", (n,), "goal points of each relative seat", high=max_total),
                Piece(
                    "words",
                    (n, MAX_WORD, len(ALPHABET)),
                    "each relative seat's spelled word, letter by letter (mine once spelled)",
                ),
                Piece("word_scores", (n,), "word scores, as the words", high=MAX_WORD_SCORE),
                Piece("meets", (n, goals), "public goals each relative seat's word meets (claims)"),
                Piece("claim_order", (n, n), "claiming: each relative seat's place in the order"),
                Piece(
                    "spelling",
                    (MAX_SLOTS + 2,),
                    "my chosen spelling while naming the blank/Q: kept slots, then direction",
                ),
                Piece("blank_letter", (len(ALPHABET),), "the letter I named for the blank"),
            ]
        )

    def encode(self, state: SequiturState, seat: int, views: dict[str, np.ndarray]) -> None:
        n = self.game.num_players
        views["phase"][state.phase] = 1
        views["round"][min(state.round, NUM_ROUNDS - 1)] = 1
        views["goal_step"][state.goal_step] = 1
        acting = state.actor == seat and state.phase != OVER
        if acting:
            views["decision"][state.decision] = 1
            self._private(state, views)
        if state.secret[seat] != EMPTY:
            views["secret"][state.secret[seat]] = 1
        if state.kept[seat] != EMPTY:
            views["face_down"][state.kept[seat]] = 1
        views["public"][state.public] = 1
        views["open_discards"][state.open_discards] = 1
        for p in range(n):
            self._seat(state, seat, p, (p - seat) % n, views)
        if state.phase == CLAIM:
            order = views["claim_order"]
            for position, p in enumerate(state.claim_order):
                order[(p - seat) % n, position] = 1

    def _seat(self, state: SequiturState, seat: int, p: int, rel: int, views) -> None:
        """One seat's public side (the observer's own side in full)."""
        own = p == seat
        rack = views["racks"][rel]
        for slot, ball in enumerate(state.racks[p] if own else state.shown_racks[p]):
            rack[slot, BALL_LETTER[ball]] = 1
        views["used"][rel] = state.used[p] if own else state.shown_used[p]
        if state.shown_secret[p] or (own and state.secret[p] != EMPTY):
            views["secret_colour"][rel, self.game.goals[state.secret[p]].colour_index] = 1
        views["stacks"][rel, state.stacks[p]] = 1
        views["totals"][rel] = state.totals[p]
        word = state.words[p]
        if word and (state.words_shown or own):
            letters = views["words"][rel]
            for i, ch in enumerate(word):
                letters[i, ord(ch) - 97] = 1
            views["word_scores"][rel] = state.scores[p]
        if state.phase == CLAIM:
            views["meets"][rel, state.meets[p]] = 1

    def _private(self, state: SequiturState, views) -> None:
        """The actor's pending draws and half-made spelling."""
        if state.ball != EMPTY:
            views["ball"][BALL_LETTER[state.ball]] = 1
        views["drawn"][state.drawn] = 1
        if state.spell_key != EMPTY:
            direction, bits = divmod(state.spell_key, 1 << MAX_SLOTS)
            spelling = views["spelling"]
            for slot in range(MAX_SLOTS):
                spelling[slot] = bits >> slot & 1
            spelling[MAX_SLOTS + direction] = 1
            if state.blank >= 0:
                views["blank_letter"][state.blank] = 1
