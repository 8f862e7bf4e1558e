"""Sequitur rules: the rulebook's examples, the rulings, every Sequitur card and goal card."""

from __future__ import annotations

import itertools
import pickle
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sequitur_helpers import at_action, at_spelling, play_until, rng, set_rack, spell_name

from card_envs import sequitur_v0
from card_envs.core.errors import IllegalActionError
from card_envs.sequitur.encoding import SequiturEncoding
from card_envs.sequitur.rules import SequiturGame
from card_envs.sequitur.rules.cards import (
    BALL_LETTER,
    BALL_POINTS,
    MAX_RACK,
    NUM_BALLS,
    balls_of,
    word_score,
)
from card_envs.sequitur.rules.goals import COLOURS, POINTS, load_goals
from card_envs.sequitur.rules.spelling import spelled_balls
from card_envs.sequitur.rules.state import (
    ACTION,
    BLANK_LETTER,
    CLAIM,
    CLAIM_GOAL,
    COLOUR,
    EMPTY,
    GOAL,
    KEEP,
    NUM_ROUNDS,
    OVER,
    PLACE,
    Q_MODE,
    SETUP,
    SPELL,
    SPELL_KEEP,
)
from card_envs.sequitur.rules.words import (
    ALPHABET,
    BLANK,
    DEFAULT_WORDS,
    NO_CHOICE,
    Q_QU,
    Dictionary,
    Q,
    find_spellings,
    load_dictionary,
    read_word,
    spellings_reference,
)

GAME = SequiturGame(2)
SOLO = SequiturGame(1)
WORDS = load_dictionary()


def act(game: SequiturGame, state, name: str, r: np.random.Generator | None = None) -> None:
    """Apply the action called ``name``, asserting it is legal."""
    action = game.actions.ids[name]
    assert action in game.legal_actions(state), (name, game.render(state))
    assert game.illegal_reason(state, action) is None
    game.apply(state, action, r or rng())


# -- components and data


def test_letter_table_has_72_balls_with_the_ruling_counts_and_points():
    letters = Counter(BALL_LETTER)
    assert NUM_BALLS == 72 and letters[BLANK] == 1 and sum(letters.values()) - 1 == 71
    assert letters[ALPHABET.index("e")] == 8 and letters[ALPHABET.index("a")] == 5
    points = {ALPHABET[BALL_LETTER[b]]: BALL_POINTS[b] for b in range(71)}
    # The worked example: H 1, W 3, F 3, G 1, D 1, none for O, R, E; Q is worth 7.
    assert [points[c] for c in "hwfgdore"] == [1, 3, 3, 1, 1, 0, 0, 0]
    assert points["q"] == 7 and points["z"] == 5 and points["y"] == 2


def test_dictionary_is_scowl_with_inflections_and_without_names():
    assert len(WORDS) == 63271 and load_dictionary() is WORDS  # loaded once, shared
    for word in ("words", "walked", "cats", "quit", "queen", "strength"):
        assert word in WORDS
    for word in ("london", "nasa", "lol", "it", "don't", "usa", "mr", "nigger"):
        assert word not in WORDS
    assert all(len(w) >= 3 and w.isascii() and w.islower() for w in WORDS.words)
    assert "SCOWL" in (DEFAULT_WORDS.parent / "SCOWL_COPYRIGHT.txt").read_text()


def test_dictionary_option_takes_a_word_set_or_a_file(tmp_path):
    small = SequiturGame(2, dictionary={"cat", "act", " Dog ", "ab"})
    assert small.dictionary.words == {"cat", "act", "dog"}  # too short to spell: left out
    path = tmp_path / "words.txt"
    path.write_text("cat\ndog\n")
    assert SequiturGame(2, dictionary=path).dictionary.words == {"cat", "dog"}
    with pytest.raises(ValueError, match="dictionary"):
        SequiturGame(2, dictionary=tmp_path / "missing.txt")
    with pytest.raises(ValueError, match="dictionary"):
        SequiturGame(2, dictionary=["a", "b"])


def test_goals_option_takes_a_file_or_card_list():
    cards = [{"colour": c, "kind": "any", "min_length": 3} for c in COLOURS for _ in range(4)]
    game = SequiturGame(2, goals=cards)
    assert len(game.goals) == 12 and game.actions.size == game.actions.encode("claim", 12)
    with pytest.raises(ValueError, match="goal card 0"):
        SequiturGame(2, goals=[{"colour": "blue", "kind": "any"}])
    with pytest.raises(ValueError, match="goal card 0"):
        SequiturGame(2, goals=[{"colour": "red", "kind": "vowel_run"}])  # missing n
    with pytest.raises(ValueError, match="goals"):
        SequiturGame(2, goals="no_such_file.json")


# -- goal cards


def test_goal_deck_has_24_cards_of_each_colour_with_their_points():
    goals = load_goals()
    assert len(goals) == 72
    for colour in COLOURS:
        cards = [g for g in goals if g.colour == colour]
        assert len(cards) == 24 and {g.points for g in cards} == {POINTS[colour]}
    assert len({(g.kind, str(g.params), g.min_length) for g in goals}) == 72, "duplicate cards"


def test_published_goal_examples_are_in_the_deck():
    goals = {(g.colour, g.goal): g for g in load_goals()}
    assert goals["green", "2 vowels in a row"].met_by("bead", WORDS)
    assert goals["yellow", "still a word after removing one letter"].met_by("brand", WORDS)
    alphabetical = goals["red", "letters in alphabetical order"]
    assert alphabetical.met_by("almost", WORDS) and not alphabetical.met_by("table", WORDS)
    threat = goals["red", "3 consonants in a row"]
    assert threat.min_length == 4
    assert threat.met_by("threat", WORDS) and threat.met_by("dumps", WORDS)
    assert not threat.met_by("syrup", WORDS), "Y is not a consonant"


@pytest.mark.parametrize("card", load_goals(), ids=lambda g: f"{g.id}-{g.colour}-{g.kind}")
def test_each_goal_card_meets_its_two_examples_and_not_its_counter(card):
    assert len(card.examples) == 2
    for word in card.examples:
        assert word in WORDS and card.met_by(word, WORDS), word
    assert card.counter in WORDS and not card.met_by(card.counter, WORDS)
    if card.kind != "any":  # the counter fails the predicate, not just the length
        assert len(card.counter) >= card.min_length


def test_goals_read_qu_as_two_letters_and_the_blank_as_its_letter():
    goals = {(g.colour, g.goal): g for g in load_goals()}
    vowels3 = goals["red", "3 vowels in a row"]
    assert read_word([Q, *(ALPHABET.index(c) for c in "eue")], NO_CHOICE, 1) == "queue"
    assert vowels3.met_by("queue", WORDS)  # the U of the Qu ball is a vowel
    # A blank named as E counts as E for every goal.
    word = read_word([ALPHABET.index("b"), BLANK, ALPHABET.index("d")], ALPHABET.index("e"), -1)
    assert word == "bed" and goals["green", "2 different vowels"].met_by("bead", WORDS)


# -- spelling


def test_word_score_example_word_is_8():
    """Rack H W F O R G D E: discard H, F, G and E to spell WORD: 4 + W 3 + D 1 = 8."""
    game, state = GAME, at_spelling(GAME)
    set_rack(state, 0, "hwforgde")
    name = spell_name([1, 3, 4, 6])
    act(game, state, name)
    assert state.words[0] == "word" and state.scores[0] == 8
    assert word_score("word", balls_of("word"), NO_CHOICE) == 8


def test_spelling_reads_either_way_and_never_reorders():
    game, state = GAME, at_spelling(GAME)
    set_rack(state, 0, "tar")
    legal = set(game.legal_actions(state))
    ids = game.actions.ids
    assert ids[spell_name([0, 1, 2])] in legal  # TAR
    assert ids[spell_name([0, 1, 2], reverse=True)] in legal  # RAT, the rack turned
    set_rack(state, 0, "art")
    legal = set(game.legal_actions(state))
    assert ids[spell_name([0, 1, 2])] in legal  # ART
    assert ids[spell_name([0, 1, 2], reverse=True)] not in legal  # TRA
    assert ids["spell nothing"] not in legal


def test_spell_nothing_only_when_no_word_exists():
    game, state = GAME, at_spelling(GAME)
    set_rack(state, 0, "bcdfghjk")
    assert game.legal_actions(state) == [game.actions.ids["spell nothing"]]
    act(game, state, "spell nothing")
    assert state.words[0] == ""


def test_q_reads_q_for_7_points_or_qu_as_two_letters_for_none():
    game = GAME
    state = at_spelling(game)
    set_rack(state, 0, "quit")  # Q U I T: "quit" with Q as Q, or "quit" from Qu I T
    act(game, state, spell_name([0, 1, 2, 3]))
    assert state.decision == Q_MODE
    assert game.legal_actions(state) == [game.actions.ids["Q as Q"]]  # "quuit" is no word
    act(game, state, "Q as Q")
    assert state.words[0] == "quit" and state.scores[0] == 4 + 7
    state = at_spelling(game)
    set_rack(state, 0, "qit")
    act(game, state, spell_name([0, 1, 2]))
    assert game.legal_actions(state) == [game.actions.ids["Q as Qu"]]
    act(game, state, "Q as Qu")
    assert state.words[0] == "quit" and state.scores[0] == 4  # two letters, no points


def test_blank_names_any_letter_without_its_points():
    game, state = GAME, at_spelling(GAME)
    set_rack(state, 0, "z?p")
    act(game, state, spell_name([0, 1, 2]))
    assert state.decision == BLANK_LETTER
    letters = {game.actions.names[a][-1].lower() for a in game.legal_actions(state)}
    assert {"a", "i"} <= letters and "x" not in letters  # zap, zip
    act(game, state, "blank = I")
    assert state.words[0] == "zip" and state.scores[0] == 3 + 5 + 0 + 2


def test_blank_and_q_together_take_two_sub_decisions():
    game, state = GAME, at_spelling(GAME)
    set_rack(state, 0, "q?it")
    act(game, state, spell_name([0, 1, 2, 3]))
    act(game, state, "blank = U")
    assert state.decision == Q_MODE
    act(game, state, "Q as Q")
    assert state.words[0] == "quit" and state.scores[0] == 4 + 7


def test_spelling_detector_tries_every_choice_independently():
    game, state = GAME, at_spelling(GAME)
    for key in range(0, 2 << 10, 37):
        in_mask = game.actions.encode("spell", key) in game.legal_actions(state)
        assert in_mask == (game.illegal_reason(state, game.actions.encode("spell", key)) is None)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 26), min_size=3, max_size=9).filter(
        lambda rack: rack.count(BLANK) <= 1 and rack.count(Q) <= 1  # one blank, one Q ball
    )
)
def test_find_spellings_matches_brute_force(rack):
    rack = tuple(rack)
    found = find_spellings(rack, WORDS)
    expected: dict[int, set] = {}
    for key in range(2 << 10):
        balls = spelled_balls(list(range(len(rack))), key)
        if len(balls) != bin(key & 1023).count("1"):
            continue
        codes = [rack[b] for b in balls]
        for blank in range(26) if BLANK in codes else (NO_CHOICE,):
            for q in (0, 1) if Q in codes else (NO_CHOICE,):
                if read_word(codes, blank, q) in WORDS:
                    expected.setdefault(key, set()).add((blank, q))
    assert {k: set(v) for k, v in found.items()} == expected


def ball_codes(text: str) -> tuple[int, ...]:
    """Ball codes of ``text``: "Q" the Q ball, "?" the blank, else a letter."""
    special = {"Q": Q, "?": BLANK}
    return tuple(special[c] if c in special else ALPHABET.index(c) for c in text)


@pytest.mark.parametrize("engine", ["kernel", "reference"])
def test_every_qu_word_is_found_from_exactly_its_balls(engine):
    """The Q ball read as qu gives two letters: the search must not prune a word because it is
    longer than the balls left (JONQUIL from J, O, N, Q, I, L; once missed, so a legal word was
    masked out and, with the blank, choosing the rack's spelling left no blank letter legal)."""
    search = find_spellings if engine == "kernel" else spellings_reference
    words = [w.replace("qu", "Q") for w in WORDS.words if "qu" in w]
    racks = [ball_codes(w) for w in words if "q" not in w and w.count("Q") == 1 and len(w) <= 10]
    assert len(racks) > 800
    for rack in racks:
        choices = search(rack, WORDS).get((1 << len(rack)) - 1, [])
        assert (NO_CHOICE, Q_QU) in choices, rack
    jonquil = search(ball_codes("jo?Qil"), WORDS)
    assert (1 << 6) - 1 in jonquil and (ALPHABET.index("n"), Q_QU) in jonquil[(1 << 6) - 1]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 26), min_size=3, max_size=9).filter(
        lambda rack: rack.count(BLANK) <= 1 and rack.count(Q) <= 1
    )
)
def test_find_spellings_lists_in_reading_order(rack):
    """The heuristic keeps the first of equally good spellings, so its play depends on this
    order (a faster search must keep it): left-to-right spellings first, then right-to-left;
    within one, by the reading positions of the balls, a word before its extensions, the blank's
    letters and the Q's modes (q, then qu) in order where the ball is read."""
    rack = tuple(rack)
    found = find_spellings(rack, WORDS)
    paths = []
    for key, options in found.items():
        direction, bits = divmod(key, 1 << 10)
        slots = [s for s in range(len(rack)) if bits >> s & 1]
        positions = sorted(len(rack) - 1 - s if direction else s for s in slots)
        for blank, q in options:
            ball_at = [rack[len(rack) - 1 - k if direction else k] for k in positions]
            choice = [blank if b == BLANK else q if b == Q else 0 for b in ball_at]
            paths.append((direction, tuple(zip(positions, choice, strict=True)), key, (blank, q)))
    expected: dict[int, list] = {}
    for *_, key, option in sorted(paths):
        expected.setdefault(key, []).append(option)
    assert list(found.items()) == list(expected.items())


# -- the rack and the Sequitur cards


def letters_of(rack: list[int]) -> str:
    return "".join("?" if BALL_LETTER[b] == BLANK else ALPHABET[BALL_LETTER[b]] for b in rack)


def test_rack_example_outside_and_inside_balls():
    """On H W F O R G D E the outside balls are H and E, the inside balls W F O R G D."""
    game, state = GAME, at_action(GAME, "hwforgde")
    names = {game.actions.names[a] for a in game.legal_actions(state)}
    inside = {n for n in names if n.startswith("move outside")}
    assert inside == {
        f"move outside: slot {i} to the {e}" for i in range(1, 7) for e in ("left", "right")
    }
    outside = {n for n in names if n.startswith("move inside")}
    assert outside == {
        f"move inside: {e} ball to slot {p}" for e in ("left", "right") for p in range(1, 7)
    }


@pytest.mark.parametrize(
    ("name", "after"),
    [
        ("move inside: left ball to slot 3", "wfohrgde"),
        ("move inside: right ball to slot 1", "hewforgd"),
        ("move outside: slot 2 to the left", "fhworgde"),
        ("move outside: slot 6 to the right", "hwforged"),
        ("swap slot 3-4", "hwfrogde"),
    ],
)
def test_sequitur_cards_that_move_balls(name, after):
    game, state = GAME, at_action(GAME, "hwforgde")
    act(game, state, name)
    assert letters_of(state.racks[0]) == after
    assert len([u for u in state.used[0] if u]) == 1


def test_exchange_returns_a_ball_and_draws_one_into_its_place():
    game, state = GAME, at_action(GAME, "hwforgde")
    bag_size, old = len(state.bag), state.racks[0][2]
    act(game, state, "exchange slot 2")
    rack = state.racks[0]
    assert len(rack) == 8 and len(state.bag) == bag_size
    assert letters_of(rack[:2] + rack[3:]) == "hworgde"
    assert old in state.bag or rack[2] == old
    game.check_invariants(state)


def test_extend_draws_a_ball_onto_an_end_and_the_rack_holds_at_most_10():
    game, state = GAME, at_action(GAME, "hwforgde")
    act(game, state, "extend")
    assert state.decision == PLACE and state.actor == 0
    drawn = state.ball
    act(game, state, "place right")
    assert state.racks[0][-1] == drawn and len(state.racks[0]) == 9
    state = at_action(GAME, "hwforgde")
    for letter in "ab":
        state.racks[0].append(balls_of(letter, set(range(NUM_BALLS)) - set(state.bag))[0])
        state.bag.remove(state.racks[0][-1])
    assert len(state.racks[0]) == MAX_RACK
    assert game.actions.ids["extend"] not in game.legal_actions(state)
    assert "10 balls" in game.illegal_reason(state, game.actions.ids["extend"])


def test_each_sequitur_card_once_per_round():
    game, state = GAME, at_action(GAME, "hwforgde")
    act(game, state, "swap slot 0-1")
    play_until(game, state, lambda s: s.phase == ACTION and s.actor == 0)
    swap = game.actions.ids["swap slot 0-1"]
    assert swap not in game.legal_actions(state)
    assert "already played" in game.illegal_reason(state, swap)
    play_until(game, state, lambda s: s.round == 1)
    play_until(game, state, lambda s: s.phase == ACTION and s.actor == 0)
    assert swap in game.legal_actions(state), "cards come back each round"


def test_pass_is_always_an_action():
    game, state = GAME, at_action(GAME, "hwforgde")
    assert game.actions.ids["pass"] in game.legal_actions(state)


# -- the round


def test_setup_draws_5_in_order_then_3_each_placed_on_an_end():
    game = GAME
    deal = {"racks": ["hwfor", "abcde"], "draws": "gde"}
    state = game.new_game(rng(), deal)
    assert letters_of(state.racks[0]) == "hwfor" and letters_of(state.racks[1]) == "abcde"
    act(game, state, "secret goal red")
    assert state.secret[0] != EMPTY and state.decision == PLACE
    for end in ("right", "right", "left"):
        act(game, state, f"place {end}")
    assert letters_of(state.racks[0]) == "ehwforgd"
    assert state.actor == 1 and state.phase == SETUP


def test_three_goal_steps_each_followed_by_an_action_step():
    game = GAME
    state = game.new_game(rng())
    phases = []
    r = rng()
    while state.round == 0:
        if not phases or phases[-1] != (state.phase, state.goal_step):
            phases.append((state.phase, state.goal_step))
        game.apply(state, game.legal_actions(state)[0], r)
    expected = [(SETUP, 0)] + [p for c in range(3) for p in ((GOAL, c), (ACTION, c))] + [(SPELL, 2)]
    assert phases in (expected, [*expected, (CLAIM, 2)])


def test_goal_step_keeps_face_down_until_everyone_chose():
    game = GAME
    state = game.new_game(rng())
    play_until(game, state, lambda s: s.phase == GOAL)
    first = state.drawn[0]
    act(game, state, "keep drawn goal 0")
    assert state.kept[0] == first and first not in state.public
    second = state.drawn[0]
    act(game, state, "discard")
    assert state.public == [first] and second in state.discards[0]
    assert state.phase == ACTION


def test_secret_goal_is_scored_when_the_word_meets_it():
    game, state = GAME, at_spelling(GAME)
    goals = {g.goal: g.id for g in game.goals if g.colour == "green"}
    state.secret[0] = goals["2 vowels in a row"]
    state.decks[2].remove(state.secret[0])
    set_rack(state, 0, "bead")
    act(game, state, spell_name([0, 1, 2, 3]))
    play_until(game, state, lambda s: s.phase != SPELL)
    assert goals["2 vowels in a row"] in state.stacks[0] and state.totals[0] >= 1


def _claims_state(
    game, words: list[str], scores: list[int], public: list[int], seed: int = 0, deal=None
):
    """A game at the end of spelling with these words and public goals."""
    state = at_spelling(game, seed, deal)
    for g in public:
        for pile in state.decks:
            if g in pile:
                pile.remove(g)
    state.public = list(public)
    state.secret = [EMPTY] * game.num_players
    state.words, state.scores = list(words), list(scores)
    state.actor = game.num_players - 1
    game._end_step(state, rng(seed))
    return state


def test_claims_go_by_word_score_one_goal_per_turn_until_none_left():
    game = SequiturGame(3)
    ids = {g.goal: g.id for g in game.goals if g.colour == "green"}
    public = [ids["at least 5 letters"], ids["S last"], ids["a vowel first"]]
    state = _claims_state(game, ["houses", "ants", "apes"], [7, 9, 5], public)
    assert state.phase == CLAIM and state.claim_order == [1, 0, 2]
    assert state.actor == 1 and state.decision == CLAIM_GOAL
    act(game, state, f"claim goal #{ids['S last']}")
    assert state.actor == 0
    assert game.legal_actions(state) == [game.actions.encode("claim", ids["at least 5 letters"])]
    act(game, state, f"claim goal #{ids['at least 5 letters']}")
    assert state.actor == 2  # "ants" meets "a vowel first" too, but seat 2 comes first
    act(game, state, f"claim goal #{ids['a vowel first']}")
    assert state.public == [] and state.round == 1 and state.phase == SETUP
    assert [len(s) for s in state.stacks] == [1, 1, 1]


def test_claim_ties_are_broken_by_the_seeded_generator_and_no_word_claims_nothing():
    game = SequiturGame(3)
    ids = {g.goal: g.id for g in game.goals if g.colour == "green"}
    public = [ids["S last"]]
    firsts = set()
    for seed in range(12):
        state = _claims_state(game, ["cats", "dogs", ""], [5, 5, 0], public, seed)
        assert sorted(state.claim_order) == [0, 1]
        firsts.add(state.actor)
    assert firsts == {0, 1}


def test_cleanup_discards_unclaimed_goals_face_up_and_returns_all_balls():
    game = SequiturGame(2)
    ids = {g.goal: g.id for g in game.goals if g.colour == "red"}
    state = _claims_state(game, ["cat", "dog"], [3, 4], [ids["at least 7 letters"]])
    assert state.round == 1 and ids["at least 7 letters"] in state.open_discards
    assert sum(len(r) for r in state.racks) == 2 * 5 and len(state.bag) == NUM_BALLS - 10


def test_three_rounds_then_most_goal_points_wins_and_ties_share():
    game = GAME
    state = game.new_game(rng())
    play_until(game, state, lambda s: s.phase == OVER)
    assert state.round == NUM_ROUNDS
    state.totals, state.stacks = [3, 3], [[0], [1]]
    assert game.winners(state) == [0, 1]


def test_claiming_is_forced_by_default():
    game = SequiturGame(3)
    ids = {g.goal: g.id for g in game.goals if g.colour == "green"}
    state = _claims_state(game, ["cats", "dogs", "ants"], [5, 6, 4], [ids["S last"]])
    assert game.legal_actions(state) == [game.actions.encode("claim", ids["S last"])]
    assert "choose claim" in game.illegal_reason(state, game.actions.encode("pass"))
    with pytest.raises(ValueError, match="claim_pass"):
        SequiturGame(3, claim_pass="yes")


def test_claim_pass_option_lets_a_player_stop_claiming_for_the_round():
    """The rulebook's literal "claim at most one goal": a claim turn also offers pass, and a
    player who passes is skipped for the rest of the round, so the claims still end."""
    game = SequiturGame(3, claim_pass=True)
    ids = {g.goal: g.id for g in game.goals if g.colour == "green"}
    public = [ids["at least 5 letters"], ids["S last"], ids["a vowel first"]]
    state = _claims_state(game, ["houses", "ants", "apes"], [7, 9, 5], public)
    assert state.claim_order == [1, 0, 2] and state.actor == 1
    claims = [
        game.actions.encode("claim", g) for g in sorted([ids["S last"], ids["a vowel first"]])
    ]
    assert game.legal_actions(state) == [game.actions.encode("pass"), *claims]
    act(game, state, "pass")
    assert state.actor == 0 and state.claim_passed == [False, True, False]
    views = observe_views(game, state, 0)
    assert list(views["claim_passed"]) == [0, 1, 0]  # seat 1 is the observer's left
    act(game, state, f"claim goal #{ids['at least 5 letters']}")
    act(game, state, f"claim goal #{ids['a vowel first']}")
    assert state.actor == 0  # seat 1 still meets "S last", but it passed: skipped
    act(game, state, f"claim goal #{ids['S last']}")
    assert state.phase == SETUP and state.round == 1 and [len(s) for s in state.stacks] == [2, 0, 1]
    assert state.claim_passed == [False, False, False]  # claiming resumes next round
    assert game.max_steps == SequiturGame(3).max_steps + NUM_ROUNDS * 3


def test_claim_pass_random_play_is_exact_and_ends():
    for players, seed in itertools.product((2, 3, 5), range(4)):
        game, r = SequiturGame(players, claim_pass=True), rng(seed)
        state, steps, passes = game.new_game(r), 0, 0
        while state.phase != OVER:
            game.check_invariants(state)
            legal = game.legal_actions(state)
            assert list(np.flatnonzero(game.legal_mask(state))) == legal
            if state.phase == CLAIM:
                detector = [
                    a for a in range(game.actions.size) if game.illegal_reason(state, a) is None
                ]
                assert detector == legal
                passes += legal[0] == game.actions.encode("pass")
            game.apply(state, legal[r.integers(len(legal))], r)
            steps += 1
        assert steps <= game.max_steps
    assert passes


# -- observation


def observe_views(game: SequiturGame, state, seat: int) -> dict[str, np.ndarray]:
    encoding = SequiturEncoding(game)
    return encoding.spec.views(encoding.observe(state, seat))


def test_my_face_down_discards_are_observed_by_me_only():
    game = GAME
    state = game.new_game(rng())
    play_until(game, state, lambda s: s.phase == GOAL)
    discarded = state.drawn[0]
    act(game, state, "discard")
    assert observe_views(game, state, 0)["my_discards"][discarded] == 1
    assert not observe_views(game, state, 1)["my_discards"].any()
    solo = SOLO.new_game(rng())
    act(SOLO, solo, "secret goal red")
    other = solo.drawn[1]
    act(SOLO, solo, "keep drawn goal 0")
    assert list(np.flatnonzero(observe_views(SOLO, solo, 0)["my_discards"])) == [other]


def test_failed_secret_goal_is_among_my_discards():
    game, state = GAME, at_spelling(GAME)
    goals = {g.goal: g.id for g in game.goals if g.colour == "green"}
    secret = state.secret[0] = goals["2 vowels in a row"]
    state.decks[2].remove(secret)
    set_rack(state, 0, "cat")
    act(game, state, spell_name([0, 1, 2]))
    play_until(game, state, lambda s: s.phase != SPELL)
    assert secret in state.discards[2]
    assert observe_views(game, state, 0)["my_discards"][secret] == 1
    assert observe_views(game, state, 1)["my_discards"][secret] == 0


def test_deck_sizes_count_the_goal_cards_left_in_each_deck_as_each_step_ends():
    """Mid-step the counts stay as the step began: a drop in one deck during setup would show
    another seat's secret goal colour before the step ends."""
    game, r = SequiturGame(4), rng(5)
    state = game.new_game(r)
    while state.phase != OVER:
        views = observe_views(game, state, state.actor)
        shown = list(views["deck_sizes"].argmax(axis=1))
        assert views["deck_sizes"].sum() == len(COLOURS)
        assert tuple(shown) == state.shown_deck_sizes
        if state.phase == SETUP and state.actor == 0 and state.decision == COLOUR:
            assert shown == [len(deck) for deck in state.decks]
        game.apply(state, game.legal_actions(state)[-1], r)
    state = game.new_game(rng(1))
    before = observe_views(game, state, 1)["deck_sizes"]
    act(game, state, "secret goal red")
    assert np.array_equal(observe_views(game, state, 1)["deck_sizes"], before)
    assert len(state.decks[0]) == 23
    play_until(game, state, lambda s: s.phase == GOAL)
    assert observe_views(game, state, 1)["deck_sizes"][0].argmax() == len(state.decks[0]) + 1


def test_meets_shows_only_goals_still_face_up():
    game = SequiturGame(3)
    ids = {g.goal: g.id for g in game.goals if g.colour == "green"}
    public = [ids["at least 5 letters"], ids["S last"], ids["a vowel first"]]
    state = _claims_state(game, ["houses", "ants", "apes"], [7, 9, 5], public)
    assert observe_views(game, state, 0)["meets"][0, ids["S last"]] == 1  # "houses" meets it
    act(game, state, f"claim goal #{ids['S last']}")  # seat 1 takes it
    for seat in range(3):
        assert not observe_views(game, state, seat)["meets"][:, ids["S last"]].any()


# -- solo


def test_solo_draws_two_goals_and_keeps_one_every_time():
    game = SOLO
    state = game.new_game(rng())
    act(game, state, "secret goal yellow")
    assert state.decision == KEEP and len(state.drawn) == 2
    other = state.drawn[0]
    act(game, state, "keep drawn goal 1")
    assert state.secret[0] != other and other in state.discards[1]
    play_until(game, state, lambda s: s.phase == GOAL)
    assert len(state.drawn) == 2
    assert game.actions.ids["discard"] not in game.legal_actions(state)
    act(game, state, "keep drawn goal 0")
    assert len(state.public) == 1


# -- hidden information


def test_other_players_see_action_step_choices_only_when_the_step_ends():
    env = sequitur_v0.env(num_players=2)
    env.reset(seed=0)
    game, state = env.game, env.game_state
    while not (state.phase == ACTION and state.actor == 0):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    spec = env.describe().obs_spec
    before = spec.views(env.observe("player_1")["observation"])
    env.step(game.actions.ids["swap slot 0-1"])
    views = spec.views(env.observe("player_1")["observation"])
    assert np.array_equal(views["racks"], before["racks"])
    shown = views["racks"][1].argmax(axis=1)[: len(state.shown_racks[0])]
    assert list(shown) == [BALL_LETTER[b] for b in state.shown_racks[0]]
    assert state.shown_racks[0] != state.racks[0]
    assert views["used"][1].sum() == 0
    env.step(game.actions.ids["pass"])  # seat 1 ends the step
    views = env.describe().obs_spec.views(env.observe("player_1")["observation"])
    assert views["used"][1].sum() == 1
    assert list(views["racks"][1].argmax(axis=1)[: len(state.racks[0])]) == [
        BALL_LETTER[b] for b in state.racks[0]
    ]


def test_illegal_actions_raise_and_change_nothing():
    env = sequitur_v0.env(num_players=3)
    env.reset(seed=2)
    before = env.game_state.__dict__.copy()
    with pytest.raises(IllegalActionError, match="choose colour"):
        env.step(env.game.actions.ids["pass"])
    assert env.game_state.__dict__ == before


def test_injected_goal_order_is_drawn_first():
    game = GAME
    red = [g.id for g in game.goals if g.colour == "red"][:2]
    state = game.new_game(rng(), {"goals": {"red": red}})
    act(game, state, "secret goal red")
    assert state.secret[0] == red[0]
    with pytest.raises(ValueError, match="deal"):
        game.new_game(rng(), {"hands": []})


def test_action_names_are_unique_and_blocks_documented():
    names = GAME.actions.names
    assert len(set(names)) == len(names) == GAME.actions.size
    spell = [n for n in names if n.startswith("spell slots")]
    assert len(spell) == 2 << 10
    assert list(itertools.islice((n for n in names if n.startswith("claim")), 1)) == [
        "claim goal #0"
    ]


def test_dictionary_class_rejects_empty_lists():
    with pytest.raises(ValueError, match="no words"):
        Dictionary(["a", "to"])


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["ab", "CAT", "d0g"], r"dictionary entry 3 is 'd0g': a word must be letters a-z"),
        (["cat", "ice cream"], r"entry 2 is 'ice cream'"),
        (["cat", "café"], r"entry 2 is 'café'"),
        (["cat", "don't"], r"entry 2 is \"don't\""),
        (["ab", "I"], r"dictionary has no words of at least 3 letters"),
        ([], r"dictionary has no words"),
    ],
)
def test_a_word_list_that_is_not_words_is_refused(words, message):
    with pytest.raises(ValueError, match=message):
        SequiturGame(2, dictionary=words)


def test_a_file_that_is_not_a_word_list_is_refused(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("cat\n[tool]\nname = 1\n")
    with pytest.raises(ValueError, match=r"config\.toml'?: dictionary line 2 is '\[tool\]'"):
        SequiturGame(2, dictionary=config)
    binary = tmp_path / "weights.bin"
    binary.write_bytes(bytes(range(256)))
    with pytest.raises(ValueError, match="is not a text word list"):
        SequiturGame(2, dictionary=binary)
    words = tmp_path / "words.txt"
    words.write_text("Cat\n\n  dog  \n")  # capitals, blank lines and spaces are normalised
    assert SequiturGame(2, dictionary=words).dictionary.words == {"cat", "dog"}


# -- the docs page --------------------------------------------------------------------------------


def test_docs_goal_table_matches_the_goal_data():
    text = (Path(__file__).parents[1] / "docs" / "sequitur.md").read_text()
    for g in load_goals():
        assert f"| {g.id} | {g.colour} | {g.points} | {g.min_length} | {g.description} |" in text


def test_docs_deal_example_runs():
    env = sequitur_v0.env(num_players=2)
    deal = {"racks": ["hwfor", "abcde"], "draws": "gde", "goals": {"red": [48]}}
    env.reset(seed=1, options={"deal": deal})
    assert letters_of(env.game_state.racks[0]) == "hwfor"
    env.step(env.game.actions.ids["secret goal red"])
    assert env.game_state.secret[0] == 48 and letters_of([env.game_state.ball]) == "g"


def test_render_seat_hides_another_seats_decision_and_draws():
    game, state = GAME, at_action(GAME, "hwforgde")
    act(game, state, "extend")
    assert "(place)" in game.render_seat(state, 0) and "drew ball" in game.render_seat(state, 0)
    other = game.render_seat(state, 1)
    assert "to act: player_0" in other and "place" not in other and "drew" not in other
    assert "cards IOSXE" in other  # seat 0's Extend is not shown before the step ends


# -- properties of random play --------------------------------------------------------------------


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 5))
def test_random_play_conserves_everything_and_spelling_masks_are_exact(seed, players):
    """72 balls and every goal card conserved at every step; at every spelling decision the
    mask equals the detector on all 2,000+ spelling ids; the game ends within max_steps."""
    game, r = SequiturGame(players), rng(seed)
    state = game.new_game(r)
    steps = 0
    while state.phase != OVER:
        game.check_invariants(state)
        legal = game.legal_actions(state)
        assert list(np.flatnonzero(game.legal_mask(state))) == legal
        if state.decision in (SPELL_KEEP, BLANK_LETTER, Q_MODE):
            detector = [
                a for a in range(game.actions.size) if game.illegal_reason(state, a) is None
            ]
            assert detector == legal
        game.apply(state, legal[r.integers(len(legal))], r)
        steps += 1
    game.check_invariants(state)
    assert steps <= game.max_steps and len(state.bag) == NUM_BALLS
    assert game.legal_actions(state) == [] and not game.legal_mask(state).any()


def test_rule_violation_holds_only_the_games_own_rules():
    """The shared checks (game over, id range) are the base class's; the game's detector,
    called with a decoded id, agrees with illegal_reason and with legal_actions at every step."""
    assert "illegal_reason" not in vars(SequiturGame)
    game, r = SequiturGame(2), rng(5)
    state = game.new_game(r)
    while state.phase != OVER:
        reasons = [
            game.rule_violation(state, *game.actions.decode(a)) for a in range(game.actions.size)
        ]
        assert reasons == [game.illegal_reason(state, a) for a in range(game.actions.size)]
        legal = game.legal_actions(state)
        assert [a for a, why in enumerate(reasons) if why is None] == legal
        game.apply(state, legal[r.integers(len(legal))], r)
    assert game.illegal_reason(state, 0) == "the game is over"
    state = game.new_game(rng(5))
    assert game.illegal_reason(state, game.actions.size) == (
        f"no such action (ids 0..{game.actions.size - 1})"
    )


def test_metadata_declares_version_and_reward_ranges():
    """The version is the ``_v0``; score-mode rewards stay inside the declared range."""
    metadata = sequitur_v0.raw_env.metadata
    assert metadata["version"] == 0 and metadata["reward_range"] == (-1.0, 1.0)
    low, high = metadata["score_reward_range"]
    seen = []
    for seed in range(3):
        env, r = sequitur_v0.env(num_players=2, reward_mode="score"), rng(seed)
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            observation, _, done, truncated, _ = env.last()
            legal = np.flatnonzero(observation["action_mask"])
            env.step(None if done or truncated else int(r.choice(legal)))
            seen += env.rewards.values()
    assert low <= min(seen) and max(seen) <= high and max(seen) > 0


def test_a_cloned_or_pickled_state_plays_on_identically():
    game, r = GAME, rng(7)
    state = game.new_game(r)
    for _ in range(30):
        game.apply(state, game.legal_actions(state)[-1], r)
    copies = [game.clone(state), pickle.loads(pickle.dumps(state))]
    assert all(c == state for c in copies)
    traces = []
    for copy in [state, *copies]:
        r2, trace = rng(3), []
        while copy.phase != OVER:
            legal = game.legal_actions(copy)
            action = legal[r2.integers(len(legal))]
            trace.append(action)
            game.apply(copy, action, r2)
        traces.append((trace, copy.totals))
    assert traces[0] == traces[1] == traces[2]


def test_a_tiny_custom_deck_running_out_skips_goal_draws():
    cards = [
        {"colour": "red", "kind": "any"},
        {"colour": "green", "kind": "vowel_run", "params": {"n": 2}},
    ]
    game = SequiturGame(5, goals=cards)
    for seed in range(3):
        r = rng(seed)
        state = game.new_game(r)
        while state.phase != OVER:
            game.check_invariants(state)
            legal = game.legal_actions(state)
            assert legal
            game.apply(state, legal[r.integers(len(legal))], r)


def test_bad_deals_are_explained():
    for deal, message in [
        ({"goals": {"blue": [0]}}, "colours"),
        ({"goals": {"red": [0]}}, "red goal ids"),
        ({"racks": ["hwfor"]}, "2 strings"),
        ({"racks": ["hwfo1", "abcde"]}, "letters a-z"),
        ({"draws": "qq"}, "no 'q' ball"),
    ]:
        with pytest.raises(ValueError, match=message):
            GAME.new_game(rng(), deal)


# -- chance as data: deal["chance"] scripts every random event of a game

TINY = [  # goal cards: two red, one yellow, one green
    {"colour": "red", "kind": "any"},
    {"colour": "red", "kind": "vowel_run", "params": {"n": 2}},
    {"colour": "yellow", "kind": "any"},
    {"colour": "green", "kind": "any"},
]


def whole_bag(letters: str) -> str:
    """All 72 balls in drawing order, ``letters`` first, as a ``balls`` outcome."""
    first = balls_of(letters)
    return letters + letters_of([b for b in range(NUM_BALLS) if b not in first])


def test_a_scripted_bag_fills_a_later_round_s_racks():
    """Each round every ball goes back into the bag before the racks are drawn: the script's
    second ``balls`` outcome is round 2's bag, and the third round, unscripted, is drawn."""
    deal = {"chance": {"balls": [whole_bag("hwforabcde"), whole_bag("quietzebra")]}}
    state = GAME.new_game(rng(), deal)
    assert [letters_of(rack) for rack in state.racks] == ["hwfor", "abcde"]
    play_until(GAME, state, lambda s: s.round == 1)
    assert [letters_of(rack) for rack in state.racks] == ["quiet", "zebra"]
    play_until(GAME, state, lambda s: s.round == 2)
    bags = GAME.deal_record(state)["chance"]["balls"]
    assert bags[1] == balls_of(whole_bag("quietzebra")) and len(bags) == 3
    assert sorted(bags[2]) == list(range(NUM_BALLS))


def test_scripted_goal_decks_and_claim_ties_are_used():
    """The goal decks are drawn top card first; the lot puts seat 2 before seat 0 when their
    words score the same (seat 1 scores more and claims first)."""
    game = SequiturGame(3)
    decks = [[g.id for g in game.goals if g.colour == c][::-1] for c in COLOURS]
    ids = {g.goal: g.id for g in game.goals if g.colour == "green"}
    public = [ids["S last"], ids["at least 5 letters"]]
    decks[2] = [g for g in decks[2] if g not in public]
    deal = {"chance": {"goal_decks": [decks], "claim_ties": [[2, 1, 0]]}}
    with pytest.raises(ValueError, match=r"\['goal_decks'\]\[0\]\[2\] must hold each of the 24"):
        game.new_game(rng(), deal)
    decks[2] += public
    state = game.new_game(rng(), deal)
    assert [deck[-1] for deck in state.decks] == [deck[0] for deck in decks]
    state = _claims_state(game, ["cats", "houses", "dogs"], [5, 7, 5], public, deal=deal)
    assert state.claim_order == [1, 2, 0]
    assert GAME.deal_record(state)["chance"]["claim_ties"] == [[2, 1, 0]]


def test_a_scripted_exchange_puts_the_ball_back_that_deep():
    """Exchange: the ball goes back into the bag and one is drawn. Depth 0 is the top, so the
    same ball comes straight back; depth 56 (the whole bag) puts it at the bottom."""
    state = GAME.new_game(rng(), {"chance": {"exchange": [0, 56]}})
    play_until(GAME, state, lambda s: s.phase == ACTION)
    racks, bag = [list(rack) for rack in state.racks], list(state.bag)
    assert len(bag) == 56
    act(GAME, state, "exchange slot 2")
    assert state.racks[0] == racks[0] and state.bag == bag
    act(GAME, state, "exchange slot 0")
    assert state.racks[1] == [bag[-1], *racks[1][1:]] and state.bag == [racks[1][0], *bag[:-1]]


def test_a_scripted_reshuffle_refills_the_empty_goal_deck_in_that_order():
    """An empty goal deck is refilled by shuffling its discards: here both red cards are
    discarded face down, and the scripted reshuffle puts card 1 on top."""
    game = SequiturGame(2, goals=TINY)
    state = game.new_game(rng(), {"chance": {"reshuffle": [[1, 0]]}})
    for goal in state.decks[0]:
        game.goal_decks.discard(state, goal, 1)
    state.decks[0] = []
    act(game, state, "secret goal red")
    assert state.secret[0] == 1 and state.decks[0] == [0] and state.discards[0] == []
    assert state.own_discards[1] == [] and GAME.deal_record(state)["chance"]["reshuffle"] == [
        [1, 0]
    ]


def test_a_scripted_outcome_that_does_not_fit_when_taken_is_refused_and_changes_nothing():
    """Solo draws two goal cards: the first empties the red deck, the second reshuffles its one
    discard; a reshuffle of other cards is refused, leaving the game and generator as they were."""
    game = SequiturGame(1, goals=TINY)
    state = game.new_game(rng(), {"chance": {"reshuffle": [[2]]}})
    discarded = state.decks[0].pop(0)
    game.goal_decks.discard(state, discarded, 0)
    before, r = pickle.dumps(state), rng(5)
    generator = r.bit_generator.state
    message = rf"\['reshuffle'\]\[0\] must be the 1 red discards .* \[{discarded}\] in any order"
    with pytest.raises(ValueError, match=message):
        game.apply(state, game.actions.ids["secret goal red"], r)
    assert pickle.dumps(state) == before and r.bit_generator.state == generator
    env = sequitur_v0.env(num_players=2)
    env.reset(seed=1, options={"deal": {"chance": {"exchange": [57]}}})
    while env.game_state.phase != ACTION:
        env.step(int(env.last()[0]["action_mask"].argmax()))
    with pytest.raises(ValueError, match=r"\['exchange'\]\[0\] must be a depth .* 0\.\.56"):
        env.step(env.game.actions.ids["exchange slot 0"])


def test_a_malformed_scripted_outcome_is_a_value_error_naming_the_event():
    for chance, message in [
        ({"shuffle": []}, "unknown events"),
        ({"balls": [list(range(71))]}, r"\['balls'\]\[0\] must be a list of 72 ball ids"),
        ({"balls": ["abc"]}, r"\['balls'\]\[0\] must be 72 letters"),
        ({"balls": [[0] * 72]}, r"\['balls'\]\[0\] holds 0 twice"),
        ({"goal_decks": [[[], [], []]]}, r"\['goal_decks'\]\[0\]\[0\] must hold each"),
        ({"goal_decks": [[[0]]]}, r"\['goal_decks'\]\[0\] must be a list of 3 decks"),
        ({"claim_ties": [[0, 1], [1, 1]]}, r"\['claim_ties'\]\[1\] holds 1 twice"),
        ({"claim_ties": [[0, 1]] * 4}, r"\['claim_ties'\] holds 4 outcomes.* at most 3"),
        ({"exchange": [3, -1]}, r"\['exchange'\]\[1\] must be a depth"),
        ({"reshuffle": [[True]]}, r"\['reshuffle'\]\[0\]\[0\] must be a goal id"),
    ]:
        with pytest.raises(ValueError, match=message):
            GAME.new_game(rng(), {"chance": chance})


def test_a_hand_written_round_1_is_the_first_outcome_and_not_scripted_twice():
    """``racks`` / ``draws`` fix round 1's bag and ``goals`` the goal decks' tops: the record
    logs them as the first ``balls`` and ``goal_decks`` outcomes and replays the game."""
    deal = {"racks": ["hwfor", "abcde"], "draws": "gde", "goals": {"red": [48]}}
    env = sequitur_v0.env(num_players=2)
    env.reset(seed=4, options={"deal": deal})
    actions = []
    for _agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        done = terminated or truncated
        actions.append(None if done else int(observation["action_mask"].argmax()))
        env.step(actions[-1])
    record = env.deal_record()
    assert set(record) == {"chance"} and record["chance"]["goal_decks"][0][0][0] == 48
    assert record["chance"]["balls"][0][:13] == balls_of("hwforabcdegde")
    replay = sequitur_v0.env(num_players=2)
    replay.reset(options={"deal": record})
    for action in actions:
        replay.step(action)
    assert replay.game_state.totals == env.game_state.totals and replay.deal_record() == record
    for written, event in [
        ({"racks": ["hwfor", "abcde"]}, "balls"),
        ({"goals": {"red": [48]}}, "goal_decks"),
    ]:
        both = {**written, "chance": record["chance"]}
        with pytest.raises(ValueError, match=rf"\['{event}'\] scripts .* not both"):
            GAME.new_game(rng(), both)


def test_a_resampled_state_carries_no_chance_log_or_script():
    deal = {"chance": {"balls": [whole_bag("hwforabcde")] * 3, "exchange": [4]}}
    state = GAME.new_game(rng(), deal)
    new = GAME.resample_hidden(state, 0, rng(1))
    assert new.chance.log == {} and new.chance.script == {}
    assert state.chance.script["balls"] and "balls" in state.chance.log


# -- the word list without slang (the rulebook recommends no names, slang or abbreviations)


def test_informal_spellings_are_not_words_and_ordinary_words_are():
    for word in ("gonna", "wanna", "gotta", "kinda", "dunno", "lemme", "tho"):
        assert word not in WORDS, word
    for word in ("words", "walked", "cats", "thought", "though", "through", "yes", "okay"):
        assert word in WORDS, word


def test_every_reviewed_informal_spelling_is_left_out_of_the_word_list():
    lines = (DEFAULT_WORDS.parent / "informal.txt").read_text().splitlines()
    informal = {line for line in lines if line and not line.startswith("#")}
    assert {"gonna", "wanna", "gotta", "kinda", "dunno", "lemme", "tho"} <= informal
    assert all(word.isascii() and word.isalpha() and word.islower() for word in informal)
    assert not informal & WORDS.words
