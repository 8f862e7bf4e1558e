"""The Sequitur state (plain data) and the steps and decisions of a round.

Simultaneous steps run in seat order and nobody sees another player's choices in a step until it
ends: other seats observe ``shown_racks`` / ``shown_used`` / ``shown_secret`` /
``shown_deck_sizes`` (a secret goal's draw would show its colour), copies refreshed at each
step's end.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from card_envs.core.chance import ChanceLog
from card_envs.sequitur.rules.cards import MAX_RACK, NUM_BALLS
from card_envs.sequitur.rules.goals import GoalCard
from card_envs.sequitur.rules.words import NO_CHOICE

NUM_ROUNDS = 3
EMPTY = -1  # no ball, goal card or spelling

# Steps of a round and the decision a player faces within one.
SETUP, GOAL, ACTION, SPELL, CLAIM, OVER = range(6)
PHASES = ("setup", "goal", "action", "spell", "claim", "over")
DECISIONS = ("colour", "keep", "place", "card", "spell", "blank", "q_mode", "claim")
COLOUR, KEEP, PLACE, CARD, SPELL_KEEP, BLANK_LETTER, Q_MODE, CLAIM_GOAL = range(len(DECISIONS))
FIRST_DECISION = {SETUP: COLOUR, GOAL: KEEP, ACTION: CARD, SPELL: SPELL_KEEP}  # of a seat's turn


@dataclass
class SequiturState:
    """Everything about a Sequitur game; plain data, copied by ``copy.deepcopy``."""

    num_players: int
    round: int = 0
    phase: int = SETUP
    goal_step: int = 0  # colour index of the current (or last) goal and action step
    actor: int = 0
    decision: int = COLOUR
    bag: list[int] = field(default_factory=list)  # drawn from the end; order hidden
    racks: list[list[int]] = field(default_factory=list)
    shown_racks: list[list[int]] = field(default_factory=list)  # as of the last step's end
    ball: int = EMPTY  # a drawn ball the actor must place
    to_place: int = 0  # setup balls the actor has still to draw and place
    decks: list[list[int]] = field(default_factory=list)  # per colour, drawn from the end
    discards: list[list[int]] = field(default_factory=list)  # face down, per colour
    discarder: dict[int, int] = field(default_factory=dict)  # face-down goal -> seat
    own_discards: list[list[int]] = field(default_factory=list)  # per seat, the same cards
    open_discards: list[int] = field(default_factory=list)  # unclaimed public goals, face up
    shown_deck_sizes: tuple[int, ...] = ()  # as of the last step's end
    drawn: list[int] = field(default_factory=list)  # goal cards the actor must keep or discard
    secret: list[int] = field(default_factory=list)
    shown_secret: list[bool] = field(default_factory=list)  # its colour is visible to all
    kept: list[int] = field(default_factory=list)  # face-down public goal of each seat
    public: list[int] = field(default_factory=list)  # face-up public goals
    used: list[list[bool]] = field(default_factory=list)
    shown_used: list[list[bool]] = field(default_factory=list)
    spell_key: int = EMPTY  # the actor's chosen spelling while naming blank / Q mode
    blank: int = NO_CHOICE
    words: list[str] = field(default_factory=list)  # "" when nothing was spelled
    word_balls: list[list[int]] = field(default_factory=list)  # in reading order
    scores: list[int] = field(default_factory=list)  # word scores this round
    words_shown: bool = False
    claim_order: list[int] = field(default_factory=list)
    claim_pos: int = 0
    claim_passed: list[bool] = field(default_factory=list)  # stopped claiming this round
    meets: list[list[int]] = field(default_factory=list)  # public goals each word meets
    stacks: list[list[int]] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    chance: ChanceLog = field(default_factory=ChanceLog)  # every chance outcome (``events``)


def check_invariants(state: SequiturState, goals: tuple[GoalCard, ...]) -> None:
    """Raise ``AssertionError`` unless every ball and goal card is in exactly one place, each
    face-down discard has its owner and each total is the sum of its stack."""
    balls = state.bag + [b for rack in state.racks for b in rack]
    balls += [state.ball] if state.ball != EMPTY else []
    assert sorted(balls) == list(range(NUM_BALLS)), "the 72 balls are not conserved"
    places = [g for deck in state.decks for g in deck] + [g for d in state.discards for g in d]
    places += state.open_discards + state.drawn + state.public + state.secret + state.kept
    places += [g for stack in state.stacks for g in stack]
    found = sorted(g for g in places if g != EMPTY)
    assert found == list(range(len(goals))), "the goal cards are not conserved"
    assert set(state.discarder) == {g for d in state.discards for g in d}, "face-down owners"
    owned = [
        sorted(g for g, p in state.discarder.items() if p == s) for s in range(state.num_players)
    ]
    assert [sorted(cards) for cards in state.own_discards] == owned, "own discards"
    for seat, stack in enumerate(state.stacks):
        assert state.totals[seat] == sum(goals[g].points for g in stack), "totals"
    assert all(len(rack) <= MAX_RACK for rack in state.racks), "rack overflow"
