"""Seals rules: legal moves, transitions and results (no Gymnasium, no PettingZoo).

2-4 players. A turn: the face-up row is refilled to 4 from the pile; the player takes every
card of one colour or every card of one symbol from it, then reveals any number of disjoint
series from their hand, or none. A reveal wins the round and its blasons; the first one comes
off the 5-blason round counter. The game ends after a round in which someone holds 5 blasons,
or when the counter is empty; tied leaders then play up to 3 extra rounds among themselves.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import numpy as np

from card_envs.core.chance import ChanceLog
from card_envs.core.game import ROUNDS_LIMIT, Game, check_int_option, check_option
from card_envs.core.kernels import compiled
from card_envs.core.options import Option
from card_envs.core.spec import ActionSpec
from card_envs.seals.rules.actions import ACTIONS
from card_envs.seals.rules.cards import (
    COLOUR,
    COLOURS,
    DECK_SIZE,
    NUM_SYMBOLS,
    NUM_VALUES,
    SYMBOL,
    SYMBOL_NAMES,
    symbol_counts,
)
from card_envs.seals.rules.deal import SHUFFLE, checked_deal, checked_pile
from card_envs.seals.rules.hidden import hidden_hands, redeal_hidden
from card_envs.seals.rules.series import (
    COINS,
    MAJOR,
    MINOR,
    NUM_SERIES,
    OF_A_KIND,
    READINGS,
    SERIES_SIZE,
    STRAIGHT,
    blasons_of,
    can_add,
    series_for,
    series_name,
)
from card_envs.seals.rules.state import (
    NO_ONE,
    REVEAL,
    ROUND_COUNTER,
    ROW_SIZE,
    TAKE,
    TARGET_BLASONS,
    LastRound,
    SealsSetup,
    SealsState,
)
from card_envs.seals.rules.text import table

if TYPE_CHECKING:
    from card_envs.seals.rules._moves import LegalMask

LEGAL_MASK: type[LegalMask] | None = compiled("card_envs.seals.rules._moves", "LegalMask")

TIE_ROUNDS = 3
# Most blasons one reveal can win: one four coins (3; there are 7 coins) and at most half a
# blason per other card. A seat reaching 5 ends the game, so nobody passes 4 + this.
MAX_GAIN = 3 + (DECK_SIZE - SERIES_SIZE) // 2
MAX_BLASONS = TARGET_BLASONS - 1 + MAX_GAIN

# The empty-pile rule: play on with the face-up cards left (ruling), or end the round at once.
PLAY_OUT, END_ROUND = "play_out", "end_round"
EMPTY_PILE_RULES = (PLAY_OUT, END_ROUND)

# Actions per round: at most one take and one stop per turn, a take per card at most, plus the
# series of the winning turn (4 cards each at least).
ROUND_STEP_BOUND = 2 * DECK_SIZE + DECK_SIZE // SERIES_SIZE


class SealsGame(Game[SealsState]):
    """Seals for 2-4 players; see ``docs/seals.md`` for rules and rulings."""

    name = "seals"
    title = "Seals"
    options = (
        Option(
            "minor_major_series",
            "how '4 minor / major cards' reads: four of one value, or any four values 1-5 (6-10)",
            choices=READINGS,
        ),
        Option(
            "empty_pile",
            "with the pile empty: play on with the face-up cards, or end the round",
            choices=EMPTY_PILE_RULES,
        ),
        Option(
            "remember_takes", "also observe what each other seat took this round", (False, True)
        ),
        Option(
            "skip_forced_stop", "skip the reveal decision when only stop is legal", (False, True)
        ),
        Option(
            "tie_rounds",
            "extra rounds among the players tied after round 5",
            low=0,
            high=ROUNDS_LIMIT,
        ),
    )
    player_counts = (2, 3, 4)
    default_players = 4

    def __init__(
        self,
        num_players: int = default_players,
        minor_major_series: str = OF_A_KIND,
        empty_pile: str = PLAY_OUT,
        remember_takes: bool = False,
        skip_forced_stop: bool = False,
        tie_rounds: int = TIE_ROUNDS,
    ):
        super().__init__(num_players)
        check_option("minor_major_series", minor_major_series, READINGS)
        check_option("empty_pile", empty_pile, EMPTY_PILE_RULES)
        check_option("remember_takes", remember_takes, (False, True))
        check_option("skip_forced_stop", skip_forced_stop, (False, True))
        self.reading = minor_major_series
        self.series = series_for(minor_major_series)
        self.empty_pile = empty_pile
        self.remember_takes = remember_takes
        self.skip_forced_stop = skip_forced_stop
        self.tie_rounds = check_int_option("tie_rounds", tie_rounds, 0, ROUNDS_LIMIT)
        self._actions = ACTIONS
        # Block starts, read once for the hot paths.
        self._take_colour = ACTIONS.start["take_colour"]
        self._take_symbol = ACTIONS.start["take_symbol"]
        self._reveal = ACTIONS.start["reveal"]
        self._stop = ACTIONS.start["stop"]
        self._mask = None if LEGAL_MASK is None else LEGAL_MASK(*self._mask_config())

    @property
    def actions(self) -> ActionSpec:
        return self._actions

    @property
    def max_steps(self) -> int:
        return (ROUND_COUNTER + self.tie_rounds) * ROUND_STEP_BOUND

    # -- dealing ------------------------------------------------------------------------------
    def new_game(self, rng: np.random.Generator, deal: Any = None) -> SealsState:
        """Round 1, started by seat 0. ``deal`` may fix a position: a dict with any of
        ``"pile"`` (top card first), ``"row"``, ``"hands"`` (one list per seat), ``"blasons"``,
        ``"counter"`` and ``"starter"``; cards are codes or names (``"R7"``, ``"Bc"``), and the
        cards it leaves out are shuffled under the given pile. ``deal["chance"]["shuffle"]``
        scripts that shuffle and every later round's."""
        n = self.num_players
        setup, script = checked_deal(deal, self.num_players)
        hands = [list(hand) for hand in setup.hands or [[]] * n]
        row, top = list(setup.row or ()), list(setup.pile or ())
        state = SealsState(n, pile=[], chance=ChanceLog(script), setup=setup)
        placed = {c for cards in (*hands, row, top) for c in cards}
        state.pile = self._shuffled_pile(state.chance, rng, placed) + top[::-1]
        state.row, state.hands = row, hands
        state.symbols = [symbol_counts(hand) for hand in hands]
        state.active = [True] * n
        state.blasons = list(setup.blasons or [0] * n)
        state.counter = ROUND_COUNTER if setup.counter is None else setup.counter
        state.starter = setup.starter or 0
        state.round = ROUND_COUNTER - state.counter
        self._start_turn(state, self.first_seat(state), rng)
        return state

    def deal_record(self, state: SealsState) -> dict[str, Any]:
        """Every shuffle of the game, and the position the deal wrote by hand (if any)."""
        written = {key: value for key, value in asdict(state.setup).items() if value is not None}
        return {**written, "chance": state.chance.record()}

    def _shuffled_pile(
        self, chance: ChanceLog, rng: np.random.Generator, placed: set[int]
    ) -> list[int]:
        """Every card not ``placed`` in a shuffled pile, bottom card first as the state keeps
        it: the chance event ``shuffle``, whose outcome lists the pile top card first."""
        key = f"deal['chance']['shuffle'][{len(chance.log.get(SHUFFLE, []))}]"
        outcome = chance.take(
            rng,
            SHUFFLE,
            lambda r: [c for c in r.permutation(DECK_SIZE).tolist() if c not in placed][::-1],
            lambda given: checked_pile(given, placed, key),
        )
        return outcome[::-1]

    def _deal(self, state: SealsState, rng: np.random.Generator) -> None:
        """A fresh shuffle for the round: every seat in ``state.active`` empty-handed."""
        n = state.num_players
        state.pile = self._shuffled_pile(state.chance, rng, set())
        state.row = []
        state.hands = [[] for _ in range(n)]
        state.symbols = [[0] * NUM_SYMBOLS for _ in range(n)]
        state.revealed = [0] * NUM_SERIES

    def first_seat(self, state: SealsState) -> int:
        """The round's starter, or the next seat clockwise that plays this round."""
        seat = state.starter % state.num_players
        while not state.active[seat]:
            seat = (seat + 1) % state.num_players
        return seat

    # -- whose turn, what is legal ------------------------------------------------------------
    def current_player(self, state: SealsState) -> int:
        return state.player

    def legal_actions(self, state: SealsState) -> list[int]:
        if state.over:
            return []
        if state.phase == REVEAL:
            return [*self._reveal_options(state.symbols[state.player], state.revealed), self._stop]
        colours = sorted({COLOUR[c] for c in state.row})
        symbols = sorted({SYMBOL[c] for c in state.row})
        take_colour, take_symbol = self._take_colour, self._take_symbol
        return [take_colour + c for c in colours] + [take_symbol + s for s in symbols]

    def legal_mask(self, state: SealsState) -> np.ndarray:
        """The compiled mask (``rules/_moves.pyx``) when it is built, else
        :meth:`legal_mask_py`: the same bytes either way."""
        if self._mask is None:
            return self.legal_mask_py(state)
        return self._mask.mask(state)

    def write_legal_mask(self, state: SealsState, out: memoryview[Any]) -> None:
        """The compiled mask written straight into ``out`` when it is built, else
        :meth:`legal_mask_py` copied in."""
        if self._mask is None:
            out[:] = self.legal_mask_py(state).data
        else:
            self._mask.write(state, out)

    def legal_mask_py(self, state: SealsState) -> np.ndarray:
        """The reference mask: :meth:`legal_actions` set byte by byte."""
        return super().legal_mask(state)

    def _mask_config(self) -> tuple[int, int, int, int, int, bool]:
        """The compiled mask's arguments: its length, the block starts, the reading."""
        size, of_a_kind = self._actions.size, self.reading == OF_A_KIND
        return size, self._take_colour, self._take_symbol, self._reveal, self._stop, of_a_kind

    def _reveal_options(self, symbols: list[int], revealed: list[int]) -> list[int]:
        """Reveal ids the hand can add to this turn's series: what each value has left after
        the series already shown decides every type at once."""
        straights = revealed[STRAIGHT]
        left = [symbols[v] - straights - SERIES_SIZE * revealed[v] for v in range(NUM_VALUES)]
        spare_minor = sum(left[:5]) - SERIES_SIZE * revealed[MINOR]
        spare_major = sum(left[5:]) - SERIES_SIZE * revealed[MAJOR]
        reveal = self._reveal
        options = []
        if self.reading == OF_A_KIND:
            options = [reveal + v for v in range(NUM_VALUES) if left[v] >= SERIES_SIZE]
        else:
            if spare_minor >= SERIES_SIZE:
                options.append(reveal + MINOR)
            if spare_major >= SERIES_SIZE:
                options.append(reveal + MAJOR)
        if symbols[NUM_VALUES] - SERIES_SIZE * revealed[COINS] >= SERIES_SIZE:
            options.append(reveal + COINS)
        if min(left) >= 1 and spare_minor >= 5 and spare_major >= 5:
            options.append(reveal + STRAIGHT)
        return options

    def rule_violation(self, state: SealsState, block: str, index: int) -> str | None:
        if state.phase == TAKE:
            match block:
                case "take_colour":
                    if all(COLOUR[c] != index for c in state.row):
                        return f"no {COLOURS[index]} card is face up"
                    return None
                case "take_symbol":
                    if all(SYMBOL[c] != index for c in state.row):
                        return f"no {SYMBOL_NAMES[index]} is face up"
                    return None
            return "take cards from the face-up row first"
        match block:
            case "take_colour" | "take_symbol":
                return "you have taken this turn: reveal a series or end the turn"
            case "reveal":
                return self._reveal_violation(state, index)
        return None  # stop: ending the turn is always allowed after taking

    def _reveal_violation(self, state: SealsState, series: int) -> str | None:
        """Why the player to act may not show ``series`` now, or ``None``."""
        if series not in self.series:
            return f"{series_name(series)} is not a series with minor_major_series={self.reading}"
        if not can_add(state.symbols[state.player], state.revealed, series):
            return f"your hand cannot show {series_name(series)} beside the series shown"
        return None

    # -- transitions --------------------------------------------------------------------------
    def apply(self, state: SealsState, action: int, rng: np.random.Generator) -> None:
        player = state.player
        block, index = self._actions.decode(action)
        if state.phase == TAKE:
            self._take(state, block, index)
            if self.skip_forced_stop and not self._reveal_options(
                state.symbols[player], state.revealed
            ):
                self._next_turn(state, rng)
            else:
                state.phase = REVEAL
        elif block == "stop":
            if any(state.revealed):
                self._end_round(state, player, rng)
            else:
                self._next_turn(state, rng)
        else:
            state.revealed[index] += 1
            if self.skip_forced_stop and not self._reveal_options(
                state.symbols[player], state.revealed
            ):
                self._end_round(state, player, rng)

    def _take(self, state: SealsState, block: str, index: int) -> None:
        """Move every face-up card of the chosen colour or symbol into the player's hand."""
        if block == "take_colour":
            taken = [c for c in state.row if COLOUR[c] == index]
        else:
            taken = [c for c in state.row if SYMBOL[c] == index]
        state.row = [c for c in state.row if c not in taken]
        state.hands[state.player].extend(taken)
        symbols = state.symbols[state.player]
        for c in taken:
            symbols[SYMBOL[c]] += 1

    def _next_turn(self, state: SealsState, rng: np.random.Generator) -> None:
        seat = (state.player + 1) % state.num_players
        while not state.active[seat]:
            seat = (seat + 1) % state.num_players
        self._start_turn(state, seat, rng)

    def _start_turn(self, state: SealsState, seat: int, rng: np.random.Generator) -> None:
        """Refill the row to 4; with nothing to take (or a short row under ``end_round``)
        the round ends with no winner."""
        state.player, state.phase = seat, TAKE
        row, pile = state.row, state.pile
        while len(row) < ROW_SIZE and pile:
            row.append(pile.pop())
        if not row or (self.empty_pile == END_ROUND and len(row) < ROW_SIZE):
            self._end_round(state, NO_ONE, rng)

    def _end_round(self, state: SealsState, winner: int, rng: np.random.Generator) -> None:
        """Score the reveal (the first blason from the counter), then end the game or deal."""
        gain = blasons_of(state.revealed) if winner != NO_ONE else 0
        state.last = LastRound(winner, tuple(state.revealed), gain)
        if winner != NO_ONE:
            state.blasons[winner] += gain
        state.counter = max(state.counter - 1, 0)
        if state.tie_round:
            state.over = winner != NO_ONE or state.tie_round >= self.tie_rounds
        elif max(state.blasons) >= TARGET_BLASONS:
            state.over = True
        elif state.counter == 0:
            best = max(state.blasons)
            tied = [b == best for b in state.blasons]
            state.over = sum(tied) == 1 or self.tie_rounds == 0
            state.active = state.active if state.over else tied
        if state.over:
            state.phase, state.revealed = TAKE, [0] * NUM_SERIES
            return
        if state.counter == 0:
            state.tie_round += 1
        state.round += 1
        state.starter = (state.starter + 1) % state.num_players
        self._deal(state, rng)
        self._start_turn(state, self.first_seat(state), rng)

    # -- results ------------------------------------------------------------------------------
    def is_over(self, state: SealsState) -> bool:
        return state.over

    def scores(self, state: SealsState) -> list[int]:
        return state.blasons

    def round_index(self, state: SealsState) -> int:
        return state.round

    def winners(self, state: SealsState) -> list[int]:
        """Most blasons. A 5-blason win or a won tie round leaves one leader; tied leaders
        after the last tie round share the win."""
        if not state.over:
            return []
        best = max(state.blasons)
        return [seat for seat, b in enumerate(state.blasons) if b == best]

    # -- checks and views ---------------------------------------------------------------------
    def check_invariants(self, state: SealsState) -> None:
        held = [c for hand in state.hands for c in hand]
        assert sorted(state.pile + state.row + held) == list(range(DECK_SIZE)), "57 cards"
        assert len(state.row) <= ROW_SIZE, "row too long"
        assert state.symbols == [symbol_counts(h) for h in state.hands], "symbol counts"
        for seat, hand in enumerate(state.hands):
            assert state.active[seat] or not hand, "a seat out of the round holds cards"
        assert state.active[state.player], "the player to act is out of the round"
        assert state.phase == REVEAL or not any(state.revealed), "series shown outside a reveal"
        played = state.round + state.over
        assert state.counter == (0 if state.tie_round else ROUND_COUNTER - played), "counter"

    def resample_hidden(
        self, state: SealsState, observer: int, rng: np.random.Generator
    ) -> SealsState:
        """Reshuffle the pile together with the other hands (sizes kept), or only the pile
        under ``remember_takes``. A hand that is showing series (or whose reveal step itself
        shows it can, under ``skip_forced_stop``) stays as it is. The copy keeps no chance log,
        script or written deal: they show the true pile and hands, and the scripted future."""
        new = self.clone_without_chance(state)
        new.setup = SealsSetup()
        seats = hidden_hands(new, observer, self.remember_takes, self.skip_forced_stop)
        redeal_hidden(new, seats, rng)
        return new

    def render(self, state: SealsState) -> str:
        return self._table(state, visible=range(state.num_players))

    def render_seat(self, state: SealsState, seat: int) -> str:
        visible = range(state.num_players) if self.remember_takes else (seat,)
        return self._table(state, visible=visible)

    def _table(self, state: SealsState, visible: range | tuple[int, ...]) -> str:
        return table(state, visible, self.winners(state))
