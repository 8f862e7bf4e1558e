"""Sequitur observation: what one seat may know, seat-relative (index 0 is the observer).

Racks are public, but during a simultaneous step other seats are shown as they were when the step
began (``shown_racks``), so nobody sees another player's choices before the step ends. Secret
goals, face-down public goals, drawn goal cards, a ball being placed and the bag are private.
"""

from __future__ import annotations

from card_envs.core.game import SparseEncoding
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
ORD_A = ord("a")
MAX_WORD_SCORE = 64  # 11 letters + the ten best skill points (7+5+5+5+5+3+3+3+3+3 = 42)


class SequiturEncoding(SparseEncoding[SequiturState]):
    game: SequiturGame

    def __init__(self, game: SequiturGame):
        super().__init__(game)
        self._racks: dict[tuple[int, ...], list[int]] = {}
        self._colours = [card.colour_index for card in game.goals]

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

    def entries(self, state: SequiturState, seat: int) -> tuple[list[int], list[float]]:
        ones: list[int] = []
        values: list[tuple[int, float]] = []
        self._fill(state, seat, ones, values)
        return ones + [i for i, _ in values], [1.0] * len(ones) + [v for _, v in values]

    def _fill(self, state: SequiturState, seat: int, ones: list[int], values: list) -> None:
        """Append the flat index of every 1 to ``ones`` and every other (index, value)."""
        at, n = self.spec.offsets, self.game.num_players
        ones += (
            at["phase"] + state.phase,
            at["round"] + min(state.round, NUM_ROUNDS - 1),
            at["goal_step"] + state.goal_step,
        )
        if state.actor == seat and state.phase != OVER:
            ones.append(at["decision"] + state.decision)
            self._private(state, ones)
        if state.secret[seat] != EMPTY:
            ones.append(at["secret"] + state.secret[seat])
        if state.kept[seat] != EMPTY:
            ones.append(at["face_down"] + state.kept[seat])
        ones += [at["public"] + g for g in state.public]
        ones += [at["open_discards"] + g for g in state.open_discards]
        for p in range(n):
            self._seat(state, seat, p, (p - seat) % n, ones, values)
        if state.phase == CLAIM:
            start = at["claim_order"]
            ones += [start + ((p - seat) % n) * n + i for i, p in enumerate(state.claim_order)]

    def _seat(self, state: SequiturState, seat: int, p: int, rel: int, ones: list, values: list):
        """One seat's public side (the observer's own side in full)."""
        at, goals, own = self.spec.offsets, len(self.game.goals), p == seat
        ones += self._rack_ones(rel, state.racks[p] if own else state.shown_racks[p])
        used = state.used[p] if own else state.shown_used[p]
        if any(used):
            start = at["used"] + rel * len(CARDS)
            ones += [start + card for card, u in enumerate(used) if u]
        if state.shown_secret[p] or (own and state.secret[p] != EMPTY):
            colour = self._colours[state.secret[p]]
            ones.append(at["secret_colour"] + rel * len(COLOURS) + colour)
        if state.stacks[p]:
            ones += [at["stacks"] + rel * goals + g for g in state.stacks[p]]
        if state.totals[p]:
            values.append((at["totals"] + rel, state.totals[p]))
        word = state.words[p]
        if word and (state.words_shown or own):
            start = at["words"] + rel * MAX_WORD * len(ALPHABET)
            ones += [start + i * len(ALPHABET) + ord(ch) - ORD_A for i, ch in enumerate(word)]
            values.append((at["word_scores"] + rel, state.scores[p]))
        if state.phase == CLAIM:
            ones += [at["meets"] + rel * goals + g for g in state.meets[p]]

    def _rack_ones(self, rel: int, rack: list[int]) -> list[int]:
        """Flat indices of a rack's letters (cached: racks change a few times a round)."""
        key = (rel, *rack)
        found = self._racks.get(key)
        if found is None:
            if len(self._racks) > 50_000:
                self._racks.clear()
            start = self.spec.offsets["racks"] + rel * MAX_RACK * BALL_KINDS
            found = [start + slot * BALL_KINDS + BALL_LETTER[b] for slot, b in enumerate(rack)]
            self._racks[key] = found
        return found

    def _private(self, state: SequiturState, ones: list[int]) -> None:
        """The actor's pending draws and half-made spelling."""
        at = self.spec.offsets
        if state.ball != EMPTY:
            ones.append(at["ball"] + BALL_LETTER[state.ball])
        ones += [at["drawn"] + g for g in state.drawn]
        if state.spell_key != EMPTY:
            direction, bits = divmod(state.spell_key, 1 << MAX_SLOTS)
            ones += (at["spelling"] + slot for slot in range(MAX_SLOTS) if bits >> slot & 1)
            ones.append(at["spelling"] + MAX_SLOTS + direction)
            if state.blank >= 0:
                ones.append(at["blank_letter"] + state.blank)
