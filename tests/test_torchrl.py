"""TorchRL: its PettingZooWrapper takes an env unchanged (the mask read from the observation
dict), and examples/torchrl_ppo.py runs (briefly here; to its figure in the slow suite)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torchrl", reason="the torchrl extra")

from torchrl.envs import PettingZooWrapper

import card_envs

ROOT = Path(__file__).resolve().parents[1]
RECIPE = ROOT / "examples" / "torchrl_ppo.py"


def recipe():
    spec = importlib.util.spec_from_file_location("torchrl_ppo", RECIPE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["torchrl_ppo"] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def test_the_pettingzoo_wrapper_plays_a_whole_game_by_the_mask():
    """``PettingZooWrapper(card_envs.make(...), use_mask=True)``: random steps drawn from the
    masked action spec are always legal, and the game ends with zero-sum win rewards."""
    raw = card_envs.make("seals_v0", num_players=2)
    env = PettingZooWrapper(raw, use_mask=True)
    env.set_seed(0)
    td = env.reset()
    totals = np.zeros(2)
    for _ in range(raw.unwrapped.game.max_steps):
        acting = raw.agent_selection
        mask = td[acting, "action_mask"][0].numpy()
        assert mask.any() and np.array_equal(mask, raw.observe(acting)["action_mask"] == 1)
        td = env.rand_step(td)
        assert mask[int(td[acting, "action"][0])]
        td = td["next"]
        totals += [float(td[f"player_{i}", "reward"].sum()) for i in range(2)]
        if td["done"].all():
            break
    assert td["done"].all()
    assert sorted(totals) == [-1.0, 1.0]


def test_the_recipe_runs(capsys):
    result = recipe().main(
        [
            "--max-seconds",
            "0.5",
            "--num-envs",
            "4",
            "--num-steps",
            "8",
            "--eval-games",
            "4",
            "--eval-envs",
            "2",
        ]
    )
    assert result["steps"] >= 32 and result["eval_games"] >= 4
    assert 0.0 <= result["win_share"] <= 1.0


@pytest.mark.slow
def test_the_recipe_beats_random(tmp_path):
    """The defaults (120 s of training on 2-player Seals): most fresh deals won against a
    random player."""
    out = tmp_path / "result.json"
    subprocess.run(
        [sys.executable, str(RECIPE), "--json", str(out)], check=True, timeout=400, cwd=ROOT
    )
    result = json.loads(out.read_text())
    assert result["interval"][0] > 0.5 and result["eval_games"] >= 1000


def test_the_recipe_without_its_extra_names_the_extra():
    script = f"import sys, runpy; sys.modules['torchrl'] = None\nrunpy.run_path({str(RECIPE)!r})"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert 'pip install "card-envs[torchrl]"' in result.stderr.strip().splitlines()[-1]
