"""The state of a Catastrophic Card Game: plain data, copied by ``copy.deepcopy``."""

from __future__ import annotations

from dataclasses import dataclass, field

from card_envs.core.chance import ChanceLog

NONE = -1

# Phases: who acts and what they decide.
DRAW, MAIN, DISCARD, TARGET, BURN_SET, REACT, VICTORY = range(7)
PHASE_NAMES = (
    "draw",
    "lay or discard",
    "discard after laying",
    "target",
    "burn a set",
    "react",
    "victory",
)


@dataclass
class UnfortunateEventsState:
    """Everything about a game. Seats are absolute here; observations make them relative."""

    hands: list[list[int]]  # hands[p][kind] = count
    pile: list[int]  # kinds; pile[-1] is drawn next
    discard: list[int]  # kinds; discard[-1] is the face-up top
    discard_counts: list[int]  # count vector of ``discard``
    laid: list[list[int]]  # set ids each seat has on the table, in the order laid
    owed3: list[int]  # 3-sets each seat still has to lay (1 + one per Mr. Poe)
    owed4: list[int]  # 4-sets each seat still has to lay
    victory: list[int]  # Victory cards each seat holds
    centre: int  # Victory cards left in the centre
    dealer: int
    turn_player: int  # whose turn it is (or was, while a special card resolves)
    actor: int  # who decides now: the turn player, a Snicket holder, or the round winner
    phase: int = DRAW
    turns: int = 0  # turns finished this round
    round: int = 0
    pending: int = NONE  # the attacking special card being resolved
    target: int = NONE  # its target seat
    burn_set: int = NONE  # the set id chosen to burn
    # Public knowledge of hands: cards each seat took from the discard (or showed by being asked
    # for a Snicket) and has not visibly given up since; a lower bound on that hand.
    known: list[list[int]] = field(default_factory=list)
    # seen[viewer][seat]: that hand as Olaf's Eye showed it to the viewer this round, or None.
    seen: list[list[list[int] | None]] = field(default_factory=list)
    # eye_known[(viewer, seat)]: what the viewer knows that hand still holds, from what Olaf's
    # Eye showed it this round and the public changes since (like ``known``, a lower bound that
    # dominates it); only for determinisations, never observed (``seen`` is the observation).
    eye_known: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    # The last attack that was resolved or cancelled this round, public (the attacker names the
    # target aloud): (kind, attacker, target, burn set or NONE, cancelled), or None.
    last_attack: tuple[int, int, int, int, bool] | None = None
    round_winner: int = NONE
    over: bool = False
    truncated: bool = False
    stalled: bool = False  # truncated because no card could be drawn
    chance: ChanceLog = field(default_factory=ChanceLog)  # every deal and reshuffle so far
