"""Seals's compiled kernels against their Python references: the observation writer
(_encoding.pyx, ``SealsEncoding.write_reference``) writes the same vector for every seat at every
step of whole games, and the legal mask (rules/_moves.pyx, ``SealsGame.legal_mask_py``) sets the
same bytes, at every player count and option; states out of range refused; the switch that picks
them; copies that build their own."""

from __future__ import annotations

import copy
import importlib
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from card_envs.core.kernels import PURE_PYTHON
from card_envs.seals import encoding
from card_envs.seals.encoding import SealsEncoding
from card_envs.seals.rules import game as rules_game
from card_envs.seals.rules.game import SealsGame
from card_envs.seals.rules.state import REVEAL, ROUND_COUNTER

try:
    writer = importlib.import_module("card_envs.seals._encoding")
    moves = importlib.import_module("card_envs.seals.rules._moves")
except ImportError:  # not built: only the test below, which CI makes fail then, has a say
    writer = moves = None


def test_seals_kernel_is_compiled():
    """CI sets CARD_ENVS_REQUIRE_COMPILED=1: then the kernel must be built and in use."""
    if os.environ.get("CARD_ENVS_REQUIRE_COMPILED") != "1":
        pytest.skip("CARD_ENVS_REQUIRE_COMPILED is not set")
    assert writer is not None, "the kernels are not built: setup.py build_ext --inplace"
    assert (encoding.OBSERVER is not None and rules_game.LEGAL_MASK is not None) or PURE_PYTHON


@pytest.fixture(autouse=True)
def built(request):
    if writer is None and request.node.name != "test_seals_kernel_is_compiled":
        pytest.skip("the compiled kernels are not built (setup.py build_ext --inplace)")


def compiled_writer(enc: SealsEncoding):
    game = enc.game
    rounds = ROUND_COUNTER + game.tie_rounds
    return writer.Observer(game.num_players, enc.spec.size, rounds, enc.spec.offsets)


def vectors(enc: SealsEncoding, observer, state, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's vector (written into the middle row of three, as into a vector env's) and
    the reference's."""
    rows = np.zeros((3, enc.spec.size), np.float32)
    observer.write(state, seat, rows[1].data)
    assert not rows[0].any() and not rows[2].any()
    reference = np.zeros(enc.spec.size, np.float32)
    enc.write_reference(state, seat, reference.data)
    return rows[1], reference


@pytest.mark.parametrize(
    ("n", "options"),
    [
        (2, {}),
        (3, {"remember_takes": True}),
        (4, {}),
        (4, {"remember_takes": True, "tie_rounds": 6, "empty_pile": "end_round"}),
        (3, {"skip_forced_stop": True, "minor_major_series": "any_four"}),
    ],
)
def test_kernels_equal_references_at_every_step(n, options):
    """Whole random games (reveals, tie rounds, empty piles): every seat's vector and the
    mask, bit for bit, at every step."""
    game = SealsGame(n, **options)
    enc = SealsEncoding(game)
    observer, mask = compiled_writer(enc), moves.LegalMask(*game._mask_config())
    rng = np.random.default_rng(n)
    for _ in range(6):
        state = game.new_game(rng)
        while True:
            for seat in range(n):
                got, want = vectors(enc, observer, state, seat)
                assert got.tobytes() == want.tobytes(), (seat, np.flatnonzero(got != want))
            got, want = mask.mask(state), game.legal_mask_py(state)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
            row = bytearray(b"\x01") * len(want)  # a dirty row: write zeroes it first
            mask.write(state, row)
            assert bytes(row) == want.tobytes()
            if game.is_over(state):
                break
            legal = game.legal_actions(state)
            game.apply(state, legal[rng.integers(len(legal))], rng)
        assert not mask.mask(state).any()


def test_writer_refuses_a_wrong_buffer_or_state():
    game = SealsGame(3)
    enc = SealsEncoding(game)
    observer = compiled_writer(enc)
    state = game.new_game(np.random.default_rng(0))
    out = np.zeros(enc.spec.size, np.float32)
    with pytest.raises(ValueError, match="float32 entries"):
        observer.write(state, 0, np.zeros(enc.spec.size, np.float64))
    with pytest.raises(ValueError, match="seat 3 is out of range"):
        observer.write(state, 3, out)
    state.row.append(57)
    with pytest.raises(ValueError, match="card code 57 is out of range"):
        observer.write(state, 0, out)
    state.row.pop()
    state.round = 9
    with pytest.raises(ValueError, match="round 9 is out of range"):
        observer.write(state, 0, out)
    state.round, state.blasons = 0, [0, 0]
    with pytest.raises(ValueError, match="blasons has 2 entries, not 3"):
        observer.write(state, 0, out)
    state.blasons, state.active = [0, 0, 0], [False] * 3
    with pytest.raises(ValueError, match="no seat plays this round"):
        observer.write(state, 0, out)


def test_mask_refuses_a_wrong_state_or_layout():
    game = SealsGame(2)
    mask = moves.LegalMask(*game._mask_config())
    state = game.new_game(np.random.default_rng(0))
    state.row.append(60)
    with pytest.raises(ValueError, match="card code 60 is out of range"):
        mask.mask(state)
    state.row.pop()
    state.phase, state.revealed = REVEAL, [0] * 5
    with pytest.raises(ValueError, match="11 symbol counts and 5 series counts"):
        mask.mask(state)
    size, colour, symbol, reveal, _, kind = game._mask_config()
    with pytest.raises(ValueError, match=f"out must be {size} bytes"):
        mask.write(state, bytearray(size - 1))
    with pytest.raises(ValueError, match=f"out must be {size} bytes"):
        mask.write(state, np.zeros(size, np.int16))
    with pytest.raises(ValueError, match="do not fit a mask"):
        moves.LegalMask(size, colour, symbol, reveal, size, kind)


def test_copies_build_their_own_kernels():
    """A pickled or deep-copied encoding (a search agent's, a worker's) observes as the
    original does."""
    game = SealsGame(4, remember_takes=True)
    enc = SealsEncoding(game)
    state = game.new_game(np.random.default_rng(5))
    for other in (pickle.loads(pickle.dumps(enc)), copy.deepcopy(enc)):
        assert other.observe(state, 2).tobytes() == enc.observe(state, 2).tobytes()
    for copied in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert copied.legal_mask(state).tobytes() == game.legal_mask(state).tobytes()


def test_pure_python_switch_selects_the_references():
    """CARD_ENVS_PURE_PYTHON=1, read at import, makes the observation and the mask the
    references."""
    code = (
        "from card_envs.seals import encoding; from card_envs.seals.rules import game; "
        "print(encoding.OBSERVER, game.LEGAL_MASK)"
    )
    env = {**os.environ, "CARD_ENVS_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "None None", out.stderr
