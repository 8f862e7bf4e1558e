"""card_envs.vector: the same games as the AEC env, table by table, in arrays; the single-agent
view, its Stable-Baselines3 wrapper and the single-file PPO example."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv
from helpers import CASE_IDS, ENV_CASES, ROOT

from card_envs import env_names, make, vector
from card_envs.agents import make_agent
from card_envs.core.errors import IllegalActionError
from card_envs.core.game import win_rewards
from card_envs.records import replay, validate_record

EXAMPLE = ROOT / "examples" / "ppo_vector.py"


def random_play(venv, rng, steps):
    """``steps`` vector steps of uniformly random legal moves: each step's outputs, copied."""
    outputs = []
    for _ in range(steps):
        actions = vector.random_actions(venv.masks, rng)
        obs, rewards, terminated, truncated, info = venv.step(actions)
        outputs.append(pickle.dumps((actions, obs, rewards, terminated, truncated, info)))
    return outputs


def aec_rewards(env) -> np.ndarray:
    return np.array([env.rewards[agent] for agent in env.possible_agents], np.float32)


def check_like_aec(env, obs, info, i) -> None:
    """Row ``i`` of a vector step's outputs is what the AEC env shows its acting seat."""
    seat = env.possible_agents.index(env.agent_selection)
    assert info["current_player"][i] == seat
    seen = env.observe(env.agent_selection)
    assert np.array_equal(obs["observation"][i], seen["observation"])
    assert np.array_equal(obs["action_mask"][i], seen["action_mask"].astype(bool))


# -- the same games as the AEC env ---------------------------------------------------------------
@pytest.mark.parametrize(("name", "num_players"), ENV_CASES, ids=CASE_IDS)
def test_each_table_plays_the_aec_envs_games(name, num_players):
    """Table ``i``'s game ``k`` is the AEC env's after ``reset(seed=seed + i + k * num_envs)``:
    observations, masks, seats, rewards, ends and final scores, bit for bit, over each
    table's first game and into its second."""
    tables, seed, rng = 2, 11, np.random.default_rng(num_players)
    venv = vector.make(name, tables, seed=seed, num_players=num_players)
    obs, info = venv.reset()
    envs = [make(name, num_players=num_players) for _ in range(tables)]
    for i, env in enumerate(envs):
        env.reset(seed=seed + i)
    games = [0] * tables
    while min(games) < 1:
        for i, env in enumerate(envs):
            check_like_aec(env, obs, info, i)
        actions = vector.random_actions(obs["action_mask"], rng)
        obs, rewards, terminated, truncated, info = venv.step(actions)
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            assert np.array_equal(rewards[i], aec_rewards(env))
            assert terminated[i] == all(env.terminations.values())
            assert truncated[i] == all(env.truncations.values())
            if terminated[i] or truncated[i]:
                scores = np.array(env.game.scores(env.game_state), float)
                assert np.array_equal(info["final_scores"][i], scores)
                games[i] += 1
                env.reset(seed=seed + i + games[i] * tables)
            else:
                assert np.isnan(info["final_scores"][i]).all()
    for i, env in enumerate(envs):  # a game later in the seed rule
        check_like_aec(env, obs, info, i)


@pytest.mark.parametrize("name", ["seals_v0", "seers_catalog_v0", "unfortunate_events_v0"])
def test_score_rewards_are_the_aec_envs(name):
    """``reward_mode="score"`` pays each step's score changes, as the AEC env does."""
    venv = vector.make(name, 2, seed=5, reward_mode="score")
    obs, _ = venv.reset()
    env = make(name, reward_mode="score")
    env.reset(seed=5)
    rng, paid = np.random.default_rng(0), 0
    while True:
        actions = vector.random_actions(obs["action_mask"], rng)
        obs, rewards, terminated, truncated, _ = venv.step(actions)
        env.step(int(actions[0]))
        assert np.array_equal(rewards[0], aec_rewards(env))
        paid += bool(rewards[0].any())
        if terminated[0] or truncated[0]:
            break
    assert paid > 0


# -- illegal actions ----------------------------------------------------------------------------
def test_an_illegal_action_is_refused_and_no_table_moves():
    venv = vector.make("seamless_v0", 3, seed=0)
    obs, _ = venv.reset()
    legal = vector.random_actions(obs["action_mask"], np.random.default_rng(0))
    before = pickle.dumps((venv.states, obs, venv.rewards))
    game, state = venv.game, venv.states[1]
    card = state.hands[game.current_player(state)][0]
    claim = game.actions.encode("claim", card)
    bad = legal.copy()
    bad[1] = claim
    with pytest.raises(IllegalActionError) as error:
        venv.step(bad)
    message = str(error.value)
    assert message.startswith(f"table 1: player_{venv.current_player[1]} cannot play {claim}")
    assert "no trick to claim from: play a card" in message
    assert pickle.dumps((venv.states, obs, venv.rewards)) == before
    bad[1] = game.actions.size  # out of range
    with pytest.raises(IllegalActionError, match=r"table 1: .*no such action"):
        venv.step(bad)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        venv.step(legal[:2])
    with pytest.raises(TypeError, match="integer ids"):
        venv.step(legal.astype(float))
    assert pickle.dumps((venv.states, obs, venv.rewards)) == before
    venv.step(legal)  # the legal actions still play


# -- determinism and seeding --------------------------------------------------------------------
def test_the_same_seed_gives_the_same_run_and_another_seed_another():
    def run(seed):
        venv = vector.make("seals_v0", 4, seed=seed, num_players=3)
        venv.reset()
        return random_play(venv, np.random.default_rng(1), 150)

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_without_a_seed_one_is_drawn_and_reset_continues_the_seed_rule():
    venv = vector.make("seals_v0", 3, num_players=2)
    obs, _ = venv.reset()
    again = vector.make("seals_v0", 3, seed=venv.seed, num_players=2)
    assert np.array_equal(again.reset()[0]["observation"], obs["observation"])
    assert vector.make("seals_v0", 3, num_players=2).seed != venv.seed
    obs, info = venv.reset()  # no seed: each table's next game, game 1 of the rule
    env = make("seals_v0", num_players=2)
    env.reset(seed=venv.seed + 2 + 1 * 3)
    check_like_aec(env, obs, info, 2)
    assert venv.table_seed(2) == venv.seed + 5


def test_reset_table_deals_one_table_from_a_seed():
    venv = vector.make("seers_catalog_v0", 3, seed=0)
    obs, info = venv.reset()
    others = obs["observation"][[0, 2]].copy()
    venv.reset_table(1, seed=1234)
    env = make("seers_catalog_v0")
    env.reset(seed=1234)
    check_like_aec(env, obs, info, 1)
    assert np.array_equal(obs["observation"][[0, 2]], others)
    with pytest.raises(IndexError):
        venv.reset_table(3)


# -- shapes, auto-reset, records ----------------------------------------------------------------
def test_shapes_and_dtypes():
    venv = vector.make("unfortunate_events_v0", 5, seed=0, num_players=3)
    spec, actions = venv.describe().obs_spec, venv.num_actions
    obs, info = venv.reset()
    assert obs["observation"].shape == (5, spec.size) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (5, actions) and obs["action_mask"].dtype == bool
    assert info["current_player"].shape == (5,) and info["current_player"].dtype == np.int64
    obs, rewards, terminated, truncated, info = venv.step(
        vector.random_actions(obs["action_mask"], np.random.default_rng(0))
    )
    assert rewards.shape == (5, 3) and rewards.dtype == np.float32
    assert terminated.shape == truncated.shape == (5,) and terminated.dtype == bool
    assert info["final_scores"].shape == (5, 3) and info["final_winners"].dtype == bool
    assert info["_final_scores"].dtype == bool and info["_final_winners"].shape == (5,)


def test_auto_reset_over_many_games_and_every_record_replays():
    """Seventy-odd games on four tables: each ended game is reported once (rewards, winners,
    scores), the table plays on in its next game, and its record replays to the same end."""
    venv = vector.make("seals_v0", 4, seed=7, num_players=2)
    obs, _ = venv.reset()
    rng, ended = np.random.default_rng(7), 0
    while ended < 70:
        obs, rewards, terminated, truncated, info = venv.step(
            vector.random_actions(obs["action_mask"], rng)
        )
        assert np.array_equal(info["_final_scores"], terminated | truncated)
        for i in np.flatnonzero(terminated | truncated):
            ended += 1
            record = venv.record(int(i))
            validate_record(record)
            winners = np.flatnonzero(info["final_winners"][i]).tolist()
            assert rewards[i].tolist() == win_rewards(winners, 2)
            assert record["scores"] == info["final_scores"][i].tolist()
            final = replay(record)
            assert final.game.winners(final.game_state) == winners
            assert record["seed"] == venv.table_seed(int(i)) - venv.num_envs
            assert not venv.states[i].chance.log or len(record["actions"]) > 0
    assert venv.record(0)["agents"] == ["unknown", "unknown"]
    assert venv.record(0, ["me", "you"])["agents"] == ["me", "you"]


def test_record_before_a_game_ends_is_an_error():
    venv = vector.make("seals_v0", 2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        venv.record(0)
    venv.reset()
    with pytest.raises(RuntimeError, match="not finished a game"):
        venv.record(0)


def test_random_actions_are_legal_and_cover_every_legal_id():
    masks = np.zeros((3, 6), bool)
    masks[0, [1, 4]] = masks[1, 5] = masks[2, :] = True
    picks = np.array([vector.random_actions(masks, np.random.default_rng(s)) for s in range(300)])
    assert (
        set(picks[:, 0]) == {1, 4} and set(picks[:, 1]) == {5} and set(picks[:, 2]) == set(range(6))
    )
    masks[1] = False
    with pytest.raises(ValueError, match="row 1"):
        vector.random_actions(masks, np.random.default_rng(0))


def test_the_package_names_no_game():
    """A generic layer: no env id or game package in its code or strings."""
    names = {*env_names(), *(name.rsplit("_v", 1)[0] for name in env_names())}
    for path in (ROOT / "card_envs" / "vector").glob("*.py"):
        text = path.read_text()
        assert not [name for name in names if name in text], path.name


def test_importing_the_package_imports_neither_torch_nor_sb3():
    code = "import sys, card_envs.vector; print({'torch', 'stable_baselines3'} & set(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "set()"


# -- the single-agent view ----------------------------------------------------------------------
def test_single_agent_is_a_gymnasium_vector_env_with_masks():
    venv = vector.single_agent("seals_v0", 3, opponents="random", seed=0, num_players=2)
    assert isinstance(venv, VectorEnv)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = venv.reset()
    assert obs.shape == (3, venv.single_observation_space.shape[0]) and obs.dtype == np.float32
    assert venv.observation_space.shape == obs.shape
    masks = venv.action_masks()
    assert masks.shape == (3, venv.single_action_space.n) and masks.dtype == bool
    assert info["seat"].tolist() == [0, 1, 0]  # seat (i + k) % players in game k of table i
    for i in range(3):
        state = venv.tables.states[i]
        assert venv.tables.game.current_player(state) == info["seat"][i]
        assert np.array_equal(masks[i], venv.tables.game.legal_mask(state).astype(bool))


def test_single_agent_plays_the_aec_game_with_the_same_agents():
    """Table 1's first game replayed on the AEC env: the learner's observations and masks at
    each of its decisions and its rewards since the last one, the opponents seeded as the
    vector env seeds them (game seed * players + seat from the learner's left)."""
    seed, players = 20, 3
    venv = vector.single_agent("seals_v0", 2, opponents="heuristic", seed=seed, num_players=players)
    obs, info = venv.reset()
    env = make("seals_v0", num_players=players)
    env.reset(seed=seed + 1)
    learner = int(info["seat"][1])
    agents = {}
    for relative in range(1, players):
        agent = make_agent("heuristic", env.describe())
        agent.reset((seed + 1) * players + relative)
        agents[(learner + relative) % players] = agent
    rng, paid = np.random.default_rng(0), None  # paid: the vector env's last learner reward
    for agent_name in env.agent_iter():
        seen, reward, terminated, truncated, _ = env.last()
        seat = env.possible_agents.index(agent_name)
        if seat == learner and paid is not None:
            assert reward == pytest.approx(paid)
        if terminated or truncated:
            if seat == learner:
                assert info["_final_obs"][1] and info["final_seat"][1] == learner
                assert np.array_equal(info["final_obs"][1], seen["observation"])
            env.step(None)
        elif seat != learner:
            env.step(agents[seat].act(seen))
        else:
            assert np.array_equal(obs[1], seen["observation"])
            assert np.array_equal(venv.action_masks()[1], seen["action_mask"].astype(bool))
            actions = vector.random_actions(venv.action_masks(), rng)
            obs, rewards, _, _, info = venv.step(actions)
            paid = float(rewards[1])
            env.step(int(actions[1]))
    assert info["_final_obs"][1]


def test_single_agent_rewards_sum_to_the_learners_outcome():
    venv = vector.single_agent(
        "seals_v0", 4, opponents=["random", "heuristic"], seed=3, num_players=3
    )
    venv.reset()
    rng, totals, finished = np.random.default_rng(0), np.zeros(4), 0
    while finished < 12:
        _, rewards, terminated, truncated, info = venv.step(
            vector.random_actions(venv.action_masks(), rng)
        )
        totals += rewards
        for i in np.flatnonzero(terminated | truncated):
            seat = info["final_seat"][i]
            winners = np.flatnonzero(info["final_winners"][i]).tolist()
            assert totals[i] == pytest.approx(win_rewards(winners, 3)[seat], abs=1e-6)
            assert venv.record(int(i))["agents"][seat] == "learner"
            totals[i], finished = 0.0, finished + 1


def test_a_search_agent_plays_through_act_at_on_its_table():
    """A search agent samples the hidden cards from the table's state (``act_at``)."""
    opponents = "ismcts:iterations=10"
    venv = vector.single_agent("seals_v0", 2, opponents=opponents, seed=0, num_players=2)
    venv.reset()
    rng, ended = np.random.default_rng(0), False
    while not ended:
        _, _, terminated, truncated, _ = venv.step(vector.random_actions(venv.action_masks(), rng))
        ended = bool((terminated | truncated).any())
    table = int(np.flatnonzero(terminated | truncated)[0])
    assert opponents in venv.record(table)["agents"]


def test_single_agent_checks_its_arguments():
    with pytest.raises(ValueError, match="2 kinds"):
        vector.single_agent("seals_v0", 2, opponents=["random"], num_players=3)
    with pytest.raises(ValueError, match="seat"):
        vector.single_agent("seals_v0", 2, seat=4, num_players=3)
    fixed = vector.single_agent("seals_v0", 3, seat=1, opponents="random", num_players=2)
    assert fixed.reset(seed=0)[1]["seat"].tolist() == [1, 1, 1]


# -- Stable-Baselines3 and the example ----------------------------------------------------------
def test_maskable_ppo_trains_on_the_sb3_wrapper():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks

    venv = vector.to_sb3(vector.single_agent("seals_v0", 4, opponents="random", num_players=2))
    assert get_action_masks(venv).shape == (4, venv.action_space.n)
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, seed=0)
    model.learn(128)
    venv.seed(5)
    first = venv.reset()
    expected = vector.single_agent("seals_v0", 4, opponents="random", seed=5, num_players=2)
    assert np.array_equal(first, expected.reset()[0])


@pytest.mark.slow
def test_maskable_ppo_beats_random_on_the_vector_env():
    """MaskablePPO from scratch on 2-player Seals against random players: 20k learner steps
    gave 0.84 of 400 fresh deals (0.87 after 10k; fair share 0.5)."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    train = vector.single_agent("seals_v0", 32, opponents="random", seed=0, num_players=2)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", vector.to_sb3(train), n_steps=64, batch_size=256, seed=0
    )
    model.learn(20_000)
    venv = vector.single_agent("seals_v0", 50, opponents="random", seed=10**9, num_players=2)
    obs, _ = venv.reset()
    played = won = 0
    while played < 400:
        actions, _ = model.predict(obs, action_masks=venv.action_masks(), deterministic=True)
        obs, _, terminated, truncated, info = venv.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            played, won = played + 1, won + info["final_winners"][i, info["final_seat"][i]]
    assert won / played > 0.65


@pytest.mark.slow
def test_the_single_file_ppo_reaches_its_bar_within_five_minutes(tmp_path):
    """examples/ppo_vector.py's defaults: 2-player Seals against random players, at least 0.8
    of 1,000 fresh deals won after at most 200 s of training, 300 s in all."""
    out = tmp_path / "result.json"
    subprocess.run(
        [sys.executable, str(EXAMPLE), "--json", str(out)], check=True, timeout=300, cwd=ROOT
    )
    result = json.loads(out.read_text())
    assert result["win_share"] >= 0.8 and result["eval_games"] >= 1000
