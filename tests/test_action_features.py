"""Networks that score each action from its own features (ActionFeaturePolicy): each game's
map gives exactly what its actions leave or risk, the policy plays only legal moves and scores
them as the trainer does, its checkpoint carries the map, and a game without a map is refused."""

from __future__ import annotations

import json
from typing import ClassVar

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
    feature_map, levels = action_feature_map(info)
    assert levels == 6
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
            assert np.allclose(features[action], np.concatenate(expected))
            checked += 1
    assert checked > 400


@pytest.mark.parametrize("players", [2, 4, 6])
def test_catastrophic_map_gives_the_hand_and_sets_each_draw_and_discard_leaves(players):
    """Against the rules: each legal draw and discard played on a copy of the state, the seat's
    hand and owed sets after it (a draw from the pile leaves the hand as the seat knows it: the
    card drawn is not yet seen); lays and every other action have no features."""
    from card_envs.unfortunate_events.rules.actions import action_spec

    env = make("unfortunate_events_v0", num_players=players)
    raw, info, rng = env.unwrapped, env.describe(), np.random.default_rng(players)
    feature_map, levels = action_feature_map(info)
    assert levels == 4
    start = action_spec(players).start
    draws, discards = range(start["draw"], start["lay"]), range(start["discard"], start["target"])
    scored = np.zeros(info.num_actions, bool)
    scored[list(draws) + list(discards)] = True
    assert np.array_equal(np.abs(feature_map).sum(axis=(1, 2)) > 0, scored)
    env.reset(seed=players)
    checked = 0
    for _ in range(600):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.reset(seed=int(rng.integers(2**31)))
            continue
        observation = env.observe(env.agent_selection)
        features = feature_map @ observation["observation"]
        state, seat = raw.game_state, raw.game.current_player(raw.game_state)
        for action in np.flatnonzero(observation["action_mask"] & scored):
            after = raw.game.clone(state)
            raw.game.apply(after, int(action), np.random.default_rng(0))
            if after.round != state.round:
                continue  # the round was won: new hands
            hand = (state if action == start["draw"] else after).hands[seat]
            expected = [*hand, after.owed3[seat], after.owed4[seat]]
            assert features[action].tolist() == expected, (action, expected)
            checked += 1
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert checked > 400


@pytest.mark.parametrize("name", ["seamless_v0", "seamless_v1"])
def test_seamless_map_counts_each_plays_suit_around_its_rank(name):
    """Against the state, which holds every hand: for each legal play, its suit's cards above
    and below it that the seat neither holds nor saw played, in its hand and in the trick;
    claims have no features."""
    from card_envs.agents.seamless import PLAY_FEATURES
    from card_envs.seamless.rules import ACTIONS as SEAMLESS_ACTIONS

    env = make(name)
    raw, info, rng = env.unwrapped, env.describe(), np.random.default_rng(7)
    feature_map, levels = action_feature_map(info)
    assert levels == 4
    claims = SEAMLESS_ACTIONS.start["claim"]
    assert not feature_map[claims:].any()
    env.reset(seed=7)
    checked = 0
    while checked < 1500:
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.reset(seed=int(rng.integers(2**31)))
            continue
        observation = env.observe(env.agent_selection)
        features = feature_map @ observation["observation"]
        state = raw.game_state
        hand, played = set(state.hands[raw.game.current_player(state)]), set(state.played)
        for card in np.flatnonzero(observation["action_mask"][:claims]).tolist():
            suit = range(card - card % 13, card - card % 13 + 13)
            unseen = [c for c in suit if c not in played and c not in hand]
            expected = {
                "trump": card // 13 == state.trump,
                "higher_out": sum(c > card for c in unseen),
                "lower_out": sum(c < card for c in unseen),
                "higher_played": sum(c > card for c in suit if c in played),
                "mine": sum(c in hand for c in suit),
                "mine_higher": sum(c > card for c in suit if c in hand),
                "trick_higher": sum(c in suit and c > card for c in state.trick),
                "trick_lower": sum(c in suit and c < card for c in state.trick),
                "trick_size": len(state.trick),
            }
            assert features[card].tolist() == [expected[f] for f in PLAY_FEATURES], card
            checked += 1
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))


def test_a_game_without_a_map_is_refused_by_name():
    with pytest.raises(ValueError, match="seers_catalog_v0 declares no action_feature_map"):
        SelfPlayConfig("seers_catalog_v0", 4, action_features=True)


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
    network = meta["policy"]
    assert (network["class"], network["features"], network["levels"]) == (
        "ActionFeaturePolicy",
        28,
        6,
    )
    loaded, _ = load_policy(path, info)
    assert torch.equal(loaded.feature_map, policy.feature_map)
    _, seen = positions("seals_v0", 4, 100, seed=4)
    first, second = PolicyAgent(policy, info), PolicyAgent(loaded, info)
    assert [first.act(o) for o in seen] == [second.act(o) for o in seen]
    bad = json.loads(path.with_suffix(".json").read_text())
    del bad["policy"]["features"]
    path.with_suffix(".json").write_text(json.dumps(bad))
    with pytest.raises(
        ValueError,
        match=r"policy\.features and policy\.levels are given for an ActionFeaturePolicy",
    ):
        load_policy(path, info)


def test_a_map_saved_for_every_action_loads_as_its_scored_rows(seals_policy, tmp_path):
    """Checkpoints before 2026-12-07 hold every action's rows (the shipped Seals network does);
    the policy keeps the scored ones and saves those."""
    from safetensors.torch import load_file

    info, _ = seals_policy
    shipped = "agents/checkpoints/seals_v0_ppo.safetensors"
    assert load_file(shipped)["feature_map"].shape == (31 * 28, 155)
    loaded, _ = load_policy(shipped, info)
    takes = ACTIONS.start["reveal"]
    assert loaded.feature_map.shape == (takes * 28, 155)
    assert loaded.scored_ids.tolist() == list(range(takes))
    path = tmp_path / "compact.safetensors"
    save_policy(loaded, path, env="seals_v0", num_players=4, advisor=None)
    assert load_file(path)["feature_map"].shape == (takes * 28, 155)
    again, _ = load_policy(path, info)
    _, seen = positions("seals_v0", 4, 100, seed=6)
    first, second = PolicyAgent(loaded, info), PolicyAgent(again, info)
    assert [first.act(o) for o in seen] == [second.act(o) for o in seen]


def test_the_seals_heuristic_rates_its_takes_without_changing_a_move():
    from card_envs.agents.match import play_game
    from card_envs.agents.seals_value import ValueHeuristicAgent

    class Asked(ValueHeuristicAgent):
        rated: ClassVar[list] = []

        def act(self, observation):
            self.rated.append(self.action_values(observation))
            return super().act(observation)

    env = make("seals_v0")
    info = env.describe()
    plain = play_game(env, [ValueHeuristicAgent(info, s) for s in range(4)], seed=5)
    asked = play_game(env, [Asked(info, s) for s in range(4)], seed=5)
    assert asked.rewards == plain.rewards and asked.steps == plain.steps
    takes = [values for values in Asked.rated if values is not None]
    assert 0 < len(takes) < len(Asked.rated)  # reveals are rated none
    for values in takes:
        rated = np.flatnonzero(~np.isnan(values))
        assert rated.size and rated.max() < ACTIONS.start["reveal"]


def test_rated_demonstrations_add_the_values_and_change_no_row():
    from card_envs.training.imitation import collect_demonstrations

    plain = collect_demonstrations("seals_v0", 4, 2, teacher="heuristic_value", progress=False)
    rated = collect_demonstrations(
        "seals_v0", 4, 2, teacher="heuristic_value", progress=False, rated=True
    )
    assert plain.values.shape == (len(plain.actions), 0)
    for name in ("observations", "masks", "actions", "returns"):
        assert np.array_equal(getattr(plain, name), getattr(rated, name))
    scored = ~np.isnan(rated.values).all(axis=1)
    take_rows = rated.actions < ACTIONS.start["reveal"]
    assert np.array_equal(scored, take_rows)
    best = np.nanargmax(np.where(scored[:, None], rated.values, 0.0), axis=1)
    values = rated.values[scored]
    chosen = values[np.arange(len(values)), rated.actions[scored]]
    assert np.all(chosen >= values[np.arange(len(values)), best[scored]] - 0.011)  # tie noise


def test_with_a_temperature_the_clone_fits_the_softmax_of_the_values():
    from card_envs.training.imitation import Demonstrations, clone, collect_demonstrations

    demos = collect_demonstrations(
        "seals_v0", 4, 1, teacher="heuristic_value", progress=False, rated=True
    )
    rows = np.flatnonzero(~np.isnan(demos.values).all(axis=1))[:6]
    few = Demonstrations(*(getattr(demos, name)[rows] for name in demos.__dataclass_fields__))
    info = make("seals_v0").describe()
    policy = new_policy(info, 32, 1e-3, seed=0, action_features=True)
    clone(policy, few, epochs=400, batch_size=6, temperature=1.0, progress=False)
    with torch.no_grad():
        obs = torch.as_tensor(few.observations)
        probs = policy.get_distribution(obs, action_masks=few.masks).distribution.probs.numpy()
    target = np.exp(np.nan_to_num(few.values - np.nanmax(few.values, 1)[:, None], nan=-np.inf))
    target /= target.sum(axis=1, keepdims=True)
    assert np.abs(probs - target).max() < 0.05  # the values' softmax, not the one move


def test_a_temperature_needs_a_teacher_that_rates_its_moves(tmp_path):
    from card_envs.training.cli import main

    with pytest.raises(ValueError, match="heuristic rates none of its moves"):
        main(["seamless_v0", "--selfplay", "--warm-start", "heuristic", "--clone-games", "1",
              "--clone-temperature", "0.1", "--logdir", str(tmp_path)])  # fmt: skip
