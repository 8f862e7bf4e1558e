"""Agents: the shared interface, seeded random play, and each heuristic's edge over random."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from card_envs import make
from card_envs.agents import RandomAgent, agent_kinds, make_agent
from card_envs.agents.match import decisions, play_game, win_share
from card_envs.core.game import win_rewards
from card_envs.core.plugin import Plugin
from card_envs.registry import register, unregister


def test_random_agent_is_seeded_and_legal():
    env = make("seamless_v0")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    picks = [RandomAgent(env.describe(), seed=5).act(obs) for _ in range(3)]
    assert len(set(picks)) == 1 and obs["action_mask"][picks[0]] == 1


def test_decisions_yield_only_live_seats_and_gather_every_reward():
    """The one play loop: each yield is the seat to act with its own observation; finished
    seats are stepped out; the rewards handed out add up to the game's win rewards."""
    env = make("seals_v0", num_players=3)
    env.reset(seed=4)
    players = [RandomAgent(env.describe(), seed) for seed in range(3)]
    rewards: dict[str, float] = {}
    moves = 0
    for agent, observation in decisions(env, rewards):
        assert agent == env.agent_selection and not env.terminations[agent]
        assert observation["action_mask"].any()
        env.step(players[env.possible_agents.index(agent)].act(observation))
        moves += 1
    assert env.agents == [] and moves > 0
    expected = win_rewards(env.game.winners(env.game_state), 3)
    assert sorted(rewards) == env.possible_agents
    assert [rewards[name] for name in env.possible_agents] == pytest.approx(expected)


def test_make_agent_errors_are_clear():
    info = make("seamless_v0").describe()
    assert agent_kinds(info)[:2] == ["random", "heuristic"]
    with pytest.raises(ValueError, match="unknown agent 'genius' for seamless_v0: use 'random'"):
        make_agent("genius", info)
    with pytest.raises(ValueError, match="'ismcts', 'pimc' \\(a search with a budget"):
        make_agent("genius", info)


def test_seamless_heuristic_beats_random_clearly():
    """Measured 0.52 over 400 games (fair share 0.25); 0.35 is > 4 sigma below that."""
    assert win_share("seamless_v0", 4, "heuristic", games=160) > 0.35


def test_seamless_heuristic_reads_only_its_observation():
    """Same observation, same move: the agent has no other input."""
    env = make("seamless_v0")
    env.reset(seed=2)
    agent = make_agent("heuristic", env.describe(), seed=0)
    obs = env.observe(env.agent_selection)
    assert agent.act(obs) == agent.act({k: np.copy(v) for k, v in obs.items()})


def test_play_game_reports_winners_scores_and_rewards():
    env = make("seamless_v0")
    agents = [RandomAgent(env.describe(), seed=s) for s in range(4)]
    moves = []
    result = play_game(env, agents, seed=4, on_move=lambda agent, action: moves.append(action))
    assert result.steps == len(moves) > 0
    assert list(result.scores) == list(env.game.scores(env.game_state))
    assert result.winners == tuple(env.game.winners(env.game_state))
    assert sum(result.rewards) == pytest.approx(0.0) and max(result.rewards) == 1.0
    assert play_game(env, agents, seed=4).steps != 0  # agents keep their generators: a new game


def test_a_module_class_kind_builds_that_agent():
    info = make("seals_v0").describe()
    mine = make_agent("card_envs.agents.seals:HeuristicAgent", info, seed=3)
    builtin = make_agent("heuristic", info, seed=3)
    env = make("seals_v0")
    assert type(mine) is type(builtin)
    assert play_game(env, [mine, *(make_agent("random", info, s) for s in range(3))], seed=1) == (
        play_game(env, [builtin, *(make_agent("random", info, s) for s in range(3))], seed=1)
    )


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        (
            "card_envs.agents.no_such_module:Agent",
            "no module 'card_envs.agents.no_such_module' on the Python path",
        ),
        ("card_envs.agents.seals:NoSuchAgent", "module card_envs.agents.seals has no NoSuchAgent"),
        (
            "card_envs.agents.match:GameResult",
            "is not an agent: it must subclass card_envs.agents.Agent",
        ),
        ("card_envs.agents.base:Agent", "is not an agent"),  # abstract: no act
    ],
)
def test_a_module_class_kind_that_is_not_an_agent_is_a_clear_error(kind, message):
    with pytest.raises(ValueError, match=message):
        make_agent(kind, make("seamless_v0").describe())


def test_a_module_class_kind_is_checked_against_the_table():
    """The class's ``supports(info)`` decides (the value agent was fitted at 4 players)."""
    kind = "card_envs.agents.seals_value:ValueHeuristicAgent"
    with pytest.raises(ValueError, match=f"agent '{kind}' does not play seals_v0 with 3 players"):
        make_agent(kind, make("seals_v0", num_players=3).describe())


@pytest.fixture
def broken_agent_module(tmp_path, monkeypatch):
    """``card_envs.agents.broken``, a module that imports something missing, and a game that
    uses it."""
    import sys

    import card_envs.agents as agents

    (tmp_path / "broken.py").write_text("import no_such_dependency\n")
    monkeypatch.setattr(agents, "__path__", [*agents.__path__, str(tmp_path)])
    monkeypatch.delitem(sys.modules, "card_envs.agents.broken", raising=False)
    register("broken_v0", "card_envs.seamless_v0", Plugin(agents="card_envs.agents.broken"))
    register("nothing_v0", "card_envs.seamless_v0", Plugin())  # a game with no agents module
    yield dataclasses.replace(make("seamless_v0").describe(), name="broken_v0")
    unregister("broken_v0")
    unregister("nothing_v0")
    sys.modules.pop("card_envs.agents.broken", None)


def test_a_broken_agent_module_is_not_taken_for_a_missing_one(broken_agent_module):
    """A ModuleNotFoundError inside an agent module is a bug to show, not 'no heuristic'."""
    info = broken_agent_module
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency"):
        agent_kinds(info)
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency"):
        make_agent("heuristic", info)
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency"):
        make_agent("card_envs.agents.broken:HeuristicAgent", info)
    missing = dataclasses.replace(info, name="nothing_v0")
    with pytest.raises(ValueError, match="no heuristic agent for nothing_v0"):
        make_agent("heuristic", missing)
    assert agent_kinds(missing) == ["random"]


def test_ppo_is_listed_only_at_the_player_count_it_was_trained_for():
    from card_envs import make
    from card_envs.agents import agent_kinds

    assert "ppo_advised" in agent_kinds(make("sequitur_v0", num_players=4).describe())
    for players in (1, 2, 3, 5):
        assert "ppo_advised" not in agent_kinds(make("sequitur_v0", num_players=players).describe())
