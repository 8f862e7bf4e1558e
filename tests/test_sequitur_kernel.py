"""Sequitur's compiled kernels against their Python references (the spec): the word search on
thousands of random racks, and the kernels are in use where CI requires them."""

from __future__ import annotations

import copy
import os
import pickle
import random

import pytest

from card_envs.sequitur.rules.compiled import PURE_PYTHON
from card_envs.sequitur.rules.words import (
    BLANK,
    Dictionary,
    Q,
    find_spellings,
    load_dictionary,
    spellings_reference,
)

try:
    from card_envs.sequitur.rules import _spelling
except ImportError:  # not built here: the kernel tests skip, test_..._is_compiled decides
    _spelling = None  # type: ignore[assignment]

WORDS = load_dictionary()
compiled = pytest.mark.skipif(_spelling is None, reason="the Sequitur kernels are not built")


def test_sequitur_kernel_is_compiled():
    """CI sets CARD_ENVS_REQUIRE_COMPILED=1: a missing extension must fail there, not fall back."""
    if os.environ.get("CARD_ENVS_REQUIRE_COMPILED") != "1":
        pytest.skip("CARD_ENVS_REQUIRE_COMPILED is not set")
    assert _spelling is not None, "card_envs.sequitur.rules._spelling is not built"
    assert PURE_PYTHON or WORDS.tree is not None


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
def test_word_search_kernel_matches_on_any_ball_codes():
    """Several blanks or Q balls (not in the game's bag) follow the reference too."""
    tree = _spelling.LetterTree(WORDS.steps, WORDS.root_kids)
    r = random.Random(7)
    for _ in range(1000):
        rack = tuple(r.randint(0, BLANK) for _ in range(r.randint(0, 10)))
        assert list(tree.spellings(rack).items()) == list(
            spellings_reference(rack, WORDS).items()
        ), rack


@compiled
def test_word_search_kernel_on_a_small_dictionary():
    words = Dictionary(["cat", "act", "tack", "quack", "aqua", "qat", "at"])
    tree = _spelling.LetterTree(words.steps, words.root_kids)
    r = random.Random(3)
    for _ in range(500):
        rack = random_rack(r, r.randint(0, 10), r.random() < 0.5)
        assert list(tree.spellings(rack).items()) == list(spellings_reference(rack, words).items())


def test_find_spellings_uses_the_kernel_unless_pure_python_is_asked():
    assert (WORDS.tree is None) == (PURE_PYTHON or _spelling is None)
    rack = (2, 0, 19, BLANK)
    assert find_spellings(rack, WORDS) == spellings_reference(rack, WORDS)


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
