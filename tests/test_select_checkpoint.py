"""``card-envs select-checkpoint``: every network a self-play run kept is judged in the arena on
the selection's own deals, and the best is written with the record of all of them."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sb3_contrib")

from test_selfplay_training import assert_same_weights, run

from card_envs.tools.arena import Workers
from card_envs.tools.select_checkpoint import candidates, judge, select


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A toy two-player Seals run with a clone and two evaluated networks."""
    tmp_path = tmp_path_factory.mktemp("selection")
    run(tmp_path, "toy", "--warm-start", "heuristic", "--clone-games", "4",
        "--clone-epochs", "1", "--timesteps", "600")  # fmt: skip
    (folder,) = (tmp_path / "runs").iterdir()
    return folder


def test_the_candidates_are_the_clone_then_each_step_in_order(run_dir):
    names = [path.name for path in candidates(run_dir)]
    steps = [int(name[5:].split(".")[0]) for name in names[1:]]
    assert names[0] == "clone.safetensors" and len(steps) >= 2 and steps == sorted(steps)


def test_the_best_candidate_is_written_with_every_share(run_dir, tmp_path):
    out = tmp_path / "chosen.safetensors"
    meta = select(run_dir, out, deals=3, seed=7)
    record = meta["selection"]
    assert [row["path"] for row in record["candidates"]] == [p.name for p in candidates(run_dir)]
    assert record["deals"] == 3 and record["seed"] == 7 and record["opponent"] == "heuristic"
    shares = [row["win_rate"] for row in record["candidates"]]
    chosen = next(row for row in record["candidates"] if row["path"] == record["chosen"])
    assert chosen["win_rate"] == max(shares) and chosen["games"] == 3 * 2  # 2 seatings a deal
    assert chosen is record["candidates"][shares.index(max(shares))]  # the earliest of equals
    assert_same_weights(out, run_dir / record["chosen"])
    assert json.loads(out.with_suffix(".json").read_text()) == meta
    assert meta["best_timesteps"] == chosen["timesteps"]


def test_a_candidate_is_judged_the_same_twice(run_dir):
    """The same deals and seed give the same share: the selection can be re-run."""
    path = candidates(run_dir)[-1]
    with Workers(1) as pool:
        assert judge(path, 2, 5, pool, "heuristic") == judge(path, 2, 5, pool, "heuristic")


def test_a_folder_without_networks_and_a_bad_out_are_refused(tmp_path, run_dir):
    with pytest.raises(FileNotFoundError, match="not a self-play run folder"):
        select(tmp_path, tmp_path / "x.safetensors")
    with pytest.raises(ValueError, match=r"name the \.safetensors file"):
        select(run_dir, tmp_path / "x.zip")
    assert not (tmp_path / "x.zip").exists()
