"""The central critic of self-play (card_envs.training.central_critic, ``--central-critic``): its
input is ``env.state()`` rotated to the acting seat, it values the learner's decisions and
learns the value loss while the policy's own critic stays untouched, and its warm-up leaves the
policy's moves alone."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch

from card_envs import make
from card_envs.training.central_critic import seat_table
from card_envs.training.config import default_config
from card_envs.training.selfplay_ppo import SelfPlayTrainer


def test_the_critic_input_is_the_state_from_the_acting_seat():
    env = make("seamless_v0")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    players, size = len(env.possible_agents), env.encoding.spec.size
    for _ in range(30):  # the deal and the play of the first tricks
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        blocks = env.state()[: players * size].reshape(players, size)
        own = env.observe(agent)["observation"]
        table = seat_table(env.encoding, env.game_state, seat, own, players)
        np.testing.assert_array_equal(table, np.roll(blocks, -seat, axis=0).ravel())
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))


def small_trainer(**settings) -> SelfPlayTrainer:
    config = default_config(
        "seamless_v0", 4, tables=4, rollout=96, batch_size=32, width=16, n_epochs=2, **settings
    )
    return SelfPlayTrainer(config)


def weights(module: torch.nn.Module, prefix: str = "") -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in module.state_dict().items() if k.startswith(prefix)}


def changed(before: dict[str, torch.Tensor], module: torch.nn.Module) -> set[str]:
    after = module.state_dict()
    return {key for key, value in before.items() if not torch.equal(value, after[key])}


def test_the_critic_values_the_decisions_from_the_whole_table():
    trainer = small_trainer(central_critic=True)
    assert trainer.critic is not None
    rollout = trainer.collector.collect(trainer.policy, 96)
    assert rollout.states is not None
    size = rollout.observations.shape[1]
    assert rollout.states.shape == (96, 4 * size)
    np.testing.assert_array_equal(rollout.states[:, :size], rollout.observations)
    with torch.no_grad():
        expected = trainer.critic(torch.from_numpy(rollout.states)).numpy()
    np.testing.assert_allclose(rollout.values, expected, rtol=1e-5, atol=1e-6)
    # the other seats' hands are in it: the rows differ from the acting seat's view
    assert np.abs(rollout.states[:, size:]).sum() > 0


def test_warmup_trains_the_critic_alone_then_the_policy_moves():
    trainer = small_trainer(central_critic=True, critic_warmup=1)
    policy, critic = weights(trainer.policy), weights(trainer.critic)
    trainer.cycle()
    assert not changed(policy, trainer.policy)
    assert changed(critic, trainer.critic) == set(critic)
    trainer.cycle()
    moved = changed(policy, trainer.policy)
    assert "action_net.weight" in moved and "mlp_extractor.policy_net.0.weight" in moved
    # the policy's own critic is not trained: the central one replaces it
    assert not {key for key in moved if "value" in key}


def test_without_the_option_there_is_no_critic_and_no_table_rows():
    trainer = small_trainer()
    assert trainer.critic is None
    assert trainer.collector.collect(trainer.policy, 8).states is None


def test_the_central_critic_collects_in_one_process():
    with pytest.raises(ValueError, match="central_critic with collect_workers=2"):
        default_config("seamless_v0", 4, tables=4, collect_workers=2, central_critic=True)
