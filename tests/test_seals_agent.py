"""The Seals heuristic: legal, reads only its observation, and clearly beats random play."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs import seals_v0
from card_envs.agents import make_agent
from card_envs.agents.match import win_share
from card_envs.seals.rules import ACTIONS
from card_envs.seals.rules.series import ANY_FOUR, STRAIGHT


def heuristic_share(num_players: int, games: int, **options) -> float:
    return win_share("seals_v0", num_players, "heuristic", games=games, **options)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_heuristic_beats_random_clearly(num_players):
    """Measured 0.99 at every player count over 1,000 games; fair shares are 1/2, 1/3, 1/4."""
    assert heuristic_share(num_players, 60) > 0.8


def test_heuristic_plays_the_any_four_reading():
    assert heuristic_share(3, 30, minor_major_series=ANY_FOUR) > 0.8


def test_heuristic_reads_only_its_observation():
    env = seals_v0.env(num_players=3)
    env.reset(seed=2)
    agent = make_agent("heuristic", env.describe(), seed=0)
    obs = env.observe(env.agent_selection)
    assert agent.act(obs) == agent.act({k: np.copy(v) for k, v in obs.items()})


def test_heuristic_shows_its_best_series_and_then_stops():
    """Straight plus four 7s (6 blasons) beats four 7s alone: show both, then end the turn."""
    env = seals_v0.env(num_players=2)
    deal = {"hands": ["R1 Y2 G3 B4 P5 R6 Y7 G8 B9 P10 R7 G7 B7", ""], "row": "P7 P1 P2 P3"}
    env.reset(seed=0, options={"deal": deal})
    agent = make_agent("heuristic", env.describe(), seed=0)
    env.step(env.game.actions.ids["take 7s"])
    moves = []
    while not env.game_state.over and env.agent_selection == "player_0":
        moves.append(agent.act(env.observe("player_0")))
        env.step(moves[-1])
    assert sorted(moves[:2]) == [ACTIONS.encode("reveal", 6), ACTIONS.encode("reveal", STRAIGHT)]
    assert moves[2] == ACTIONS.encode("stop") and env.game_state.blasons == [6, 0]
