"""The Seals game state (plain data) and its phases."""

from __future__ import annotations

from dataclasses import dataclass, field

from card_envs.core.chance import ChanceLog
from card_envs.seals.rules.series import NUM_SERIES

TAKE, REVEAL = 0, 1  # taking from the face-up row; showing series or ending the turn
ROUND_COUNTER = 5  # blasons stacked at the start: one leaves per round, so 5 rounds
NO_ONE = -1
ROW_SIZE = 4  # face-up cards after each refill
TARGET_BLASONS = 5  # a round that leaves a seat with this many ends the game


@dataclass
class LastRound:
    """How the previous round ended (for rendering)."""

    winner: int = NO_ONE
    revealed: tuple[int, ...] = ()
    blasons: int = 0


@dataclass
class SealsSetup:
    """The position a deal wrote by hand, as codes (``None``: a key the deal left out), kept so
    that ``deal_record`` can give it back. A dataclass, not a dict: keys equal to the state's
    attribute names would be shared with them in the state but not in an unpickled copy."""

    hands: list[list[int]] | None = None
    row: list[int] | None = None
    pile: list[int] | None = None  # the top of the pile, top card first
    blasons: list[int] | None = None
    counter: int | None = None
    starter: int | None = None


@dataclass
class SealsState:
    """Everything about a Seals game; plain data, copied by ``copy.deepcopy``."""

    num_players: int
    pile: list[int]  # face down; the top card is the LAST element
    row: list[int] = field(default_factory=list)  # face up
    hands: list[list[int]] = field(default_factory=list)
    symbols: list[list[int]] = field(default_factory=list)  # per seat: hand count per symbol
    blasons: list[int] = field(default_factory=list)
    counter: int = ROUND_COUNTER  # blasons left on the round counter
    round: int = 0  # rounds started before this one, tie rounds included
    starter: int = 0  # the seat whose turn it is to start a round (rotates every round)
    active: list[bool] = field(default_factory=list)  # seats playing this round
    tie_round: int = 0  # 0 in the normal game, k in the k-th extra round among tied players
    player: int = 0
    phase: int = TAKE
    revealed: list[int] = field(default_factory=lambda: [0] * NUM_SERIES)  # this turn's series
    last: LastRound = field(default_factory=LastRound)
    over: bool = False
    chance: ChanceLog = field(default_factory=ChanceLog)  # every shuffled pile, scripted or drawn
    setup: SealsSetup = field(default_factory=SealsSetup)  # what the deal wrote by hand
