"""Sequitur's turn flow: who decides what, and what happens when a step or round ends.

1-5 players, 72 letter balls, 72 goal cards. Three rounds of: draw 5 balls and a secret goal,
place 3 more balls on either end; red, yellow and green goal steps (keep one face down as a public
goal or discard it), each followed by an action step (play one of five Sequitur cards or pass);
spell one word from the rack; claim public goals in word-score order. The pieces live in their own
modules: the balls and Sequitur cards (``cards``), the card plays on a rack (``rack``), goal decks
(``decks``), spelling (``spelling``), claims (``claims``), action ids (``actions``), injected
deals (``deal``), the chance events they script (``events``) and text (``text``).
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.core.chance import ChanceLog
from card_envs.core.game import Game, check_option
from card_envs.core.options import Option
from card_envs.core.spec import ActionSpec
from card_envs.sequitur.rules import claims, events, rack, spelling, text
from card_envs.sequitur.rules.actions import decision_blocks, sequitur_actions
from card_envs.sequitur.rules.cards import (
    BALL_LETTER,
    CARDS,
    LEFT,
    NUM_BALLS,
    PLACED_BALLS,
    RIGHT,
    SOLO_DRAW,
    START_BALLS,
)
from card_envs.sequitur.rules.deal import CheckedDeal, InjectedBalls, checked_deal, injected_bag
from card_envs.sequitur.rules.decks import GoalDecks
from card_envs.sequitur.rules.goals import COLOURS, GoalCard, load_goals
from card_envs.sequitur.rules.hidden import (
    acted_this_step,
    forget_step_choices,
    redraw_new_balls,
    replay_step_choices,
    sort_hidden,
)
from card_envs.sequitur.rules.state import (
    ACTION,
    BLANK_LETTER,
    CARD,
    CLAIM,
    CLAIM_GOAL,
    COLOUR,
    DECISIONS,
    EMPTY,
    FIRST_DECISION,
    GOAL,
    KEEP,
    NUM_ROUNDS,
    OVER,
    PLACE,
    SETUP,
    SPELL,
    SPELL_KEEP,
    SequiturState,
    check_invariants,
)
from card_envs.sequitur.rules.words import (
    Dictionary,
    check_dictionary,
    load_dictionary,
    write_spelling_keys,
)


class SequiturGame(Game[SequiturState]):
    """Sequitur for 1-5 players; see ``docs/sequitur.md`` for rules and rulings."""

    name = "sequitur"
    title = "Sequitur"
    scores_move_within_round = True  # each goal claimed scores at once
    options = (
        Option("dictionary", "a word-list file (default: the bundled list)", path=True),
        Option("goals", "a goal-card JSON file (default: the bundled 72 cards)", path=True),
        Option(
            "claim_pass",
            "a claim turn also offers pass (the rulebook's 'at most one goal')",
            (False, True),
        ),
    )
    player_counts = (1, 2, 3, 4, 5)
    default_players = 4

    def __init__(
        self,
        num_players: int = default_players,
        dictionary: str | Path | Any = None,
        goals: str | Path | Any = None,
        claim_pass: bool = False,
    ):
        super().__init__(num_players)
        check_option("claim_pass", claim_pass, (False, True))
        self.claim_pass = claim_pass
        check_dictionary(dictionary)
        try:
            self.dictionary: Dictionary = load_dictionary(dictionary)
        except (TypeError, ValueError, OSError) as error:
            message = str(error)
            prefix = "" if message.startswith("dictionary") else "dictionary: "
            raise ValueError(prefix + message) from error
        try:
            self.goals: tuple[GoalCard, ...] = load_goals(goals)
        except (TypeError, ValueError, OSError) as error:
            raise ValueError(f"goals: {error}") from error
        self.solo = self.num_players == 1
        self.goal_decks = GoalDecks(self.goals)
        self.spellings = spelling.Spellings(self.dictionary)
        self._actions = sequitur_actions(len(self.goals))
        self._decision_blocks = decision_blocks(claim_pass)
        self._masks: dict[tuple[int, ...], np.ndarray] = {}
        self._no_actions = np.zeros(self._actions.size, np.int8)

    @property
    def actions(self) -> ActionSpec:
        return self._actions

    @property
    def max_steps(self) -> int:
        """Per round and player: colour (+ solo keep) and 3 placements, 3 goal decisions, 3
        action steps (+ 1 Extend placement), 3 spelling choices; plus one claim per public goal
        (and, with ``claim_pass``, one pass)."""
        per_player = 1 + self.solo + PLACED_BALLS + 3 + 3 + 1 + 3 + self.claim_pass
        return NUM_ROUNDS * self.num_players * (per_player + len(COLOURS))

    # -- dealing ------------------------------------------------------------------------------
    def new_game(self, rng: np.random.Generator, deal: Any = None) -> SequiturState:
        """Round 1 from ``rng``; ``deal`` may fix ``"racks"`` (a string of 5 letters per seat,
        "?" the blank), ``"draws"`` (letters drawn next, in order) and ``"goals"`` (per colour
        name, goal ids drawn next, in order), and script any chance event in ``"chance"``."""
        n = self.num_players
        checked = (
            CheckedDeal({}, None, {}) if deal is None else checked_deal(deal, n, self.goal_decks)
        )
        state = SequiturState(
            num_players=n,
            stacks=[[] for _ in range(n)],
            totals=[0] * n,
            chance=ChanceLog(checked.script),
        )
        state.own_discards = [[] for _ in range(n)]
        self.goal_decks.deal(state, rng, checked.goals)
        self._start_round(state, rng, checked.balls)
        return state

    def deal_record(self, state: SequiturState) -> dict[str, Any]:
        """Every chance outcome so far; a hand-written deal is in them (the first goal decks and
        bag), so the record needs no other key."""
        return {"chance": state.chance.record()}

    def _start_round(
        self, state: SequiturState, rng: np.random.Generator, balls: InjectedBalls | None = None
    ) -> None:
        """Fill the bag (the chance event ``balls``, unless the deal scripts it), draw 5 balls per
        seat in draw order, reset the round's cards."""
        n = self.num_players

        def shuffled(rng: np.random.Generator) -> list[int]:
            bag = rng.permutation(NUM_BALLS).tolist()
            return (bag if balls is None else injected_bag(bag, balls, n))[::-1]

        bag = state.bag = state.chance.take(rng, events.BALLS, shuffled, lambda given: given)[::-1]
        state.racks = [[bag.pop() for _ in range(START_BALLS)] for _ in range(n)]
        state.shown_racks = [list(balls) for balls in state.racks]
        state.used = [[False] * len(CARDS) for _ in range(n)]
        state.shown_used = [list(u) for u in state.used]
        state.secret, state.kept = [EMPTY] * n, [EMPTY] * n
        state.shown_secret = [False] * n
        state.words, state.word_balls, state.scores = [""] * n, [[] for _ in range(n)], [0] * n
        state.words_shown, state.claim_order, state.meets = False, [], [[] for _ in range(n)]
        state.public, state.claim_passed = [], [False] * n
        state.shown_deck_sizes = tuple(map(len, state.decks))
        self._begin_phase(state, SETUP, rng)

    # -- whose turn, what is legal ------------------------------------------------------------
    def current_player(self, state: SequiturState) -> int:
        return state.actor

    def legal_actions(self, state: SequiturState) -> list[int]:
        if state.phase == OVER:
            return []
        start, decision = self._actions.start, state.decision
        if decision == COLOUR:
            colour = start["colour"]
            return [colour + c for c in range(len(COLOURS)) if self.goal_decks.has_goals(state, c)]
        if decision == KEEP:
            keeps = [start["keep"] + k for k in range(len(state.drawn))]
            return keeps if self._must_keep(state) else [keeps[0], start["discard"]]
        if decision == PLACE:
            return [start["place"] + LEFT, start["place"] + RIGHT]
        if decision == CARD:
            return rack.card_actions(state, start)
        if decision == CLAIM_GOAL:
            claim = start["claim"]
            claimable = [claim + g for g in claims.claimable(state, state.actor)]
            return [start["pass"], *claimable] if self.claim_pass else claimable
        if decision == SPELL_KEEP:
            spellings = self.spellings.of(state.racks[state.actor])
            if not spellings:
                return [start["spell_nothing"]]
            return [start["spell"] + key for key in sorted(spellings)]
        options = spelling.key_choices(state.racks[state.actor], state.spell_key, self.dictionary)
        if decision == BLANK_LETTER:
            return [start["blank"] + b for b in sorted({b for b, _ in options})]
        return [start["q_mode"] + q for q in sorted({q for b, q in options if b == state.blank})]

    def legal_mask(self, state: SequiturState) -> np.ndarray:
        """The mask, shared read-only between states whose legal moves are the same; a spelling
        choice's is written each time by the word search (:meth:`_write_spell_mask`)."""
        if state.decision == SPELL_KEEP and state.phase != OVER:
            spell_mask = np.zeros(self._actions.size, np.int8)
            self._write_spell_mask(state, spell_mask.data)
            return spell_mask
        key = self._mask_key(state)
        mask = self._masks.get(key)
        if mask is None:
            if len(self._masks) > 4096:
                self._masks.clear()
            mask = self._masks[key] = super().legal_mask(state)
            mask.flags.writeable = False
        return mask

    def write_legal_mask(self, state: SequiturState, out: memoryview[Any]) -> None:
        """:meth:`legal_mask` in ``out``; a spelling choice's straight from the word search."""
        if state.decision == SPELL_KEEP and state.phase != OVER:
            out[:] = self._no_actions.data
            self._write_spell_mask(state, out)
        else:
            out[:] = self.legal_mask(state).data

    def _write_spell_mask(self, state: SequiturState, out: memoryview[Any]) -> None:
        """The spelling keys of the actor's rack into the zeroed ``out``, or ``spell_nothing``.
        Not cached: racks seldom repeat between games, so a cached mask, or the rack's cached
        spellings (kept for the blank and Q choices and the agents), was nearly always a miss."""
        letters = tuple(map(BALL_LETTER.__getitem__, state.racks[state.actor]))
        start = self._actions.start
        if not write_spelling_keys(letters, self.dictionary, out, start["spell"]):
            out[start["spell_nothing"]] = 1

    def _mask_key(self, state: SequiturState) -> tuple[int, ...]:
        """What the legal moves depend on, cheaper than them for the common decisions (for the
        rare ones, the legal action ids themselves); not asked of a spelling choice."""
        decision = state.decision
        if state.phase == OVER:
            return ()
        if decision == CARD:
            return (CARD, len(state.racks[state.actor]), *state.used[state.actor], bool(state.bag))
        if decision == PLACE:
            return (PLACE,)
        if decision == KEEP:
            return (KEEP, len(state.drawn), self._must_keep(state))
        return (-1, *self.legal_actions(state))

    def _must_keep(self, state: SequiturState) -> bool:
        """Secret goals are always kept; in solo one public goal of the two must be kept."""
        return state.phase == SETUP or self.solo

    def rule_violation(self, state: SequiturState, block: str, index: int) -> str | None:
        """Why the ``index``-th action of ``block`` breaks the rules now: the decision asks for
        another block, or the block's own check (goal decks, rack, claims, spelling) fails."""
        expected = self._decision_blocks[state.decision]
        if block not in expected:
            return f"now choose {DECISIONS[state.decision]} ({', '.join(expected)}), not {block}"
        match block:
            case "colour":
                return (
                    None if self.goal_decks.has_goals(state, index) else "that goal deck is used up"
                )
            case "keep":
                return None if index < len(state.drawn) else "only one goal card was drawn"
            case "discard":
                return "this goal card must be kept" if self._must_keep(state) else None
            case "place":
                return None
            case "pass" | "move_inside" | "move_outside" | "swap" | "exchange" | "extend":
                return rack.card_violation(state, block, index)
            case "claim":
                return claims.claim_violation(state, index, self.goal_decks, self.dictionary)
            case _:  # spell, spell_nothing, blank, q_mode
                return spelling.spell_violation(state, block, index, self.dictionary)

    # -- transitions --------------------------------------------------------------------------
    def apply(self, state: SequiturState, action: int, rng: np.random.Generator) -> None:
        """Play ``action``. A scripted outcome checked only when it is taken (a reshuffle, an
        Exchange's depth) may be wrong: its ``ValueError`` leaves the state and ``rng`` as they
        were."""
        script = state.chance.script  # empty unless a deal scripts chance: the common case
        if not script or not any(script.get(event) for event in events.CHECKED_WHEN_TAKEN):
            self._apply(state, action, rng)
            return
        saved, generator = self.clone(state), rng.bit_generator.state
        try:
            self._apply(state, action, rng)
        except ValueError:
            for field in fields(state):
                setattr(state, field.name, getattr(saved, field.name))
            rng.bit_generator.state = generator
            raise

    def _apply(self, state: SequiturState, action: int, rng: np.random.Generator) -> None:
        block, k = self._actions.decode(action)
        decision = state.decision
        if decision in (COLOUR, KEEP):
            self._apply_goal_choice(state, block, k, rng)
        elif decision == PLACE:
            self._place(state, k, rng)
        elif decision == CARD:
            if rack.play_card(state, block, k, rng):
                self._next_actor(state, rng)
        elif decision == CLAIM_GOAL:
            if block == "pass":
                state.claim_passed[state.actor] = True
            else:
                state.public.remove(k)
                self.goal_decks.stack(state, state.actor, k)
            self._next_claimant(state, state.claim_pos + 1, rng)
        elif spelling.choose(state, block, k):
            self._next_actor(state, rng)

    def _apply_goal_choice(
        self, state: SequiturState, block: str, k: int, rng: np.random.Generator
    ) -> None:
        """A secret goal's colour, or keeping (or discarding) a drawn goal card."""
        actor = state.actor
        if block == "colour":
            count = SOLO_DRAW if self.solo else 1
            state.drawn = [
                g for g in (self.goal_decks.draw(state, k, rng) for _ in range(count)) if g >= 0
            ]
            if self.solo:
                state.decision = KEEP
                return
            block, k = "keep", 0
        kept = state.drawn[k] if block == "keep" else EMPTY
        for g in state.drawn:
            if g != kept:
                self.goal_decks.discard(state, g, actor)
        state.drawn = []
        if state.phase == GOAL:
            state.kept[actor] = kept
            self._next_actor(state, rng)
            return
        state.secret[actor] = kept
        self._start_placing(state)

    def _start_placing(self, state: SequiturState) -> None:
        """Setup's last part: draw the first of the balls placed one at a time."""
        state.to_place = PLACED_BALLS
        state.ball = state.bag.pop()
        state.decision = PLACE

    def _place(self, state: SequiturState, end: int, rng: np.random.Generator) -> None:
        rack.place_ball(state.racks[state.actor], state.ball, end)
        state.ball = EMPTY
        if state.phase == SETUP:
            state.to_place -= 1
            if state.to_place:
                state.ball = state.bag.pop()
                return
        self._next_actor(state, rng)

    # -- steps --------------------------------------------------------------------------------
    def _begin_phase(self, state: SequiturState, phase: int, rng: np.random.Generator) -> None:
        state.phase, state.actor = phase, 0
        self._begin_turn(state, rng)

    def _begin_turn(self, state: SequiturState, rng: np.random.Generator) -> None:
        """Set up the actor's first decision of this step; skip a seat with none to make."""
        phase = state.phase
        if phase == GOAL:
            count = SOLO_DRAW if self.solo else 1
            draws = (self.goal_decks.draw(state, state.goal_step, rng) for _ in range(count))
            state.drawn = [g for g in draws if g >= 0]
            if not state.drawn:
                self._next_actor(state, rng)
                return
        if phase == SETUP and not any(
            self.goal_decks.has_goals(state, c) for c in range(len(COLOURS))
        ):
            self._start_placing(state)  # a small custom deck ran out: no secret goal
            return
        state.decision = FIRST_DECISION[phase]

    def _next_actor(self, state: SequiturState, rng: np.random.Generator) -> None:
        state.actor += 1
        if state.actor < self.num_players:
            self._begin_turn(state, rng)
        else:
            self._end_step(state, rng)

    def _end_step(self, state: SequiturState, rng: np.random.Generator) -> None:
        """Everyone has finished a simultaneous step: reveal it, then start the next one."""
        for shown, balls in zip(state.shown_racks, state.racks, strict=True):
            shown[:] = balls  # in place: new lists would scatter the state over memory
        for shown_used, used in zip(state.shown_used, state.used, strict=True):
            shown_used[:] = used
        state.shown_secret = [g != EMPTY for g in state.secret]
        state.shown_deck_sizes = tuple(map(len, state.decks))
        state.public.extend(g for g in state.kept if g != EMPTY)
        state.kept = [EMPTY] * self.num_players
        phase = state.phase
        if phase == SETUP:
            state.goal_step = 0
            self._begin_phase(state, GOAL, rng)
        elif phase == GOAL:
            self._begin_phase(state, ACTION, rng)
        elif state.phase == ACTION and state.goal_step + 1 < len(COLOURS):
            state.goal_step += 1
            self._begin_phase(state, GOAL, rng)
        elif phase == ACTION:
            self._begin_phase(state, SPELL, rng)
        else:
            claims.settle_words(state, rng, self.goal_decks, self.dictionary)
            state.phase = CLAIM
            self._next_claimant(state, 0, rng)

    def _next_claimant(self, state: SequiturState, start: int, rng: np.random.Generator) -> None:
        """The next player in claim order who can claim a goal (and has not passed); the round
        ends when none can."""
        order = state.claim_order
        for step in range(len(order)):
            pos = (start + step) % len(order)
            seat = order[pos]
            if not state.claim_passed[seat] and any(g in state.public for g in state.meets[seat]):
                state.actor, state.claim_pos, state.decision = seat, pos, CLAIM_GOAL
                return
        self._end_round(state, rng)

    def _end_round(self, state: SequiturState, rng: np.random.Generator) -> None:
        """Unclaimed public goals are discarded face up; all balls go back to the bag."""
        state.open_discards.extend(state.public)
        state.public = []
        for balls in state.racks:
            state.bag.extend(balls)
            balls.clear()
        state.shown_racks = [[] for _ in range(self.num_players)]
        state.round += 1
        if state.round == NUM_ROUNDS:
            state.phase, state.actor = OVER, 0
            return
        self._start_round(state, rng)

    # -- results ------------------------------------------------------------------------------
    def is_over(self, state: SequiturState) -> bool:
        return state.phase == OVER

    def scores(self, state: SequiturState) -> list[int]:
        return state.totals

    def round_index(self, state: SequiturState) -> int:
        return state.round

    def winners(self, state: SequiturState) -> list[int]:
        """Most goal points; a tie is a shared win (the rulebook names no tie-breaker)."""
        if state.phase != OVER:
            return []
        best = max(state.totals)
        return [p for p, total in enumerate(state.totals) if total == best]

    # -- checks and views ---------------------------------------------------------------------
    def check_invariants(self, state: SequiturState) -> None:
        check_invariants(state, self.goals)

    def resample_hidden(
        self, state: SequiturState, observer: int, rng: np.random.Generator
    ) -> SequiturState:
        """A copy with what ``observer`` cannot see redrawn (see ``GoalDecks.resample_hidden``),
        and what other seats chose earlier in this simultaneous step chosen again by chance
        (``hidden.replay_step_choices``). The copy has no chance log or script: both show hidden
        cards, and its future is drawn from the generator."""
        new = self.clone_without_chance(state)
        acted = forget_step_choices(
            new, acted_this_step(new, observer), self.goal_decks, observer, rng
        )
        sort_hidden(new, self.goal_decks, observer)  # the redraw must not see where cards are
        self.goal_decks.resample_hidden(new, observer, rng)
        replay_step_choices(new, acted, rng, self.goal_decks, self.dictionary, self._actions)
        redraw_new_balls(new, observer, rng)
        return new

    def render(self, state: SequiturState) -> str:
        return text.table(state, self.goals, None, self.winners(state))

    def render_seat(self, state: SequiturState, seat: int) -> str:
        return text.table(state, self.goals, seat, self.winners(state))
