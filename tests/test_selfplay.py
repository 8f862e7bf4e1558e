"""Batched self-play (card_envs.training.selfplay, selfplay_ppo): each seat's rewards on its own
last decision, GAE per seat trajectory as Stable-Baselines3 computes it, masks respected,
deterministic collection, the snapshot pool, the update equal to MaskablePPO's, and (slow) a
short run that beats random."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch

pytest.importorskip("sb3_contrib")

from card_envs import make
from card_envs.agents import make_agent
from card_envs.training import selfplay
from card_envs.training.runs import SCALARS
from card_envs.training.selfplay import Rollout, SelfPlayCollector, SnapshotPool, legal_index
from card_envs.training.selfplay_ppo import PPOSettings, new_policy, ppo_update
from card_envs.vector.engine import PLAYING, TERMINATED

STEPS = 6  # moves in a game of the scripted env


class ScriptedTables:
    """``num_envs`` tables of a scripted game, stepped as ``card_envs.vector`` steps them: two
    seats alternate for six moves; after move ``k`` seat 0 receives ``k + 1`` and seat 1
    ``100 * (k + 1)``, whoever moved. The observation says the move, the game and the seat;
    table ``i`` numbers its games from ``1000 * i``. A table's state is its index."""

    def __init__(self, env_id, num_envs, *, seed=None, **options):
        self.num_envs = num_envs
        self.states = list(range(num_envs))
        self.moves = [0] * num_envs
        self.games = [1000 * i - 1 for i in range(num_envs)]
        self.observations = np.zeros((num_envs, 3), np.float32)
        self.masks = np.ones((num_envs, 2), bool)
        self.current_player = np.zeros(num_envs, np.int64)
        self.game = SimpleNamespace(
            current_player=lambda i: self.moves[i] % 2,
            legal_mask=lambda i: np.ones(2, np.int8),
            illegal_reason=lambda i, action: "not 0 or 1",
        )
        observe = self.observe  # nothing is derived
        self.encoding = SimpleNamespace(observe=observe, observe_underived=observe)

    def describe(self):
        return SimpleNamespace(
            obs_spec=SimpleNamespace(size=3, pieces=()), num_actions=2, num_players=2
        )

    def reset(self):
        pass

    def reset_table(self, i, seed=None):
        self.moves[i], self.games[i] = 0, self.games[i] + 1

    def observe(self, i, seat):
        return np.array([self.moves[i], self.games[i], seat], np.float32)

    def observe_row(self, i):
        seat = self.current_player[i] = self.moves[i] % 2
        self.observations[i] = self.observe(i, seat)
        return seat

    def apply(self, i, action):
        assert action in (0, 1)
        self.moves[i] += 1
        move = self.moves[i]
        return [float(move), 100.0 * move], TERMINATED if move == STEPS else PLAYING


@pytest.fixture
def scripted(monkeypatch):
    monkeypatch.setattr(selfplay, "vector", SimpleNamespace(make=ScriptedTables))

    def collector(pool=None, tables=1, seed=0):
        return SelfPlayCollector("scripted", pool or SnapshotPool(), tables, seed=seed)

    return collector


def policy_for(collector: SelfPlayCollector, seed: int = 0):
    policy = new_policy(collector.info, 16, 3e-4, seed)
    policy.set_training_mode(False)
    return policy


def test_each_seat_is_credited_on_its_own_last_decision(scripted):
    collector = scripted()
    rollout = collector.collect(policy_for(collector), 4 * STEPS)
    # seat 0 moves at 0, 2, 4 and is paid 1..6 after each move; seat 1 moves at 1, 3, 5 and
    # is paid 100..600, its first pay (after seat 0's move 0) going to its first decision
    expected = {0: 1 + 2, 2: 3 + 4, 4: 5 + 6, 1: 100 + 200 + 300, 3: 400 + 500, 5: 600}
    moves = rollout.observations[:, 0].astype(int)
    assert rollout.rewards.tolist() == [expected[move] for move in moves]
    for game in range(4):
        seats = rollout.observations[rollout.observations[:, 1] == game, 2]
        assert sorted(seats.tolist()) == [0, 0, 0, 1, 1, 1]


def test_advantages_are_gae_per_seat_trajectory_as_sb3_computes_them(scripted):
    from gymnasium.spaces import Box, Discrete
    from stable_baselines3.common.buffers import RolloutBuffer

    space = Box(-np.inf, np.inf, (3,), np.float32)
    collector = scripted()
    rollout = collector.collect(policy_for(collector), STEPS + 2)  # game 1 cut after 2 closed
    observations = rollout.observations
    for game, seat in ((0, 0), (0, 1), (1, 0), (1, 1)):
        rows = np.flatnonzero((observations[:, 1] == game) & (observations[:, 2] == seat))
        if not len(rows):
            continue
        moves = observations[rows, 0]
        assert (np.diff(moves) == 2).all()  # the seat's own decisions, in order
        ended = moves[-1] + 2 >= STEPS
        following = None if ended else rows[-1]  # cut: bootstrap from the open successor
        buffer = RolloutBuffer(len(rows), space, Discrete(2), gae_lambda=0.95, gamma=1.0)
        for index, row in enumerate(rows):
            buffer.add(
                observations[row][None],
                np.zeros((1, 1)),
                rollout.rewards[row : row + 1],
                np.array([index == 0]),
                torch.tensor([rollout.values[row]]),
                torch.tensor([rollout.log_probs[row]]),
            )
        last = 0.0 if following is None else successor_value(collector, rollout, following)
        buffer.compute_returns_and_advantage(torch.tensor([last]), np.array([ended]))
        np.testing.assert_allclose(rollout.advantages[rows], buffer.advantages[:, 0], rtol=1e-5)
        np.testing.assert_allclose(rollout.returns[rows], buffer.returns[:, 0], rtol=1e-5)


def successor_value(collector: SelfPlayCollector, rollout: Rollout, row: int) -> float:
    """The value the collector recorded for the open decision after ``row`` (same seat, two
    moves on), read from the decisions it kept open."""
    move, game, seat = rollout.observations[row]
    for decision in [*collector.closed, *collector.open[0]]:
        if decision is not None and decision.observation.tolist() == [move + 2, game, seat]:
            return float(decision.value)
    raise AssertionError("no open successor")


def test_masks_are_respected_even_against_the_networks_preference():
    collector = SelfPlayCollector("seals_v0", SnapshotPool(), tables=8, seed=1)
    policy = policy_for(collector)
    with torch.no_grad():
        policy.action_net.bias[5] = 1e4  # take 5 whenever it is legal
    rollout = collector.collect(policy, 2000)  # the env raises on any masked action
    assert rollout.valid[np.arange(len(rollout.slots)), rollout.slots].all()
    actions = rollout.actions
    legal_five = (rollout.legal == 5) & rollout.valid
    assert (actions[legal_five.any(axis=1)] == 5).all()
    assert (actions != 5).sum() > 0  # and something legal when it is not


def test_measure_gives_both_speeds_of_one_game():
    from card_envs.training.selfplay_bench import measure

    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        row = measure("seals_v0", 2, seconds=0.2)
        assert torch.get_num_threads() == 2  # measured on one thread, then given back
    finally:
        torch.set_num_threads(threads)
    assert set(row) == {"game", "players", "aec_steps_per_s", "train_steps_per_s"}
    assert (row["game"], row["players"]) == ("seals_v0", 2)
    assert row["aec_steps_per_s"] > 0 and row["train_steps_per_s"] > 0


def test_legal_index_lists_each_rows_legal_ids_and_rejects_an_empty_mask():
    ids, valid = legal_index(np.array([[0, 1, 1, 0], [1, 0, 0, 0]], np.int8))
    assert ids.tolist() == [[1, 2], [0, 0]] and valid.tolist() == [[True, True], [True, False]]
    with pytest.raises(ValueError, match="row 1 has no legal action"):
        legal_index(np.array([[1, 0], [0, 0]], np.int8))
    with pytest.raises(ValueError, match="at least one decision"):
        SelfPlayCollector("seals_v0", SnapshotPool(), tables=1).collect(None, 0)
    with pytest.raises(ValueError, match="tables must be at least 1"):
        SelfPlayCollector("seals_v0", SnapshotPool(), tables=0)


def test_collection_is_deterministic_with_a_seed():
    def rollout(seed: int) -> Rollout:
        collector = SelfPlayCollector("seamless_v0", SnapshotPool(), tables=4, seed=seed)
        policy = policy_for(collector)
        collector.pool.add(policy_for(collector, seed=1))
        collector.collect(policy, 300)
        return collector.collect(policy, 300)

    first, again, other = rollout(3), rollout(3), rollout(4)
    for key in ("observations", "legal", "slots", "log_probs", "rewards", "advantages"):
        np.testing.assert_array_equal(getattr(first, key), getattr(again, key))
    assert first.env_steps == again.env_steps
    assert not np.array_equal(first.observations, other.observations)


def test_snapshot_pool_freezes_copies_keeps_the_newest_and_seats_them():
    info = SimpleNamespace(obs_spec=SimpleNamespace(size=3, pieces=()), num_actions=2)
    learner = new_policy(info, 8, 3e-4, 0)
    pool = SnapshotPool(size=2, share=1.0)
    rng = np.random.default_rng(0)
    assert pool.draw(rng, 4) == [None] * 4  # an empty pool: every seat learns
    pool.add(learner)
    frozen = pool.snapshots[0]
    before = frozen.action_net.weight.clone()
    with torch.no_grad():
        learner.action_net.weight.add_(1.0)
    assert torch.equal(frozen.action_net.weight, before)
    assert not any(p.requires_grad for p in frozen.parameters())
    pool.add(learner)
    pool.add(learner)
    assert len(pool.snapshots) == 2 and frozen not in pool.snapshots
    seatings = [pool.draw(rng, 4) for _ in range(50)]
    assert all(seats.count(None) == 1 for seats in seatings)  # share 1: one learner seat
    assert {seats.index(None) for seats in seatings} == {0, 1, 2, 3}
    assert {id(p) for seats in seatings for p in seats if p} == {id(p) for p in pool.snapshots}
    assert SnapshotPool(2, 0.0).draw(rng, 4) == [None] * 4
    with pytest.raises(ValueError, match="pool size"):
        SnapshotPool(size=0)
    with pytest.raises(ValueError, match="snapshot share"):
        SnapshotPool(share=1.5)


def test_snapshot_seats_play_but_are_not_learned_from(scripted):
    pool = SnapshotPool(share=1.0)
    collector = scripted(pool, tables=2)
    policy = policy_for(collector)
    pool.add(policy)
    collector.collect(policy, 2 * STEPS)  # the first games were seated before the snapshot
    rollout = collector.collect(policy, 6 * STEPS)
    games = rollout.observations[:, 1]
    for game in np.unique(games):
        assert len(np.unique(rollout.observations[games == game, 2])) == 1  # one seat learns
    assert set(rollout.observations[:, 2]) == {0, 1}  # and either seat may be the one


def test_update_equals_maskableppo_train():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    from card_envs.training.single_agent import OpponentPool, SingleAgentEnv

    collector = SelfPlayCollector("seals_v0", SnapshotPool(), tables=4, seed=2)
    policy = policy_for(collector)
    rollout = collector.collect(policy, 256)
    count = len(rollout.slots)
    env = SingleAgentEnv("seals_v0", OpponentPool(["random"]))
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=count, batch_size=count, n_epochs=1, ent_coef=0.01,
        policy_kwargs={"net_arch": [16, 16]}, device="cpu", seed=0,
    )  # fmt: skip
    model.policy.load_state_dict(policy.state_dict())
    model.set_logger(configure(None, [""]))
    buffer = model.rollout_buffer
    masks = np.zeros((count, collector.info.num_actions), np.float32)
    masks[np.arange(count)[:, None].repeat(rollout.legal.shape[1], 1)[rollout.valid],
          rollout.legal[rollout.valid]] = 1  # fmt: skip
    buffer.observations[:, 0] = rollout.observations
    buffer.actions[:, 0, 0] = rollout.actions
    buffer.action_masks[:, 0] = masks
    buffer.log_probs[:, 0] = rollout.log_probs
    buffer.values[:, 0] = rollout.values
    buffer.advantages[:, 0] = rollout.advantages
    buffer.returns[:, 0] = rollout.returns
    buffer.full, buffer.pos = True, count
    model.train()
    settings = PPOSettings(batch_size=count, n_epochs=1, clip_range=0.2, ent_coef=0.01)
    ppo_update(policy, rollout, settings, np.random.default_rng(0))
    for key, value in model.policy.state_dict().items():
        torch.testing.assert_close(policy.state_dict()[key], value, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("workers", [1, 2])
def test_train_selfplay_command_writes_a_network_that_plays_alone(tmp_path, workers):
    """``card-envs train GAME --selfplay`` at toy size: progress, the same figures as TensorBoard
    scalars, evaluations, and a safe checkpoint of a network without an advisor, which plays
    legal moves; with its tables in this process or shared out between two collector
    workers."""
    from card_envs.agents.checkpoint import metadata_path
    from card_envs.agents.match import play_game
    from card_envs.agents.policy import load_policy_agent
    from card_envs.training.cli import main

    out = tmp_path / "seals.safetensors"
    flags = ["--players", "2", "--selfplay", "--timesteps", "600", "--tables", "4"]
    flags += ["--rollout", "256", "--batch-size", "128", "--width", "16", "--eval-games", "4"]
    flags += ["--snapshot-every", "300", "--eval-every", "300", "--out", str(out)]
    flags += ["--collect-workers", str(workers)]
    assert main(["seals_v0", *flags, "--logdir", str(tmp_path / "runs")]) == 0
    meta = json.loads(metadata_path(out).read_text())
    assert meta["policy"]["advisor"] is None and meta["config"]["tables"] == 4
    assert meta["config"]["collect_workers"] == workers
    steps = [row["timesteps"] for row in meta["evaluations"]]
    assert len(steps) >= 2 and steps == sorted(steps) and steps[-1] >= 600
    (run,) = (tmp_path / "runs").iterdir()
    progress = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]
    assert len(progress) >= 3
    watched = scalars(run)  # TensorBoard's, beside progress.jsonl
    logged = {key: tag for key, tag in SCALARS.items() if key in progress[0] or "vs_" in key}
    assert set(watched) == set(logged.values()) and "policy_loss" in logged
    for key, tag in logged.items():  # progress.jsonl rounds to 5 decimals, TensorBoard to float32
        rows = meta["evaluations"] if key.startswith("vs_") else progress
        near = [pytest.approx(row[key], rel=1e-4, abs=1e-5, nan_ok=True) for row in rows]
        assert watched[tag] == list(zip([row["timesteps"] for row in rows], near, strict=True))
    env = make("seals_v0", num_players=2)
    info = env.describe()
    agents = [load_policy_agent(out, info), make_agent("random", info, 0)]
    assert play_game(env, agents, seed=0).steps > 0  # an illegal move would raise


def scalars(run_dir) -> dict[str, list[tuple[int, float]]]:
    """Every scalar of the TensorBoard event file in ``run_dir``: its (step, value) pairs."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    (events,) = run_dir.glob("events.out.tfevents*")
    board = EventAccumulator(str(events))
    board.Reload()
    return {
        tag: [(event.step, event.value) for event in board.Scalars(tag)]
        for tag in board.Tags()["scalars"]
    }


@pytest.mark.slow
def test_short_selfplay_run_beats_random(tmp_path):
    """Self-play from scratch, two players: 300k env steps (323 s with the evaluations, on a
    machine at load 9) gave 0.83-0.875 against random over 200 held-out deals (fair 0.5)."""
    from card_envs.agents.match import win_share
    from card_envs.agents.policy import load_policy_agent
    from card_envs.training.config import default_config
    from card_envs.training.selfplay_ppo import train_selfplay

    config = default_config(
        "seals_v0", 2, timesteps=300_000, snapshot_every=100_000, eval_every=300_000, eval_games=50
    )
    out = tmp_path / "seals.safetensors"
    train_selfplay(config, out, tmp_path / "run")
    share = win_share("seals_v0", 2, lambda info, seat: load_policy_agent(out, info, seat),
                      "random", 400, first_seed=50_000)  # fmt: skip
    assert share > 0.6  # fair share 0.5


# -- Deep Monte-Carlo (--algorithm dmc)


def test_whole_games_give_each_decision_its_monte_carlo_return(scripted, monkeypatch):
    """With whole games a decision's return is every reward its seat received from it to the
    game's end, none valued at the rollout's edge; games close whole, in the order played."""
    collector = SelfPlayCollector("scripted", SnapshotPool(), 2, seed=0, whole_games=True)
    rollout = collector.collect(policy_for(collector), STEPS + 2)  # cuts the second game
    pay = {0: [1, 2, 3, 4, 5, 6], 1: [100, 200, 300, 400, 500, 600]}
    for observation, result in zip(rollout.observations, rollout.returns, strict=True):
        move, seat = int(observation[0]), int(observation[2])
        first = move < 2  # seat 1's first decision holds the pay before it too
        assert result == sum(pay[seat][0 if first else move :])
    np.testing.assert_allclose(rollout.advantages, rollout.returns - rollout.values, rtol=1e-6)
    first = rollout.observations[:STEPS, 1]
    assert (first == first[0]).all() and rollout.observations[:STEPS, 0].tolist() == [*range(6)]
    assert len(collector.closed) == STEPS - 2  # the rest of that game waits for the next call


def test_dmc_update_fits_the_taken_moves_values_to_their_returns():
    from card_envs.training.dmc import dmc_update

    collector = SelfPlayCollector("seals_v0", SnapshotPool(), 4, num_players=2, whole_games=True)
    policy = policy_for(collector)
    rollout = collector.collect(policy, 512)
    settings = PPOSettings(batch_size=128, n_epochs=1, clip_range=0.2, ent_coef=0.0)
    rng = np.random.default_rng(0)
    first = dmc_update(policy, rollout, settings, rng, temperature=0.05)
    for _ in range(8):
        last = dmc_update(policy, rollout, settings, rng, temperature=0.05)
    assert {"q_loss", "value_loss", "q_mean", "entropy", "explained_variance"} <= set(last)
    assert last["q_loss"] < first["q_loss"] and last["explained_variance"] > 0
    assert set(np.unique(rollout.returns)) <= {-1.0, 0.0, 1.0}  # 2 seats: a game's result


def test_dmc_settings_are_checked():
    from card_envs.training.config import SelfPlayConfig

    with pytest.raises(ValueError, match="algorithm='sarsa': one of ppo, dmc"):
        SelfPlayConfig("seals_v0", 2, algorithm="sarsa")
    with pytest.raises(ValueError, match="q_temperature=0"):
        SelfPlayConfig("seals_v0", 2, algorithm="dmc", q_temperature=0)
    with pytest.raises(ValueError, match="DMC's target is the return itself"):
        SelfPlayConfig("seals_v0", 2, algorithm="dmc", central_critic=True)
    with pytest.raises(ValueError, match=r"dmc_epsilon=1\.5: a share"):
        SelfPlayConfig("seals_v0", 2, algorithm="dmc", dmc_epsilon=1.5)


def test_train_dmc_command_writes_a_network_the_ppo_agent_plays(tmp_path):
    from card_envs.agents.checkpoint import metadata_path
    from card_envs.agents.match import play_game
    from card_envs.agents.policy import load_policy_agent
    from card_envs.training.cli import main

    out = tmp_path / "seals.safetensors"
    flags = ["--players", "2", "--selfplay", "--algorithm", "dmc", "--timesteps", "600"]
    flags += ["--tables", "4", "--rollout", "256", "--batch-size", "128", "--width", "16"]
    flags += ["--eval-games", "4", "--eval-every", "300", "--out", str(out)]
    assert main(["seals_v0", *flags, "--logdir", str(tmp_path / "runs")]) == 0
    meta = json.loads(metadata_path(out).read_text())
    assert meta["config"]["algorithm"] == "dmc" and meta["config"]["q_temperature"] == 0.05
    (run,) = (tmp_path / "runs").iterdir()
    assert {"train/q_loss", "train/q_mean"} <= set(scalars(run))
    env = make("seals_v0", num_players=2)
    info = env.describe()
    agents = [load_policy_agent(out, info), make_agent("random", info, 0)]
    assert play_game(env, agents, seed=0).steps > 0


def test_epsilon_greedy_plays_the_likeliest_move_or_by_chance_any_legal_one():
    from card_envs.training.selfplay import epsilon_greedy

    log_probs = np.log(np.array([[0.2, 0.7, 0.1], [0.6, 0.4, 1e-9], [0.1, 0.9, 1e-9]]))
    valid = np.array([[True, True, True], [True, True, False], [True, True, False]])
    rng = np.random.default_rng(0)
    assert epsilon_greedy(log_probs, valid, 0.0, rng).tolist() == [1, 0, 1]
    drawn = np.stack([epsilon_greedy(log_probs, valid, 1.0, rng) for _ in range(3000)])
    for row, legal in enumerate(valid.sum(axis=1)):
        counts = np.bincount(drawn[:, row], minlength=3)
        assert counts[legal:].sum() == 0 and counts[:legal].min() > 3000 / legal * 0.85


def test_dmc_collector_with_epsilon_plays_greedily_between_its_random_moves():
    collector = SelfPlayCollector(
        "seals_v0", SnapshotPool(), 4, num_players=2, whole_games=True, epsilon=0.0
    )
    policy = policy_for(collector)
    rollout = collector.collect(policy, 256)
    with torch.no_grad():
        log_probs = selfplay.legal_log_probs(
            policy,
            torch.from_numpy(rollout.observations),
            torch.from_numpy(rollout.legal),
            torch.from_numpy(rollout.valid),
        ).numpy()
    assert (rollout.slots == np.argmax(log_probs, axis=1)).all()
