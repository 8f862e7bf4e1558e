"""The state of a Seers Catalog game: plain data, copied by ``copy.deepcopy``."""

from __future__ import annotations

from dataclasses import dataclass, field

from card_envs.core.chance import ChanceLog
from card_envs.seers_catalog.rules.melds import Key


@dataclass
class Meld:
    """One meld on the table: who played it, its cards (codes) and its key."""

    seat: int
    cards: list[int]
    key: Key


@dataclass
class SeersCatalogState:
    """Everything about a Seers Catalog game; plain data, copied by ``copy.deepcopy``."""

    round: int
    hands: list[list[int]]  # codes, ascending
    removed: list[int]  # cards out of this round (2 seers: 3 suited; injected deals: the
    # cards in no hand): hidden from everyone
    undealt: list[int]  # artifacts of the pool not dealt this round: hidden from everyone
    leader: int
    turn: int
    passed: list[bool]
    known: list[list[int]]  # known[o][p]: bitmask of codes seer o knows are in p's hand
    totals: list[int]
    round_scores: list[list[int]] = field(default_factory=list)
    table: list[Meld] = field(default_factory=list)
    aside: list[int] = field(default_factory=list)  # put aside this round, face up
    pending: list[int] = field(default_factory=list)  # codes chosen for the meld being built
    stuck: int = 0  # seers in a row who could not lead
    # public history of this round (a new round starts empty): (seat, artifact code) for every
    # artifact played face up (twice if a Rod pick-up let it be played again), and (user,
    # target) for every Lens look (what it showed is in ``known``, the looker's alone)
    artifacts_played: list[tuple[int, int]] = field(default_factory=list)
    lens_looks: list[tuple[int, int]] = field(default_factory=list)
    over: bool = False
    chance: ChanceLog = field(default_factory=ChanceLog)  # every round's hands, scripted or drawn
    first_leader: int | None = None  # round 1's leader as the deal wrote it (deal_record gives it)
