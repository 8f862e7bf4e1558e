"""The SB3 adapter, trusted SB3 zips and their errors, the train command (its output, resume and
help), and a slow end-to-end training run. The safe checkpoint format: test_checkpoints.py."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO

from card_envs import make
from card_envs.agents import make_agent, shipped_checkpoint
from card_envs.agents.checkpoint import PickleCheckpointWarning, metadata_path
from card_envs.agents.policy import load_policy_agent
from card_envs.core.errors import IllegalActionError
from card_envs.registry import env_names
from card_envs.training.single_agent import OpponentPool, SingleAgentEnv


@pytest.fixture
def adapter() -> SingleAgentEnv:
    return SingleAgentEnv("seamless_v0", OpponentPool(["random"]))


@pytest.mark.parametrize("name", env_names())
def test_adapter_passes_gymnasium_and_sb3_check_env(name):
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = SingleAgentEnv(name, OpponentPool(["random"]))
    check_env(env, skip_render_check=True)
    sb3_check_env(env)


def test_adapter_seats_rotate_or_stay_fixed():
    rotating = SingleAgentEnv("seals_v0", OpponentPool(["random"]), num_players=3, seat="rotate")
    seats = []
    for episode in range(6):
        rotating.reset(seed=episode)
        seats.append(rotating.env.possible_agents.index(rotating.learner))
    assert seats == [0, 1, 2, 0, 1, 2]
    fixed = SingleAgentEnv("seals_v0", OpponentPool(["random"]), num_players=3, seat=2)
    fixed.reset(seed=0)
    assert fixed.learner == fixed.env.possible_agents[2]
    assert fixed.env.agent_selection == fixed.learner
    with pytest.raises(ValueError, match="seat must be"):
        SingleAgentEnv("seals_v0", OpponentPool(["random"]), num_players=3, seat=3)


def test_adapter_illegal_action_loses_or_raises(adapter):
    adapter.reset(seed=1)
    illegal = int(np.flatnonzero(~adapter.action_masks())[0])
    _, reward, terminated, _, info = adapter.step(illegal)
    assert (reward, terminated, info) == (-1.0, True, {"illegal_action": True})
    strict = SingleAgentEnv("seamless_v0", OpponentPool(["random"]), illegal="raise")
    strict.reset(seed=1)
    before = strict.env.observe(strict.learner)["observation"]
    with pytest.raises(IllegalActionError):
        strict.step(illegal)
    assert np.array_equal(before, strict.env.observe(strict.learner)["observation"])


def test_adapter_spaces_and_seeded_reset(adapter):
    first, _ = adapter.reset(seed=7)
    assert adapter.observation_space.contains(first)
    assert adapter.action_masks().shape == (adapter.action_space.n,)
    again, _ = adapter.reset(seed=7)
    assert np.array_equal(first, again)


def test_adapter_returns_the_learners_reward_and_masks(adapter):
    adapter.reset(seed=3)
    total, done = 0.0, False
    while not done:
        mask = adapter.action_masks()
        assert mask.any()
        _, reward, terminated, truncated, _ = adapter.step(int(np.flatnonzero(mask)[0]))
        total += reward
        done = terminated or truncated
    env = adapter.env
    seat = env.possible_agents.index(adapter.learner)
    assert total == pytest.approx(1.0 if env.game.winners(env.game_state) == [seat] else -1 / 3)


@pytest.mark.parametrize(("name", "players"), [("seals_v0", 3), ("sequitur_v0", 1)])
def test_margin_reward_adds_the_final_score_margin(name, players):
    """The shaping of an episode adds up to the weight times the learner's final margin."""
    weight, rewards = 0.1, {}
    for margin_reward in (0.0, weight):
        pool = OpponentPool(["heuristic"])
        env = SingleAgentEnv(name, pool, players, margin_reward=margin_reward)
        env.reset(seed=5)
        total, done = 0.0, False
        while not done:
            _, reward, terminated, truncated, _ = env.step(heuristic_move(env))
            total, done = total + reward, terminated or truncated
        rewards[margin_reward] = total
    scores = env.env.game.scores(env.env.game_state)
    mine = scores[env.env.possible_agents.index(env.learner)]
    margin = mine - (sum(scores) - mine) / (players - 1) if players > 1 else mine
    assert margin != 0
    assert rewards[weight] - rewards[0.0] == pytest.approx(weight * margin)
    with pytest.raises(ValueError, match="margin_reward must be"):
        SingleAgentEnv(name, OpponentPool(["random"]), margin_reward=-1)


def heuristic_move(env: SingleAgentEnv) -> int:
    """The learner's seat played by a heuristic seeded by the seat (the same game both times)."""
    seat = env.env.possible_agents.index(env.learner)
    agent = make_agent("heuristic", env.info, seed=seat)
    return agent.act(env.env.observe(env.learner))


@pytest.mark.filterwarnings("ignore::card_envs.agents.checkpoint.PickleCheckpointWarning")
def test_trusted_zip_round_trip_and_clear_errors(tmp_path, adapter):
    model = MaskablePPO("MlpPolicy", adapter, n_steps=64, batch_size=64, seed=0, device="cpu")
    path = tmp_path / "seamless.zip"
    model.save(path)
    info = make("seamless_v0").describe()
    agent = make_agent(str(path), info, trust=True)
    env = make("seamless_v0")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs)] == 1

    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ValueError, match="corrupt"):
        load_policy_agent(corrupt, info, trust=True)
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(ValueError, match="corrupt"):
        load_policy_agent(truncated, info, trust=True)
    with pytest.raises(FileNotFoundError):
        load_policy_agent(tmp_path / "missing.zip", info, trust=True)
    metadata_path(path).write_text(json.dumps({"env": "seals_v0", "num_players": 2}))
    with pytest.raises(ValueError, match="trained for seals_v0"):
        load_policy_agent(path, info, trust=True)
    metadata_path(path).write_text(json.dumps({"env": "seamless_v0", "num_players": 3}))
    with pytest.raises(ValueError, match="with 3 players"):
        load_policy_agent(path, info, trust=True)
    advised = {"env": "seamless_v0", "num_players": 4, "config": {"advisor": "heuristic"}}
    metadata_path(path).write_text(json.dumps(advised))
    with pytest.raises(ValueError, match="expects observations of 607"):
        load_policy_agent(path, info, trust=True)  # trained without the advice the metadata claims
    metadata_path(path).write_text("{not json")
    with pytest.raises(ValueError, match=r"metadata .* is corrupt"):
        load_policy_agent(path, info, trust=True)


def test_train_command_clones_trains_evaluates_and_resumes(tmp_path):
    """The whole pipeline at toy size: cloning, PPO with a self-play snapshot, held-out
    evaluations, TensorBoard, the best policy in the safe format with its JSON and curve, then a
    resume from it (a fresh optimizer) and one from the run folder's zip (trusted only)."""
    from card_envs.training.cli import main

    out, runs = tmp_path / "seals.safetensors", tmp_path / "runs"
    tiny = ["--clone-games", "4", "--clone-epochs", "1", "--dagger-rounds", "1", "--n-envs", "2"]
    tiny += ["--n-steps", "64", "--batch-size", "64", "--eval-games", "4", "--width", "16"]
    tiny += ["--snapshot-every", "128", "--eval-every", "256", "--out", str(out)]
    tiny += ["--logdir", str(runs)]
    assert main(["seals_v0", "--players", "2", "--timesteps", "256", *tiny]) == 0
    info = make("seals_v0", num_players=2).describe()
    first = json.loads(metadata_path(out).read_text())
    assert (first["format"], first["policy"]["net_arch"]) == ("card-envs-policy", [16, 16])
    assert first["config"]["opponents"] == ["heuristic", "heuristic", "self"]
    assert len(first["cloning"]["rounds"]) == 2
    assert [row["timesteps"] for row in first["evaluations"]] == [256]
    assert out.with_suffix(".png").stat().st_size > 0
    (run,) = runs.iterdir()  # the run's own folder: the step zip and TensorBoard's log
    assert run.name.startswith("seals_v0-") and (run / "step_256.zip").is_file()
    assert any(run.rglob("events.out.tfevents*")), "no TensorBoard log"

    assert type(load_policy_agent(out, info).policy).__name__ == "MaskableActorCriticPolicy"

    resume = ["--resume", str(out), "--timesteps", "512", "--ent-coef", "0.03"]
    resume += ["--learning-rate", "0.0003", "--width", "99"]  # the width is the checkpoint's
    assert main(["seals_v0", "--players", "2", *tiny, *resume]) == 0
    second = json.loads(metadata_path(out).read_text())
    assert [row["timesteps"] for row in second["evaluations"]] == [256, 512]
    assert (second["config"]["ent_coef"], second["config"]["width"]) == (0.03, 16)
    assert second["config"]["learning_rate"] == 0.0003

    zipped = ["--resume", str(run / "step_256.zip"), "--timesteps", "512"]
    with pytest.raises(ValueError, match="--trust-checkpoint"):
        main(["seals_v0", "--players", "2", *tiny, *zipped])
    with pytest.warns(PickleCheckpointWarning):
        assert main(["seals_v0", "--players", "2", *tiny, *zipped, "--trust-checkpoint"]) == 0
    assert json.loads(metadata_path(out).read_text())["evaluations"][-1]["timesteps"] == 512


def test_advice_logit_policy_starts_as_its_advisor(tmp_path):
    """With the advice added to the logits, even an untrained policy mostly plays the advice."""
    from card_envs.training.cli import main

    out = tmp_path / "sequitur.safetensors"
    flags = ["--players", "2", "--timesteps", "64", "--clone-games", "0", "--n-envs", "1"]
    flags += ["--n-steps", "64", "--batch-size", "64", "--eval-games", "2", "--width", "8"]
    flags += ["--advice-logit", "--out", str(out), "--logdir", str(tmp_path / "runs")]
    assert main(["sequitur_v0", *flags]) == 0
    info = make("sequitur_v0", num_players=2).describe()
    agent = load_policy_agent(out, info, seed=3)
    assert type(agent.policy).__name__ == "AdvisedPolicy"
    env = make("sequitur_v0", num_players=2)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert agent.act(observation) == make_agent("heuristic", info, 3).act(observation)


def test_advised_agent_appends_its_advisors_move():
    from card_envs.agents.policy import PolicyAgent

    class Recorder:
        def predict(self, vector, action_masks, deterministic):
            self.vector = vector
            return int(np.flatnonzero(action_masks)[0]), None

    env = make("seals_v0")
    info = env.describe()
    env.reset(seed=5)
    observation = env.observe(env.agent_selection)
    model = Recorder()
    PolicyAgent(model, info, seed=1, advisor="heuristic").act(observation)
    advice = make_agent("heuristic", info, 1).act(observation)
    size = info.obs_spec.size
    assert np.array_equal(model.vector[:size], observation["observation"])
    assert np.flatnonzero(model.vector[size:]).tolist() == [advice]


def test_zero_cost_env_has_the_games_spaces_and_length():
    from card_envs.training.throughput import ZeroCostEnv

    game = SingleAgentEnv("seals_v0", OpponentPool(["random"]), advisor="heuristic")
    zero = ZeroCostEnv(game, length=3)
    assert (zero.observation_space, zero.action_space) == (
        game.observation_space,
        game.action_space,
    )
    zero.reset(seed=0)
    assert [zero.step(0)[2] for _ in range(3)] == [False, False, True]
    assert zero.action_masks().all()


@pytest.mark.slow
def test_short_training_run_beats_random(tmp_path):
    """About two minutes from scratch (no cloning) against random seats: 150k steps gave a
    0.405 win share on 200 held-out deals (fair share 0.25)."""
    from card_envs.training.cli import main

    out = tmp_path / "m.safetensors"
    flags = ["--timesteps", "150000", "--opponents", "random", "--clone-games", "0"]
    flags += ["--learning-rate", "3e-4", "--clip-range", "0.2", "--ent-coef", "0.01"]
    flags += ["--width", "128", "--n-epochs", "10", "--target-kl", "0", "--advisor", "none"]
    flags += ["--eval-every", "150000", "--out", str(out), "--logdir", str(tmp_path / "runs")]
    assert main(["seamless_v0", *flags]) == 0
    assert json.loads(metadata_path(out).read_text())["evaluations"][-1]["vs_random"] > 0.32


def test_shipped_seamless_checkpoint_plays_legal_moves():
    from card_envs.agents.match import play_game

    env = make("seamless_v0")
    info = env.describe()
    agents = [make_agent("ppo_advised", info), *(make_agent("random", info, s) for s in range(3))]
    result = play_game(env, agents, seed=0)  # an illegal move would raise
    assert result.steps > 0 and result.winners


def test_train_writes_a_new_run_folder_unless_out_names_a_file(tmp_path):
    """Without --out the policy goes to a new folder under --logdir, never to the shipped
    checkpoints; a second run in the same second gets its own folder."""
    from datetime import datetime

    from card_envs.agents import shipped_checkpoint
    from card_envs.training.cli import run_paths

    now = datetime(2026, 11, 30, 9, 5, 7)
    args = subcommand("train").parse_args(["seals_v0", "--logdir", str(tmp_path)])
    run_dir, out = run_paths(args, now)
    assert run_dir == tmp_path / "seals_v0-20261130-090507"
    assert out == run_dir / "seals_v0_ppo.safetensors"
    assert shipped_checkpoint("seals_v0").parent not in out.parents
    run_dir.mkdir()
    assert run_paths(args, now)[0] == tmp_path / "seals_v0-20261130-090507-2"
    args = subcommand("train").parse_args(["seals_v0", "--out", "x/agent.safetensors"])
    assert run_paths(args, now)[1] == Path("x/agent.safetensors")


def test_train_refuses_what_it_could_not_write_or_load(tmp_path):
    """Checked before any training: the output name, a zip to resume without trust, an advisor
    a checkpoint could not name safely."""
    from card_envs.training.cli import main

    base = ["seals_v0", "--logdir", str(tmp_path)]
    with pytest.raises(ValueError, match=r"name the \.safetensors file to write"):
        main([*base, "--out", str(tmp_path / "agent.zip")])
    zipped = tmp_path / "step_1.zip"
    zipped.write_bytes(b"PK")
    with pytest.raises(ValueError, match=r"unpickles it.*--trust-checkpoint"):
        main([*base, "--resume", str(zipped)])
    with pytest.raises(ValueError, match="an advisor is one of seals_v0's built-in agents"):
        main([*base, "--advisor", "card_envs.agents.seals:HeuristicAgent"])
    assert not any(tmp_path.glob("seals_v0-*")), "a refused run left a folder"


@pytest.mark.parametrize("command", ["train", "export-checkpoint"])
def test_every_argument_says_what_it_does(command):
    undocumented = [action.dest for action in subcommand(command)._actions if not action.help]
    assert undocumented == []


def subcommand(name: str) -> argparse.ArgumentParser:
    """The parser of a ``card-envs`` subcommand that card_envs.training.cli registers."""
    from card_envs.training.cli import add_parser

    subparsers = argparse.ArgumentParser().add_subparsers()
    add_parser(subparsers)
    return subparsers.choices[name]


def test_sequitur_trains_a_narrower_trunk_by_default():
    """Sequitur's 3,452 inputs and 2,210 outputs at width 64 made self-play the bottleneck (0.17x
    its engine): its defaults are width 32 and one epoch, from default_config and from the
    command line alike."""
    from card_envs.training.cli import config_from_args
    from card_envs.training.config import default_config

    assert default_config("sequitur_v0").width == 32
    assert default_config("sequitur_v0").n_epochs == 1
    assert default_config("seamless_v0").width == 32  # its engine is the fastest
    assert default_config("seers_catalog_v0").width == 64
    args = subcommand("train").parse_args(["sequitur_v0", "--selfplay"])
    assert config_from_args(args).width == 32
    args = subcommand("train").parse_args(["sequitur_v0", "--selfplay", "--width", "128"])
    assert config_from_args(args).width == 128


def test_a_config_is_frozen_checked_when_built_and_recorded_by_its_field_names():
    """A config changes only through ``dataclasses.replace``, which checks the new one: a bad
    value is a ``ValueError`` naming its field. Its record has the keys of every shipped
    checkpoint's JSON, whose configs build again."""
    from card_envs.training.config import PPOConfig, SelfPlayConfig, default_config, ppo_config

    config = default_config("seals_v0", 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.width = 8  # type: ignore[misc]
    assert dataclasses.replace(config, width=8).width == 8 and config.width == 64
    for bad, message in [
        ({"width": 0}, "width=0: at least 1"),
        ({"tables": "4"}, "tables='4': not of type int"),
        ({"snapshot_share": 1.5}, "snapshot_share=1.5: a share"),
        ({"learning_rate": 0.0}, "learning_rate=0.0: more than 0"),
        ({"num_players": 9}, "num_players=9: seals_v0 seats 2, 3, 4"),
        ({"env": "nothing_v0"}, "env='nothing_v0': not a registered env"),
        ({"rollout": 1, "tables": 2, "collect_workers": 2}, "rollout=1: at least a decision"),
        ({"warm_start": "heuristic", "clone_games": 0}, "clone_games=0: at least 1"),
    ]:
        with pytest.raises(ValueError, match=message):
            dataclasses.replace(config, **bad)
    with pytest.raises(ValueError, match=r"opponents=.*one or more of random, heuristic, self"):
        ppo_config("seals_v0", opponents=["self", "nobody"])
    assert ppo_config("seals_v0", 2, opponents=["self"]).as_dict()["opponents"] == ["self"]
    for path in sorted(shipped_checkpoint("seals_v0").parent.glob("*_ppo*.json")):
        record = json.loads(path.read_text())["config"]
        kind = SelfPlayConfig if "tables" in record else PPOConfig
        assert kind(**record).as_dict().keys() >= record.keys(), path.name
