"""Tianshou 2: its PettingZooEnv takes an env unchanged, the recipe's heuristic opponent plays
through its multi-agent algorithm, and examples/tianshou_dqn.py trains (briefly; at its
defaults in the slow suite)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tianshou", reason="the tianshou extra")

from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm as RandomAlgorithm
from tianshou.algorithm import MultiAgentOffPolicyAlgorithm
from tianshou.data import Collector, CollectStats
from tianshou.env import DummyVectorEnv, PettingZooEnv

import card_envs
from card_envs.agents import make_agent

ROOT = Path(__file__).resolve().parents[1]
RECIPE = ROOT / "examples" / "tianshou_dqn.py"


def recipe():
    spec = importlib.util.spec_from_file_location("tianshou_dqn", RECIPE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["tianshou_dqn"] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def test_the_pettingzoo_env_reads_the_mask_from_the_observation_dict():
    raw = card_envs.make("seals_v0", num_players=2)
    env = PettingZooEnv(raw)
    observation, _ = env.reset(seed=3)
    assert observation["agent_id"] == raw.agent_selection
    expected = raw.observe(raw.agent_selection)
    np.testing.assert_array_equal(observation["obs"], expected["observation"])
    assert observation["mask"] == [bool(m) for m in expected["action_mask"]]


def test_the_heuristic_plays_through_tianshou_against_random():
    """The recipe's BuiltinOpponent in player_1, Tianshou's random algorithm in player_0: two
    whole games collected, each with zero-sum win rewards."""
    env = PettingZooEnv(card_envs.make("seals_v0", num_players=2))
    heuristic = make_agent("heuristic", env.env.describe(), 0)
    players = [
        RandomAlgorithm(action_space=env.action_space),
        recipe().BuiltinOpponent(env.action_space, heuristic),
    ]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=players, env=env)
    collector = Collector[CollectStats](algorithm, DummyVectorEnv([lambda: env]))
    stats = collector.collect(n_episode=2, reset_before_collect=True)
    assert stats.n_collected_episodes == 2
    returns = np.asarray(stats.returns)
    assert returns.shape == (2, 2) and np.allclose(returns.sum(axis=1), 0.0)


def test_the_recipe_runs():
    """A few hundred training steps, then the greedy learner and the random player each play
    two fresh deals against the heuristic."""
    args = "--epochs 1 --epoch-steps 200 --collect-steps 20 --batch-size 16 --num-envs 2"
    result = recipe().main([*args.split(), "--buffer-size", "1000", "--eval-games", "2"])
    assert result["env_steps"] == 200 and result["eval_games"] == 2
    for side in ("", "random_"):
        assert 0.0 <= result[side + "win_share"] <= 1.0
        assert np.isfinite(result[side + "points_ahead"])


@pytest.mark.slow
def test_the_recipe_trains_and_evaluates_at_its_defaults(tmp_path):
    """The defaults train to their step budget, then play 400 fresh deals against the
    heuristic, which wins nearly all of them against random play. The learner does not beat
    it (docs/integrations.md gives the figures and why): this checks the recipe end to end."""
    out = tmp_path / "result.json"
    subprocess.run(
        [sys.executable, str(RECIPE), "--json", str(out)], check=True, timeout=1500, cwd=ROOT
    )
    result = json.loads(out.read_text())
    assert result["env_steps"] == 40_000 and result["eval_games"] == 400
    assert result["opponent"] == "heuristic" and result["random_win_share"] < 0.05
    assert result["random_points_ahead"] < 0 and 0.0 <= result["win_share"] <= 1.0


def test_the_recipe_without_its_extra_names_the_extra():
    script = f"import sys, runpy; sys.modules['tianshou'] = None\nrunpy.run_path({str(RECIPE)!r})"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert 'pip install "card-envs[tianshou]"' in result.stderr.strip().splitlines()[-1]
