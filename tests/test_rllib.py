"""RLlib integration: the env and checkpoint checks that need no Ray run by default; the RLlib
wrapper and masking module need Ray installed (``pip install card-envs[rllib]``); one short
training run is slow (``make test-rllib``)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest
from pettingzoo.test import api_test

from card_envs import env_names, make
from card_envs.agents.match import decisions
from card_envs.agents.rllib import META_FILE, load_rllib_agent
from card_envs.cli import build_parser, main
from card_envs.training.rllib.env import IllegalActionCounter, make_aec_env
from card_envs.training.rllib.train import SHARED, module_ids, seat_policy, shared_policy


def config(name: str) -> dict:
    return {"game": name, "num_players": make(name).describe().num_players}


@pytest.mark.parametrize("name", env_names())
def test_counted_env_gives_the_observations_and_masks_rllib_reads(name):
    """Read as RLlib's PettingZooEnv reads it (``last()`` each turn): the acting seat sees a
    non-empty int8 mask inside its declared space (RLlib batches the dict as it is); at the
    end every seat sees an empty mask; nothing is counted as illegal."""
    env = make_aec_env(config(name))
    env.reset(seed=1)
    rng, final_masks = np.random.default_rng(1), {}
    for agent, observation in decisions(env):
        assert env.observation_space(agent).contains(observation)
        assert observation["action_mask"].dtype == np.int8
        legal = np.flatnonzero(observation["action_mask"])
        assert legal.size > 0
        env.step(int(rng.choice(legal)))
        if all(env.terminations[a] or env.truncations[a] for a in env.agents):
            final = {a: env.observe(a) for a in env.agents}  # what each seat's last() reads
            assert all(env.observation_space(a).contains(o) for a, o in final.items())
            final_masks = {a: int(o["action_mask"].sum()) for a, o in final.items()}
    assert final_masks == dict.fromkeys(env.possible_agents, 0)
    assert env.agents == []  # every seat was stepped out
    assert env.take_count() == 0


def test_counted_env_passes_pettingzoo_api_test():
    api_test(make_aec_env(config("seals_v0")), num_cycles=100)


def test_an_illegal_action_is_counted_and_ends_the_game():
    env = IllegalActionCounter(make("seamless_v0"))
    env.reset(seed=0)
    offender = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0]))
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == -1
    assert env.take_count() == 1
    assert env.take_count() == 0


def test_policies_shared_or_one_per_seat():
    assert module_ids(SHARED, 4) == [SHARED]
    assert module_ids("per-seat", 3) == ["player_0", "player_1", "player_2"]
    assert shared_policy("player_2", None) == SHARED
    assert seat_policy("player_2", None) == "player_2"


def test_command_line_needs_no_ray():
    """``card-envs --help`` and the loader import Ray only when they train or load a module."""
    code = (
        "import sys; from card_envs.cli import build_parser; import card_envs.agents.rllib;"
        "build_parser(); assert 'ray' not in sys.modules, 'ray imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    args = build_parser().parse_args(["train-rllib", "seals_v0", "--policy", "per-seat"])
    assert (args.game, args.policy, args.address) == ("seals_v0", "per-seat", None)


def test_training_without_ray_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None)
    assert main(["train-rllib", "seamless_v0"]) == 2
    assert 'pip install "card-envs[rllib]"' in capsys.readouterr().err


def test_loader_errors_name_the_problem(tmp_path):
    info = make("seamless_v0").describe()
    with pytest.raises(ValueError, match="no RLlib checkpoint"):
        load_rllib_agent(tmp_path / "missing", info)
    with pytest.raises(ValueError, match=f"no {META_FILE}"):
        load_rllib_agent(tmp_path, info)
    (tmp_path / META_FILE).write_text("{not json")
    with pytest.raises(ValueError, match="corrupt"):
        load_rllib_agent(tmp_path, info)
    (tmp_path / META_FILE).write_text(json.dumps({"env": "seals_v0", "num_players": 2}))
    with pytest.raises(ValueError, match="trained for seals_v0 with 2 players"):
        load_rllib_agent(tmp_path, info)


# -- with Ray installed -------------------------------------------------------------------------
def test_rllib_wrapper_returns_the_acting_seat_then_every_final_reward():
    pytest.importorskip("ray")
    from card_envs.training.rllib.env import make_rllib_env

    env = make_rllib_env(config("seamless_v0"))
    observations, _ = env.reset(seed=2)
    rng = np.random.default_rng(2)
    while True:
        [(agent, observation)] = observations.items()
        assert env.get_observation_space(agent).contains(observation)
        legal = np.flatnonzero(observation["action_mask"])
        observations, rewards, terminated, _, _ = env.step({agent: rng.choice(legal)})
        if terminated["__all__"]:
            break
    assert set(rewards) == set(env.possible_agents)
    assert sum(rewards.values()) == pytest.approx(0) and max(rewards.values()) > 0


def test_masking_module_never_samples_a_masked_action():
    pytest.importorskip("ray")
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    from card_envs.agents.rllib_module import MaskedPPOTorchRLModule

    env = make_aec_env(config("seamless_v0"))
    space = env.observation_space("player_0")
    module = MaskedPPOTorchRLModule(
        observation_space=space,
        action_space=env.action_space("player_0"),
        model_config={"fcnet_hiddens": [32]},
    )
    rng = np.random.default_rng(0)
    masks = (rng.random((64, space["action_mask"].shape[0])) < 0.1).astype(np.int8)
    masks[:, 0] = masks[:, 0] | ~masks.any(axis=1)  # at least one legal action per row
    observations = np.stack([space["observation"].sample() for _ in range(64)])
    batch = {
        Columns.OBS: {"observation": torch.tensor(observations), "action_mask": torch.tensor(masks)}
    }
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    assert torch.all((logits == FLOAT_MIN) == torch.tensor(masks == 0))
    sampled = torch.distributions.Categorical(logits=logits).sample((200,))
    assert torch.tensor(masks).gather(1, sampled.T).all()
    assert module.compute_values(batch).shape == (64,)
    row = {"observation": observations[0], "action_mask": masks[0]}
    assert masks[0][module.greedy_action(row)] == 1


@pytest.mark.slow
def test_one_training_iteration_samples_no_illegal_action_and_exports(tmp_path, monkeypatch):
    """About 20 s: one PPO iteration with one remote env runner (the callback reports from
    another process), then the exported checkpoint plays a legal move without Ray running."""
    pytest.importorskip("ray")
    from card_envs.training.rllib.train import train

    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    out = tmp_path / "checkpoint"
    command = "train-rllib seamless_v0 --iterations 1 --batch-size 1000 --env-runners 1"
    command += " --envs-per-runner 2 --eval-games 4"
    args = build_parser().parse_args(
        [*command.split(), "--out", str(out), "--logdir", str(tmp_path / "runs")]
    )
    meta = train(args)
    assert meta["episodes"] > 0 and meta["illegal_actions"] == 0
    assert json.loads((out / META_FILE).read_text())["env_steps"] >= 1000
    info = make("seamless_v0").describe()
    agent = load_rllib_agent(out, info, trust=True)  # RLlib unpickles: trusted only
    env = make("seamless_v0")
    env.reset(seed=5)
    observation = env.observe(env.agent_selection)
    assert observation["action_mask"][agent.act(observation)] == 1
    with pytest.raises(ValueError, match="trained for seamless_v0"):
        load_rllib_agent(out, make("seals_v0").describe())
    state = next((out / "learner_group").rglob("shared/module_state.*"))
    state.write_bytes(state.read_bytes()[:100])
    with pytest.raises(ValueError, match="corrupt"):
        load_rllib_agent(out, info, trust=True)
