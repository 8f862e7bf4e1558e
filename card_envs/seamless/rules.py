"""Seamless rules: state, legal moves, transitions and scoring (no Gymnasium, no PettingZoo).

Four players, a standard deck (codes in :mod:`card_envs.core.cards`). Each round: 13 tricks;
the trick winner claims one of the four cards into a personal 2..A row (Place a new rank or
Replace the suit of an owned rank). Rows score 1 per card plus capped rank-run and suit-run
bonuses. The game ends after a round in which someone reaches 15 points, or after round 5.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from card_envs.core.cards import DECK_SIZE, NUM_RANKS, card_name, shuffled_deck
from card_envs.core.deal import (
    check_codes,
    check_deal,
    check_int,
    check_list,
    check_once,
    check_seat,
)
from card_envs.core.game import ROUNDS_LIMIT, Game, check_int_option, check_option
from card_envs.core.spec import ActionBlock, ActionSpec

NUM_PLAYERS = 4
TRICKS_PER_ROUND = 13
TARGET_SCORE = 15
MAX_ROUNDS = 5
RUN_BONUS_CAP = 3
MIN_RUN = 3
MAX_ROUND_POINTS = NUM_RANKS + 2 * RUN_BONUS_CAP  # 13 cards and both bonuses
EMPTY = -1

PLAY, CLAIM = 0, 1
PLAY_BASE = 0
CLAIM_BASE = DECK_SIZE
NUM_ACTIONS = 2 * DECK_SIZE

# Who may lead trump on trick 1 (the ruling, and the rulebook's other reading).
TRUMP_LEAD_RULES = ("no_other_suit", "void_in_a_suit")


@dataclass
class RowScore:
    """One row's score for a round, with the counts the tie-breakers need."""

    cards: int = 0
    rank_runs: int = 0
    suit_runs: int = 0

    @property
    def points(self) -> int:
        return self.cards + min(self.rank_runs, RUN_BONUS_CAP) + min(self.suit_runs, RUN_BONUS_CAP)


@dataclass
class SeamlessState:
    """Everything about a Seamless game; plain data, copied by ``copy.deepcopy``."""

    round: int
    dealer: int
    trump: int
    trump_card: int  # the dealer's revealed card while still in the dealer's hand, else EMPTY
    hands: list[list[int]]
    rows: list[list[int]]  # rows[p][rank] is the owned suit or EMPTY
    leader: int
    trick: list[int] = field(default_factory=list)  # cards in play order from the leader
    trick_number: int = 0
    phase: int = PLAY
    winner: int = EMPTY  # the trick winner while claiming
    played: list[int] = field(default_factory=list)  # cards played this round, in order
    discard: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=lambda: [0] * NUM_PLAYERS)
    last_round: list[RowScore] = field(default_factory=list)
    over: bool = False


def score_row(row: list[int]) -> RowScore:
    """Score a 13-slot row: 1 per card, +1 per maximal block of 3+ consecutive ranks (rank run),
    +1 per maximal block of 3+ consecutive ranks of one suit (suit run); each bonus capped at 3
    by :attr:`RowScore.points`."""
    result = RowScore(cards=sum(suit != EMPTY for suit in row))
    rank_block = suit_block = 0
    for rank in range(NUM_RANKS + 1):
        suit = row[rank] if rank < NUM_RANKS else EMPTY
        if suit == EMPTY:
            result.rank_runs += rank_block >= MIN_RUN
            result.suit_runs += suit_block >= MIN_RUN
            rank_block = suit_block = 0
            continue
        if suit_block and row[rank - 1] != suit:
            result.suit_runs += suit_block >= MIN_RUN
            suit_block = 0
        rank_block += 1
        suit_block += 1
    return result


def trick_winner_index(trick: list[int], trump: int) -> int:
    """Index in ``trick`` of the winning card: highest trump, else highest of the led suit."""
    lead_suit = trick[0] // NUM_RANKS
    best = 0
    for i in range(1, len(trick)):
        card, top = trick[i], trick[best]
        suit, top_suit = card // NUM_RANKS, top // NUM_RANKS
        if suit == top_suit:
            if card > top:
                best = i
        elif suit == trump or (top_suit != trump and suit == lead_suit):
            best = i
    return best


class SeamlessGame(Game[SeamlessState]):
    """Seamless for four players; see ``docs/seamless.md`` for rules and rulings."""

    name = "seamless"
    player_counts = (NUM_PLAYERS,)
    default_players = NUM_PLAYERS

    def __init__(
        self,
        num_players: int = NUM_PLAYERS,
        trick_one_trump_lead: str = "no_other_suit",
        max_rounds: int = MAX_ROUNDS,
        target_score: int = TARGET_SCORE,
    ):
        super().__init__(num_players)
        check_option("trick_one_trump_lead", trick_one_trump_lead, TRUMP_LEAD_RULES)
        self.trick_one_trump_lead = trick_one_trump_lead
        self.max_rounds = check_int_option("max_rounds", max_rounds, 1, ROUNDS_LIMIT)
        self.target_score = check_int_option("target_score", target_score, 1)
        self._actions = ActionSpec(
            [
                ActionBlock("play", DECK_SIZE, "play this card from your hand", "card = id"),
                ActionBlock(
                    "claim", DECK_SIZE, "claim this card of the won trick", "card = id - 52"
                ),
            ],
            action_name,
        )

    @property
    def actions(self) -> ActionSpec:
        return self._actions

    @property
    def max_total(self) -> int:
        """The highest total a game can end with: below the target before the last round."""
        return min(self.max_rounds * MAX_ROUND_POINTS, self.target_score - 1 + MAX_ROUND_POINTS)

    @property
    def max_steps(self) -> int:
        return self.max_rounds * TRICKS_PER_ROUND * (NUM_PLAYERS + 1)

    # -- dealing ------------------------------------------------------------------------------
    def new_game(self, rng: np.random.Generator, deal: Any = None) -> SeamlessState:
        """Round 1 dealt by seat 0; ``deal={"hands": [[13 codes] x 4], "trump_card": code}``
        (and optionally ``"dealer"``) fixes the first deal."""
        totals = [0] * NUM_PLAYERS
        if deal is None:
            return self._deal_round(rng, 0, 0, totals)
        hands, trump_card, dealer = self._checked_deal(deal)
        return self._start_round(0, dealer, hands, trump_card, totals)

    def _deal_round(
        self, rng: np.random.Generator, round_index: int, dealer: int, totals: list[int]
    ) -> SeamlessState:
        """Deal one card at a time clockwise from the dealer's left; the last goes to the dealer."""
        deck = shuffled_deck(rng)
        hands = [[] for _ in range(NUM_PLAYERS)]
        for i, card in enumerate(deck):
            hands[(dealer + 1 + i) % NUM_PLAYERS].append(card)
        return self._start_round(round_index, dealer, hands, deck[-1], totals)

    def _checked_deal(self, deal: Any) -> tuple[list[list[int]], int, int]:
        """The deal's hands, trump card and dealer, or an error naming the key at fault."""
        check_deal(deal, ("hands", "trump_card", "dealer"), required=("hands", "trump_card"))
        raw = check_list(deal["hands"], "deal['hands']", NUM_PLAYERS, "hands")
        hands = [
            check_codes(hand, f"deal['hands'][{seat}]", DECK_SIZE, TRICKS_PER_ROUND)
            for seat, hand in enumerate(raw)
        ]
        check_once((c for hand in hands for c in hand), "deal['hands']", card_name)
        dealer = check_seat(deal.get("dealer", 0), "deal['dealer']", NUM_PLAYERS)
        trump_card = check_int(
            deal["trump_card"], "deal['trump_card']", 0, DECK_SIZE - 1, "a card code"
        )
        if trump_card not in hands[dealer]:
            raise ValueError(
                f"deal['trump_card'] must be in the dealer's hand (seat {dealer}), "
                f"got {card_name(trump_card)} ({trump_card})"
            )
        return hands, trump_card, dealer

    def _start_round(
        self, round_index: int, dealer: int, hands: list[list[int]], trump_card: int, totals
    ) -> SeamlessState:
        for hand in hands:
            hand.sort()
        return SeamlessState(
            round=round_index,
            dealer=dealer,
            trump=trump_card // NUM_RANKS,
            trump_card=trump_card,
            hands=hands,
            rows=[[EMPTY] * NUM_RANKS for _ in range(NUM_PLAYERS)],
            leader=(dealer + 1) % NUM_PLAYERS,
            totals=totals,
        )

    # -- whose turn, what is legal ------------------------------------------------------------
    def current_player(self, state: SeamlessState) -> int:
        if state.phase == CLAIM:
            return state.winner
        return (state.leader + len(state.trick)) % NUM_PLAYERS

    def legal_actions(self, state: SeamlessState) -> list[int]:
        if state.over:
            return []
        if state.phase == CLAIM:
            return sorted(CLAIM_BASE + card for card in state.trick)
        hand = state.hands[self.current_player(state)]
        if state.trick:
            lead_suit = state.trick[0] // NUM_RANKS
            follow = [c for c in hand if c // NUM_RANKS == lead_suit]
            return follow or list(hand)
        if state.trick_number == 0 and not self._may_lead_trump(hand, state.trump):
            return [c for c in hand if c // NUM_RANKS != state.trump]
        return list(hand)

    def _may_lead_trump(self, hand: list[int], trump: int) -> bool:
        """The trick-1 restriction: ruling (no non-trump card) or option (void in a suit)."""
        suits = {c // NUM_RANKS for c in hand}
        if self.trick_one_trump_lead == "no_other_suit":
            return suits <= {trump}
        return any(s not in suits for s in range(4) if s != trump)

    def illegal_reason(self, state: SeamlessState, action: int) -> str | None:
        if state.over:
            return "the game is over"
        if not 0 <= action < NUM_ACTIONS:
            return f"no such action (ids 0..{NUM_ACTIONS - 1})"
        if state.phase == CLAIM:
            if action < CLAIM_BASE:
                return "the trick winner must claim a card, not play one"
            if action - CLAIM_BASE not in state.trick:
                return "that card is not in the won trick"
            return None
        if action >= CLAIM_BASE:
            return "no trick to claim from: play a card"
        card = action
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
        if state.phase == CLAIM:
            self._claim(state, action - CLAIM_BASE)
            if state.trick_number == TRICKS_PER_ROUND:
                self._end_round(state, rng)
            return
        player = self.current_player(state)
        state.hands[player].remove(action)
        state.trick.append(action)
        state.played.append(action)
        if action == state.trump_card:
            state.trump_card = EMPTY
        if len(state.trick) == NUM_PLAYERS:
            state.winner = (state.leader + trick_winner_index(state.trick, state.trump)) % 4
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
        next_round = self._deal_round(
            rng, state.round + 1, (state.dealer + 1) % NUM_PLAYERS, state.totals
        )
        next_round.last_round = state.last_round
        state.__dict__.update(next_round.__dict__)

    # -- results ------------------------------------------------------------------------------
    def is_over(self, state: SeamlessState) -> bool:
        return state.over

    def scores(self, state: SeamlessState) -> list[int]:
        return state.totals

    def winners(self, state: SeamlessState) -> list[int]:
        """Highest total; ties: most rank runs, then suit runs, then cards in the final round,
        then the first tied seat clockwise after the final round's dealer."""
        if not state.over:
            return []

        def key(seat: int) -> tuple[int, ...]:
            final = state.last_round[seat]
            after_dealer = (seat - state.dealer - 1) % NUM_PLAYERS
            return (
                state.totals[seat],
                final.rank_runs,
                final.suit_runs,
                final.cards,
                -after_dealer,
            )

        return [max(range(NUM_PLAYERS), key=key)]

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
        return {(state.leader + i) % NUM_PLAYERS for i in range(len(state.trick))}

    def resample_hidden(
        self, state: SeamlessState, observer: int, rng: np.random.Generator
    ) -> SeamlessState:
        """Redeal the other hands' cards among them, keeping sizes and the revealed trump card."""
        new = self.clone(state)
        others = [p for p in range(NUM_PLAYERS) if p != observer]
        pool = [c for p in others for c in new.hands[p] if c != new.trump_card]
        pool = [pool[i] for i in rng.permutation(len(pool))]
        for p in others:
            keep = [new.trump_card] if new.trump_card in new.hands[p] else []
            take = len(new.hands[p]) - len(keep)
            new.hands[p] = sorted(keep + pool[:take])
            pool = pool[take:]
        return new

    def render(self, state: SeamlessState) -> str:
        return self._table(state, visible=range(NUM_PLAYERS))

    def render_seat(self, state: SeamlessState, seat: int) -> str:
        return self._table(state, visible=(seat,))

    def _table(self, state: SeamlessState, visible: range | tuple[int, ...]) -> str:
        """The table as text, showing the hands of the ``visible`` seats only."""
        suit = "♣♦♥♠"[state.trump]
        trump_card = card_name(state.trump_card) if state.trump_card != EMPTY else "played"
        lines = [
            f"Seamless round {state.round + 1}/{self.max_rounds}, "
            f"trick {min(state.trick_number + 1, TRICKS_PER_ROUND)}"
            f", dealer player_{state.dealer}, trump {suit} (revealed {trump_card})",
            "trick: "
            + (" ".join(card_name(c) for c in state.trick) or "-")
            + f" (led by player_{state.leader})",
        ]
        for p in range(NUM_PLAYERS):
            row = " ".join(
                card_name(s * NUM_RANKS + r) for r, s in enumerate(state.rows[p]) if s != EMPTY
            )
            if p in visible:
                hand = " ".join(card_name(c) for c in state.hands[p])
            else:
                hand = f"{len(state.hands[p])} cards"
            lines.append(f"player_{p} total {state.totals[p]:3d} | row: {row or '-'} | {hand}")
        if state.over:
            lines.append(f"game over: winner player_{self.winners(state)[0]}")
        else:
            lines.append(f"to act: player_{self.current_player(state)}")
        return "\n".join(lines)


def action_name(action: int) -> str:
    """Readable name of an action id (``"play 10♥"``, ``"claim Q♠"``)."""
    if action < CLAIM_BASE:
        return f"play {card_name(action)}"
    return f"claim {card_name(action - CLAIM_BASE)}"
