"""Seamless row scoring: 1 per card plus capped rank-run and suit-run bonuses."""

from __future__ import annotations

from dataclasses import dataclass

from card_envs.seamless.rules.cards import EMPTY, NUM_RANKS

RUN_BONUS_CAP = 3
MIN_RUN = 3
MAX_ROUND_POINTS = NUM_RANKS + 2 * RUN_BONUS_CAP  # 13 cards and both bonuses


@dataclass
class RowScore:
    """One row's score for a round, with the counts the tie-breakers need."""

    cards: int = 0
    rank_runs: int = 0
    suit_runs: int = 0

    @property
    def points(self) -> int:
        return self.cards + min(self.rank_runs, RUN_BONUS_CAP) + min(self.suit_runs, RUN_BONUS_CAP)


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
