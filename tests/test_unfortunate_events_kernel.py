"""The Catastrophic Card Game's compiled kernels against their Python references: the
observation writer (_encoding.pyx, ``UnfortunateEventsEncoding.observe_reference``) writes the
same vector for every seat at every step of whole games, and the legal mask (rules/_moves.pyx,
``UnfortunateEventsGame.legal_mask_py``) sets the same bytes in every phase, at every player
count; states out of range refused; the switch that picks them; copies that build their own."""

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
from card_envs.unfortunate_events import encoding
from card_envs.unfortunate_events.encoding import UnfortunateEventsEncoding
from card_envs.unfortunate_events.rules import game as rules_game
from card_envs.unfortunate_events.rules.game import UnfortunateEventsGame
from card_envs.unfortunate_events.rules.state import PHASE_NAMES

try:
    writer = importlib.import_module("card_envs.unfortunate_events._encoding")
    moves = importlib.import_module("card_envs.unfortunate_events.rules._moves")
except ImportError:  # not built: only the test below, which CI makes fail then, has a say
    writer = moves = None


def test_unfortunate_events_kernel_is_compiled():
    """CI sets CARD_ENVS_REQUIRE_COMPILED=1: then the kernel must be built and in use."""
    if os.environ.get("CARD_ENVS_REQUIRE_COMPILED") != "1":
        pytest.skip("CARD_ENVS_REQUIRE_COMPILED is not set")
    assert writer is not None, "the kernels are not built: setup.py build_ext --inplace"
    assert (encoding.OBSERVER is not None and rules_game.LEGAL_MASK is not None) or PURE_PYTHON


@pytest.fixture(autouse=True)
def built(request):
    if writer is None and request.node.name != "test_unfortunate_events_kernel_is_compiled":
        pytest.skip("the compiled kernels are not built (setup.py build_ext --inplace)")


def compiled_vector(observer, size: int, state, seat: int) -> np.ndarray:
    """The kernel's vector, written into the middle row of three (as into a vector env's)."""
    rows = np.zeros((3, size), np.float32)
    observer.write(state, seat, rows[1].data)
    assert not rows[0].any() and not rows[2].any()
    return rows[1]


@pytest.mark.parametrize(
    ("n", "options"),
    [
        (2, {}),
        (3, {"snicket_prompt": "always"}),
        (4, {}),
        (5, {"game_end": "centre_empty"}),
        (6, {}),
        (3, {"turn_cap": 400, "max_rounds": 2}),  # turn counters past 255
    ],
)
def test_kernels_equal_references_at_every_step(n, options):
    """Whole random games (attacks, burns, Olaf's Eye looks, Snicket cancels, reshuffles,
    every round): every seat's vector and the mask, bit for bit, at every step."""
    game = UnfortunateEventsGame(n, **options)
    enc = UnfortunateEventsEncoding(game)
    observer = writer.Observer(n, enc.spec.size, enc.spec.offsets)
    mask = moves.LegalMask(n, game.actions.size, game.actions.start)
    rng = np.random.default_rng(n)
    seen_turns, phases = 0, set()
    for _ in range(3):
        state = game.new_game(rng)
        while True:
            got, want = mask.mask(state), game.legal_mask_py(state)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), state.phase
            row = bytearray(b"\x01") * len(want)  # a dirty row: write zeroes it first
            mask.write(state, row)
            assert bytes(row) == want.tobytes()
            if game.is_over(state) or game.is_truncated(state):
                break
            for seat in range(n):
                got = compiled_vector(observer, enc.spec.size, state, seat)
                want = enc.observe_reference(state, seat)
                assert want.dtype == np.float32
                assert got.tobytes() == want.tobytes(), (seat, np.flatnonzero(got != want))
            seen_turns, phases = max(seen_turns, state.turns), phases | {state.phase}
            legal = game.legal_actions(state)
            game.apply(state, legal[rng.integers(len(legal))], rng)
        assert not mask.mask(state).any()
    assert options.get("turn_cap", 0) < 256 or seen_turns >= 256
    assert options or phases == set(range(len(PHASE_NAMES)))


def test_mask_refuses_a_wrong_state_or_layout():
    game = UnfortunateEventsGame(3)
    mask = moves.LegalMask(3, game.actions.size, game.actions.start)
    state = game.new_game(np.random.default_rng(0))
    state.actor = 5
    with pytest.raises(ValueError, match="actor 5 is out of range"):
        mask.mask(state)
    state.actor, state.phase = state.turn_player, 1  # lay or discard
    state.hands[state.actor] = [0] * 20
    with pytest.raises(ValueError, match="a hand has 20 entries, not 21"):
        mask.mask(state)
    with pytest.raises(ValueError, match="do not fit a mask"):
        moves.LegalMask(3, game.actions.size - 1, game.actions.start)


def test_writer_refuses_a_wrong_buffer_or_state():
    game = UnfortunateEventsGame(4)
    enc = UnfortunateEventsEncoding(game)
    observer = writer.Observer(4, enc.spec.size, enc.spec.offsets)
    state = game.new_game(np.random.default_rng(0))
    out = np.zeros(enc.spec.size, np.float32)
    with pytest.raises(ValueError, match="float32 entries"):
        observer.write(state, 0, np.zeros(enc.spec.size, np.float64))
    with pytest.raises(ValueError, match="seat 4 is out of range"):
        observer.write(state, 4, out)
    before = copy.deepcopy(state)
    state.laid[1].append(999)
    with pytest.raises(ValueError, match="set id 999 is out of range"):
        observer.write(state, 0, out)
    state.laid[1].pop()
    state.hands[2] = state.hands[2][:5]
    with pytest.raises(ValueError, match="a hand has 5 entries, not 21"):
        observer.write(state, 0, out)
    state.hands = before.hands
    state.dealer = 7
    with pytest.raises(ValueError, match="dealer 7 is out of range"):
        observer.write(state, 0, out)
    with pytest.raises(ValueError, match="not at the size"):
        writer.Observer(4, enc.spec.size + 1, enc.spec.offsets)


def test_copies_build_their_own_kernels():
    """A pickled or deep-copied encoding (a search agent's, a worker's) observes as the
    original does."""
    game = UnfortunateEventsGame(3)
    enc = UnfortunateEventsEncoding(game)
    state = game.new_game(np.random.default_rng(5))
    for other in (pickle.loads(pickle.dumps(enc)), copy.deepcopy(enc)):
        assert other.observe(state, 1).tobytes() == enc.observe(state, 1).tobytes()
    for copied in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert copied.legal_mask(state).tobytes() == game.legal_mask(state).tobytes()


def test_pure_python_switch_selects_the_references():
    """CARD_ENVS_PURE_PYTHON=1, read at import, makes the observation and the mask the
    references."""
    code = (
        "from card_envs.unfortunate_events import encoding; "
        "from card_envs.unfortunate_events.rules import game; "
        "print(encoding.OBSERVER, game.LEGAL_MASK)"
    )
    env = {**os.environ, "CARD_ENVS_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "None None", out.stderr
