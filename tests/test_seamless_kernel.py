"""Seamless's compiled kernels against their Python references: the observation writer
(_encoding.pyx, ``SeamlessEncoding.write``) writes the same vector for every seat at every step
of whole games, and the legal mask (rules/_moves.pyx, ``SeamlessGame.legal_mask_py``) sets the
same bytes; both refuse states out of range; and the switch that picks them."""

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

from card_envs import seamless_v0
from card_envs.core.kernels import PURE_PYTHON
from card_envs.seamless import encoding
from card_envs.seamless.encoding import SeamlessEncoding
from card_envs.seamless.rules import SeamlessGame
from card_envs.seamless.rules import game as rules_game
from card_envs.seamless.rules.cards import NUM_RANKS

try:
    writer = importlib.import_module("card_envs.seamless._encoding")
    moves = importlib.import_module("card_envs.seamless.rules._moves")
except ImportError:  # not built: only the test below, which CI makes fail then, has a say
    writer = moves = None
OPTIONS = [
    {},
    {"trick_one_trump_lead": "void_in_a_suit"},
    {"max_rounds": 9, "target_score": 60},  # later rounds, larger totals
]


def test_seamless_kernel_is_compiled():
    """CI sets CARD_ENVS_REQUIRE_COMPILED=1: then the kernels must be built and in use."""
    if os.environ.get("CARD_ENVS_REQUIRE_COMPILED") != "1":
        pytest.skip("CARD_ENVS_REQUIRE_COMPILED is not set")
    assert writer is not None, "the kernels are not built: setup.py build_ext --inplace"
    assert (encoding.OBSERVER is not None and rules_game.MOVES is not None) or PURE_PYTHON


@pytest.fixture(autouse=True)
def built(request):
    if writer is None and request.node.name != "test_seamless_kernel_is_compiled":
        pytest.skip("the compiled kernels are not built (setup.py build_ext --inplace)")


def compiled(game: SeamlessGame) -> tuple:
    """The compiled writer and mask as the encoding and game build them, made here so that they
    are tested even when CARD_ENVS_PURE_PYTHON=1 keeps the game on the references."""
    enc = SeamlessEncoding(game)
    n = game.num_players
    observer = writer.Observer(n, enc.spec.size, game.max_rounds, enc._tables)
    return enc, observer, moves.Moves(*game._moves_config())


def reference_vector(enc: SeamlessEncoding, state, seat: int) -> np.ndarray:
    vector = np.zeros(enc.spec.size, np.float32)
    enc.write_reference(state, seat, vector.data)
    return vector


def written(observer, size: int, state, seat: int) -> np.ndarray:
    """The kernel's vector written into a row of a larger array (as a vector env's)."""
    rows = np.zeros((3, size), np.float32)
    observer.write(state, seat, rows[1].data)
    assert not rows[0].any() and not rows[2].any()
    return rows[1]


@pytest.mark.parametrize("options", OPTIONS)
def test_kernels_equal_references_at_every_step(options):
    """Whole random games (claims that Replace, every round, the game's end): every seat's
    vector and the mask, bit for bit, at every step."""
    game = SeamlessGame(**options)
    enc, observer, mask = compiled(game)
    rng = np.random.default_rng(len(options))
    for _ in range(4):
        state = game.new_game(rng)
        while True:
            for seat in range(game.num_players):
                vector = observer.observe(state, seat)
                assert vector.dtype == np.float32
                assert vector.tobytes() == reference_vector(enc, state, seat).tobytes(), seat
                assert vector.tobytes() == written(observer, enc.spec.size, state, seat).tobytes()
            got, expected = mask.mask(state), game.legal_mask_py(state)
            assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()
            row = bytearray(b"\x01") * len(expected)  # a dirty row: write zeroes it first
            mask.write(state, row)
            assert bytes(row) == expected.tobytes()
            if game.is_over(state):
                break
            legal = game.legal_actions(state)
            game.apply(state, legal[rng.integers(len(legal))], rng)
        assert not mask.mask(state).any()


@pytest.mark.parametrize("options", OPTIONS)
def test_compiled_moves_equal_reference_moves(options):
    """Every legal move of whole random games, from the same state and generator: the compiled
    play or claim (and the round end it reports) leaves the state ``apply_py`` leaves."""
    game = SeamlessGame(**options)
    moves_ = compiled(game)[2]
    rng = np.random.default_rng(7)
    for _ in range(3):
        state = game.new_game(rng)
        while not game.is_over(state):
            for action in game.legal_actions(state):
                mine, theirs = copy.deepcopy(state), copy.deepcopy(state)
                seed = int(rng.integers(1 << 30))
                if moves_.apply(mine, action):
                    game._end_round(mine, np.random.default_rng(seed))
                game.apply_py(theirs, action, np.random.default_rng(seed))
                assert mine == theirs, action
            legal = game.legal_actions(state)
            game.apply(state, legal[rng.integers(len(legal))], rng)


@pytest.mark.parametrize("rule", ["no_other_suit", "void_in_a_suit"])
def test_mask_equals_reference_on_trick_one_leads(rule):
    """Leads on trick 1 from hands rich in trumps and in voids (rare in random deals): the
    trump-lead rule decides them."""
    game = SeamlessGame(trick_one_trump_lead=rule)
    mask = compiled(game)[2]
    rand = random.Random(rule)
    state = game.new_game(np.random.default_rng(0))
    leader, seen = state.leader, set()
    for _ in range(400):
        suits = rand.sample(range(4), rand.randint(1, 4))
        pool = [c for c in range(52) if c // NUM_RANKS in suits]
        state.hands[leader] = sorted(rand.sample(pool, rand.randint(1, min(13, len(pool)))))
        state.trump = rand.choice([*suits, rand.randrange(4)])
        got, expected = mask.mask(state), game.legal_mask_py(state)
        assert got.tobytes() == expected.tobytes(), (state.hands[leader], state.trump)
        seen.add(bool(got[[c for c in state.hands[leader] if c // NUM_RANKS == state.trump]].any()))
    assert seen == {True, False}  # trump was both allowed and refused


def test_kernels_refuse_states_out_of_range():
    game = SeamlessGame()
    enc, observer, mask = compiled(game)
    state = game.new_game(np.random.default_rng(0))
    before = copy.deepcopy(state)
    state.hands[state.leader].append(99)
    with pytest.raises(ValueError, match="card code 99 is out of range"):
        observer.observe(state, state.leader)
    with pytest.raises(ValueError, match="card code 99 is out of range"):
        mask.mask(state)
    state.hands[state.leader].pop()
    assert state == before
    with pytest.raises(ValueError, match="seat 4 is out of range"):
        observer.observe(state, 4)
    with pytest.raises(ValueError, match="seat 4 is out of range"):
        observer.write(state, 4, np.zeros(enc.spec.size, np.float32))
    with pytest.raises(ValueError, match="float32 entries"):
        observer.write(state, 0, np.zeros(enc.spec.size, np.float64))
    state.round = 5
    with pytest.raises(ValueError, match="round 5 is out of range"):
        observer.observe(state, 0)
    state.round = 0
    for action in (-1, 104, state.hands[(state.leader + 1) % 4][0]):
        with pytest.raises(ValueError, match=r"no such action|not in list"):
            mask.apply(state, action)
        assert state == before
    with pytest.raises(ValueError, match="do not fit a mask"):
        moves.Moves(4, 0, 80, 104, False)


def test_kernels_refuse_short_lists():
    """Lists shorter than the seats or ranks raise (never a read past a list's end: the
    kernels check by hand what Cython's bounds checks would)."""
    game = SeamlessGame()
    _, observer, mask = compiled(game)
    state = game.new_game(np.random.default_rng(0))
    state.hands = state.hands[: state.leader]
    with pytest.raises(ValueError, match=f"seat {state.leader} to act has no hand"):
        mask.mask(state)
    with pytest.raises(ValueError, match=r"no hand for seat 3 \(1 hands\)"):
        observer.observe(state, 3)
    state = game.new_game(np.random.default_rng(0))
    for _ in range(4):
        mask.apply(state, game.legal_actions(state)[0])
    winner = state.winner
    state.rows[winner] = state.rows[winner][:1]
    state.trick = [0, 1, 2, 25]
    with pytest.raises(ValueError, match="has 1 rank slots, not 13"):
        mask.apply(state, 52 + 25)


def test_copies_build_their_own_kernels():
    """A pickled or deep-copied env (a search agent's, a worker's) observes and masks as the
    original does."""
    env = seamless_v0.env()
    env.reset(seed=3)
    for _ in range(9):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    for other in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        for agent in env.agents:
            mine, theirs = env.observe(agent), other.observe(agent)
            assert mine["observation"].tobytes() == theirs["observation"].tobytes()
            assert mine["action_mask"].tobytes() == theirs["action_mask"].tobytes()


def test_pure_python_switch_selects_the_references():
    """CARD_ENVS_PURE_PYTHON=1, read at import, makes the observation and mask the references."""
    code = (
        "from card_envs.seamless import encoding; from card_envs.seamless.rules import game; "
        "print(encoding.OBSERVER, game.MOVES)"
    )
    env = {**os.environ, "CARD_ENVS_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "None None", out.stderr
