"""The shared core: card codes, specs, option checks, rewards, the opt-in penalty wrapper."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs import make
from card_envs.agents.match import decisions
from card_envs.core.cards import card, card_name, parse_card, rank_of, suit_of
from card_envs.core.game import FlatEncoding, check_int_option, check_option, win_rewards
from card_envs.core.spec import ActionBlock, ActionSpec, ObsSpec, Piece, state_spec
from card_envs.core.wrappers import illegal_action_penalty


def test_card_codes_slice_by_suit_and_order_by_rank():
    assert card(12, 3) == 51 and card_name(51) == "A♠"
    assert (rank_of(parse_card("10H")), suit_of(parse_card("10H"))) == (8, 2)
    assert parse_card("q♦") == card(10, 1)
    with pytest.raises(ValueError, match="not a card"):
        parse_card("1X")


def test_obs_spec_views_write_through_and_bounds():
    spec = ObsSpec([Piece("a", (2, 3), "x"), Piece("b", (4,), "y", high=9)])
    buffer, views = spec.new()
    views["a"][1, 2] = 1
    views["b"][0] = 7
    assert spec.size == 10 and buffer[5] == 1 and buffer[6] == 7
    assert spec.high[6] == 9 and spec.low.sum() == 0
    assert "| `b` | 4 | 6 | 0..9 | y |" in spec.markdown()
    with pytest.raises(ValueError, match="duplicate"):
        ObsSpec([Piece("a", (1,), "x"), Piece("a", (1,), "y")])


def test_action_spec_names_both_ways():
    spec = ActionSpec(
        [ActionBlock("p", 2, "play", "id"), ActionBlock("q", 1, "pass", "-")],
        lambda a: ["p0", "p1", "pass"][a],
    )
    assert spec.size == 3 and spec.ids["pass"] == 2 and spec.start["q"] == 2
    assert "| 0-1 | `p` |" in spec.markdown()
    with pytest.raises(ValueError, match="unique"):
        ActionSpec([ActionBlock("p", 2, "", "")], lambda a: "same")


def test_option_checks_name_the_option_and_allowed_values():
    with pytest.raises(ValueError, match=r"colour='red' is not allowed; choose one of \['a'"):
        check_option("colour", "red", ["a", "b"])
    with pytest.raises(ValueError, match="num"):
        check_option("num", True, [0, 1])
    with pytest.raises(ValueError, match="rounds must be an integer >= 1"):
        check_int_option("rounds", 0, 1)
    with pytest.raises(ValueError, match="rounds"):
        check_int_option("rounds", 2.5, 1)


@pytest.mark.parametrize(
    ("winners", "n", "expected"),
    [
        ([0], 2, [1.0, -1.0]),
        ([2], 4, [-1 / 3, -1 / 3, 1.0, -1 / 3]),
        ([0, 1], 4, [0.5, 0.5, -0.5, -0.5]),
        ([0, 1], 2, [0.0, 0.0]),
        ([], 3, [0.0, 0.0, 0.0]),
    ],
)
def test_win_rewards_zero_sum(winners, n, expected):
    assert np.allclose(win_rewards(winners, n), expected)


def test_penalty_wrapper_ends_the_game_instead_of_raising():
    env = illegal_action_penalty(make("seamless_v0"), penalty=-2.0)
    env.reset(seed=0)
    offender = env.agent_selection
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == -2.0


def test_reset_warns_on_unknown_options_and_reseeds_in_place():
    env = make("seamless_v0")
    with pytest.warns(UserWarning, match="unknown options"):
        env.reset(seed=0, options={"deel": 1})
    first = env.observe(env.agent_selection)["observation"].copy()
    env.reset(seed=0)
    assert np.array_equal(env.observe(env.agent_selection)["observation"], first)
    env.reset()  # no seed: the generator continues, giving a new deal
    assert not np.array_equal(env.observe(env.agent_selection)["observation"], first)


def test_state_spec_lays_out_every_seat_then_who_acts():
    spec = ObsSpec([Piece("a", (2,), "x", high=3), Piece("b", (1,), "y", low=-1)])
    joint = state_spec(spec, ["player_0", "player_1"])
    assert [p.name for p in joint.pieces] == [
        "player_0.a",
        "player_0.b",
        "player_1.a",
        "player_1.b",
        "to_act",
    ]
    assert joint.size == 8 and joint.offsets["player_1.a"] == 3
    assert list(joint.low) == [0, 0, -1, 0, 0, -1, 0, 0]
    assert list(joint.high) == [3, 3, 1, 3, 3, 1, 1, 1]


def test_chance_log_takes_the_script_first_then_samples_and_logs_both():
    from card_envs.core.chance import ChanceLog, chance_script

    log = ChanceLog(script=chance_script({"chance": {"round": [[3, 1, 2]]}}, ["round", "draw"]))
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    checked = []
    first = log.take(rng, "round", lambda g: [int(x) for x in g.permutation(3)], checked.append)
    assert checked == [[3, 1, 2]] and first is None  # the check's result is the outcome
    assert rng.bit_generator.state == before  # a scripted outcome draws nothing
    second = log.take(rng, "round", lambda g: [int(x) for x in g.permutation(3)], list)
    assert sorted(second) == [0, 1, 2]
    assert log.record() == {"round": [None, second]}


def test_chance_script_names_what_is_wrong():
    from card_envs.core.chance import chance_script

    assert chance_script(None, ["round"]) == {} and chance_script({"hands": []}, ["round"]) == {}
    with pytest.raises(ValueError, match="unknown events \\['draws'\\]"):
        chance_script({"chance": {"draws": []}}, ["round"])
    with pytest.raises(ValueError, match="must be a dict"):
        chance_script({"chance": [1]}, ["round"])
    with pytest.raises(ValueError, match="must be a list of outcomes"):
        chance_script({"chance": {"round": 5}}, ["round"])


class TinyEncoding(FlatEncoding):
    """Writes the observer's seat into piece ``a`` and 7 into its slot of ``b``."""

    def build_spec(self) -> ObsSpec:
        return ObsSpec([Piece("a", (2, 3), "x"), Piece("b", (2,), "y", high=9)])

    def write(self, state, seat, out):
        out[seat] = 1.0
        out[self.spec.offsets["b"] + seat] = 7.0


def test_flat_encoding_writes_a_fresh_vector_and_fills_views_alike():
    encoding = TinyEncoding(None)
    first, again = encoding.observe(None, 1), encoding.observe(None, 1)
    assert first.dtype == np.float32 and first is not again
    assert first.tolist() == [0, 1, 0, 0, 0, 0, 0, 7]
    buffer, views = encoding.spec.new()
    encoding.encode(None, 1, views)
    assert np.array_equal(buffer, first)


def test_seat_offsets_place_each_absolute_seat_relative_to_the_observer():
    spec = ObsSpec([Piece("hand", (3,), "x"), Piece("rows", (3, 4), "y")])
    assert spec.seat_offsets("rows", 1, 3) == (3 + 2 * 4, 3, 3 + 4)
    assert spec.seat_offsets("hand", 0, 3) == (0, 1, 2)


def test_default_legal_mask_is_a_writable_int8_copy_of_the_legal_ids():
    env = make("seamless_v0")  # Seamless keeps the default legal_mask
    env.reset(seed=2)
    game, state = env.game, env.game_state
    mask = game.legal_mask(state)
    assert mask.dtype == np.int8 and mask.shape == (game.actions.size,)
    assert np.flatnonzero(mask).tolist() == game.legal_actions(state)
    mask[:] = 0  # the caller's own array
    assert np.flatnonzero(game.legal_mask(state)).tolist() == game.legal_actions(state)


def test_rewards_hold_only_the_last_transitions_change():
    """In score mode each step's ``rewards`` are that step's score changes: zero again after a
    step that paid (Seamless scores at round ends only)."""
    env = make("seamless_v0", reward_mode="score")
    env.reset(seed=3)
    before, paid = list(env.game.scores(env.game_state)), 0
    for _agent, observation in decisions(env):
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
        after = list(env.game.scores(env.game_state))
        expected = {a: float(after[i] - before[i]) for i, a in enumerate(env.possible_agents)}
        assert env.rewards == expected
        paid += any(expected.values())
        before = after
    assert paid >= 2  # rounds ended with points, and the steps after them paid nothing
