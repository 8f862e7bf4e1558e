"""Leduc Hold'em rules: legal moves, transitions and results (no Gymnasium, no PettingZoo).

Two players ante 1 chip each and get one private card from six (J, Q, K in two suits).
Betting round 1, then a public card, then betting round 2. In a round a player may fold (only
facing a bet), call (check when there is no bet) or raise by the round's raise size (2, then
4), at most two raises a round; player_0 opens both rounds. A round ends once both have acted
and the bets are equal. At the showdown a pair with the public card wins, else the higher
card; equal ranks split the pot. As in Southey et al. (2005) and OpenSpiel's ``leduc_poker``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.core.chance import ChanceLog
from card_envs.core.game import Game, check_int_option
from card_envs.core.options import Option
from card_envs.core.spec import ActionSpec
from leduc.rules.actions import ACTIONS, CALL, FOLD, RAISE
from leduc.rules.cards import DECK_SIZE, NO_CARD, hand_strength
from leduc.rules.deal import DEAL, PUBLIC, checked_hands, checked_public, checked_script
from leduc.rules.hidden import redraw_hidden_hands, visible_hands
from leduc.rules.state import NO_SEAT, ROUNDS, LeducState
from leduc.rules.text import table

ANTE = 1
RAISE_SIZES = (2, 4)  # the raise size of each betting round
MAX_RAISES = 2  # per betting round
RAISE_LIMIT = 100  # the largest raise size an option may ask for
RAISES_LIMIT = 4  # the most raises a round an option may allow (it sizes the observation)


class LeducGame(Game[LeducState]):
    """Leduc Hold'em for two players; see docs/adding-a-game.md, which walks through it."""

    name = "leduc"
    title = "Leduc Hold'em"
    options = (
        Option("first_raise", "the raise size in betting round 1", low=1, high=RAISE_LIMIT),
        Option("second_raise", "the raise size in betting round 2", low=1, high=RAISE_LIMIT),
        Option("max_raises", "the most raises in one betting round", low=1, high=RAISES_LIMIT),
    )
    player_counts = (2,)
    default_players = 2

    def __init__(
        self,
        num_players: int = default_players,
        first_raise: int = RAISE_SIZES[0],
        second_raise: int = RAISE_SIZES[1],
        max_raises: int = MAX_RAISES,
    ):
        super().__init__(num_players)
        self.raise_sizes = (
            check_int_option("first_raise", first_raise, 1, RAISE_LIMIT),
            check_int_option("second_raise", second_raise, 1, RAISE_LIMIT),
        )
        self.max_raises = check_int_option("max_raises", max_raises, 1, RAISES_LIMIT)

    @property
    def actions(self) -> ActionSpec:
        return ACTIONS

    @property
    def max_steps(self) -> int:
        """Per round: a check, every raise, then the call."""
        return ROUNDS * (self.max_raises + 2)

    @property
    def max_stake(self) -> int:
        """The most one seat can put in the pot: the ante and every raise of both rounds."""
        return ANTE + self.max_raises * sum(self.raise_sizes)

    # -- dealing ------------------------------------------------------------------------------
    def new_game(self, rng: np.random.Generator, deal: Any = None) -> LeducState:
        """The antes in and a private card each: scripted by ``deal`` (see
        :mod:`leduc.rules.deal`), else drawn from ``rng``."""
        chance = ChanceLog(checked_script(deal, self.num_players))
        hands = chance.take(
            rng,
            DEAL,
            lambda r: [int(c) for c in r.permutation(DECK_SIZE)[: self.num_players]],
            lambda given: checked_hands(given, "deal['chance']['deal'][0]", self.num_players),
        )
        return LeducState(
            hands=list(hands),
            contributions=[ANTE] * self.num_players,
            pot=ANTE * self.num_players,
            chance=chance,
        )

    def _deal_public(self, state: LeducState, rng: np.random.Generator) -> None:
        """The public card, from the cards no seat holds."""

        def draw(r: np.random.Generator) -> int:
            rest = [card for card in range(DECK_SIZE) if card not in state.hands]
            return rest[int(r.integers(len(rest)))]

        state.public_card = state.chance.take(
            rng,
            PUBLIC,
            draw,
            lambda given: checked_public(given, "deal['chance']['public'][0]", state.hands),
        )

    def deal_record(self, state: LeducState) -> dict[str, Any]:
        return {"chance": state.chance.record()}

    # -- whose turn, what is legal ------------------------------------------------------------
    def current_player(self, state: LeducState) -> int:
        return state.to_act

    def facing_bet(self, state: LeducState) -> bool:
        """Whether the player to act has a bet to call."""
        return state.contributions[state.to_act] < max(state.contributions)

    def legal_actions(self, state: LeducState) -> list[int]:
        if state.over:
            return []
        legal = [FOLD] if self.facing_bet(state) else []
        legal.append(CALL)
        if state.raises < self.max_raises:
            legal.append(RAISE)
        return legal

    def rule_violation(self, state: LeducState, block: str, index: int) -> str | None:
        match block:
            case "fold":
                if state.contributions[state.to_act] >= max(state.contributions):
                    return "no bet to fold to: call to check"
                return None
            case "call":
                return None
            case "raise":
                if state.raises >= self.max_raises:
                    return f"no more raises this round: {self.max_raises} made already"
                return None
        raise ValueError(f"no action block {block!r} in Leduc (fold, call, raise)")

    # -- transitions --------------------------------------------------------------------------
    def apply(self, state: LeducState, action: int, rng: np.random.Generator) -> None:
        seat = state.to_act
        state.history[state.round].append(action)
        if action == FOLD:
            state.folded, state.over = seat, True
            return
        bet = max(state.contributions)
        if action == RAISE:
            bet += self.raise_sizes[state.round]
            state.raises += 1
        state.pot += bet - state.contributions[seat]
        state.contributions[seat] = bet
        if action == CALL and len(state.history[state.round]) > 1:
            self._end_round(state, rng)
        else:
            state.to_act = (seat + 1) % self.num_players

    def _end_round(self, state: LeducState, rng: np.random.Generator) -> None:
        """The bets are equal: deal the public card, or show down after round 2."""
        if state.round + 1 == ROUNDS:
            state.over = True
            return
        self._deal_public(state, rng)
        state.round += 1
        state.raises = 0
        state.to_act = 0

    # -- results ------------------------------------------------------------------------------
    def is_over(self, state: LeducState) -> bool:
        return state.over

    def winners(self, state: LeducState) -> list[int]:
        """The seat that did not fold, or the best hands at the showdown (both on a split)."""
        if not state.over:
            return []
        if state.folded != NO_SEAT:
            return [p for p in range(self.num_players) if p != state.folded]
        strengths = [hand_strength(card, state.public_card) for card in state.hands]
        return [p for p, s in enumerate(strengths) if s == max(strengths)]

    def scores(self, state: LeducState) -> list[float]:
        """Chips won (+) or lost (-), once the game is over: the winners share the pot; 0
        before (a bet is not lost until the game ends)."""
        if not state.over:
            return [0.0] * self.num_players
        winners = self.winners(state)
        share = state.pot / len(winners)
        return [
            (share if p in winners else 0.0) - state.contributions[p]
            for p in range(self.num_players)
        ]

    def round_index(self, state: LeducState) -> int:
        return state.round

    # -- checks and views ---------------------------------------------------------------------
    def check_invariants(self, state: LeducState) -> None:
        cards = [*state.hands, *([state.public_card] if state.public_card != NO_CARD else [])]
        assert len(set(cards)) == len(cards), "a card is dealt twice"
        assert all(0 <= card < DECK_SIZE for card in cards), "a card is not in the deck"
        assert state.pot == sum(state.contributions), "the pot is not the sum of the bets"
        assert min(state.contributions) >= ANTE and max(state.contributions) <= self.max_stake
        assert state.raises <= self.max_raises, "too many raises"
        assert (state.public_card != NO_CARD) == (state.round == 1), "the public card and the round"
        assert sum(self.scores(state)) == 0, "the chips are not conserved"

    def resample_hidden(
        self, state: LeducState, observer: int, rng: np.random.Generator
    ) -> LeducState:
        """The opponent's card redrawn from the cards ``observer`` has not seen (kept once
        shown at the showdown). An undealt public card is drawn later, from what the hands
        leave; the copy's chance log starts empty, as its log shows the true cards."""
        new = self.clone_without_chance(state)
        redraw_hidden_hands(new, observer, rng)
        return new

    def render(self, state: LeducState) -> str:
        return table(state, range(self.num_players), self.max_raises, self._ending(state))

    def render_seat(self, state: LeducState, seat: int) -> str:
        shown = visible_hands(state, seat)
        return table(state, shown, self.max_raises, self._ending(state))

    def _ending(self, state: LeducState) -> str:
        """Who is to act, or how the game ended (what both seats see alike)."""
        if not state.over:
            return f"to act: player_{state.to_act}"
        scores = ", ".join(f"player_{p} {s:+g}" for p, s in enumerate(self.scores(state)))
        how = f"player_{state.folded} folded" if state.folded != NO_SEAT else "showdown"
        return f"game over, {how}: {scores}"
