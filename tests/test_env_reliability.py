"""The shared AEC env under the uses that are not plain play: copies that continue the game,
resets that fail cleanly, calls before reset and after the end, the centralised ``state()``,
and seeded action spaces. Run on every registered environment at every player count."""

from __future__ import annotations

import copy
import pickle
import warnings
from collections.abc import Callable

import numpy as np
import pytest
from helpers import CASE_IDS, ENV_CASES, play_random, random_steps, snapshot
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from card_envs import env_names, make
from card_envs.core.env import CardEnv
from card_envs.core.wrappers import illegal_action_penalty

cases = pytest.mark.parametrize(("name", "num_players"), ENV_CASES, ids=CASE_IDS)


def mid_game(name: str, num_players: int, seed: int = 7, moves: int = 12) -> CardEnv:
    """A seeded env after ``moves`` random legal moves."""
    env = make(name, num_players=num_players)
    env.reset(seed=seed)
    for action in random_steps(env, seed, max_steps=moves):
        env.step(action)
    return env


def turn(env) -> tuple:
    """What ``last()`` gives the agent to act, as bytes and values that compare bit for bit."""
    observation, reward, terminated, truncated, info = env.last()
    return (
        env.agent_selection,
        observation["observation"].tobytes(),
        observation["action_mask"].tobytes(),
        reward,
        terminated,
        truncated,
        info,
    )


def play_in_lockstep(envs: list) -> int:
    """Play every env to the end with the same agent loop, each drawing its moves from its own
    action space (``sample(mask)``), and assert they agree on every turn; the number of turns."""
    turns = 0
    for agent in envs[0].agent_iter():
        seen = [turn(env) for env in envs]
        assert all(s == seen[0] for s in seen), f"copies diverged at turn {turns}"
        _, _, mask, _, terminated, truncated, _ = seen[0]
        if terminated or truncated:
            actions = [None] * len(envs)
        else:
            mask = np.frombuffer(mask, np.int8)
            actions = [int(env.action_space(agent).sample(mask)) for env in envs]
        assert len(set(actions)) == 1, f"the action spaces sampled {actions}"
        for env in envs:
            env.step(actions[0])
        turns += 1
    assert all(not env.agents for env in envs)
    return turns


def copies(env) -> list:
    """Every way to copy an env; for ours ``copy.copy`` too, which must not share the game
    (PettingZoo's wrappers copy shallowly, as PettingZoo defines)."""
    shallow = [copy.copy(env)] if isinstance(env, CardEnv) else []
    return [copy.deepcopy(env), pickle.loads(pickle.dumps(env)), *shallow]


# -- copies ------------------------------------------------------------------------------------
@cases
def test_a_copy_made_mid_game_plays_on_exactly_like_the_original(name, num_players):
    """Game state, generator, agent order, rewards and the spaces' generators all carry over:
    same actions, same game to the end, across the random events (deals, draws) that follow."""
    env = mid_game(name, num_players)
    before = snapshot(env)
    twins = copies(env)
    assert [snapshot(twin) for twin in twins] == [before] * len(twins)
    rng_at_copy = env._rng.bit_generator.state
    play_in_lockstep([env, *twins])
    assert all(snapshot(twin) == snapshot(env) for twin in twins)
    assert env._rng.bit_generator.state != rng_at_copy, "no random event after the copy"


@cases
def test_a_copy_is_independent_of_the_original(name, num_players):
    env = mid_game(name, num_players)
    before = snapshot(env)
    for twin in copies(env):
        play_in_lockstep([twin])
        assert snapshot(env) == before
    assert env.observe(env.agent_selection)["observation"].any()


@pytest.mark.parametrize("name", env_names())
@pytest.mark.parametrize(
    "wrap", [OrderEnforcingWrapper, illegal_action_penalty], ids=["order", "penalty"]
)
def test_wrapped_envs_copy_and_pickle_and_continue(name, wrap: Callable):
    env = wrap(make(name))
    env.reset(seed=11)
    for action in random_steps(env, 11, max_steps=12):
        env.step(action)
    play_in_lockstep([env, *copies(env)])


@pytest.mark.parametrize("name", env_names())
def test_copies_before_reset_and_after_the_end(name):
    fresh = copy.deepcopy(make(name))
    fresh.reset(seed=3)
    assert snapshot(fresh) == snapshot(pickle.loads(pickle.dumps(fresh)))
    done = play_random(name, make(name).game.num_players, seed=3)
    for twin in copies(done):
        assert snapshot(twin) == snapshot(done)
        assert np.array_equal(twin.state(), done.state())


# -- failed resets -----------------------------------------------------------------------------
MALFORMED_DEAL = (TypeError, ValueError)  # each game's own deal check decides which
BAD_RESETS = [
    ({"seed": 123, "options": {"deal": {"hands": "x"}}}, MALFORMED_DEAL, "deal|hand|card"),
    ({"seed": None, "options": {"deal": {"hands": "x"}}}, MALFORMED_DEAL, "deal|hand|card"),
    ({"seed": 123, "options": {"deal": "x"}}, MALFORMED_DEAL, "deal"),
    ({"options": "deal"}, TypeError, r"options must be a dict .* got str 'deal'"),
    ({"options": ["deal"]}, TypeError, "options must be a dict"),
    ({"seed": "1"}, TypeError, "seed must be an integer >= 0 or None, got str"),
    ({"seed": 1.5}, TypeError, "seed must be an integer"),
    ({"seed": True}, TypeError, "seed must be an integer"),
    ({"seed": -1}, ValueError, "seed must be an integer >= 0"),
]


@cases
def test_a_failed_reset_changes_nothing(name, num_players):
    """Everything is checked and built before anything is replaced: afterwards the game in
    progress plays on bit for bit like an untouched copy."""
    env = mid_game(name, num_players)
    untouched = copy.deepcopy(env)
    before = snapshot(env)
    for kwargs, error, message in BAD_RESETS:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a non-dict is refused before any key is looked at
            with pytest.raises(error, match=message):
                env.reset(**kwargs)
        assert snapshot(env) == before, f"reset(**{kwargs}) changed the env"
    play_in_lockstep([env, untouched])


def test_an_unseeded_failed_deal_does_not_advance_the_generator(monkeypatch):
    """A game that draws from the generator before it notices a bad deal must not leave the
    live generator advanced: the deal is tried on a copy of it."""
    env = mid_game("seamless_v0", 4)
    before = snapshot(env)

    def draws_then_fails(rng: np.random.Generator, deal: object = None) -> None:
        rng.random(10)
        raise ValueError("bad deal")

    monkeypatch.setattr(env.game, "new_game", draws_then_fails)
    with pytest.raises(ValueError, match="bad deal"):
        env.reset(options={"deal": {}})
    assert snapshot(env) == before


# -- before reset and after the end ------------------------------------------------------------
@pytest.mark.parametrize("name", env_names())
def test_calls_before_reset_say_to_reset(name):
    env = make(name, render_mode="ansi")
    calls = {
        "last": env.last,
        "agent_iter": env.agent_iter,
        "observe": lambda: env.observe("player_0"),
        "step": lambda: env.step(0),
        "state": env.state,
        "render": env.render,
    }
    for method, call in calls.items():
        with pytest.raises(RuntimeError, match=rf"call reset\(\) before {method}\(\)"):
            call()
    assert env.agents == []


@cases
def test_calls_after_the_end_say_the_game_is_over(name, num_players):
    env = play_random(name, num_players, seed=2)
    assert env.agents == []
    final = snapshot(env)
    over = r"game is over: every agent is done; call reset\(\) to play again"
    for call in (lambda: env.step(0), lambda: env.step(None), env.last):
        with pytest.raises(RuntimeError, match=over):
            call()
    for agent in env.possible_agents:
        with pytest.raises(RuntimeError, match=over):
            env.observe(agent)
    assert list(env.agent_iter()) == []
    assert snapshot(env) == final
    assert env.state().shape == env.state_space.shape  # the final table stays readable
    env.reset(seed=2)
    assert env.agents == env.possible_agents and env.last()[0]["action_mask"].any()


@cases
def test_dead_steps_still_take_only_none(name, num_players):
    """PettingZoo's dead-step protocol is untouched: a finished agent still in ``agents``
    steps ``None``, anything else is refused."""
    env = make(name, num_players=num_players)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    before = snapshot(env)
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)
    assert snapshot(env) == before
    env.step(None)
    assert len(env.agents) == num_players - 1


@pytest.mark.parametrize("name", env_names())
def test_unknown_agents_are_named_with_the_agents(name):
    env = make(name)
    env.reset(seed=0)
    for call in (env.observe, env.action_space, env.observation_space):
        with pytest.raises(
            ValueError, match=r"unknown agent 'player_9'; the agents are \['player_0'"
        ):
            call("player_9")
        with pytest.raises(ValueError, match="unknown agent"):
            call(["player_0"])


# -- state() -----------------------------------------------------------------------------------
@cases
def test_state_is_every_seat_in_seat_order_then_who_acts(name, num_players):
    env = make(name, num_players=num_players)
    env.reset(seed=9)
    spec, space = env.state_spec, env.state_space
    first = env.encoding.spec.pieces[0].name
    checked = 0
    for step, action in enumerate(random_steps(env, 9)):
        if step % 5 == 0:
            before = snapshot(env)
            state = env.state()
            assert snapshot(env) == before, "state() advanced something"
            assert state.dtype == np.float32 and space.contains(state)
            observations = [env.encoding.observe(env.game_state, s) for s in range(num_players)]
            to_act = np.eye(num_players, dtype=np.float32)[
                env.possible_agents.index(env.agent_selection)
            ]
            assert np.array_equal(state, np.concatenate([*observations, to_act]))
            views = spec.views(state)
            agent = env.possible_agents[-1]
            seen = env.observe(agent)["observation"]
            assert np.array_equal(views[f"{agent}.{first}"], env.encoding.spec.views(seen)[first])
            kept = state.copy()
            state[:] = 99
            assert np.array_equal(env.state(), kept), "state() must return a fresh vector"
            checked += 1
        env.step(action)
    assert checked
    assert not env.state()[-num_players:].any(), "nobody is to act once the game is over"
    assert space is env.state_space and space.shape == (spec.size,)


# -- seeded spaces -----------------------------------------------------------------------------
@cases
def test_reset_seeds_the_spaces(name, num_players):
    """``action_space(agent).sample(mask)`` repeats with the seed of ``reset``; another seed
    samples differently; an unseeded reset leaves the spaces' generators running on."""

    def samples(env) -> list[int]:
        mask = np.ones(env.action_space("player_0").n, np.int8)
        return [
            int(env.action_space(a).sample(mask)) for a in env.possible_agents for _ in range(8)
        ]

    def observation_sample(env) -> bytes:
        return env.observation_space("player_0").sample()["observation"].tobytes()

    first, second, other = (make(name, num_players=num_players) for _ in range(3))
    first.reset(seed=5)
    second.reset(seed=5)
    other.reset(seed=6)
    assert samples(first) == samples(second) != samples(other)
    assert observation_sample(first) == observation_sample(second)
    first.reset()
    second.reset(seed=5)
    assert samples(first) != samples(second)
