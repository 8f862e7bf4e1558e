"""Sequitur observation: what one seat may know, seat-relative (index 0 is the observer).

The vector is written by the compiled ``_encoding.Observer`` where it is built (a fifth of the
Python's cost), else by :meth:`SequiturEncoding.observe_reference`, its spec.

Racks are public, but during a simultaneous step other seats are shown as they were when the step
began (``shown_racks``), so nobody sees another player's choices before the step ends. Secret
goals, face-down public goals, drawn goal cards, a ball being placed and the bag are private; a
seat's own face-down discards are known to it (``my_discards``) and hidden from the others.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

import numpy as np

from card_envs.core.game import FlatEncoding
from card_envs.core.kernels import compiled
from card_envs.core.spec import OBS_DTYPE, ObsSpec, Piece
from card_envs.sequitur.action_values import SCORE_WEIGHT, ActionValues
from card_envs.sequitur.rules import SequiturGame, SequiturState
from card_envs.sequitur.rules.cards import BALL_LETTER, CARDS, MAX_RACK, MAX_WORD
from card_envs.sequitur.rules.goals import COLOURS
from card_envs.sequitur.rules.state import CLAIM, DECISIONS, EMPTY, NUM_ROUNDS, OVER, PHASES
from card_envs.sequitur.rules.words import ALPHABET, BLANK, MAX_SLOTS

if TYPE_CHECKING:
    from card_envs.sequitur._encoding import Observer

BALL_KINDS = BLANK + 1  # 26 letters and the blank
ORD_A = ord("a")
MAX_WORD_SCORE = 64  # 11 letters + the ten best skill points (7+5+5+5+5+3+3+3+3+3 = 42)
CACHE_LIMIT = 50_000  # cached words per relative seat before the cache is cleared


@dataclass
class SeatTable:
    """One relative seat's flat offsets and index tables (racks, words, cards): the observation
    is built for every step, so lookups replace arithmetic where they can."""

    rack: list[list[int]]  # [slot][ball]: the flat index of that ball's letter in that slot
    secret_colour: int
    stacks: int
    totals: int
    word: int
    word_score: int
    meets: int
    used: dict[tuple[bool, ...], list[int]]
    words: dict[str, list[int]] = field(default_factory=dict)

    def word_ones(self, word: str) -> list[int]:
        """Flat indices of a word's letters (cached: a shown word is seen at many steps)."""
        found = self.words.get(word)
        if found is None:
            if len(self.words) > CACHE_LIMIT:
                self.words.clear()
            start = self.word
            found = [start + i * len(ALPHABET) + ord(ch) - ORD_A for i, ch in enumerate(word)]
            self.words[word] = found
        return found


class SequiturEncoding(FlatEncoding[SequiturState]):
    game: SequiturGame
    writes_every_entry = True  # the compiled writer zeroes the vector; the reference copies it

    def __init__(self, game: SequiturGame):
        super().__init__(game)
        self._colours = [card.colour_index for card in game.goals]
        self._offsets = SimpleNamespace(**self.spec.offsets)  # at.public: attribute, not key
        sizes, width = self.spec.offsets["deck_sizes"], max(self._colour_counts()) + 1
        self._deck_sizes = [sizes + c * width for c in range(len(COLOURS))]  # + cards left
        self._deck_ones: dict[tuple[int, ...], list[int]] = {}  # by shown deck sizes
        n = game.num_players
        self._at = [self._seat_table(rel) for rel in range(n)]
        self._seat_tables = [[self._at[(p - seat) % n] for p in range(n)] for seat in range(n)]
        self._observer = self._compiled_observer(width)

    def _compiled_observer(self, deck_width: int) -> Observer | None:
        """The compiled writer of this configuration's vector, or ``None`` when the extension is
        not built here or ``CARD_ENVS_PURE_PYTHON=1`` asks for the Python reference."""
        observer = compiled("card_envs.sequitur._encoding", "Observer")
        if observer is None:
            return None
        facts = {
            "num_players": self.game.num_players,
            "max_rack": MAX_RACK,
            "ball_kinds": BALL_KINDS,
            "letters": len(ALPHABET),
            "max_word": MAX_WORD,
            "cards": len(CARDS),
            "max_slots": MAX_SLOTS,
            "rounds": NUM_ROUNDS,
            "over": OVER,
            "claim": CLAIM,
            "empty": EMPTY,
            "deck_width": deck_width,
            "colours": len(COLOURS),
        }
        return observer(dict(self.spec.offsets), facts, tuple(self._colours), BALL_LETTER)

    def _seat_table(self, rel: int) -> SeatTable:
        at, goals = self.spec.offsets, len(self.game.goals)
        used_start = at["used"] + rel * len(CARDS)
        return SeatTable(
            rack=[
                [
                    at["racks"] + (rel * MAX_RACK + slot) * BALL_KINDS + letter
                    for letter in BALL_LETTER
                ]
                for slot in range(MAX_RACK)
            ],
            secret_colour=at["secret_colour"] + rel * len(COLOURS),
            stacks=at["stacks"] + rel * goals,
            totals=at["totals"] + rel,
            word=at["words"] + rel * MAX_WORD * len(ALPHABET),
            word_score=at["word_scores"] + rel,
            meets=at["meets"] + rel * goals,
            used={
                used: [used_start + card for card, u in enumerate(used) if u]
                for used in itertools.product((False, True), repeat=len(CARDS))
            },
        )

    def build_spec(self) -> ObsSpec:
        n, goals = self.game.num_players, len(self.game.goals)
        max_total = sum(card.points for card in self.game.goals)
        per_colour = max(self._colour_counts())
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
                    "my_discards",
                    (goals,),
                    "goal cards I discarded face down (a goal draw, a failed secret goal, solo's "
                    "other card), until their deck is reshuffled from its discards",
                ),
                Piece(
                    "deck_sizes",
                    (len(COLOURS), per_colour + 1),
                    f"goal cards left in each deck (red, yellow, green), one-hot 0..{per_colour}, "
                    "as of the last step's end",
                ),
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
                Piece(
                    "meets",
                    (n, goals),
                    "claiming: face-up public goals each relative seat's word meets",
                ),
                Piece("claim_order", (n, n), "claiming: each relative seat's place in the order"),
                Piece(
                    "claim_passed",
                    (n,),
                    "claiming: relative seats that passed and claim nothing more this round "
                    "(only with claim_pass)",
                ),
                Piece(
                    "spelling",
                    (MAX_SLOTS + 2,),
                    "my chosen spelling while naming the blank/Q: kept slots, then direction",
                ),
                Piece("blank_letter", (len(ALPHABET),), "the letter I named for the blank"),
            ]
        )

    def _colour_counts(self) -> list[int]:
        """Goal cards of each colour in the deck (a custom deck may be small)."""
        colours = [card.colour_index for card in self.game.goals]
        return [colours.count(c) for c in range(len(COLOURS))]

    def _deck_size_ones(self, sizes: tuple[int, ...]) -> list[int]:
        """Flat indices of the deck sizes (cached: they change only when a step ends)."""
        if len(self._deck_ones) > CACHE_LIMIT:
            self._deck_ones.clear()
        found = self._deck_ones[sizes] = list(map(int.__add__, self._deck_sizes, sizes))
        return found

    def write(self, state: SequiturState, seat: int, out: memoryview[float]) -> None:
        """Every entry of ``out``: by the compiled writer where it is in use, else the
        reference's vector copied in (version 0's: a subclass adds its own pieces)."""
        if self._observer is None:
            vector = SequiturEncoding.observe_reference(self, state, seat)
            out[:] = cast("memoryview[float]", vector.data)
        else:
            self._observer.write(out, state, seat)

    def observe(self, state: SequiturState, seat: int) -> np.ndarray:
        """A fresh vector, written in place: it is read next, so it is best left in cache
        (``write`` streams a vector env's rows past it)."""
        if self._observer is None:
            return SequiturEncoding.observe_reference(self, state, seat)
        buffer = np.zeros(self.spec.size, OBS_DTYPE)
        self._observer.write_zeroed(buffer, state, seat)
        return buffer

    def observe_reference(self, state: SequiturState, seat: int) -> np.ndarray:
        """The observation in Python, the compiled writer's spec and fallback: as the base's,
        without building a list of values (nearly all entries are ones)."""
        buffer = np.zeros(self.spec.size, OBS_DTYPE)
        ones: list[int] = []
        values: list[tuple[int, int]] = []
        self._fill(state, seat, ones, values)
        buffer.put(ones, 1.0)  # faster than fancy indexing from a list
        for index, value in values:
            buffer[index] = value
        return buffer

    def _fill(self, state: SequiturState, seat: int, ones: list[int], values: list) -> None:
        """Append the flat index of every 1 to ``ones`` and every other (index, value)."""
        at, phase = self._offsets, state.phase
        ones += (
            at.phase + phase,
            at.round + (state.round if state.round < NUM_ROUNDS else NUM_ROUNDS - 1),
            at.goal_step + state.goal_step,
        )
        if state.actor == seat and phase != OVER:
            ones.append(at.decision + state.decision)
            self._private(state, ones)
        if state.secret[seat] != EMPTY:
            ones.append(at.secret + state.secret[seat])
        if state.kept[seat] != EMPTY:
            ones.append(at.face_down + state.kept[seat])
        if state.public:
            ones += map(at.public.__add__, state.public)
        if state.open_discards:
            ones += map(at.open_discards.__add__, state.open_discards)
        if state.own_discards[seat]:
            ones += map(at.my_discards.__add__, state.own_discards[seat])
        sizes = state.shown_deck_sizes
        ones += self._deck_ones.get(sizes) or self._deck_size_ones(sizes)
        self._sides(state, seat, ones, values)
        if phase == CLAIM:
            n = self.game.num_players
            start = at.claim_order
            ones += [start + ((p - seat) % n) * n + i for i, p in enumerate(state.claim_order)]
            if any(state.claim_passed):
                start = at.claim_passed
                ones += [start + (p - seat) % n for p in range(n) if state.claim_passed[p]]

    def _sides(self, state: SequiturState, seat: int, ones: list, values: list) -> None:
        """Each seat's public side: the observer's own in full, the others' as of the last step's
        end (one loop over plain lists, as this runs for every seat at every step)."""
        colours, claim, public = self._colours, state.phase == CLAIM, state.public
        racks, used = state.shown_racks, state.shown_used
        words = state.words if state.words_shown else None
        secret, shown_secret, stacks, totals = (
            state.secret,
            state.shown_secret,
            state.stacks,
            state.totals,
        )
        if secret[seat] != EMPTY and not shown_secret[seat]:
            ones.append(self._at[0].secret_colour + colours[secret[seat]])
        for p, at in enumerate(self._seat_tables[seat]):
            if p == seat:  # my own side as it is now, my word as soon as I spell it
                ones += map(list.__getitem__, at.rack, state.racks[p])
                ones += at.used[tuple(state.used[p])]
                word = state.words[p]
            else:
                ones += map(list.__getitem__, at.rack, racks[p])
                ones += at.used[tuple(used[p])]
                word = words[p] if words else ""
            if shown_secret[p]:
                ones.append(at.secret_colour + colours[secret[p]])
            if stacks[p]:
                ones += map(at.stacks.__add__, stacks[p])
            if totals[p]:
                values.append((at.totals, totals[p]))
            if word:
                ones += at.words.get(word) or at.word_ones(word)
                values.append((at.word_score, state.scores[p]))
            if claim:
                ones += [at.meets + g for g in state.meets[p] if g in public]

    def _private(self, state: SequiturState, ones: list[int]) -> None:
        """The actor's pending draws and half-made spelling."""
        at = self._offsets
        if state.ball != EMPTY:
            ones.append(at.ball + BALL_LETTER[state.ball])
        if state.drawn:
            ones += map(at.drawn.__add__, state.drawn)
        if state.spell_key != EMPTY:
            direction, bits = divmod(state.spell_key, 1 << MAX_SLOTS)
            ones += (at.spelling + slot for slot in range(MAX_SLOTS) if bits >> slot & 1)
            ones.append(at.spelling + MAX_SLOTS + direction)
            if state.blank >= 0:
                ones.append(at.blank_letter + state.blank)


class SequiturEncodingV1(SequiturEncoding):
    """``sequitur_v1``: version 0's vector followed by ``action_values``, what each legal action
    is worth to the seat to act (:mod:`card_envs.sequitur.action_values`), so that a network can
    score a spelling by its own number instead of working out which slots spell which word."""

    def __init__(self, game: SequiturGame):
        super().__init__(game)
        self._values = ActionValues(game)
        self._values_at = self.spec.offsets["action_values"]

    def build_spec(self) -> ObsSpec:
        high = sum(card.points for card in self.game.goals) + SCORE_WEIGHT * MAX_WORD_SCORE
        meaning = (
            "each action id's value to me when I am to act: the goal points plus a tenth of the "
            "word score of the best word my rack could spell after it (chance outcomes: the "
            "rack as it is; a claim: its goal's points); 0 for illegal ids and other seats"
        )
        values = Piece("action_values", (self.game.actions.size,), meaning, high=high)
        return ObsSpec([*super().build_spec().pieces, values])

    def write(self, state: SequiturState, seat: int, out: memoryview[float]) -> None:
        """Version 0's entries, then the action values."""
        super().write(state, seat, out)
        self._values.write(state, seat, np.asarray(out)[self._values_at :])

    def observe(self, state: SequiturState, seat: int) -> np.ndarray:
        return self._with_values(super().observe(state, seat), state, seat)

    def observe_reference(self, state: SequiturState, seat: int) -> np.ndarray:
        return self._with_values(super().observe_reference(state, seat), state, seat)

    def observe_underived(self, state: SequiturState, seat: int) -> np.ndarray:
        """Version 0's vector, the action values left at 0."""
        buffer = np.zeros(self.spec.size, OBS_DTYPE)
        SequiturEncoding.write(self, state, seat, cast("memoryview[float]", buffer.data))
        return buffer

    def _with_values(self, buffer: np.ndarray, state: SequiturState, seat: int) -> np.ndarray:
        self._values.write(state, seat, buffer[self._values_at :])
        return buffer
