"""Chance as data: a whole game's chance outcomes read back with ``deal_record`` replay it."""

from __future__ import annotations

import copy
import json
import pickle
from dataclasses import fields

import numpy as np
import pytest
from helpers import CASE_IDS, ENV_CASES, random_steps

from card_envs import make


def _observations(env) -> bytes:
    return b"".join(env.observe(agent)["observation"].tobytes() for agent in env.agents)


def _played(env) -> bytes:
    """The game state without what is still scripted: a replay holds the outcomes to come."""
    state = copy.deepcopy(env.game_state)
    state.chance.script = {}
    return pickle.dumps(state)


@pytest.mark.parametrize(("name", "num_players"), ENV_CASES, ids=CASE_IDS)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_deal_record_replays_the_whole_game_with_any_seed(name, num_players, seed):
    env = make(name, num_players=num_players)
    env.reset(seed=seed)
    actions, states, seen, rewards = [], [], [], {}
    for action in random_steps(env, seed):
        actions.append(action)
        env.step(action)
        states.append(_played(env))
        seen.append(_observations(env))
        rewards = dict(env._cumulative_rewards)
    record = env.deal_record()
    assert json.loads(json.dumps(record)) == record  # plain data: it goes into a JSON record
    for replay_seed in (None, seed + 1000):
        replay = make(name, num_players=num_players)
        replay.reset(seed=replay_seed, options={"deal": json.loads(json.dumps(record))})
        for step, action in enumerate(actions):
            replay.step(action)
            assert _played(replay) == states[step], f"step {step}"
            assert _observations(replay) == seen[step]
        assert replay.deal_record() == record
        assert replay._cumulative_rewards == rewards


@pytest.mark.parametrize(("name", "num_players"), ENV_CASES, ids=CASE_IDS)
def test_recording_changes_no_seeded_game(name, num_players):
    """The generator is consumed exactly as before: a seeded game does not depend on whether
    its chance is scripted, so an unscripted replay of the record's seed is the same game."""
    env = make(name, num_players=num_players)
    env.reset(seed=7)
    first = [pickle.dumps(env.game_state)]
    other = make(name, num_players=num_players)
    other.reset(seed=7, options={"deal": {"chance": {}}})
    assert pickle.dumps(other.game_state) == first[0]
    assert np.array_equal(env.state(), other.state())


@pytest.mark.parametrize(("name", "num_players"), ENV_CASES, ids=CASE_IDS)
def test_clone_without_chance_copies_all_but_the_chance_log(name, num_players):
    """What a determinisation starts from: the whole state, deep, with an empty chance log;
    the original keeps its log and shares nothing with the copy."""
    env = make(name, num_players=num_players)
    env.reset(seed=3)
    for step, action in enumerate(random_steps(env, 3)):
        env.step(action)
        if step == 60:
            break
    state = env.game_state
    before = pickle.dumps(state)
    fresh = env.game.clone_without_chance(state)
    assert fresh.chance.log == {} and fresh.chance.script == {}
    assert pickle.dumps(state) == before and state.chance.log
    fresh.chance = state.chance
    assert pickle.dumps(fresh) == before
    lists = [f.name for f in fields(state) if isinstance(getattr(state, f.name), list)]
    assert lists and all(getattr(fresh, name) is not getattr(state, name) for name in lists)
