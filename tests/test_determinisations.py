"""Every determinisation is a possible game (issue 43): ``Game.resample_hidden`` for every
observer, at every position of random games of every game and player count, keeps the game's
invariants and what the observer sees. Sequitur's games script Exchange one ball deep, so that a
later seat of the same simultaneous step draws the ball just returned: the case where a redraw
once put one ball in two places."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import CASE_IDS, ENV_CASES

from card_envs import make
from card_envs.agents.match import decisions
from card_envs.core.env import CardEnv

# Sequitur's chance event "exchange": how deep the returned ball goes into the bag. One deep puts
# it on top after the exchanging seat draws, so the next draw of the step takes it.
ONE_DEEP = {"chance": {"exchange": [1] * 60}}
EXCHANGES = ("exchange", "extend")  # Sequitur's moves that return or draw a ball


def deal_for(name: str) -> dict | None:
    return ONE_DEEP if name.startswith("sequitur") else None


def play_checking(env: CardEnv, seed: int, every: int = 1) -> int:
    """Random legal moves (Sequitur's exchanges and extends preferred), each ``every``-th
    position resampled for every observer and checked; the number of copies checked."""
    rng = np.random.default_rng(seed)
    game, names, checked = env.game, env.game.actions.names, 0
    for step, (_, observation) in enumerate(decisions(env)):
        state = env.game_state
        if step % every == 0:
            for observer in range(game.num_players):
                world = game.resample_hidden(state, observer, rng)
                game.check_invariants(world)
                assert np.array_equal(
                    env.encoding.observe_underived(world, observer),
                    env.encoding.observe_underived(state, observer),
                )
                checked += 1
        legal = np.flatnonzero(observation["action_mask"])
        preferred = [a for a in legal if names[a].startswith(EXCHANGES)]
        pool = preferred if preferred and rng.random() < 0.8 else legal
        env.step(int(pool[rng.integers(len(pool))]))
    return checked


@pytest.mark.parametrize(("name", "num_players"), ENV_CASES, ids=CASE_IDS)
def test_every_redraw_for_every_observer_is_a_possible_game(name, num_players):
    env = make(name, num_players=num_players)
    every = 3 if name.startswith("sequitur") else 1
    checked = 0
    for seed in range(2):
        env.reset(seed=seed, options={"deal": deal_for(name)} if deal_for(name) else None)
        checked += play_checking(env, seed, every)
    assert checked > 20


@pytest.mark.slow
@pytest.mark.parametrize(("name", "num_players"), ENV_CASES, ids=CASE_IDS)
def test_soak_every_redraw_is_a_possible_game(name, num_players):
    env = make(name, num_players=num_players)
    for seed in range(2, 30):
        env.reset(seed=seed, options={"deal": deal_for(name)} if deal_for(name) else None)
        play_checking(env, seed)


def test_a_ball_returned_and_drawn_in_one_step_is_in_one_place():
    """The issue's reproduction: player_0 exchanges its slot-0 ball one deep, player_1 draws
    that very ball with Extend; a redraw for player_1 keeps 72 balls in 72 places, and the
    ball player_1 holds keeps its letter."""
    env = make("sequitur_v0", num_players=2)
    env.reset(seed=0, options={"deal": {"chance": {"exchange": [1]}}})
    names = env.describe().action_names
    while env.game_state.phase != 2:  # the action step
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    env.step(names.index("exchange slot 0"))
    env.step(names.index("extend"))
    state = env.game_state
    assert state.ball == state.shown_racks[0][0]  # the returned ball, drawn again
    for seed in range(20):
        world = env.game.resample_hidden(state, 1, np.random.default_rng(seed))
        env.game.check_invariants(world)
        assert np.array_equal(env.encoding.observe(world, 1), env.encoding.observe(state, 1))
