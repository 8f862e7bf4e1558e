"""Networks that score each action from its own features (ActionFeaturePolicy): Seals' map
gives exactly what a take leaves, the policy plays only legal moves and scores them as the
trainer does, its checkpoint carries the map, and a game without a map is refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

import torch

from card_envs import make
from card_envs.agents.action_feature_policy import ActionFeaturePolicy
from card_envs.agents.checkpoint import load_policy, save_policy
from card_envs.agents.plugins import action_feature_map
from card_envs.agents.policy import PolicyAgent
from card_envs.agents.seals import taken_cards
from card_envs.seals.rules.actions import ACTIONS
from card_envs.training.config import SelfPlayConfig
from card_envs.training.selfplay import legal_index, legal_log_probs
from card_envs.training.selfplay_ppo import new_policy


def positions(name: str, players: int, count: int, seed: int = 0):
    """``count`` observations of random play, with the seat's views."""
    env = make(name, num_players=players)
    info, rng = env.describe(), np.random.default_rng(seed)
    env.reset(seed=seed)
    seen = []
    while len(seen) < count:
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.reset(seed=int(rng.integers(2**31)))
            continue
        observation = env.observe(env.agent_selection)
        seen.append(observation)
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return info, seen


@pytest.mark.parametrize("players", [2, 3, 4])
def test_seals_map_gives_what_each_take_leaves(players):
    info, seen = positions("seals_v0", players, 400, seed=players)
    feature_map = action_feature_map(info)
    takes = ACTIONS.start["reveal"]
    checked = 0
    for observation in seen:
        views = info.obs_spec.views(observation["observation"])
        features = feature_map @ observation["observation"]
        assert not features[takes:].any()  # reveals and stop have none
        for action in np.flatnonzero(observation["action_mask"][:takes]):
            lifted = taken_cards(views["row"], int(action))
            left = views["row"] - lifted
            expected = [(views["hand"] + lifted).sum(0), left.sum(0), left.sum(1), [lifted.sum()]]
            assert np.allclose(features[action], np.concatenate(expected) / 4)
            checked += 1
    assert checked > 400


def test_a_game_without_a_map_is_refused_by_name():
    with pytest.raises(ValueError, match="seamless_v0 declares no action_feature_map"):
        SelfPlayConfig("seamless_v0", 4, action_features=True)


@pytest.fixture(scope="module")
def seals_policy() -> tuple:
    info = make("seals_v0").describe()
    policy = new_policy(info, 16, 3e-4, seed=3, action_features=True)
    with torch.no_grad():  # a scorer that matters: the fresh output layer is near zero
        policy.feature_out.weight.mul_(50)
    return info, policy


def test_the_feature_map_is_checked_and_held_as_buffers(seals_policy):
    _, policy = seals_policy
    assert isinstance(policy, ActionFeaturePolicy) and policy.features == 28
    assert policy.scored.tolist() == [1.0] * ACTIONS.start["reveal"] + [0.0] * 15
    with pytest.raises(ValueError, match=r"a feature map of shape \(31, 27, 155\)"):
        policy.set_feature_map(np.zeros((31, 27, 155), np.float32))


def test_play_is_legal_and_the_trainers_scores_are_the_agents(seals_policy):
    info, policy = seals_policy
    _, seen = positions("seals_v0", 4, 300, seed=9)
    observations = torch.as_tensor(np.stack([o["observation"] for o in seen]))
    ids, valid = legal_index(np.stack([o["action_mask"] for o in seen]))
    with torch.no_grad():
        legal_ids, legal_valid = torch.as_tensor(ids), torch.as_tensor(valid)
        log_probs = legal_log_probs(policy, observations, legal_ids, legal_valid)
    best = ids[np.arange(len(ids)), log_probs.argmax(dim=1).numpy()]
    agent = PolicyAgent(policy, info)
    chosen = [agent.act(observation) for observation in seen]
    assert chosen == best.tolist()  # greedy play is the trainer's most likely legal move
    assert all(o["action_mask"][a] for o, a in zip(seen, chosen, strict=True))
    # the scorer changes moves: without it the same network plays otherwise somewhere
    without = policy.feature_logits
    policy.feature_logits = lambda obs, latent: torch.zeros(len(obs), info.num_actions)
    try:
        assert [agent.act(observation) for observation in seen] != chosen
    finally:
        policy.feature_logits = without


def test_a_checkpoint_keeps_the_map_and_plays_the_same(seals_policy, tmp_path):
    info, policy = seals_policy
    path = tmp_path / "seals.safetensors"
    meta = save_policy(policy, path, env="seals_v0", num_players=4, advisor=None)
    assert meta["policy"]["class"] == "ActionFeaturePolicy" and meta["policy"]["features"] == 28
    loaded, _ = load_policy(path, info)
    assert torch.equal(loaded.feature_map, policy.feature_map)
    _, seen = positions("seals_v0", 4, 100, seed=4)
    first, second = PolicyAgent(policy, info), PolicyAgent(loaded, info)
    assert [first.act(o) for o in seen] == [second.act(o) for o in seen]
    bad = json.loads(path.with_suffix(".json").read_text())
    del bad["policy"]["features"]
    path.with_suffix(".json").write_text(json.dumps(bad))
    with pytest.raises(ValueError, match=r"policy\.features is given for an ActionFeaturePolicy"):
        load_policy(path, info)
