"""The Seamless game state (plain data) and its phases."""

from __future__ import annotations

from dataclasses import dataclass, field

from card_envs.core.chance import ChanceLog
from card_envs.seamless.rules.cards import EMPTY
from card_envs.seamless.rules.scoring import RowScore

PLAY, CLAIM = 0, 1  # playing to the trick; the trick winner claiming one of its cards


@dataclass
class SeamlessState:
    """Everything about a Seamless game; plain data, copied by ``copy.deepcopy``. The round
    fields (``round`` to ``discard``) are set by the game at every round start."""

    round: int = 0
    dealer: int = 0
    trump: int = 0
    trump_card: int = EMPTY  # the dealer's revealed card while still in the dealer's hand
    hands: list[list[int]] = field(default_factory=list)
    rows: list[list[int]] = field(default_factory=list)  # rows[p][rank] is the owned suit or EMPTY
    leader: int = 0
    trick: list[int] = field(default_factory=list)  # cards in play order from the leader
    trick_number: int = 0
    phase: int = PLAY
    winner: int = EMPTY  # the trick winner while claiming
    played: list[int] = field(default_factory=list)  # cards played this round, in order
    discard: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)  # one per seat, kept across rounds
    last_round: list[RowScore] = field(default_factory=list)
    over: bool = False
    chance: ChanceLog = field(default_factory=ChanceLog)  # every round's deal, scripted or drawn
