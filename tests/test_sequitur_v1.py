"""``sequitur_v1``: version 0's game with ``action_values``, each legal action's worth to the
seat to act (docs/sequitur_v1.md), and the policy that adds it to its logits."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch
from sequitur_helpers import at_action, at_spelling, set_rack, spell_name

from card_envs import make, sequitur_v0, sequitur_v1
from card_envs.agents import make_agent
from card_envs.agents.advised_policy import AdvisedPolicy
from card_envs.agents.match import decisions
from card_envs.sequitur.action_values import SCORE_WEIGHT, ActionValues
from card_envs.sequitur.rules import SequiturGame
from card_envs.sequitur.rules.state import CLAIM_GOAL, SPELL_KEEP
from card_envs.training.selfplay import legal_log_probs
from card_envs.training.selfplay_ppo import new_policy

GAME = SequiturGame(2)


def values_of(game: SequiturGame, state) -> np.ndarray:
    out = np.zeros(game.actions.size, np.float32)
    ActionValues(game).write(state, state.actor, out)
    return out


def test_v1_is_v0_with_action_values_appended():
    old, new = sequitur_v0.env(num_players=3), sequitur_v1.env(num_players=3)
    old.reset(seed=5)
    new.reset(seed=5)
    size = old.describe().obs_spec.size
    assert new.describe().obs_spec.size == size + old.describe().num_actions
    assert new.metadata["name"] == "sequitur_v1" and new.metadata["version"] == 1
    for (_, seen), (_, seen_new) in zip(decisions(old), decisions(new), strict=True):
        assert np.array_equal(seen["observation"], seen_new["observation"][:size])
        assert np.array_equal(seen["action_mask"], seen_new["action_mask"])
        action = int(np.flatnonzero(seen["action_mask"])[-1])
        old.step(action)
        new.step(action)
    assert old.game_state.totals == new.game_state.totals


def test_rulebook_word_is_worth_its_goals_plus_a_tenth_of_its_score():
    """Rack H W F O R G D E: WORD scores 8; with no goal it meets, its spelling is worth 0.8."""
    game, state = GAME, at_spelling(GAME)
    set_rack(state, 0, "hwforgde")
    state.secret[0], state.kept[0], state.public = -1, -1, []
    values = values_of(game, state)
    assert values[game.actions.ids[spell_name([1, 3, 4, 6])]] == pytest.approx(SCORE_WEIGHT * 8)
    met = next(g for g, card in enumerate(game.goals) if card.met_by("word", game.dictionary))
    state.public = [met]
    values = values_of(game, state)
    expected = game.goals[met].points + SCORE_WEIGHT * 8
    assert values[game.actions.ids[spell_name([1, 3, 4, 6])]] >= expected - 1e-6


def test_values_only_on_legal_ids_of_the_seat_to_act():
    for n in (1, 2, 4):
        env = make("sequitur_v1", num_players=n)
        at = env.describe().obs_spec.offsets["action_values"]
        env.reset(seed=n)
        valued = 0
        for step, (name, seen) in enumerate(decisions(env)):
            values, mask = seen["observation"][at:], seen["action_mask"].astype(bool)
            assert not values[~mask].any() and (values >= 0).all()
            valued += bool(values[mask].any())
            for other in env.agents:
                if other != name:
                    assert not env.observe(other)["observation"][at:].any()
            env.step(int(np.flatnonzero(mask)[step % mask.sum()]))
        assert valued > 5  # the env fills the piece, not only ActionValues called directly


def test_card_moves_are_valued_by_the_rack_they_leave():
    game, state = GAME, at_action(GAME, "hwforgde")
    state.secret[0], state.kept[0], state.public = -1, -1, []
    values = values_of(game, state)
    pass_value = values[game.actions.ids["pass"]]
    assert pass_value > 0  # the rack already spells a word
    swap = game.actions.ids["swap slot 3-4"]  # hwfrogde
    after = at_action(GAME, "hwfrogde")
    after.secret[0], after.kept[0], after.public = -1, -1, []
    assert values[swap] == pytest.approx(values_of(game, after)[game.actions.ids["pass"]])


def test_compiled_and_reference_observations_agree():
    env = make("sequitur_v1")
    env.reset(seed=11)
    encoding = env.unwrapped.encoding
    for step, (_name, seen) in enumerate(decisions(env)):
        state = env.unwrapped.game_state
        reference = encoding.observe_reference(state, state.actor)
        assert np.array_equal(reference, seen["observation"])
        env.step(int(np.flatnonzero(seen["action_mask"])[step % 3 % seen["action_mask"].sum()]))


@pytest.mark.parametrize("num_players", [2, 4])
def test_what_the_seat_cannot_see_does_not_move_its_values(num_players):
    """Redrawing everything the acting seat cannot see (other seats' secret and face-down
    goals, this step's earlier choices, the bag, the goal decks) leaves its values as they
    were, at every kind of decision of random games."""
    game = SequiturGame(num_players)
    rng = np.random.default_rng(num_players)
    decisions_seen: set[int] = set()
    for seed in range(3):
        state = game.new_game(np.random.default_rng(seed))
        while not game.is_over(state):
            seat = state.actor
            before = values_of(game, state)
            for _ in range(2):
                world = game.resample_hidden(state, seat, rng)
                assert np.array_equal(before, values_of(game, world)), game.render(state)
            decisions_seen.add(state.decision)
            legal = game.legal_actions(state)
            game.apply(state, legal[int(rng.integers(len(legal)))], rng)
    assert len(decisions_seen) >= 6


@pytest.mark.parametrize("num_players", [1, 2, 4, 5])
def test_an_observation_without_derived_pieces_lacks_only_the_values(num_players):
    """``derived=False`` (for agents that never read them) zeroes ``action_values`` and keeps
    every other entry; the heuristic and random players choose the same moves from it, so play
    loops may skip the values for them (``Agent.reads_derived``)."""
    env = make("sequitur_v1", num_players=num_players)
    info = env.describe()
    at = info.obs_spec.offsets["action_values"]
    assert not any(make_agent(kind, info).reads_derived for kind in ("heuristic", "random"))
    full_view = [make_agent("heuristic", info, seat) for seat in range(num_players)]
    underived = [make_agent("heuristic", info, seat) for seat in range(num_players)]
    seat_of = {name: seat for seat, name in enumerate(env.possible_agents)}
    valued = 0
    for seed in range(3):
        env.reset(seed=seed)
        for name, seen in decisions(env):
            plain = env.observe(name, derived=False)
            assert np.array_equal(plain["observation"][:at], seen["observation"][:at])
            assert not plain["observation"][at:].any()
            assert np.array_equal(plain["action_mask"], seen["action_mask"])
            valued += bool(seen["observation"][at:].any())
            action = full_view[seat_of[name]].act(seen)
            assert underived[seat_of[name]].act(plain) == action
            env.step(action)
    assert valued > 20


def test_collection_against_heuristics_is_the_same_without_their_values(monkeypatch):
    """The collector hands the heuristic seats observations without ``action_values``; the
    rollout is the one it makes when they get the full observation."""
    from card_envs.agents.sequitur import HeuristicAgent
    from card_envs.training.selfplay import SelfPlayCollector, SnapshotPool

    at = make("sequitur_v1").describe().obs_spec.offsets["action_values"]
    shown: list[bool] = []  # whether each observation a heuristic seat got held values
    act_at = HeuristicAgent.act_at

    def recording(agent, env, observation):
        shown.append(bool(observation["observation"][at:].any()))
        return act_at(agent, env, observation)

    monkeypatch.setattr(HeuristicAgent, "act_at", recording)

    def rollout():
        pool = SnapshotPool(opponent_share=1.0)
        collector = SelfPlayCollector("sequitur_v1", pool, 3, seed=7, opponent="heuristic")
        policy = new_policy(collector.info, 16, 3e-4, seed=0)
        policy.set_training_mode(False)
        shown.clear()
        return collector.collect(policy, 150), any(shown)

    skipping, skipped_valued = rollout()
    monkeypatch.setattr(HeuristicAgent, "reads_derived", True)
    full, full_valued = rollout()
    assert full_valued and not skipped_valued
    for key in ("observations", "legal", "slots", "log_probs", "rewards", "advantages"):
        np.testing.assert_array_equal(getattr(skipping, key), getattr(full, key))
    assert skipping.env_steps == full.env_steps > 150


@pytest.mark.parametrize("seed", [2, 11])
def test_heuristic_spells_and_claims_a_most_valuable_action(seed):
    """The heuristic's word and claim are the most valuable legal ones (its placing and card
    moves also weigh a rack's breadth and a minimum gain, so they may differ)."""
    env = make("sequitur_v1")
    info = env.describe()
    at = info.obs_spec.offsets["action_values"]
    agents = [make_agent("heuristic", info, seat) for seat in range(4)]
    seat_of = {name: seat for seat, name in enumerate(env.possible_agents)}
    env.reset(seed=seed)
    checked = 0
    for name, seen in decisions(env):
        values, legal = seen["observation"][at:], np.flatnonzero(seen["action_mask"])
        action = agents[seat_of[name]].act(seen)
        if env.unwrapped.game_state.decision in (SPELL_KEEP, CLAIM_GOAL):
            assert values[action] == pytest.approx(values[legal].max())
            checked += 1
        env.step(action)
    assert checked > 10


def test_selfplay_policy_adds_the_values_to_its_logits():
    info = make("sequitur_v1").describe()
    policy = new_policy(info, 16, 1e-3, seed=0)
    assert isinstance(policy, AdvisedPolicy)
    assert not isinstance(new_policy(make("sequitur_v0").describe(), 16, 1e-3, 0), AdvisedPolicy)
    env = make("sequitur_v1")
    at = info.obs_spec.offsets["action_values"]
    env.reset(seed=4)
    for _name, seen in decisions(env):  # a decision whose legal moves differ in value
        legal_values = seen["observation"][at:][seen["action_mask"].astype(bool)]
        if np.ptp(legal_values) > 0.5:
            break
        env.step(int(np.flatnonzero(seen["action_mask"])[0]))
    obs = torch.as_tensor(seen["observation"][None])
    legal = torch.as_tensor(np.flatnonzero(seen["action_mask"])[None])
    valid = torch.ones_like(legal, dtype=torch.bool)
    with torch.no_grad():
        ours = legal_log_probs(policy, obs, legal, valid)
        mask = seen["action_mask"].astype(bool)[None]
        theirs = policy.get_distribution(obs, action_masks=mask).distribution.logits
        policy.advice_weight.zero_()
        without = legal_log_probs(policy, obs, legal, valid)
    assert torch.allclose(ours, theirs.gather(1, legal), atol=1e-5)
    assert not torch.allclose(ours, without, atol=1e-2)  # the values reached the logits


def test_the_values_weight_starts_as_configured_and_a_checkpoint_keeps_its_own(tmp_path):
    """The weight of the values in the logits starts at ``value_weight`` (Adam moves it about a
    learning rate a step, so where it starts is about where it stays); a saved network loads
    with the weight it learnt, not the starting one."""
    from card_envs.agents.checkpoint import load_policy, save_policy
    from card_envs.training.config import SelfPlayConfig, default_config
    from card_envs.training.selfplay_ppo import SelfPlayTrainer

    info = make("sequitur_v1", num_players=2).describe()
    default = new_policy(info, 16, 1e-3, seed=0).advice_weight
    assert float(default) == SelfPlayConfig.value_weight == 30.0
    config = default_config("sequitur_v1", 2, tables=2, width=16, value_weight=12.0)
    assert float(SelfPlayTrainer(config).policy.advice_weight) == 12.0
    policy = new_policy(info, 16, 1e-3, seed=0, value_weight=7.5)
    path = tmp_path / "net.safetensors"
    save_policy(policy, path, env="sequitur_v1", num_players=2, advisor=None)
    assert float(load_policy(path, info)[0].advice_weight) == 7.5


def test_selfplay_refuses_a_checkpoint_without_the_values_weight():
    """A plain MLP's weights (no ``advice_weight``) cannot continue sequitur_v1's self-play: the
    error names the missing tensor rather than the width."""
    from card_envs.training.config import default_config
    from card_envs.training.selfplay_ppo import SelfPlayTrainer

    config = default_config("sequitur_v1", 2, tables=2, width=16)
    trainer = SelfPlayTrainer(config)
    plain = new_policy(make("sequitur_v0", num_players=2).describe(), 16, 1e-3, 0).state_dict()
    with pytest.raises(ValueError, match="advice_weight"):
        trainer.start_at(plain, 0)
    assert trainer.env_steps == 0


def test_a_pickled_selfplay_policy_leaves_its_last_batch_behind():
    """The values extractor keeps a view of the batch it last saw; pickling the policy (to a
    collector worker or an evaluation process) must not copy that batch's storage along."""
    info = make("sequitur_v1").describe()
    policy = new_policy(info, 16, 1e-3, seed=0)
    small = len(pickle.dumps(policy))
    batch = torch.zeros((4_000, info.obs_spec.size))  # 90 MB
    with torch.no_grad():
        policy.predict_values(batch[:2])  # a view of the whole batch's storage
    assert len(pickle.dumps(policy)) < small + 10_000
    copy = pickle.loads(pickle.dumps(policy))
    with torch.no_grad():
        assert copy.get_distribution(batch[:3]).distribution.probs.shape == (3, info.num_actions)
