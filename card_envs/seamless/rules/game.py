"""Seamless rules: legal moves, transitions and results (no Gymnasium, no PettingZoo).

Four players, a standard deck (codes in :mod:`card_envs.core.cards`). Each round: 13 tricks;
the trick winner claims one of the four cards into a personal 2..A row (Place a new rank or
Replace the suit of an owned rank). Rows score 1 per card plus capped rank-run and suit-run
bonuses. The game ends after a round in which someone reaches 15 points, or after round 5.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from card_envs.core.chance import ChanceLog
from card_envs.core.game import ROUNDS_LIMIT, Game, check_int_option, check_option
from card_envs.core.kernels import compiled
from card_envs.core.options import Option
from card_envs.core.spec import ActionSpec
from card_envs.seamless.rules.actions import ACTIONS
from card_envs.seamless.rules.cards import (
    DECK_SIZE,
    EMPTY,
    NUM_RANKS,
    NUM_SUITS,
    TRICKS_PER_ROUND,
    shuffled_deck,
    trick_winner_index,
)
from card_envs.seamless.rules.deal import DEAL, checked_deal, checked_outcome
from card_envs.seamless.rules.hidden import deal_unseen
from card_envs.seamless.rules.scoring import MAX_ROUND_POINTS, score_row
from card_envs.seamless.rules.state import CLAIM, PLAY, SeamlessState
from card_envs.seamless.rules.text import table

if TYPE_CHECKING:
    from card_envs.seamless.rules._moves import Moves


MOVES: type[Moves] | None = compiled("card_envs.seamless.rules._moves", "Moves")
TARGET_SCORE = 15
MAX_ROUNDS = 5

# Who may lead trump on trick 1 (the ruling, and the rulebook's other reading).
TRUMP_LEAD_RULES = ("no_other_suit", "void_in_a_suit")


class SeamlessGame(Game[SeamlessState]):
    """Seamless for four players; see ``docs/seamless.md`` for rules and rulings."""

    name = "seamless"
    title = "Seamless"
    options = (
        Option(
            "trick_one_trump_lead",
            "who may lead trump to trick 1: only a player with no other suit, or one void in "
            "a suit",
            choices=TRUMP_LEAD_RULES,
        ),
        Option(
            "max_rounds", "the game ends after this round at the latest", low=1, high=ROUNDS_LIMIT
        ),
        Option("target_score", "the game ends after a round in which a total reaches this", low=1),
    )
    player_counts = (4,)
    default_players = 4

    def __init__(
        self,
        num_players: int = default_players,
        trick_one_trump_lead: str = "no_other_suit",
        max_rounds: int = MAX_ROUNDS,
        target_score: int = TARGET_SCORE,
    ):
        super().__init__(num_players)
        check_option("trick_one_trump_lead", trick_one_trump_lead, TRUMP_LEAD_RULES)
        self.trick_one_trump_lead = trick_one_trump_lead
        self.max_rounds = check_int_option("max_rounds", max_rounds, 1, ROUNDS_LIMIT)
        self.target_score = check_int_option("target_score", target_score, 1)
        self._actions = ACTIONS
        self._play = ACTIONS.start["play"]  # block starts, read once for the hot paths
        self._claim_start = ACTIONS.start["claim"]
        self._moves = None if MOVES is None else MOVES(*self._moves_config())

    def _moves_config(self) -> tuple[int, int, int, int, bool]:
        """What the compiled mask and moves need: seats, block starts, mask size, trick-1 rule."""
        void = self.trick_one_trump_lead == "void_in_a_suit"
        return self.num_players, self._play, self._claim_start, ACTIONS.size, void

    @property
    def actions(self) -> ActionSpec:
        return self._actions

    @property
    def max_total(self) -> int:
        """The highest total a game can end with: below the target before the last round."""
        return min(self.max_rounds * MAX_ROUND_POINTS, self.target_score - 1 + MAX_ROUND_POINTS)

    @property
    def max_steps(self) -> int:
        return self.max_rounds * TRICKS_PER_ROUND * (self.num_players + 1)

    # -- dealing ------------------------------------------------------------------------------
    def new_game(self, rng: np.random.Generator, deal: Any = None) -> SeamlessState:
        """Round 1 dealt by seat 0. ``deal={"hands": [[13 codes] x 4], "trump_card": code}``
        (and optionally ``"dealer"``) fixes the first deal; ``deal["chance"]["deal"]`` scripts
        every round's deal instead (see :func:`~card_envs.seamless.rules.deal.checked_deal`)."""
        written, dealer, script = checked_deal(deal, self.num_players)
        chance = ChanceLog(script)
        if written is None:
            hands, trump_card = self._deal_round(chance, rng, dealer)
        else:  # logged as the first round's outcome, so the record replays it
            outcome = chance.take(rng, DEAL, lambda _: written, lambda given: given)
            hands, trump_card = _round_cards(outcome)
        state = SeamlessState(totals=[0] * self.num_players, chance=chance)
        self._start_round(state, 0, dealer, hands, trump_card)
        return state

    def deal_record(self, state: SeamlessState) -> dict[str, Any]:
        """Every round's deal, and the first dealer when it was not seat 0."""
        record: dict[str, Any] = {"chance": state.chance.record()}
        first_dealer = (state.dealer - state.round) % self.num_players
        if first_dealer:
            record["dealer"] = first_dealer
        return record

    def _deal_round(
        self, chance: ChanceLog, rng: np.random.Generator, dealer: int
    ) -> tuple[list[list[int]], int]:
        """The next round's hands and trump card: scripted, or shuffled and dealt from ``rng``."""
        key = f"deal['chance']['deal'][{len(chance.log.get(DEAL, []))}]"
        outcome = chance.take(
            rng,
            DEAL,
            lambda r: self._shuffle_and_deal(r, dealer),
            lambda given: checked_outcome(given, key, dealer, self.num_players),
        )
        return _round_cards(outcome)

    def _shuffle_and_deal(self, rng: np.random.Generator, dealer: int) -> list[Any]:
        """Deal one card at a time clockwise from the dealer's left; the last goes to the dealer
        and is revealed as the trump card. The outcome: [hands (sorted), trump card]."""
        n = self.num_players
        deck = shuffled_deck(rng)  # card i goes to seat (dealer + 1 + i) % n: a slice a seat
        hands = [sorted(deck[(seat - dealer - 1) % n :: n]) for seat in range(n)]
        return [hands, deck[-1]]

    def _start_round(
        self,
        state: SeamlessState,
        round_index: int,
        dealer: int,
        hands: list[list[int]],
        trump_card: int,
    ) -> None:
        """Set every round field of ``state`` for a fresh deal (totals and the last round's
        scores carry over)."""
        for hand in hands:
            hand.sort()
        state.round = round_index
        state.dealer = dealer
        state.trump = trump_card // NUM_RANKS
        state.trump_card = trump_card
        state.hands = hands
        state.rows = [[EMPTY] * NUM_RANKS for _ in range(self.num_players)]
        state.leader = (dealer + 1) % self.num_players
        state.trick = []
        state.trick_number = 0
        state.phase = PLAY
        state.winner = EMPTY
        state.played = []
        state.discard = []

    # -- whose turn, what is legal ------------------------------------------------------------
    def current_player(self, state: SeamlessState) -> int:
        if state.phase == CLAIM:
            return state.winner
        return (state.leader + len(state.trick)) % self.num_players

    def legal_actions(self, state: SeamlessState) -> list[int]:
        if state.over:
            return []
        if state.phase == CLAIM:
            claim = self._claim_start
            return sorted(claim + card for card in state.trick)
        play = self._play
        hand = state.hands[self.current_player(state)]
        if state.trick:
            lead_suit = state.trick[0] // NUM_RANKS
            follow = [play + c for c in hand if c // NUM_RANKS == lead_suit]
            return follow or [play + c for c in hand]
        if state.trick_number == 0 and not self._may_lead_trump(hand, state.trump):
            return [play + c for c in hand if c // NUM_RANKS != state.trump]
        return [play + c for c in hand]

    def legal_mask(self, state: SeamlessState) -> np.ndarray:
        """The compiled mask (``rules/_moves.pyx``) when it is built, else
        :meth:`legal_mask_py`: the same bytes either way."""
        if self._moves is None:
            return self.legal_mask_py(state)
        return self._moves.mask(state)

    def write_legal_mask(self, state: SeamlessState, out: memoryview[Any]) -> None:
        """The compiled mask written straight into ``out`` when it is built, else
        :meth:`legal_mask_py` copied in."""
        if self._moves is None:
            out[:] = self.legal_mask_py(state).data
        else:
            self._moves.write(state, out)

    def legal_mask_py(self, state: SeamlessState) -> np.ndarray:
        """The reference mask: :meth:`legal_actions` set byte by byte."""
        return super().legal_mask(state)

    def _may_lead_trump(self, hand: list[int], trump: int) -> bool:
        """The trick-1 restriction: ruling (no non-trump card) or option (void in a suit)."""
        suits = {c // NUM_RANKS for c in hand}
        if self.trick_one_trump_lead == "no_other_suit":
            return suits <= {trump}
        return any(s not in suits for s in range(NUM_SUITS) if s != trump)

    def rule_violation(self, state: SeamlessState, block: str, index: int) -> str | None:
        match block:
            case "play":
                if state.phase == CLAIM:
                    return "the trick winner must claim a card, not play one"
                return self._play_violation(state, index)
            case "claim":
                if state.phase != CLAIM:
                    return "no trick to claim from: play a card"
                if index not in state.trick:
                    return "that card is not in the won trick"
                return None
        raise ValueError(f"no action block {block!r} in Seamless (play, claim)")

    def _play_violation(self, state: SeamlessState, card: int) -> str | None:
        """Why the player to act may not play ``card`` now, or ``None``."""
        hand = state.hands[self.current_player(state)]
        suit = card // NUM_RANKS
        if card not in hand:
            return "that card is not in your hand"
        if state.trick:
            lead = state.trick[0] // NUM_RANKS
            if suit != lead and any(c // NUM_RANKS == lead for c in hand):
                return "you must follow the led suit"
            return None
        if (
            state.trick_number == 0
            and suit == state.trump
            and not self._may_lead_trump(hand, state.trump)
        ):
            return "trump may not be led on trick 1 while you hold another suit"
        return None

    # -- transitions --------------------------------------------------------------------------
    def apply(self, state: SeamlessState, action: int, rng: np.random.Generator) -> None:
        """The compiled play or claim (``rules/_moves.pyx``) when it is built, else
        :meth:`apply_py`: the same state either way."""
        if self._moves is None:
            self.apply_py(state, action, rng)
        elif self._moves.apply(state, action):
            self._end_round(state, rng)

    def apply_py(self, state: SeamlessState, action: int, rng: np.random.Generator) -> None:
        """The reference move: decode the id, play the card or claim it into the winner's row."""
        card = self._actions.decode(action)[1]  # the phase says which block a legal id is in
        if state.phase == CLAIM:
            self._claim(state, card)
            if state.trick_number == TRICKS_PER_ROUND:
                self._end_round(state, rng)
            return
        player = self.current_player(state)
        state.hands[player].remove(card)
        state.trick.append(card)
        state.played.append(card)
        if card == state.trump_card:
            state.trump_card = EMPTY
        if len(state.trick) == self.num_players:
            winner = trick_winner_index(state.trick, state.trump)
            state.winner = (state.leader + winner) % self.num_players
            state.phase = CLAIM

    def _claim(self, state: SeamlessState, card: int) -> None:
        """Place or Replace ``card`` in the winner's row; the other cards go to the discard."""
        row = state.rows[state.winner]
        rank = card % NUM_RANKS
        if row[rank] != EMPTY:
            state.discard.append(row[rank] * NUM_RANKS + rank)
        row[rank] = card // NUM_RANKS
        state.discard.extend(c for c in state.trick if c != card)
        state.trick = []
        state.leader = state.winner
        state.winner = EMPTY
        state.phase = PLAY
        state.trick_number += 1

    def _end_round(self, state: SeamlessState, rng: np.random.Generator) -> None:
        state.last_round = [score_row(row) for row in state.rows]
        for seat, result in enumerate(state.last_round):
            state.totals[seat] += result.points
        if max(state.totals) >= self.target_score or state.round + 1 >= self.max_rounds:
            state.over = True
            return
        dealer = (state.dealer + 1) % self.num_players
        hands, trump_card = self._deal_round(state.chance, rng, dealer)
        self._start_round(state, state.round + 1, dealer, hands, trump_card)

    # -- results ------------------------------------------------------------------------------
    def is_over(self, state: SeamlessState) -> bool:
        return state.over

    def scores(self, state: SeamlessState) -> list[int]:
        return state.totals

    def round_index(self, state: SeamlessState) -> int:
        return state.round

    def winners(self, state: SeamlessState) -> list[int]:
        """Highest total; ties: most rank runs, then suit runs, then cards in the final round,
        then the first tied seat clockwise after the final round's dealer."""
        if not state.over:
            return []

        def key(seat: int) -> tuple[int, ...]:
            final = state.last_round[seat]
            after_dealer = (seat - state.dealer - 1) % self.num_players
            return (
                state.totals[seat],
                final.rank_runs,
                final.suit_runs,
                final.cards,
                -after_dealer,
            )

        return [max(range(self.num_players), key=key)]

    # -- checks and views ---------------------------------------------------------------------
    def check_invariants(self, state: SeamlessState) -> None:
        row_cards = [s * NUM_RANKS + r for row in state.rows for r, s in enumerate(row) if s >= 0]
        held = [c for hand in state.hands for c in hand]
        everything = sorted(held + state.trick + state.discard + row_cards)
        assert everything == list(range(DECK_SIZE)), "the 52 cards are not conserved"
        sizes = {
            len(hand) + (i in self._played_this_trick(state)) for i, hand in enumerate(state.hands)
        }
        assert sizes == {TRICKS_PER_ROUND - state.trick_number} or state.over, "hand sizes"

    def _played_this_trick(self, state: SeamlessState) -> set[int]:
        return {(state.leader + i) % self.num_players for i in range(len(state.trick))}

    def resample_hidden(
        self, state: SeamlessState, observer: int, rng: np.random.Generator
    ) -> SeamlessState:
        """Redeal the other hands' cards among them, keeping sizes, the revealed trump card and
        every void shown this round (:mod:`~card_envs.seamless.rules.hidden`). The unseen cards
        are sorted before the deal, so it depends only on what ``observer`` knows. The copy's
        chance log starts empty: the deals it logged show the true hands, and its script the
        future, neither of which ``observer`` may know (later deals are drawn)."""
        new = self.clone_without_chance(state)
        others = [p for p in range(self.num_players) if p != observer]
        pool = sorted(c for p in others for c in new.hands[p] if c != new.trump_card)
        keep = {p: [new.trump_card] if new.trump_card in new.hands[p] else [] for p in others}
        sizes = {p: len(new.hands[p]) - len(keep[p]) for p in others}
        hands = deal_unseen(new, observer, pool, sizes, self.trick_one_trump_lead, rng)
        for p in others:
            new.hands[p] = sorted(keep[p] + hands[p])
        return new

    def render(self, state: SeamlessState) -> str:
        return self._table(state, visible=range(self.num_players))

    def render_seat(self, state: SeamlessState, seat: int) -> str:
        return self._table(state, visible=(seat,))

    def _table(self, state: SeamlessState, visible: range | tuple[int, ...]) -> str:
        winner = self.winners(state)[0] if state.over else EMPTY
        return table(state, visible, self.max_rounds, winner, self.current_player(state))


def _round_cards(outcome: list[Any]) -> tuple[list[list[int]], int]:
    """A round's hands (fresh lists: play must not edit the logged outcome) and trump card."""
    hands, trump_card = outcome
    return [list(hand) for hand in hands], trump_card
