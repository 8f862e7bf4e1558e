"""Sequitur's compiled kernels against their Python references (the spec): the word search on
thousands of random racks (and each spelling's word and score), the observation of every seat
at every step of random games, and the kernels are in use where CI requires them."""

from __future__ import annotations

import copy
import os
import pickle
import random
import subprocess
import sys

import numpy as np
import pytest

from card_envs.core.kernels import PURE_PYTHON
from card_envs.sequitur.action_values import WordValues
from card_envs.sequitur.encoding import SequiturEncoding
from card_envs.sequitur.rules import SequiturGame
from card_envs.sequitur.rules.cards import BALL_LETTER, NUM_BALLS
from card_envs.sequitur.rules.goals import COLOURS
from card_envs.sequitur.rules.spelling import (
    CODE_POINTS,
    Spellings,
    key_choices,
    words_reference,
)
from card_envs.sequitur.rules.words import (
    BLANK,
    Dictionary,
    Q,
    find_spellings,
    load_dictionary,
    spelling_keys_reference,
    spellings_reference,
    write_spelling_keys,
)

try:
    from card_envs.sequitur import _encoding
    from card_envs.sequitur.rules import _spelling
except ImportError:  # not built here: the kernel tests skip, test_..._is_compiled decides
    _encoding = _spelling = None  # type: ignore[assignment]

WORDS = load_dictionary()
compiled = pytest.mark.skipif(
    _spelling is None or PURE_PYTHON, reason="the Sequitur kernels are not built or switched off"
)


def test_sequitur_kernel_is_compiled():
    """CI sets CARD_ENVS_REQUIRE_COMPILED=1: a missing extension must fail there, not fall back."""
    if os.environ.get("CARD_ENVS_REQUIRE_COMPILED") != "1":
        pytest.skip("CARD_ENVS_REQUIRE_COMPILED is not set")
    assert _spelling is not None and _encoding is not None, "the Sequitur kernels are not built"
    assert PURE_PYTHON or WORDS.tree is not None
    assert PURE_PYTHON or SequiturEncoding(SequiturGame(2))._observer is not None


def test_pure_python_switch_selects_the_references():
    """CARD_ENVS_PURE_PYTHON=1, read once at import, makes the word search and the observation
    the Python references."""
    code = (
        "from card_envs.sequitur.encoding import SequiturEncoding; "
        "from card_envs.sequitur.rules import SequiturGame; "
        "print(SequiturGame(2).dictionary.tree, SequiturEncoding(SequiturGame(2))._observer)"
    )
    env = {**os.environ, "CARD_ENVS_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "None None", out.stderr


def random_rack(r: random.Random, size: int, blank: bool) -> tuple[int, ...]:
    """Ball codes as a game deals them: at most one Q ball; the blank where asked."""
    letters = [c for c in range(26) if c != Q]
    rack = [r.choice(letters) for _ in range(size)]
    if size and r.random() < 0.3:
        rack[r.randrange(size)] = Q
    if size and blank:
        rack[r.randrange(size)] = BLANK
    return tuple(rack)


@compiled
@pytest.mark.parametrize("blank", [False, True])
@pytest.mark.parametrize("size", range(11))
def test_word_search_kernel_matches_the_reference(size, blank):
    """Same keys, same choices, in the same order (the heuristic keeps the first of equals)."""
    tree = _spelling.LetterTree(WORDS.steps, WORDS.root_kids)
    r = random.Random(size * 2 + blank)
    for _ in range(300 if size <= 8 else 120):
        rack = random_rack(r, size, blank)
        assert list(tree.spellings(rack).items()) == list(
            spellings_reference(rack, WORDS).items()
        ), rack


@compiled
@pytest.mark.parametrize("blank", [False, True])
def test_spelled_words_kernel_matches_the_reference(blank):
    """Each spelling's word and word score, in order, as the heuristic weighs them."""
    r = random.Random(11 + blank)
    for _ in range(1500):
        rack = random_rack(r, r.randint(0, 10), blank)
        assert WORDS.tree.words(rack, CODE_POINTS) == words_reference(rack, WORDS), rack


@compiled
def test_word_search_kernel_matches_on_any_ball_codes():
    """Several blanks or Q balls (not in the game's bag) follow the reference too."""
    tree = _spelling.LetterTree(WORDS.steps, WORDS.root_kids)
    r = random.Random(7)
    for _ in range(1000):
        rack = tuple(r.randint(0, BLANK) for _ in range(r.randint(0, 10)))
        assert list(tree.spellings(rack).items()) == list(
            spellings_reference(rack, WORDS).items()
        ), rack
        assert tree.words(rack, CODE_POINTS) == words_reference(rack, WORDS), rack


@compiled
@pytest.mark.parametrize("blank", [False, True])
def test_best_plan_kernel_matches_the_python_loop(blank):
    """A rack's most valuable word for a set of goals (``WordValues.plan``), compiled and over
    the reference's words: the same value, the same first spelling of equals, the same count."""
    game = SequiturGame(4)
    compiled_values, reference_values = WordValues(game), WordValues(game)
    reference_values.dictionary = copy.copy(game.dictionary)
    reference_values.dictionary.tree = None
    r = random.Random(5 + blank)
    for _ in range(1500):
        rack = random_rack(r, r.randint(0, 10), blank)
        targets = tuple(sorted(r.sample(range(len(game.goals)), r.randint(0, 4))))
        plan = compiled_values.plan(rack, targets)
        assert plan == reference_values.plan(rack, targets), (rack, targets)
        assert plan[4] == len(words_reference(rack, WORDS))


@compiled
def test_word_search_kernel_on_a_small_dictionary():
    words = Dictionary(["cat", "act", "tack", "quack", "aqua", "qat", "at"])
    tree = _spelling.LetterTree(words.steps, words.root_kids)
    r = random.Random(3)
    for _ in range(500):
        rack = random_rack(r, r.randint(0, 10), r.random() < 0.5)
        assert list(tree.spellings(rack).items()) == list(spellings_reference(rack, words).items())


@compiled
def test_spelling_keys_kernel_marks_the_keys_of_the_search():
    """``write_keys`` marks exactly the reference's keys at its offset, counts them and leaves
    the bytes around the block alone; ``write_spelling_keys`` (what the mask uses) agrees with
    its reference."""
    tree = _spelling.LetterTree(WORDS.steps, WORDS.root_kids)
    block, offset = 2 << 10, 7
    r = random.Random(13)
    for _ in range(1500):
        rack = random_rack(r, r.randint(0, 10), r.random() < 0.3)
        out = np.zeros(block + offset + 3, np.int8)
        out[:offset] = out[offset + block :] = 5
        count = tree.write_keys(rack, out.data, offset)
        keys = spellings_reference(rack, WORDS)
        assert count == len(keys), rack
        assert np.flatnonzero(out[offset : offset + block]).tolist() == sorted(keys), rack
        assert (out[:offset] == 5).all() and (out[offset + block :] == 5).all()
        for write in (spelling_keys_reference, write_spelling_keys):
            again = np.zeros_like(out)
            assert write(rack, WORDS, again.data, offset) == count
            assert np.array_equal(again[offset : offset + block], out[offset : offset + block])


@compiled
@pytest.mark.parametrize("offset", [-1, 4])
def test_spelling_keys_kernel_refuses_a_block_past_the_buffer(offset):
    tree = _spelling.LetterTree(WORDS.steps, WORDS.root_kids)
    with pytest.raises(ValueError, match="no room"):
        tree.write_keys((2, 0, 19), np.zeros(2 << 10, np.int8).data, offset)
    with pytest.raises(ValueError, match="rack holds at most"):
        tree.write_keys(tuple(range(11)), np.zeros(2 << 10, np.int8).data, 0)


def test_find_spellings_uses_the_kernel_unless_pure_python_is_asked():
    assert (WORDS.tree is None) == (PURE_PYTHON or _spelling is None)
    rack = (2, 0, 19, BLANK)
    assert find_spellings(rack, WORDS) == spellings_reference(rack, WORDS)


def test_cached_spellings_are_the_search_with_one_tuple_per_distinct_choice_list():
    spellings, r = Spellings(WORDS), random.Random(5)
    shared: dict[tuple[tuple[int, int], ...], int] = {}
    for _ in range(300):
        balls = r.sample(range(NUM_BALLS), r.randint(1, 10))
        found = spellings.of(balls)
        searched = find_spellings(tuple(BALL_LETTER[b] for b in balls), WORDS)
        assert list(found.items()) == [(key, tuple(c)) for key, c in searched.items()]
        assert spellings.of(balls) is found
        for choices in found.values():
            assert shared.setdefault(choices, id(choices)) == id(choices)
    assert len(shared) > 1  # blanks and Q balls give choices beyond the plain one


def test_a_spelling_keys_choices_are_the_rack_searchs():
    """``key_choices`` (the blank and Q choices, searched over the chosen balls alone) finds
    the choices the rack's whole search gives that key, in the same order."""
    r = random.Random(17)
    for _ in range(300):
        balls = r.sample(range(NUM_BALLS), r.randint(1, 10))
        if r.random() < 0.5:  # the blank and the Q ball, often
            balls[r.randrange(len(balls))] = BALL_LETTER.index(BLANK)
        if r.random() < 0.5 and BALL_LETTER.index(Q) not in balls:
            balls[r.randrange(len(balls))] = BALL_LETTER.index(Q)
        found = find_spellings(tuple(BALL_LETTER[b] for b in balls), WORDS)
        for key, choices in found.items():
            assert key_choices(balls, key, WORDS) == choices, (balls, key)


@compiled
@pytest.mark.parametrize("rack", [tuple(range(11)), (0, 27, 1), (-1, 2, 3)])
def test_word_search_kernel_refuses_bad_racks(rack):
    tree = _spelling.LetterTree(WORDS.steps, WORDS.root_kids)
    with pytest.raises(ValueError, match=r"rack holds at most|ball codes are"):
        tree.spellings(rack)


@compiled
def test_letter_tree_survives_pickle_and_deepcopy():
    words = Dictionary(["cat", "act", "tack"])
    tree = _spelling.LetterTree(words.steps, words.root_kids)
    for other in (pickle.loads(pickle.dumps(tree)), copy.deepcopy(tree)):
        assert other.spellings((2, 0, 19, 10)) == tree.spellings((2, 0, 19, 10))


# -- the observation


def random_states(game: SequiturGame, seed: int):
    """Every state of a random game, at every decision to its end."""
    r = np.random.default_rng(seed)
    state = game.new_game(r)
    while True:
        yield state
        legal = game.legal_actions(state)
        if not legal:
            return
        game.apply(state, legal[r.integers(len(legal))], r)


SMALL_DECK = [{"colour": c, "kind": "any", "min_length": 3} for c in COLOURS for _ in range(2)]


@compiled
@pytest.mark.parametrize(
    "players, options",
    [
        *((players, {}) for players in range(1, 6)),
        (3, {"claim_pass": True}),
        (2, {"goals": SMALL_DECK}),
        (4, {"goals": SMALL_DECK, "claim_pass": True}),
    ],
)
def test_observation_kernel_matches_the_reference(players, options):
    """Every seat's vector at every step of random games: setup, goal, action and spelling
    steps, claims, passes, a deck that runs out, the game's end."""
    game = SequiturGame(players, **options)
    encoding = SequiturEncoding(game)
    assert encoding._observer is not None
    for seed in range(4):
        for state in random_states(game, seed):
            for seat in range(players):
                got = encoding.observe(state, seat)
                want = encoding.observe_reference(state, seat)
                assert got.dtype == want.dtype and np.array_equal(got, want), (seed, seat)


@compiled
def test_observation_kernel_refuses_a_bad_ball_and_survives_copies():
    game = SequiturGame(3)
    encoding = SequiturEncoding(game)
    state = next(random_states(game, 0))
    for other in (pickle.loads(pickle.dumps(encoding)), copy.deepcopy(encoding)):
        assert np.array_equal(other.observe(state, 1), encoding.observe(state, 1))
    state.racks[0][0] = 72  # no such ball
    with pytest.raises(IndexError, match="no ball 72"):
        encoding.observe(state, 0)


@compiled
@pytest.mark.parametrize("offset", [0, 1, 3])
def test_observation_kernel_sets_every_entry_of_a_row_at_any_alignment(offset):
    """A vector env does not zero a row before this writer fills it: every entry is set, at
    any alignment of the row (the writer streams whole blocks past the cache), and a refused
    state leaves the row as it was."""
    game = SequiturGame(4)
    encoding = SequiturEncoding(game)
    assert encoding.writes_every_entry
    buffer = np.full(encoding.spec.size + offset, np.nan, np.float32)
    row = buffer[offset:]
    states = [copy.deepcopy(state) for state in random_states(game, 1)]
    for state in states[::7]:
        seat = game.current_player(state)
        encoding.write(state, seat, row.data)
        assert np.array_equal(row, encoding.observe_reference(state, seat))
        row[::5] = np.nan  # what the last write left must not show through the next
    before = row.copy()
    states[3].racks[0][0] = 72  # no such ball
    with pytest.raises(IndexError, match="no ball 72"):
        encoding.write(states[3], 0, row.data)
    assert np.array_equal(row, before, equal_nan=True)
