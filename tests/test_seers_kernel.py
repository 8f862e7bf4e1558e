"""Seers Catalog's compiled kernels against their Python references: the meld generator
(rules/_melds.pyx, ``melds.legal_plays_py``) lists the same melds, finishes and order on
thousands of hands; the legal mask built on it (``SeersCatalogGame.legal_mask_py``) sets the same
bytes at every step of whole games; the observation writer (_encoding.pyx,
``SeersCatalogEncoding.write_reference``) writes the same vector for every seat of thousands of
states; and the switch that picks them."""

from __future__ import annotations

import copy
import importlib
import os
import pickle
import random
import subprocess
import sys

import numpy as np
import pytest

from card_envs.core.kernels import PURE_PYTHON
from card_envs.seers_catalog import encoding
from card_envs.seers_catalog.encoding import SeersCatalogEncoding
from card_envs.seers_catalog.rules import SeersCatalogGame, melds
from card_envs.seers_catalog.rules import game as rules_game
from card_envs.seers_catalog.rules.cards import KIND, NUM_SUITED, WILD
from card_envs.seers_catalog.rules.melds import (
    K_CAULDRON,
    K_ECHO,
    K_HALF,
    K_PRISM,
    K_STONE,
    MATCH,
    RUN,
    Key,
    Plays,
    contenders,
    joiners,
    legal_plays_py,
)

try:
    kernel = importlib.import_module("card_envs.seers_catalog.rules._melds")
    writer = importlib.import_module("card_envs.seers_catalog._encoding")
except ImportError:  # not built: only the test below, which CI makes fail then, has a say
    kernel = writer = None
ARTIFACT_KINDS = range(WILD + 1, WILD + 11)
MODIFIERS_AND_FILLERS = (K_CAULDRON, K_PRISM, K_HALF, K_ECHO, K_STONE)


def test_seers_kernel_is_compiled():
    """CI sets CARD_ENVS_REQUIRE_COMPILED=1: then the kernel must be built and in use."""
    if os.environ.get("CARD_ENVS_REQUIRE_COMPILED") != "1":
        pytest.skip("CARD_ENVS_REQUIRE_COMPILED is not set")
    assert kernel is not None, "the kernels are not built: setup.py build_ext --inplace"
    assert melds.COMPILED or PURE_PYTHON
    assert rules_game.LEGAL_MASK is not None or PURE_PYTHON
    assert (encoding.OBSERVER is not None) or PURE_PYTHON


@pytest.fixture(autouse=True)
def built(request):
    if kernel is None and request.node.name != "test_seers_kernel_is_compiled":
        pytest.skip("the compiled kernel is not built (setup.py build_ext --inplace)")


def in_order(plays: Plays) -> list[tuple[tuple[int, ...], list]]:
    """The plays as found: melds in insertion order, each one's finishes in iteration order
    (the heuristic breaks ties by that order)."""
    return [(cards, list(finishes)) for cards, finishes in plays.items()]


def assert_same(hand: list[int], top: Key | None, focus: bool) -> None:
    expected = legal_plays_py(hand, top, focus)
    assert in_order(kernel.legal_plays(hand, top, focus)) == in_order(expected), (hand, top)


def random_hand(rng: random.Random) -> list[int]:
    """A hand of kinds, ascending: up to 14 suited cards (often bunched in one or two suits, so
    runs and sets appear), artifacts with the modifiers and fillers often, and up to 5 wilds
    (fewer beside many artifacts, where the reference is slow)."""
    suits = rng.sample(range(5), rng.randint(1, 5))
    pool = [k for k in range(NUM_SUITED) if k // 12 in suits]
    suited = rng.sample(pool, min(len(pool), rng.randint(0, 14)))
    arts = rng.sample(ARTIFACT_KINDS, rng.randint(0, 4))
    arts += [k for k in MODIFIERS_AND_FILLERS if rng.random() < 0.3]
    return sorted([*suited, *set(arts), *[WILD] * min(rng.randint(0, 6), 5 - len(arts) // 2)])


def random_top(rng: random.Random) -> Key | None:
    """Leading, a Single, or a Set or Run of 2-8, ranks from below every card to above all."""
    roll = rng.random()
    if roll < 0.25:
        return None
    if roll < 0.5:
        return (MATCH, 1, rng.randint(2, 31))
    size = rng.randint(2, 8)
    return (rng.choice((MATCH, RUN)), size, rng.randint(2 * size, 27))


@pytest.mark.parametrize("seed", range(4))
def test_kernel_equals_reference_on_random_hands(seed):
    rng = random.Random(seed)
    for _ in range(500):
        hand, top = random_hand(rng), random_top(rng)
        assert_same(hand, top, focus=False)
        assert_same(hand, top, focus=True)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_kernel_equals_reference_on_the_keys_the_game_asks(n):
    """The inputs the legal mask gives it: contenders after a Set or Run, else the joiners of
    each possible lowest kind (with ``focus``), on the hands and tables of random games."""
    game = SeersCatalogGame(n)
    rng = np.random.default_rng(n)
    state = game.new_game(rng)
    for _ in range(300):
        if game.is_over(state):
            state = game.new_game(rng)
        hand = [KIND[c] for c in state.hands[state.turn]]
        top = state.table[-1].key if state.table else None
        if top is not None and top[1] > 1:
            assert_same(list(contenders(hand, top)), top, focus=False)
        for first in sorted({k for k in hand if k <= WILD}):
            assert_same(list(joiners(hand, first, top)), top, focus=True)
        assert_same(hand, top, focus=False)
        legal = game.legal_actions(state)
        game.apply(state, legal[rng.integers(len(legal))], rng)


@pytest.mark.parametrize(
    "hand",
    [
        [WILD] * 5 + list(ARTIFACT_KINDS),  # no suited card: runs and sets of wilds alone
        list(range(12)) + [WILD] * 3 + [K_PRISM, K_CAULDRON, K_STONE, K_HALF],  # every run
        [0, 12, 24, 36, 48, WILD, K_ECHO, K_CAULDRON, K_HALF],  # five of a value, Echo lifts
        [5, 17, 30, 42, 55, K_PRISM, K_CAULDRON, K_STONE, WILD, WILD],  # Prism across suits
        [11, 23, 35, 47, 59, K_HALF, K_CAULDRON],  # 13s: the highest Sets, and Half Moon on top
        [],
    ],
)
def test_kernel_equals_reference_at_the_edges(hand):
    tops = [None, (MATCH, 1, 2), (MATCH, 1, 27), (MATCH, 5, 20), (RUN, 12, 26), (RUN, 3, 8)]
    for top in tops:
        assert_same(hand, top, focus=False)
        assert_same(hand, top, focus=True)


def test_kernel_refuses_what_is_not_a_hand():
    with pytest.raises(ValueError, match="not a card kind: 71"):
        kernel.legal_plays([3, 71], None)
    with pytest.raises(ValueError, match="at most 128"):
        kernel.legal_plays([WILD] * 129, None)


# -- the legal mask ---------------------------------------------------------------------------
SMALL_POOL = ["Go First", "Rod of Reincarnation", "Lens", "Half Moon", "Gift of Fate", "Crown"]
MODIFIER_POOL = [
    "Go First",
    "Cauldron of Sorcery",
    "Prism",
    "Half Moon",
    "Echo",
    "Stepping Stone",
    "Crown",
    "Gift of Fate",
    "Rod of Reincarnation",
    "Lens",
]


@pytest.mark.parametrize(
    ("n", "options"),
    [
        (2, {}),
        (3, {}),
        (4, {}),
        (5, {}),
        (3, {"artifact_pool": SMALL_POOL}),
        (5, {"artifact_pool": MODIFIER_POOL, "num_rounds": 2}),
    ],
)
def test_legal_mask_equals_reference_at_every_step(n, options):
    """Whole random games (leads, Singles, Sets and Runs to beat, builds card by card with
    every modifier, the Rod, Gift and Lens, the Bonus): the mask, bit for bit, at every step,
    from a kernel that keeps no table against a reference that keeps its tables."""
    game = SeersCatalogGame(n, **options)
    mask = kernel.LegalMask(*game._mask_config())
    rng = np.random.default_rng(n + len(options))
    builds = 0
    for _ in range(5):
        state = game.new_game(rng)
        while True:
            got, want = mask.mask(state), game.legal_mask_py(state)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), state
            row = bytearray(b"\x01") * len(want)  # a dirty row: write zeroes it first
            mask.write(state, row)
            assert bytes(row) == want.tobytes()
            if game.is_over(state):
                break
            builds += len(state.pending) > 1
            legal = np.flatnonzero(want)
            game.apply(state, int(legal[rng.integers(len(legal))]), rng)
        assert not mask.mask(state).any()
    assert builds > 50  # melds of two cards and more were built and checked on the way


def test_legal_mask_refuses_a_wrong_state_and_survives_copies():
    game = SeersCatalogGame(3)
    mask = kernel.LegalMask(*game._mask_config())
    state = game.new_game(np.random.default_rng(1))
    for copied in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert copied.legal_mask(state).tobytes() == game.legal_mask(state).tobytes()
    state.hands[state.turn].append(80)
    with pytest.raises(ValueError, match="card code 80 is out of range"):
        mask.mask(state)
    with pytest.raises(ValueError, match="action id"):
        kernel.LegalMask(10, {0: 11}, {}, 0, 1, (), ())


# -- the observation --------------------------------------------------------------------------
def compiled_writers(enc: SeersCatalogEncoding) -> list:
    """The compiled writers as the encoding builds them, made here so that they are tested
    even when CARD_ENVS_PURE_PYTHON=1 keeps the encoding on the reference."""
    n, size, at = enc.game.num_players, enc.spec.size, enc.spec.offsets
    return [writer.Observer(s, n, size, t, enc._table, at) for s, t in enumerate(enc._seats)]


@pytest.mark.parametrize(
    ("n", "options"),
    [
        (2, {}),
        (3, {"num_rounds": 2}),
        (4, {}),
        (5, {}),
        (
            4,
            {
                "artifact_pool": [
                    "Go First",
                    "Rod of Reincarnation",
                    "Lens",
                    "Half Moon",
                    "Gift of Fate",
                    "Crown",
                    "Prism",
                    "Echo",
                ]
            },
        ),
    ],
)
def test_writer_equals_reference_at_every_seat(n, options):
    """Whole random games (Rod pick-ups, Lens looks, Half Moon tops, builds in progress, later
    rounds): every seat's vector, bit for bit, at every step."""
    game = SeersCatalogGame(n, **options)
    enc = SeersCatalogEncoding(game)
    writers = compiled_writers(enc)
    rng = np.random.default_rng(n)
    for _ in range(3):
        state = game.new_game(rng)
        while not game.is_over(state):
            for seat in range(n):
                compiled = np.zeros(enc.spec.size, np.float32)
                writers[seat].write(state, compiled)
                reference = np.zeros(enc.spec.size, np.float32)
                enc.write_reference(state, seat, reference.data)
                assert compiled.tobytes() == reference.tobytes(), (seat, state)
            legal = game.legal_actions(state)
            game.apply(state, legal[rng.integers(len(legal))], rng)


def test_writer_refuses_a_wrong_buffer_or_state():
    game = SeersCatalogGame(3)
    enc = SeersCatalogEncoding(game)
    first = compiled_writers(enc)[0]
    state = game.new_game(np.random.default_rng(0))
    with pytest.raises(ValueError, match="float32 entries"):
        first.write(state, np.zeros(enc.spec.size, np.float64))
    state.hands[0].append(99)
    with pytest.raises(ValueError, match="card code 99 is out of range"):
        first.write(state, np.zeros(enc.spec.size, np.float32))


def test_pure_python_switch_selects_the_references():
    """CARD_ENVS_PURE_PYTHON=1, read at import, makes legal_plays, the mask and the observation
    the references."""
    code = (
        "from card_envs.seers_catalog import encoding; from card_envs.seers_catalog.rules "
        "import game, melds; print(melds.COMPILED, encoding.OBSERVER, game.LEGAL_MASK)"
    )
    env = {**os.environ, "CARD_ENVS_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "False None None", out.stderr
