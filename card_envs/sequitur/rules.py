"""Sequitur rules: state, legal moves, transitions and scoring (no Gymnasium, no PettingZoo).

1-5 players, 72 letter balls (``data/letters.json``), 72 goal cards (``data/goals.json``). Three
rounds of: draw 5 balls and a secret goal, place 3 more balls on either end; red, yellow and green
goal steps (keep one face down as a public goal or discard it), each followed by an action step
(play one of five Sequitur cards or pass); spell one word from the rack; claim public goals in
word-score order. Simultaneous steps run in seat order and nobody sees another player's choices in
a step until it ends: other seats observe ``shown_racks`` / ``shown_used`` / ``shown_secret`` /
``shown_deck_sizes`` (a secret goal's draw would show its colour), copies refreshed at each
step's end.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.core.deal import check_deal, check_int, check_list, check_once, check_str
from card_envs.core.game import Game, check_option
from card_envs.core.spec import ActionBlock, ActionSpec, block_layout
from card_envs.sequitur.goals import COLOURS, GoalCard, load_goals
from card_envs.sequitur.words import (
    ALPHABET,
    BLANK,
    DATA_DIR,
    MAX_SLOTS,
    NO_CHOICE,
    Q_QU,
    Q_TEXT,
    Dictionary,
    Q,
    find_spellings,
    load_dictionary,
    read_word,
)

PLAYER_COUNTS = (1, 2, 3, 4, 5)
DEFAULT_PLAYERS = 4
NUM_ROUNDS = 3
START_BALLS = 5  # drawn into the rack in draw order
PLACED_BALLS = 3  # then drawn one at a time, each placed on either end
MAX_RACK = MAX_SLOTS  # the ruling's rack size; spelling keeps up to this many slots
MAX_WORD = MAX_RACK + 1  # letters: every ball one letter, the Q ball two as "qu"
SOLO_DRAW = 2  # goal cards drawn at a time in solo play (keep one)
EMPTY = -1
LEFT, RIGHT = 0, 1

# The five Sequitur cards of the ruling, each playable once per round.
CARDS = ("move inside", "move outside", "swap", "exchange", "extend")
CARD_LETTERS = "IOSXE"  # in renders: an unused card's letter, "." once played
MOVE_INSIDE, MOVE_OUTSIDE, SWAP, EXCHANGE, EXTEND = range(len(CARDS))

# Steps of a round and the decision a player faces within one.
SETUP, GOAL, ACTION, SPELL, CLAIM, OVER = range(6)
PHASES = ("setup", "goal", "action", "spell", "claim", "over")
DECISIONS = ("colour", "keep", "place", "card", "spell", "blank", "q_mode", "claim")
COLOUR, KEEP, PLACE, CARD, SPELL_KEEP, BLANK_LETTER, Q_MODE, CLAIM_GOAL = range(len(DECISIONS))
FIRST_DECISION = {SETUP: COLOUR, GOAL: KEEP, ACTION: CARD, SPELL: SPELL_KEEP}  # of a seat's turn

DEAL_KEYS = ("racks", "draws", "goals")
RACK_TEXT = f"strings of {START_BALLS} letters a-z or '?'"


def _letter_table() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Ball id -> letter code and skill points, from ``data/letters.json`` ("?" is the blank)."""
    balls = json.loads((DATA_DIR / "letters.json").read_text())["balls"]
    letters, points = [], []
    for text, entry in balls.items():
        code = BLANK if text == "?" else ALPHABET.index(text)
        letters += [code] * entry["count"]
        points += [entry["points"]] * entry["count"]
    return tuple(letters), tuple(points)


BALL_LETTER, BALL_POINTS = _letter_table()
NUM_BALLS = len(BALL_LETTER)
LETTER_POINTS = {BALL_LETTER[b]: BALL_POINTS[b] for b in range(NUM_BALLS)}


def ball_text(ball: int) -> str:
    """``"W3"`` for a W ball worth 3, ``"?"`` for the blank."""
    code = BALL_LETTER[ball]
    if code == BLANK:
        return "?"
    points = BALL_POINTS[ball]
    return ALPHABET[code].upper() + (str(points) if points else "")


def balls_of(letters: str, taken: set[int] | None = None) -> list[int]:
    """Ball ids spelling ``letters`` ("?" blank), avoiding ``taken`` (updated in place)."""
    taken = set() if taken is None else taken
    out = []
    for ch in letters.lower():
        if ch != "?" and ch not in ALPHABET:
            raise ValueError(f"{letters!r}: balls are letters a-z and '?' (the blank)")
        code = BLANK if ch == "?" else ALPHABET.index(ch)
        free = [b for b in range(NUM_BALLS) if BALL_LETTER[b] == code and b not in taken]
        if not free:
            raise ValueError(f"no {ch!r} ball left for {letters!r}")
        taken.add(free[0])
        out.append(free[0])
    return out


def word_score(word: str, balls: list[int], q_mode: int) -> int:
    """Length of the word plus the skill points of its balls (blank 0; Q as "qu" 0)."""
    points = sum(BALL_POINTS[b] for b in balls if not (BALL_LETTER[b] == Q and q_mode == Q_QU))
    return len(word) + points


# -- action ids ----------------------------------------------------------------------------------
INSIDE_SPOTS = MAX_RACK - 2  # inside positions 1..MAX_RACK-2
SPELL_KEYS = 2 << MAX_SLOTS  # direction bit and a kept-slot bit per rack slot
_BLOCKS = (
    (
        "colour",
        len(COLOURS),
        "secret goal: draw from this deck",
        "colour = id (red, yellow, green)",
    ),
    (
        "keep",
        SOLO_DRAW,
        "keep this drawn goal card (secret, or public face down)",
        "card k = id - start",
    ),
    ("discard", 1, "discard the drawn goal card", "-"),
    (
        "place",
        2,
        "place the drawn ball on this end of the rack",
        "end = id - start (0 left, 1 right)",
    ),
    (
        "pass",
        1,
        "play no Sequitur card this action step (with claim_pass: claim nothing more this round)",
        "-",
    ),
    (
        "move_inside",
        2 * INSIDE_SPOTS,
        "Move Inside: the ball on end e goes to inside position p (final slot index)",
        "e, p-1 = divmod(id - start, 8)",
    ),
    (
        "move_outside",
        2 * INSIDE_SPOTS,
        "Move Outside: the inside ball at slot i goes to end e",
        "i-1, e = divmod(id - start, 2)",
    ),
    ("swap", MAX_RACK - 1, "Swap: the balls at slots i and i+1", "i = id - start"),
    (
        "exchange",
        MAX_RACK,
        "Exchange: return the ball at slot i, draw one into its place",
        "i = id - start",
    ),
    ("extend", 1, "Extend: draw a ball, then place it on an end", "-"),
    (
        "spell",
        SPELL_KEYS,
        "spell the kept rack slots, read left-to-right (d=0) or right-to-left (d=1)",
        "d, slot bits = divmod(id - start, 1024)",
    ),
    ("spell_nothing", 1, "no word can be spelled: spell nothing this round", "-"),
    ("blank", 26, "the blank ball in the word names this letter", "letter = id - start (a=0)"),
    ("q_mode", 2, "the Q ball reads Q (7 points) or Qu (2 letters, 0 points)", "0 Q, 1 Qu"),
)


CARD_BLOCKS = ("pass", "move_inside", "move_outside", "swap", "exchange", "extend")
_DECISION_BLOCKS = {
    COLOUR: ("colour",),
    KEEP: ("keep", "discard"),
    PLACE: ("place",),
    CARD: CARD_BLOCKS,
    SPELL_KEEP: ("spell", "spell_nothing"),
    BLANK_LETTER: ("blank",),
    Q_MODE: ("q_mode",),
    CLAIM_GOAL: ("claim",),
}


def spelled_balls(rack: list[int], key: int) -> list[int]:
    """The balls a spelling key keeps, in reading order (slots past the rack are ignored)."""
    direction, bits = divmod(key, 1 << MAX_SLOTS)
    balls = [ball for slot, ball in enumerate(rack) if bits >> slot & 1]
    return balls[::-1] if direction else balls


def _check_dictionary(dictionary: Any) -> None:
    """A ``ValueError`` unless the option is the bundled list, a file or a collection of words
    (whose loader would otherwise fail on, say, a number with "not iterable")."""
    if dictionary is None or isinstance(dictionary, str | Path | Dictionary):
        return
    if not isinstance(dictionary, Collection) or not all(isinstance(w, str) for w in dictionary):
        raise ValueError(
            "dictionary must be None (the bundled list), a word-list file path or a collection "
            f"of words (strings), got {dictionary!r:.60}"
        )


@dataclass(frozen=True)
class InjectedBalls:
    """A checked deal's balls: whether it fixes the racks, and the balls it puts on top of the
    bag in drawing order (racks first, then draws), all of them in ``taken``."""

    racks: bool
    top: list[int]
    taken: set[int]


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


class SequiturGame(Game[SequiturState]):
    """Sequitur for 1-5 players; see ``docs/sequitur.md`` for rules and rulings."""

    name = "sequitur"
    player_counts = PLAYER_COUNTS
    default_players = DEFAULT_PLAYERS

    def __init__(
        self,
        num_players: int = DEFAULT_PLAYERS,
        dictionary: str | Path | Any = None,
        goals: str | Path | Any = None,
        claim_pass: bool = False,
    ):
        super().__init__(num_players)
        check_option("claim_pass", claim_pass, (False, True))
        self.claim_pass = claim_pass
        _check_dictionary(dictionary)
        try:
            self.dictionary: Dictionary = load_dictionary(dictionary)
        except (TypeError, ValueError, OSError) as error:
            raise ValueError(f"dictionary: {error}") from error
        try:
            self.goals: tuple[GoalCard, ...] = load_goals(goals)
        except (TypeError, ValueError, OSError) as error:
            raise ValueError(f"goals: {error}") from error
        self.solo = self.num_players == 1
        blocks = [ActionBlock(*block) for block in _BLOCKS]
        blocks.append(
            ActionBlock("claim", len(self.goals), "claim this public goal", "goal id = id - start")
        )
        _, self._decoded = block_layout(blocks)
        self._decision_blocks = dict(_DECISION_BLOCKS)
        if claim_pass:
            self._decision_blocks[CLAIM_GOAL] = ("claim", "pass")
        self._actions = ActionSpec(blocks, self._action_name)
        self.start = self._actions.start
        # colour of each goal card (a property is slow on the hot path), and each colour's ids
        self._colour_of = tuple(card.colour_index for card in self.goals)
        self._ids_of = [
            [g for g, colour in enumerate(self._colour_of) if colour == c]
            for c in range(len(COLOURS))
        ]
        self._spell_cache: dict[tuple[int, ...], dict[int, list[tuple[int, int]]]] = {}
        self._masks: dict[tuple[int, ...], np.ndarray] = {}

    @property
    def actions(self) -> ActionSpec:
        return self._actions

    @property
    def max_steps(self) -> int:
        """Per round and player: colour (+ solo keep) and 3 placements, 3 goal decisions, 3
        action steps (+ 1 Extend placement), 3 spelling choices; plus one claim per public goal
        (and, with ``claim_pass``, one pass)."""
        per_player = 1 + self.solo + PLACED_BALLS + 3 + 3 + 1 + 3 + self.claim_pass
        return NUM_ROUNDS * self.num_players * (per_player + len(COLOURS))

    # -- dealing ------------------------------------------------------------------------------
    def new_game(self, rng: np.random.Generator, deal: Any = None) -> SequiturState:
        """Round 1 from ``rng``; ``deal`` may fix ``"racks"`` (a string of 5 letters per seat,
        "?" the blank), ``"draws"`` (letters drawn next, in order) and ``"goals"`` (per colour
        name, goal ids drawn next, in order)."""
        n = self.num_players
        goals, top = ({}, None) if deal is None else self._checked_deal(deal)
        state = SequiturState(num_players=n, stacks=[[] for _ in range(n)], totals=[0] * n)
        state.own_discards = [[] for _ in range(n)]
        for colour in range(len(COLOURS)):
            ids = self._ids_of[colour]
            state.decks.append([ids[i] for i in rng.permutation(len(ids))])
            state.discards.append([])
        for colour, ids in goals.items():  # the injected goal cards go on top of their decks
            deck = state.decks[colour]
            deck[:] = [g for g in deck if g not in ids] + list(reversed(ids))
        self._start_round(state, rng, top)
        return state

    def _checked_deal(self, deal: Any) -> tuple[dict[int, list[int]], InjectedBalls | None]:
        """The deal's goal ids by colour index and its balls, or an error naming the key."""
        check_deal(deal, DEAL_KEYS)
        goals = self._checked_goals(deal.get("goals", {}))
        if "racks" not in deal and "draws" not in deal:
            return goals, None
        n = self.num_players
        racks = check_list(deal.get("racks", []), "deal['racks']", what=RACK_TEXT)
        if racks and len(racks) != n:
            raise ValueError(f"deal['racks'] must be {n} {RACK_TEXT}, got {len(racks)}")
        sources = [(f"deal['racks'][{seat}]", rack) for seat, rack in enumerate(racks)]
        for key, rack in sources:
            if not isinstance(rack, str) or len(rack) != START_BALLS:
                raise ValueError(f"deal['racks'] must be {n} {RACK_TEXT}; {key} is {rack!r:.60}")
        draws = check_str(deal.get("draws", ""), "deal['draws']", "a string of letters a-z or '?'")
        taken: set[int] = set()
        top: list[int] = []
        for key, letters in [*sources, ("deal['draws']", draws)]:
            try:
                top += balls_of(letters, taken)
            except ValueError as error:
                raise ValueError(f"{key}: {error}") from None
        if not racks and len(top) > NUM_BALLS - START_BALLS * n:
            raise ValueError(
                f"deal['draws'] holds {len(top)} balls, but only {NUM_BALLS - START_BALLS * n} "
                "are left to draw after the racks"
            )
        return goals, InjectedBalls(bool(racks), top, taken)

    def _checked_goals(self, raw_goals: Any) -> dict[int, list[int]]:
        """``deal["goals"]``: per colour name, distinct goal ids of that colour."""
        if not isinstance(raw_goals, dict):
            raise ValueError(
                f"deal['goals'] must be a dict of colour name -> goal ids, colours {COLOURS}; "
                f"got {raw_goals!r:.60}"
            )
        goals = {}
        for name, raw in raw_goals.items():
            if name not in COLOURS:
                raise ValueError(f"deal['goals'] keys are colours {COLOURS}, not {name!r}")
            key, colour = f"deal['goals'][{name!r}]", COLOURS.index(name)
            valid = self._ids_of[colour]
            ids = [
                check_int(goal, f"{key}[{i}]", 0, len(self.goals) - 1, "a goal id")
                for i, goal in enumerate(check_list(raw, key, what=f"{name} goal ids"))
            ]
            foreign = [g for g in ids if g not in valid]
            if foreign:
                raise ValueError(
                    f"{key} must be {name} goal ids ({len(valid)} cards: {valid[0]}..), "
                    f"got {foreign[0]}, a {self.goals[foreign[0]].colour} card"
                )
            check_once(ids, key, str, f"the {name} deck")
            goals[colour] = ids
        return goals

    def _start_round(
        self, state: SequiturState, rng: np.random.Generator, balls: InjectedBalls | None = None
    ) -> None:
        """Fill the bag, draw 5 balls per seat in draw order, reset the round's cards."""
        n = self.num_players
        bag = rng.permutation(NUM_BALLS).tolist()
        if balls is not None:
            bag = self._injected_bag(bag, balls)
        state.bag = bag
        state.racks = [[bag.pop() for _ in range(START_BALLS)] for _ in range(n)]
        state.shown_racks = [list(rack) for rack in state.racks]
        state.used = [[False] * len(CARDS) for _ in range(n)]
        state.shown_used = [list(u) for u in state.used]
        state.secret, state.kept = [EMPTY] * n, [EMPTY] * n
        state.shown_secret = [False] * n
        state.words, state.word_balls, state.scores = [""] * n, [[] for _ in range(n)], [0] * n
        state.words_shown, state.claim_order, state.meets = False, [], [[] for _ in range(n)]
        state.public, state.claim_passed = [], [False] * n
        state.shown_deck_sizes = tuple(map(len, state.decks))
        self._begin_phase(state, SETUP, rng)

    def _injected_bag(self, bag: list[int], balls: InjectedBalls) -> list[int]:
        """The bag with the injected racks' and draws' balls on top, in drawing order."""
        rest = [b for b in bag if b not in balls.taken]
        if not balls.racks:  # the draws come after the randomly drawn racks
            cut = len(rest) - START_BALLS * self.num_players
            return rest[:cut] + list(reversed(balls.top)) + rest[cut:]
        return rest + list(reversed(balls.top))

    # -- whose turn, what is legal ------------------------------------------------------------
    def current_player(self, state: SequiturState) -> int:
        return state.actor

    def legal_actions(self, state: SequiturState) -> list[int]:
        if state.phase == OVER:
            return []
        start, decision = self.start, state.decision
        if decision == COLOUR:
            return [c for c in range(len(COLOURS)) if self._has_goals(state, c)]
        if decision == KEEP:
            keeps = [start["keep"] + k for k in range(len(state.drawn))]
            return keeps if self._must_keep(state) else [keeps[0], start["discard"]]
        if decision == PLACE:
            return [start["place"] + LEFT, start["place"] + RIGHT]
        if decision == CARD:
            return self._card_actions(state)
        if decision == CLAIM_GOAL:
            claims = sorted(
                start["claim"] + g for g in state.meets[state.actor] if g in state.public
            )
            return [start["pass"], *claims] if self.claim_pass else claims
        spellings = self._spellings(state.racks[state.actor])
        if decision == SPELL_KEEP:
            if not spellings:
                return [start["spell_nothing"]]
            return [start["spell"] + key for key in sorted(spellings)]
        options = spellings[state.spell_key]
        if decision == BLANK_LETTER:
            return [start["blank"] + b for b in sorted({b for b, _ in options})]
        return [start["q_mode"] + q for q in sorted({q for b, q in options if b == state.blank})]

    def legal_mask(self, state: SequiturState) -> np.ndarray:
        """The mask, shared read-only between states whose legal moves are the same."""
        key = self._mask_key(state)
        mask = self._masks.get(key)
        if mask is None:
            if len(self._masks) > 4096:
                self._masks.clear()
            mask = self._masks[key] = super().legal_mask(state)
            mask.flags.writeable = False
        return mask

    def _mask_key(self, state: SequiturState) -> tuple[int, ...]:
        """What the legal moves depend on, cheaper than them for the common decisions (for the
        rare ones, the legal action ids themselves)."""
        decision = state.decision
        if state.phase == OVER:
            return ()
        if decision == CARD:
            return (CARD, len(state.racks[state.actor]), *state.used[state.actor], bool(state.bag))
        if decision == SPELL_KEEP:
            return (SPELL_KEEP, *(BALL_LETTER[b] for b in state.racks[state.actor]))
        if decision == PLACE:
            return (PLACE,)
        if decision == KEEP:
            return (KEEP, len(state.drawn), self._must_keep(state))
        return (-1, *self.legal_actions(state))

    def _card_actions(self, state: SequiturState) -> list[int]:
        """Pass, and every placement of each unused Sequitur card that fits the rack."""
        start, used, n = self.start, state.used[state.actor], len(state.racks[state.actor])
        out = [start["pass"]]
        if not used[MOVE_INSIDE]:
            out += [
                start["move_inside"] + end * INSIDE_SPOTS + p - 1
                for end in (LEFT, RIGHT)
                for p in range(1, n - 1)
            ]
        if not used[MOVE_OUTSIDE]:
            out += [
                start["move_outside"] + (i - 1) * 2 + end for i in range(1, n - 1) for end in (0, 1)
            ]
        if not used[SWAP]:
            out += [start["swap"] + i for i in range(n - 1)]
        if not used[EXCHANGE]:
            out += [start["exchange"] + i for i in range(n)]
        if not used[EXTEND] and n < MAX_RACK and state.bag:
            out.append(start["extend"])
        return out

    def _must_keep(self, state: SequiturState) -> bool:
        """Secret goals are always kept; in solo one public goal of the two must be kept."""
        return state.phase == SETUP or self.solo

    def _has_goals(self, state: SequiturState, colour: int) -> bool:
        return bool(
            state.decks[colour]
            or state.discards[colour]
            or any(self._colour_of[g] == colour for g in state.open_discards)
        )

    def _spellings(self, rack: list[int]) -> dict[int, list[tuple[int, int]]]:
        """Every spelling of the rack (cached by its letters: racks repeat within a turn)."""
        letters = tuple(BALL_LETTER[b] for b in rack)
        found = self._spell_cache.get(letters)
        if found is None:
            if len(self._spell_cache) > 4096:
                self._spell_cache.clear()
            found = self._spell_cache[letters] = find_spellings(letters, self.dictionary)
        return found

    def illegal_reason(self, state: SequiturState, action: int) -> str | None:
        if state.phase == OVER:
            return "the game is over"
        if not 0 <= action < self._actions.size:
            return f"no such action (ids 0..{self._actions.size - 1})"
        block, k = self._decode(action)
        expected = self._decision_blocks[state.decision]
        if block not in expected:
            return f"now choose {DECISIONS[state.decision]} ({', '.join(expected)}), not {block}"
        rack = state.racks[state.actor]
        if block == "colour":
            return None if self._has_goals(state, k) else "that goal deck is used up"
        if block == "keep":
            return None if k < len(state.drawn) else "only one goal card was drawn"
        if block == "discard":
            return "this goal card must be kept" if self._must_keep(state) else None
        if block == "place":
            return None
        if block in CARD_BLOCKS:
            return self._card_reason(state, block, k)
        if block == "claim":
            if k not in state.public:
                return "that goal is not a public goal on the table"
            word = state.words[state.actor]
            return None if self.goals[k].met_by(word, self.dictionary) else "your word misses it"
        return self._spell_reason(state, rack, block, k)

    def _decode(self, action: int) -> tuple[str, int]:
        """(block name, index within the block) of an action id."""
        return self._decoded[action]

    def _card_reason(self, state: SequiturState, block: str, k: int) -> str | None:
        """Why a Sequitur card play does not fit (``k`` indexes the card's block)."""
        if block == "pass":
            return None
        card = CARD_BLOCKS.index(block) - 1
        if state.used[state.actor][card]:
            return f"{CARDS[card]} was already played this round"
        n = len(state.racks[state.actor])
        if card == MOVE_INSIDE:
            position = k % INSIDE_SPOTS + 1
            return None if position <= n - 2 else f"inside positions are 1..{n - 2}"
        if card == MOVE_OUTSIDE:
            slot = k // 2 + 1
            return None if slot <= n - 2 else f"inside balls are at slots 1..{n - 2}"
        if card == SWAP:
            return None if k + 1 < n else f"neighbouring pairs start at slots 0..{n - 2}"
        if card == EXCHANGE:
            return None if k < n else f"the rack has slots 0..{n - 1}"
        if n >= MAX_RACK:
            return f"the rack already holds {MAX_RACK} balls"
        return None if state.bag else "the bag is empty"

    def _spell_reason(
        self, state: SequiturState, rack: list[int], block: str, k: int
    ) -> str | None:
        """The spelling detector: tries every blank letter and Q mode on the chosen balls."""
        if block == "spell_nothing":
            words = any(self._key_options(rack, key) for key in range(SPELL_KEYS))
            return "a word can be spelled, so you must spell one" if words else None
        if block == "spell":
            return None if self._key_options(rack, k) else "those balls spell no word"
        options = self._key_options(rack, state.spell_key)
        if block == "blank":
            return None if any(b == k for b, _ in options) else "no word with that blank letter"
        ok = any(b == state.blank and q == k for b, q in options)
        return None if ok else f"no word with the Q as {Q_TEXT[k]!r}"

    def _key_options(self, rack: list[int], key: int) -> list[tuple[int, int]]:
        """(blank letter, Q mode) choices that make the balls of spelling ``key`` a word."""
        codes = [BALL_LETTER[b] for b in spelled_balls(rack, key)]
        if len(codes) != (key & ((1 << MAX_SLOTS) - 1)).bit_count():
            return []  # a kept slot beyond the rack
        blanks = range(26) if BLANK in codes else (NO_CHOICE,)
        modes = (0, 1) if Q in codes else (NO_CHOICE,)
        return [
            (b, q) for b in blanks for q in modes if read_word(codes, b, q) in self.dictionary.words
        ]

    # -- transitions --------------------------------------------------------------------------
    def apply(self, state: SequiturState, action: int, rng: np.random.Generator) -> None:
        block, k = self._decode(action)
        decision = state.decision
        if decision in (COLOUR, KEEP):
            self._apply_goal_choice(state, block, k, rng)
        elif decision == PLACE:
            self._place(state, k, rng)
        elif decision == CARD:
            self._play_card(state, block, k, rng)
        elif decision == CLAIM_GOAL:
            if block == "pass":
                state.claim_passed[state.actor] = True
            else:
                state.public.remove(k)
                self._stack(state, state.actor, k)
            self._next_claimant(state, state.claim_pos + 1, rng)
        else:
            self._apply_spelling(state, block, k, rng)

    def _apply_goal_choice(self, state: SequiturState, block: str, k: int, rng) -> None:
        actor = state.actor
        if block == "colour":
            count = SOLO_DRAW if self.solo else 1
            state.drawn = [
                g for g in (self._draw_goal(state, k, rng) for _ in range(count)) if g >= 0
            ]
            if self.solo:
                state.decision = KEEP
                return
            block, k = "keep", 0
        kept = state.drawn[k] if block == "keep" else EMPTY
        for g in state.drawn:
            if g != kept:
                self._discard(state, g, actor)
        state.drawn = []
        if state.phase == GOAL:
            state.kept[actor] = kept
            self._next_actor(state, rng)
            return
        state.secret[actor] = kept
        self._start_placing(state)

    def _start_placing(self, state: SequiturState) -> None:
        """Setup's last part: draw the first of the balls placed one at a time."""
        state.to_place = PLACED_BALLS
        state.ball = state.bag.pop()
        state.decision = PLACE

    def _discard(self, state: SequiturState, goal: int, seat: int) -> None:
        """``seat`` discards ``goal`` face down (it alone knows the card)."""
        state.discards[self._colour_of[goal]].append(goal)
        state.discarder[goal] = seat
        state.own_discards[seat].append(goal)

    def _draw_goal(self, state: SequiturState, colour: int, rng: np.random.Generator) -> int:
        """Top card of a colour's deck; an empty deck is refilled from its shuffled discards."""
        deck = state.decks[colour]
        if not deck:
            opened = [g for g in state.open_discards if self._colour_of[g] == colour]
            pool = state.discards[colour] + opened
            for g in state.discards[colour]:
                state.own_discards[state.discarder.pop(g)].remove(g)
            state.discards[colour] = []
            state.open_discards = [g for g in state.open_discards if g not in opened]
            deck.extend(pool[i] for i in rng.permutation(len(pool)))
        return deck.pop() if deck else EMPTY

    def _place(self, state: SequiturState, end: int, rng: np.random.Generator) -> None:
        rack = state.racks[state.actor]
        if end == LEFT:
            rack.insert(0, state.ball)
        else:
            rack.append(state.ball)
        state.ball = EMPTY
        if state.phase == SETUP:
            state.to_place -= 1
            if state.to_place:
                state.ball = state.bag.pop()
                return
        self._next_actor(state, rng)

    def _play_card(self, state: SequiturState, block: str, k: int, rng) -> None:
        """Resolve a Sequitur card on the actor's rack (or a pass)."""
        if block == "pass":
            self._next_actor(state, rng)
            return
        card = CARD_BLOCKS.index(block) - 1
        state.used[state.actor][card] = True
        rack, bag = state.racks[state.actor], state.bag
        if card == MOVE_INSIDE:
            end, position = divmod(k, INSIDE_SPOTS)
            ball = rack.pop(0 if end == LEFT else -1)
            rack.insert(position + 1, ball)
        elif card == MOVE_OUTSIDE:
            slot, end = divmod(k, 2)
            ball = rack.pop(slot + 1)
            rack.insert(0 if end == LEFT else len(rack), ball)
        elif card == SWAP:
            rack[k], rack[k + 1] = rack[k + 1], rack[k]
        elif card == EXCHANGE:
            bag.insert(int(rng.integers(len(bag) + 1)), rack[k])
            rack[k] = bag.pop()
        else:
            state.ball = bag.pop()
            state.decision = PLACE
            return
        self._next_actor(state, rng)

    def _apply_spelling(self, state: SequiturState, block: str, k: int, rng) -> None:
        """Spelling is up to three choices: the balls and direction, the blank, the Q mode."""
        rack = state.racks[state.actor]
        if block == "spell_nothing":
            self._next_actor(state, rng)
            return
        if block == "spell":
            state.spell_key, state.blank = k, NO_CHOICE
        elif block == "blank":
            state.blank = k
        codes = [BALL_LETTER[b] for b in spelled_balls(rack, state.spell_key)]
        if BLANK in codes and state.blank == NO_CHOICE:
            state.decision = BLANK_LETTER
        elif Q in codes and block != "q_mode":
            state.decision = Q_MODE
        else:
            q_mode = k if block == "q_mode" else NO_CHOICE
            self._spell(state, spelled_balls(rack, state.spell_key), q_mode)
            self._next_actor(state, rng)

    def _spell(self, state: SequiturState, balls: list[int], q_mode: int) -> None:
        codes = [BALL_LETTER[b] for b in balls]
        word = read_word(codes, state.blank, q_mode)
        state.words[state.actor] = word
        state.word_balls[state.actor] = balls
        state.scores[state.actor] = word_score(word, balls, q_mode)
        state.spell_key, state.blank = EMPTY, NO_CHOICE

    def _stack(self, state: SequiturState, seat: int, goal: int) -> None:
        state.stacks[seat].append(goal)
        state.totals[seat] += self.goals[goal].points

    # -- steps --------------------------------------------------------------------------------
    def _begin_phase(self, state: SequiturState, phase: int, rng: np.random.Generator) -> None:
        state.phase, state.actor = phase, 0
        self._begin_turn(state, rng)

    def _begin_turn(self, state: SequiturState, rng: np.random.Generator) -> None:
        """Set up the actor's first decision of this step; skip a seat with none to make."""
        phase = state.phase
        if phase == GOAL:
            count = SOLO_DRAW if self.solo else 1
            draws = (self._draw_goal(state, state.goal_step, rng) for _ in range(count))
            state.drawn = [g for g in draws if g >= 0]
            if not state.drawn:
                self._next_actor(state, rng)
                return
        if phase == SETUP and not any(self._has_goals(state, c) for c in range(len(COLOURS))):
            self._start_placing(state)  # a small custom deck ran out: no secret goal
            return
        state.decision = FIRST_DECISION[phase]

    def _next_actor(self, state: SequiturState, rng: np.random.Generator) -> None:
        state.actor += 1
        if state.actor < self.num_players:
            self._begin_turn(state, rng)
        else:
            self._end_step(state, rng)

    def _end_step(self, state: SequiturState, rng: np.random.Generator) -> None:
        """Everyone has finished a simultaneous step: reveal it, then start the next one."""
        state.shown_racks = list(map(list, state.racks))
        state.shown_used = list(map(list, state.used))
        state.shown_secret = [g != EMPTY for g in state.secret]
        state.shown_deck_sizes = tuple(map(len, state.decks))
        state.public.extend(g for g in state.kept if g != EMPTY)
        state.kept = [EMPTY] * self.num_players
        phase = state.phase
        if phase == SETUP:
            state.goal_step = 0
            self._begin_phase(state, GOAL, rng)
        elif phase == GOAL:
            self._begin_phase(state, ACTION, rng)
        elif state.phase == ACTION and state.goal_step + 1 < len(COLOURS):
            state.goal_step += 1
            self._begin_phase(state, GOAL, rng)
        elif phase == ACTION:
            self._begin_phase(state, SPELL, rng)
        else:
            self._score_words(state, rng)

    def _score_words(self, state: SequiturState, rng: np.random.Generator) -> None:
        """Reveal the words, settle secret goals, order the claims by word score."""
        state.words_shown = True
        state.shown_secret = [False] * self.num_players
        for seat, goal in enumerate(state.secret):
            word = state.words[seat]
            if goal == EMPTY:
                continue
            if word and self.goals[goal].met_by(word, self.dictionary):
                self._stack(state, seat, goal)
            else:
                self._discard(state, goal, seat)
        state.secret = [EMPTY] * self.num_players
        tiebreak = rng.permutation(self.num_players).tolist()
        spellers = [p for p in range(self.num_players) if state.words[p]]
        state.claim_order = sorted(spellers, key=lambda p: (-state.scores[p], tiebreak[p]))
        for p in spellers:
            word = state.words[p]
            state.meets[p] = [
                g for g in state.public if self.goals[g].met_by(word, self.dictionary)
            ]
        state.phase = CLAIM
        self._next_claimant(state, 0, rng)

    def _next_claimant(self, state: SequiturState, start: int, rng: np.random.Generator) -> None:
        """The next player in claim order who can claim a goal (and has not passed); the round
        ends when none can."""
        order = state.claim_order
        for step in range(len(order)):
            pos = (start + step) % len(order)
            seat = order[pos]
            if not state.claim_passed[seat] and any(g in state.public for g in state.meets[seat]):
                state.actor, state.claim_pos, state.decision = seat, pos, CLAIM_GOAL
                return
        self._end_round(state, rng)

    def _end_round(self, state: SequiturState, rng: np.random.Generator) -> None:
        """Unclaimed public goals are discarded face up; all balls go back to the bag."""
        state.open_discards.extend(state.public)
        state.public = []
        for rack in state.racks:
            state.bag.extend(rack)
            rack.clear()
        state.shown_racks = [[] for _ in range(self.num_players)]
        state.round += 1
        if state.round == NUM_ROUNDS:
            state.phase, state.actor = OVER, 0
            return
        self._start_round(state, rng)

    # -- results ------------------------------------------------------------------------------
    def is_over(self, state: SequiturState) -> bool:
        return state.phase == OVER

    def scores(self, state: SequiturState) -> list[int]:
        return state.totals

    def winners(self, state: SequiturState) -> list[int]:
        """Most goal points; a tie is a shared win (the rulebook names no tie-breaker)."""
        if state.phase != OVER:
            return []
        best = max(state.totals)
        return [p for p, total in enumerate(state.totals) if total == best]

    # -- checks and views ---------------------------------------------------------------------
    def check_invariants(self, state: SequiturState) -> None:
        balls = state.bag + [b for rack in state.racks for b in rack]
        balls += [state.ball] if state.ball != EMPTY else []
        assert sorted(balls) == list(range(NUM_BALLS)), "the 72 balls are not conserved"
        places = [g for deck in state.decks for g in deck] + [g for d in state.discards for g in d]
        places += state.open_discards + state.drawn + state.public + state.secret + state.kept
        places += [g for stack in state.stacks for g in stack]
        goals = sorted(g for g in places if g != EMPTY)
        assert goals == list(range(len(self.goals))), "the goal cards are not conserved"
        assert set(state.discarder) == {g for d in state.discards for g in d}, "face-down owners"
        owned = [
            sorted(g for g, p in state.discarder.items() if p == s) for s in range(self.num_players)
        ]
        assert [sorted(cards) for cards in state.own_discards] == owned, "own discards"
        for seat, stack in enumerate(state.stacks):
            assert state.totals[seat] == sum(self.goals[g].points for g in stack), "totals"
        assert all(len(rack) <= MAX_RACK for rack in state.racks), "rack overflow"

    def resample_hidden(
        self, state: SequiturState, observer: int, rng: np.random.Generator
    ) -> SequiturState:
        """Redraw what ``observer`` cannot see: the bag order (and a ball another seat is
        placing), and the hidden goal cards of each colour among their hidden places (decks,
        face-down discards of others, others' secret, drawn and face-down public goals)."""
        new = self.clone(state)
        balls = list(new.bag) + ([new.ball] if new.ball != EMPTY and new.actor != observer else [])
        balls = [balls[i] for i in rng.permutation(len(balls))]
        if new.ball != EMPTY and new.actor != observer:
            new.ball = balls.pop()
        new.bag = balls
        owners = [[new.discarder[g] for g in pile] for pile in new.discards]
        for colour in range(len(COLOURS)):
            slots = self._hidden_goal_slots(new, observer, colour)
            cards = [holder[i] for holder, i in slots]
            for (holder, i), j in zip(slots, rng.permutation(len(cards)), strict=True):
                holder[i] = cards[j]
        new.discarder = {
            g: owners[c][i] for c, pile in enumerate(new.discards) for i, g in enumerate(pile)
        }
        new.own_discards = [[] for _ in range(self.num_players)]
        for g, seat in new.discarder.items():
            new.own_discards[seat].append(g)
        return new

    def _hidden_goal_slots(
        self, state: SequiturState, observer: int, colour: int
    ) -> list[tuple[list[int], int]]:
        """(list, index) of each goal card of ``colour`` that ``observer`` has not seen."""

        def hidden(g: int) -> bool:
            return g != EMPTY and self.goals[g].colour_index == colour

        slots = [(state.decks[colour], i) for i in range(len(state.decks[colour]))]
        discards = state.discards[colour]
        slots += [(discards, i) for i, g in enumerate(discards) if state.discarder[g] != observer]
        for holder in (state.secret, state.kept):
            slots += [(holder, p) for p, g in enumerate(holder) if p != observer and hidden(g)]
        if state.actor != observer:
            slots += [(state.drawn, i) for i, g in enumerate(state.drawn) if hidden(g)]
        return slots

    def render(self, state: SequiturState) -> str:
        return self._table(state, None)

    def render_seat(self, state: SequiturState, seat: int) -> str:
        return self._table(state, seat)

    def _table(self, state: SequiturState, seat: int | None) -> str:
        """The table as text; with a ``seat``, only what that seat may see."""
        mine = range(self.num_players) if seat is None else (seat,)
        lines = [
            f"Sequitur round {min(state.round + 1, NUM_ROUNDS)}/{NUM_ROUNDS}, "
            + ("game over (last round's words shown)" if state.phase == OVER else "")
            + (f"{PHASES[state.phase]} step" if state.phase != OVER else "")
            + (f" ({COLOURS[state.goal_step]})" if state.phase in (GOAL, ACTION) else ""),
            "public goals: " + (", ".join(self._goal_text(g) for g in state.public) or "-"),
        ]
        for p in range(self.num_players):
            rack = state.racks[p] if p in mine else state.shown_racks[p]
            used = state.used[p] if p in mine else state.shown_used[p]
            cards = "".join(c if not u else "." for c, u in zip(CARD_LETTERS, used, strict=True))
            balls = " ".join(map(ball_text, rack)) or "-"
            line = f"player_{p} goals {state.totals[p]:2d} | rack {balls}"
            line += f" | cards {cards}"
            if p in mine and state.secret[p] != EMPTY:
                line += f" | secret {self._goal_text(state.secret[p])}"
            elif state.shown_secret[p]:
                line += f" | secret {COLOURS[self.goals[state.secret[p]].colour_index]}"
            if p in mine and state.kept[p] != EMPTY:
                line += f" | face down {self._goal_text(state.kept[p])}"
            if state.words_shown or (p in mine and state.words[p]):
                line += f" | word {state.words[p].upper() or '-'} ({state.scores[p]})"
            lines.append(line)
        lines.append(self._prompt(state, mine))
        return "\n".join(lines)

    def _prompt(self, state: SequiturState, mine: range | tuple[int, ...]) -> str:
        if state.phase == OVER:
            return "game over: winners " + ", ".join(f"player_{p}" for p in self.winners(state))
        if state.actor not in mine:  # another seat's kind of decision could give it away
            return f"to act: player_{state.actor}"
        text = f"to act: player_{state.actor} ({DECISIONS[state.decision]})"
        if state.ball != EMPTY:
            text += f", drew ball {ball_text(state.ball)}"
        if state.drawn:
            text += ", drew " + ", ".join(self._goal_text(g) for g in state.drawn)
        return text

    def _goal_text(self, goal: int) -> str:
        card = self.goals[goal]
        return f"#{goal} {card.colour} {card.goal} ({card.min_length}+)"

    def _action_name(self, action: int) -> str:
        """Readable, unique name of an action id."""
        block, k = self._decode(action)
        if block == "colour":
            return f"secret goal {COLOURS[k]}"
        if block == "keep":
            return f"keep drawn goal {k}"
        if block == "place":
            return f"place {('left', 'right')[k]}"
        if block == "blank":
            return f"blank = {ALPHABET[k].upper()}"
        if block == "q_mode":
            return f"Q as {Q_TEXT[k].capitalize()}"
        if block == "move_inside":
            end, position = divmod(k, INSIDE_SPOTS)
            return f"move inside: {('left', 'right')[end]} ball to slot {position + 1}"
        if block == "move_outside":
            slot, end = divmod(k, 2)
            return f"move outside: slot {slot + 1} to the {('left', 'right')[end]}"
        if block in ("swap", "exchange"):
            return f"{block} slot {k}" + (f"-{k + 1}" if block == "swap" else "")
        if block == "spell":
            direction, bits = divmod(k, 1 << MAX_SLOTS)
            slots = ",".join(str(i) for i in range(MAX_SLOTS) if bits >> i & 1) or "none"
            return f"spell slots {slots} {('left-to-right', 'right-to-left')[direction]}"
        if block == "claim":
            return f"claim goal #{k}"
        return block.replace("_", " ")
