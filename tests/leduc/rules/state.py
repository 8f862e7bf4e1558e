"""The Leduc game state (plain data)."""

from __future__ import annotations

from dataclasses import dataclass, field

from card_envs.core.chance import ChanceLog
from leduc.rules.cards import NO_CARD

NO_SEAT = -1  # nobody folded
ROUNDS = 2  # betting rounds: before and after the public card


@dataclass
class LeducState:
    """Everything about a Leduc game; plain data, copied by ``copy.deepcopy``."""

    hands: list[int] = field(default_factory=list)  # each seat's private card
    # Not named "public", a chance event's name: a string equal to a field's name is shared
    # with it in a state but not in an unpickled copy, so the two would pickle differently.
    public_card: int = NO_CARD  # dealt between the rounds
    round: int = 0  # 0: the first betting round, 1: the second
    contributions: list[int] = field(default_factory=list)  # chips each seat put in, ante too
    pot: int = 0  # the chips in the pot: the sum of the contributions
    raises: int = 0  # raises made this round
    to_act: int = 0
    history: list[list[int]] = field(default_factory=lambda: [[] for _ in range(ROUNDS)])
    folded: int = NO_SEAT
    over: bool = False
    chance: ChanceLog = field(default_factory=ChanceLog)  # the deal and the public card
