"""The warm start and the heuristic seats of self-play training (card_envs.training.selfplay,
selfplay_ppo): cloning learns the heuristic's moves, a fixed opponent plays its seats but is
never credited or learned from, collection with opponents is deterministic, and
``card-envs train GAME --selfplay --warm-start heuristic`` runs, resumes and refuses bad flags."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from test_selfplay import STEPS, policy_for, scripted  # noqa: F401

from card_envs import make
from card_envs.agents.base import Agent
from card_envs.training import selfplay
from card_envs.training.selfplay import Rollout, SelfPlayCollector, SnapshotPool
from card_envs.training.selfplay_ppo import new_policy


class FirstLegal(Agent):
    """A fixed opponent that plays its first legal move and remembers what it was shown."""

    def __init__(self, info, seed=None):
        super().__init__(info, seed)
        self.seen: list[tuple[object, list[float]]] = []

    def act(self, observation):
        raise AssertionError("the collector calls act_at")

    def act_at(self, env, observation):
        self.seen.append((env, observation["observation"].tolist()))
        return int(np.flatnonzero(observation["action_mask"])[0])


def test_cloning_agrees_with_the_heuristic_on_a_tiny_set():
    from card_envs.training.imitation import clone, collect_demonstrations

    demos = collect_demonstrations("seamless_v0", 4, 4, progress=False)  # 845 decisions
    policy = new_policy(make("seamless_v0").describe(), 64, 3e-4, 0)
    before = clone(policy, demos, epochs=0, progress=False)["teacher_agreement"]
    after = clone(policy, demos, epochs=20, batch_size=64, smoothing=0.1, progress=False)
    assert before < 0.5 and after["teacher_agreement"] > 0.9  # measured: 0.40, then 0.94


def test_a_fixed_opponent_plays_its_seats_and_is_never_credited(scripted, monkeypatch):  # noqa: F811
    monkeypatch.setattr(selfplay, "make_agent", lambda kind, info: FirstLegal(info))
    pool = SnapshotPool(opponent_share=1.0)
    collector = SelfPlayCollector("scripted", pool, tables=1, seed=0, opponent="first")
    rollout = collector.collect(policy_for(collector), 4 * 3)
    # seat 0 is paid 1..6 after every move, seat 1 100..600 (tests/test_selfplay.py); here one
    # seat per game learns and the other is the fixed opponent, whose pay goes nowhere
    expected = {0: 1 + 2, 2: 3 + 4, 4: 5 + 6, 1: 100 + 200 + 300, 3: 400 + 500, 5: 600}
    moves, games, seats = rollout.observations.T.astype(int)
    assert rollout.rewards.tolist() == [expected[move] for move in moves]
    opponents = collector.opponents[0]
    shown = [vector for agent in opponents for _, vector in agent.seen]
    assert all(view is collector.views[0] for agent in opponents for view, _ in agent.seen)
    for game in np.unique(games):
        (seat,) = np.unique(seats[games == game])  # one learner seat per game
        opponent_moves = sorted(move for move, g, s in shown if g == game)
        assert all(s == 1 - seat for _, g, s in shown if g == game)
        assert opponent_moves == list(range(1 - seat, STEPS, 2))
    assert set(seats) == {0, 1}


def test_the_pool_seats_fixed_opponents_before_snapshots():
    info = make("seals_v0", num_players=4).describe()
    opponents = [FirstLegal(info) for _ in range(4)]
    pool = SnapshotPool(share=1.0, opponent_share=1.0)
    pool.add(new_policy(info, 8, 3e-4, 0))
    rng = np.random.default_rng(0)
    for _ in range(20):
        seats = pool.draw(rng, 4, opponents)
        anchor = seats.index(None)
        assert seats == [None if s == anchor else opponents[s] for s in range(4)]
    half = SnapshotPool(share=1.0, opponent_share=0.5)
    half.add(pool.snapshots[0])
    kinds = {type(p).__name__ for _ in range(50) for p in half.draw(rng, 4, opponents) if p}
    assert kinds == {"FirstLegal", "MaskableActorCriticPolicy"}
    assert pool.draw(rng, 4).count(None) == 1  # no opponents at this table: snapshots
    with pytest.raises(ValueError, match="opponent share must be in"):
        SnapshotPool(opponent_share=-0.1)


def test_collection_with_heuristic_opponents_is_deterministic_with_a_seed():
    def rollout(seed: int) -> Rollout:
        pool = SnapshotPool(opponent_share=0.75)
        collector = SelfPlayCollector("seamless_v0", pool, 4, seed=seed, opponent="heuristic")
        policy = policy_for(collector)
        collector.collect(policy, 200)
        return collector.collect(policy, 200)

    first, again, other = rollout(3), rollout(3), rollout(4)
    for key in ("observations", "legal", "slots", "log_probs", "rewards", "advantages"):
        np.testing.assert_array_equal(getattr(first, key), getattr(again, key))
    assert first.env_steps == again.env_steps > len(first.slots)  # the heuristics moved too
    assert not np.array_equal(first.observations, other.observations)


def run(tmp_path, name: str, *flags: str) -> dict:
    from card_envs.agents.checkpoint import metadata_path
    from card_envs.training.cli import main

    out = tmp_path / f"{name}.safetensors"
    toy = ["--players", "2", "--selfplay", "--tables", "4", "--rollout", "256"]
    toy += ["--batch-size", "128", "--width", "16", "--eval-games", "4", "--eval-every", "300"]
    toy += ["--opponent-share", "1.0", "--out", str(out), "--logdir", str(tmp_path / "runs")]
    assert main(["seals_v0", *toy, *flags]) == 0
    return json.loads(metadata_path(out).read_text())


def assert_same_weights(one, other) -> None:
    from safetensors.numpy import load_file

    first, second = load_file(one), load_file(other)
    assert first.keys() == second.keys()
    assert all(np.array_equal(first[key], second[key]) for key in first)


def test_warm_start_then_selfplay_and_resume(tmp_path):
    """The clone is the start of RL (its evaluation is the best so far and the curve's step 0);
    a resume continues the network from the step it was saved at."""
    first = run(tmp_path, "warm", "--warm-start", "heuristic", "--clone-games", "4",
                "--clone-epochs", "2", "--timesteps", "600")  # fmt: skip
    (round_,) = first["cloning"]["rounds"]
    assert round_["rows"] > 0 and 0 <= round_["teacher_agreement"] <= 1
    assert set(round_) >= {"vs_heuristic", "vs_random", "value_mse"}
    assert first["config"]["warm_start"] == "heuristic" and first["policy"]["advisor"] is None
    assert first["evaluations"][-1]["timesteps"] >= 600
    assert (tmp_path / "warm.png").is_file()
    (clone,) = (tmp_path / "runs").glob("*/clone.safetensors")  # the start of RL, kept
    kept = json.loads(clone.with_suffix(".json").read_text())
    assert kept["cloning"] == first["cloning"] and kept["best_timesteps"] == 0
    start = first["best_timesteps"]
    kept_steps = sorted(int(p.stem[5:]) for p in clone.parent.glob("step_*.safetensors"))
    assert kept_steps == [row["timesteps"] for row in first["evaluations"]]  # each one evaluated
    last = json.loads((clone.parent / f"step_{kept_steps[-1]}.json").read_text())
    assert last["evaluations"] == first["evaluations"] and last["best_timesteps"] == kept_steps[-1]
    # the network kept is the one saved when it was evaluated (the clone when none beat it)
    kept_file = clone.parent / (f"step_{start}.safetensors" if start else "clone.safetensors")
    assert_same_weights(tmp_path / "warm.safetensors", kept_file)
    again = run(tmp_path, "again", "--resume", str(tmp_path / "warm.safetensors"),
                "--timesteps", str(start + 600), "--width", "32")  # fmt: skip
    assert again["resumed_from"] == str(tmp_path / "warm.safetensors")
    assert again["config"]["width"] == 16  # the checkpoint's network, not the flag
    assert again["cloning"] == first["cloning"]
    steps = [row["timesteps"] for row in again["evaluations"]]
    assert steps == sorted(steps) and steps[-1] >= start + 600
    assert [r for r in again["evaluations"] if r["timesteps"] <= start] == [
        r for r in first["evaluations"] if r["timesteps"] <= start
    ]
    with pytest.raises(ValueError, match=f"is not past the {start} steps"):
        run(tmp_path, "late", "--resume", str(tmp_path / "warm.safetensors"),
            "--timesteps", str(start))  # fmt: skip


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--warm-start", "nobody"], "warm_start='nobody': one of seals_v0's built-in"),
        (["--opponent-kind", "ppo2"], "opponent_kind='ppo2': one of seals_v0's built-in"),
        (["--resume", "x.zip"], "continues from a .safetensors"),
        (["--resume", "x.safetensors", "--warm-start", "heuristic"], "takes no --warm-start"),
        (["--advisor", "heuristic"], "observation alone: no advisor"),
        (["--reward-mode", "points"], "reward_mode='points': one of win, score"),
        (["--collect-workers", "0"], "collect_workers=0: from 1 to the 64 tables"),
        (["--collect-workers", "3", "--tables", "2"], "collect_workers=3: from 1 to the 2"),
    ],
)
def test_selfplay_refuses_bad_starts(tmp_path, flags, message):
    from card_envs.training.cli import main

    with pytest.raises(ValueError, match=message):
        main(["seals_v0", "--selfplay", "--logdir", str(tmp_path), *flags])
    assert not any(tmp_path.iterdir())


def test_the_command_reports_the_clone_when_no_evaluation_beat_it():
    from card_envs.training.cli import best

    clone = {"rows": 9, "vs_heuristic": 0.3}
    later = {"timesteps": 500, "vs_heuristic": 0.2}
    result = {"best_timesteps": 0, "evaluations": [later], "cloning": {"rounds": [clone]}}
    assert best(result) == {"timesteps": 0, **clone}
    assert best(result | {"best_timesteps": 500}) == later


def test_the_reward_mode_reaches_every_table():
    """``--reward-mode score`` trains on the env's score rewards (points as they are won)."""
    from card_envs.training.config import default_config
    from card_envs.training.selfplay_ppo import SelfPlayTrainer

    config = default_config("unfortunate_events_v0", 2, tables=2, reward_mode="score")
    tables = SelfPlayTrainer(config).collector.tables
    assert tables.num_envs == 2 and tables.score_mode
