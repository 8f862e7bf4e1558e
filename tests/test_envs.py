"""Contract tests run on every registered environment at every player count.

Each game's own rules are tested in ``test_<game>.py``; these check what every game promises:
the PettingZoo API, determinism, exact masks, conservation, no leaks, clean errors.
"""

from __future__ import annotations

import pickle
import random
import warnings

import numpy as np
import pytest
from helpers import CASE_IDS, ENV_CASES, play_random, random_steps, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

from card_envs import make
from card_envs.agents.match import decisions
from card_envs.core.errors import IllegalActionError
from card_envs.core.game import win_rewards
from card_envs.registry import env_module
from card_envs.tools.docs import stale_pages

cases = pytest.mark.parametrize(("name", "num_players"), ENV_CASES, ids=CASE_IDS)
property_settings = settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@cases
def test_pettingzoo_api(name, num_players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(make(name, num_players=num_players), num_cycles=300)


@cases
def test_pettingzoo_seed(name, num_players):
    seed_test(lambda: make(name, num_players=num_players), num_cycles=100)


@cases
def test_pettingzoo_render(name, num_players, capsys):
    render_test(
        lambda render_mode=None: make(name, num_players=num_players, render_mode=render_mode)
    )
    env = make(name, num_players=num_players, render_mode="ansi")
    env.reset(seed=3)
    assert "player_0" in env.render()


@cases
def test_module_conventions(name, num_players):
    module = env_module(name)
    assert module.metadata["name"] == name
    assert module.metadata is module.raw_env.metadata
    env = module.env(num_players=num_players)
    assert env.possible_agents == [f"player_{i}" for i in range(num_players)]
    assert env.unwrapped is env
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@cases
@property_settings
@given(seed=st.integers(0, 2**32 - 1))
def test_random_play_invariants(name, num_players, seed):
    """Mask == rules' detector for every id, never empty, invariants hold, length bounded."""
    steps = []

    def check(env, action):
        game, state = env.game, env.game_state
        game.check_invariants(state)
        seat = env.possible_agents.index(env.agent_selection)
        assert game.current_player(state) == seat
        mask = env.observe(env.agent_selection)["action_mask"]
        assert mask.dtype == np.int8 and mask.any(), "mask empty for the agent to act"
        if len(steps) % 7 == 0:  # the detector is slow: check every 7th decision in full
            detector = np.array(
                [game.illegal_reason(state, a) is None for a in range(len(mask))], np.int8
            )
            assert np.array_equal(mask, detector), (
                f"mask and rules disagree on {np.flatnonzero(mask != detector)[:10]}"
            )
        steps.append(action)

    env = play_random(name, num_players, seed, check)
    game = env.game
    game.check_invariants(env.game_state)
    assert len(steps) <= game.max_steps
    assert game.is_over(env.game_state) or game.is_truncated(env.game_state)
    assert not env.agents, "every agent must have been removed by a dead step"


@cases
@property_settings
@given(seed=st.integers(0, 2**32 - 1))
def test_rewards_through_last(name, num_players, seed):
    """What each agent receives through ``last()`` adds up to its result: zero-sum win
    rewards within [-1, 1], or the final game scores in ``reward_mode="score"``."""
    for mode in ("win", "score"):
        env = make(name, num_players=num_players, reward_mode=mode)
        env.reset(seed=seed)
        received = dict.fromkeys(env.possible_agents, 0.0)
        rng = np.random.default_rng(seed)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            received[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
        game, state = env.game, env.game_state
        if mode == "score":
            expected = [float(s) for s in game.scores(state)]
        elif game.is_over(state):
            expected = win_rewards(game.winners(state), num_players)
        else:
            expected = [0.0] * num_players
        assert np.allclose(list(received.values()), expected)
        if mode == "win":
            assert all(-1 <= r <= 1 for r in received.values())
            assert abs(sum(received.values())) < 1e-9


@cases
def test_determinism_with_global_rng_scrambled(name, num_players):
    def trace(scramble: bool) -> list[bytes]:
        env = make(name, num_players=num_players)
        env.reset(seed=1234)
        out = []
        for step, action in enumerate(random_steps(env, 99)):
            if scramble:
                random.seed(step)
                np.random.seed(step + 1)
            out.append(env.observe(env.agent_selection)["observation"].tobytes())
            env.step(action)
        return out

    assert trace(False) == trace(True)


@cases
def test_different_seeds_deal_differently(name, num_players):
    firsts = set()
    for seed in range(4):
        env = make(name, num_players=num_players)
        env.reset(seed=seed)
        firsts.add(env.observe(env.agent_selection)["observation"].tobytes())
    assert len(firsts) > 1


@cases
def test_bad_actions_raise_and_leave_state_intact(name, num_players):
    env = make(name, num_players=num_players)
    env.reset(seed=5)
    for action in random_steps(env, 5, max_steps=40):
        before = snapshot(env)
        mask = env.observe(env.agent_selection)["action_mask"]
        illegal = np.flatnonzero(mask == 0)
        if len(illegal):
            with pytest.raises(IllegalActionError, match=r"cannot play .*Legal:"):
                env.step(int(illegal[len(illegal) // 2]))
        with pytest.raises(ValueError, match="out of range"):
            env.step(len(mask))
        with pytest.raises(ValueError, match="out of range"):
            env.step(-1)
        with pytest.raises(TypeError, match="integer"):
            env.step(float(action))
        with pytest.raises(TypeError, match="integer"):
            env.step("0")
        with pytest.raises(TypeError, match="still playing"):
            env.step(None)
        assert snapshot(env) == before
        env.step(np.int64(action))


@cases
def test_bad_options_name_the_option(name, num_players):
    with pytest.raises(ValueError, match="num_players"):
        make(name, num_players=99)
    with pytest.raises(ValueError, match="reward_mode"):
        make(name, num_players=num_players, reward_mode="points")
    with pytest.raises(ValueError, match="render_mode"):
        make(name, num_players=num_players, render_mode="rgb")
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['no_such_option'\].*reward_mode"):
        make(name, num_players=num_players, no_such_option=1)


@cases
@property_settings
@given(seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 400))
def test_no_information_leak(name, num_players, seed, cut):
    """Redrawing what a seat cannot see leaves that seat's observation unchanged."""
    env = make(name, num_players=num_players)
    env.reset(seed=seed)
    for _ in zip(range(cut), random_steps(env, seed), strict=False):
        env.step(_[1])
    if not env.agents:
        return
    game, rng = env.game, np.random.default_rng(seed)
    for seat in range(num_players):
        resampled = game.resample_hidden(env.game_state, seat, rng)
        original = env.encoding.observe(env.game_state, seat)
        assert np.array_equal(env.encoding.observe(resampled, seat), original)
        assert game.render_seat(resampled, seat) == game.render_seat(env.game_state, seat)


@cases
def test_resampling_changes_hidden_cards(name, num_players):
    """The leak test above is only meaningful if resampling really moves hidden cards."""
    env = make(name, num_players=num_players)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    changed = sum(
        pickle.dumps(env.game.resample_hidden(env.game_state, 0, rng))
        != pickle.dumps(env.game_state)
        for _ in range(5)
    )
    assert changed > 0


def test_docs_match_the_code():
    assert stale_pages() == [], "run `card-envs docs` to regenerate the tables"


DERIVED = {"sequitur_v1": ("action_values",)}  # the pieces an encoding derives for networks


@cases
def test_an_observation_without_derived_pieces_differs_only_in_them(name, num_players):
    """``observe(agent, derived=False)`` zeroes the derived pieces and keeps every other entry;
    an env that derives none gives its plain observation."""
    env = make(name, num_players=num_players)
    spec = env.describe().obs_spec
    index = spec.views(np.arange(spec.size))
    derived = np.zeros(spec.size, bool)
    for piece in DERIVED.get(name, ()):
        derived[index[piece].ravel()] = True
    env.reset(seed=0)
    for step, (agent, seen) in enumerate(decisions(env)):
        plain = env.observe(agent, derived=False)
        assert np.array_equal(plain["observation"][~derived], seen["observation"][~derived])
        assert not plain["observation"][derived].any()
        assert np.array_equal(plain["action_mask"], seen["action_mask"])
        if step == 200:
            break
        env.step(int(np.flatnonzero(seen["action_mask"])[-1]))
