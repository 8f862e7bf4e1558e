"""``card-envs distill``: a search agent labels the network's own decisions, and only those; the
network is fitted towards its labels and written with the record of how far it moved."""

from __future__ import annotations

import functools
import json
from typing import ClassVar

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch

from card_envs import make
from card_envs.agents import make_agent, shipped_checkpoint
from card_envs.agents.base import RandomAgent
from card_envs.agents.checkpoint import load_policy
from card_envs.agents.match import play_game
from card_envs.training import imitation
from card_envs.training.distill import distill
from card_envs.training.imitation import _loss, collect_demonstrations

SEAMLESS_PPO = shipped_checkpoint("seamless_v0", "ppo")
TEACHER = "ismcts:iterations=8"


class CountingStudent(RandomAgent):
    """A random player that records every observation it is asked to act on."""

    seen: ClassVar[list] = []

    def act(self, observation):
        CountingStudent.seen.append(observation["observation"].copy())
        return super().act(observation)


def test_a_search_teacher_labels_the_students_decisions_and_no_others():
    CountingStudent.seen = []
    demos = collect_demonstrations(
        "seamless_v0", 4, 3, CountingStudent, TEACHER, others="heuristic", progress=False
    )
    assert len(demos.actions) == len(CountingStudent.seen) > 3 * 10  # 13 tricks a round
    np.testing.assert_array_equal(demos.observations, np.asarray(CountingStudent.seen))
    assert demos.masks[np.arange(len(demos.actions)), demos.actions].all()


def test_the_labels_are_the_same_for_the_same_games():
    student = functools.partial(make_agent, "random")
    first, again = (
        collect_demonstrations(
            "seamless_v0", 4, 2, student, TEACHER, others="heuristic", progress=False
        )
        for _ in range(2)
    )
    np.testing.assert_array_equal(first.actions, again.actions)
    np.testing.assert_array_equal(first.observations, again.observations)


def test_distillation_moves_the_network_towards_the_teacher(tmp_path):
    out = tmp_path / "distilled.safetensors"
    meta = distill(SEAMLESS_PPO, out, progress=False, teacher=TEACHER, games=2, epochs=30,
                   learning_rate=1e-3)  # fmt: skip
    report = meta["distillation"]
    assert report["rows"] > 2 * 10 and report["source"] == str(SEAMLESS_PPO)
    assert report["after"]["teacher_agreement"] > report["before"]["teacher_agreement"]
    assert json.loads(out.with_suffix(".json").read_text())["distillation"] == report
    assert out.with_suffix(".png").read_bytes() == SEAMLESS_PPO.with_suffix(".png").read_bytes()
    env = make("seamless_v0")
    players = [make_agent(str(out), env.describe(), 0)] + [RandomAgent(env.describe(), 1)] * 3
    assert play_game(env, players, seed=0).steps > 0  # it loads and plays alone


@pytest.fixture
def fitted(monkeypatch) -> dict:
    """What ``distill`` passes to the fit: its settings and ``demos``, filled in as it runs."""
    seen: dict = {}
    fit = imitation.clone

    def spy(policy, demos, **settings):
        seen.update(settings, demos=demos)
        return fit(policy, demos, **settings)

    monkeypatch.setattr(imitation, "clone", spy)
    return seen


def test_a_rating_teacher_gives_its_values_as_targets(tmp_path, fitted):
    """The fit gets the teacher's values and the temperature, and lowers its loss against their
    softmax on the labelled rows (agreement alone may not move: the shipped network already
    plays the best take)."""
    seals_ppo = shipped_checkpoint("seals_v0", "ppo")
    out = tmp_path / "distilled.safetensors"
    meta = distill(seals_ppo, out, progress=False, teacher="heuristic_value", games=2, epochs=20,
                   learning_rate=1e-3, temperature=0.05, first_deal=7)  # fmt: skip
    report, demos = meta["distillation"], fitted["demos"]
    assert (report["temperature"], report["first_deal"]) == (0.05, 7)
    assert fitted["temperature"] == 0.05 and not np.isnan(demos.values).all()
    assert len(demos.actions) == report["rows"]
    info = make("seals_v0").describe()
    before, after = (soft_loss(load_policy(path, info)[0], demos) for path in (seals_ppo, out))
    assert after < before


def test_a_search_teacher_gives_its_visit_shares_as_targets(tmp_path, fitted):
    """At temperature 1 the target is the search's distribution: each row's shares sum to 1
    over the legal moves, and the fit lowers its loss against them."""
    out = tmp_path / "distilled.safetensors"
    distill(SEAMLESS_PPO, out, progress=False, teacher=TEACHER, games=1, epochs=20,
            learning_rate=1e-3, temperature=1.0)  # fmt: skip
    demos = fitted["demos"]
    shares = np.exp(np.where(demos.masks, demos.values, -np.inf)).sum(1)
    np.testing.assert_allclose(shares, 1.0, rtol=1e-5)
    info = make("seamless_v0").describe()
    before, after = (
        soft_loss(load_policy(path, info)[0], demos, 1.0) for path in (SEAMLESS_PPO, out)
    )
    assert after < before


def soft_loss(policy, demos, temperature: float = 0.05) -> float:
    """The distillation's loss (the teacher's softmax at ``temperature`` where it rated the
    moves)."""
    tensors = (torch.from_numpy(a) for a in (demos.observations, demos.actions, demos.returns))
    obs, action, target = tensors
    with torch.no_grad():
        return float(
            _loss(policy, obs, demos.masks, action, target, 0.1, demos.values, temperature)
        )


def test_a_second_round_keeps_the_first_rounds_record(tmp_path):
    first, second = tmp_path / "round1.safetensors", tmp_path / "round2.safetensors"
    settings = {"teacher": "heuristic", "games": 1, "epochs": 1, "progress": False}
    one = distill(SEAMLESS_PPO, first, **settings)["distillation"]
    two = distill(first, second, first_deal=9, **settings)
    assert two["earlier_distillations"] == [one] and one["source"] == str(SEAMLESS_PPO)
    assert (two["distillation"]["source"], two["distillation"]["first_deal"]) == (str(first), 9)


def test_a_temperature_needs_a_teacher_that_rates_its_moves(tmp_path):
    out = tmp_path / "distilled.safetensors"
    with pytest.raises(ValueError, match="heuristic rates none of its moves"):
        distill(SEAMLESS_PPO, out, progress=False, teacher="heuristic", games=1, temperature=0.1)
    assert not out.exists()


@pytest.mark.parametrize(
    ("out", "settings", "error", "message"),
    [
        ("distilled.zip", {}, ValueError, "name the .safetensors"),
        ("distilled.safetensors", {"gamez": 3}, ValueError, "unknown distillation settings: gamez"),
        ("distilled.safetensors", {"games": 0}, ValueError, "games=0: at least 1"),
        ("distilled.safetensors", {"smoothing": 2.0}, ValueError, "smoothing=2.0: a share"),
        ("distilled.safetensors", {"temperature": -1.0}, ValueError, "temperature=-1.0: 0 or"),
        ("distilled.safetensors", {"first_deal": -1}, ValueError, "first_deal=-1: at least 0"),
        ("distilled.safetensors", {"teacher": None}, ValueError, "teacher=None: not of type str"),
    ],
)
def test_bad_settings_are_refused_before_any_game(tmp_path, out, settings, error, message):
    with pytest.raises(error, match=message):
        distill(SEAMLESS_PPO, tmp_path / out, progress=False, **settings)
    assert not list(tmp_path.iterdir())


def test_a_missing_checkpoint_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"nope\.safetensors"):
        distill(tmp_path / "nope.safetensors", tmp_path / "out.safetensors", progress=False)
