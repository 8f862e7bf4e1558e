"""``card-envs train``'s last line: a run's end in one readable line (no TensorBoard needed)."""

from __future__ import annotations

from pathlib import Path

from card_envs.training.cli import summary_line


def test_a_run_ends_with_one_readable_line():
    result = {
        "config": {"env": "seals_v0", "num_players": 4, "eval_games": 40},
        "fair_share": 0.25,
        "train_seconds": 19.26,
        "best_timesteps": 16384,
        "evaluations": [
            {"timesteps": 8192, "vs_random": 0.9, "vs_heuristic": 0.1},
            {"timesteps": 16384, "vs_random": 1.0, "vs_heuristic": 0.225},
        ],
    }
    line = summary_line(result, Path("runs/x/seals_v0_ppo.safetensors"))
    assert line == (
        "trained seals_v0 (4 players) for 19.3 s; kept the network of step 16,384: win share "
        "1.00 vs random, 0.23 vs heuristic (fair share 0.25, 40 games each) -> "
        "runs/x/seals_v0_ppo.safetensors"
    )
    assert "\n" not in line and "{" not in line


def test_a_run_kept_at_its_clone_reports_the_clone():
    result = {
        "config": {"env": "seals_v0", "num_players": 2},
        "fair_share": 0.5,
        "train_seconds": 3.0,
        "best_timesteps": 0,
        "evaluations": [{"timesteps": 100, "vs_random": 0.5, "vs_heuristic": 0.1}],
        "cloning": {"rounds": [{"rows": 10, "vs_random": 0.8, "vs_heuristic": 0.3}]},
    }
    line = summary_line(result, Path("out.safetensors"))
    assert "step 0: win share 0.80 vs random, 0.30 vs heuristic (fair share 0.50)" in line
