"""Game records (card_envs.records) and the data sets built from them (card_envs.datasets):
a record replays its game bit for bit, reads back checked, and a malformed one is refused
naming the line and the field."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest
from helpers import CASE_IDS, ENV_CASES

from card_envs import env_names, make
from card_envs.agents import make_agent
from card_envs.agents.match import decisions
from card_envs.core.env import CardEnv
from card_envs.datasets import DTYPES, build_dataset
from card_envs.records import (
    FORMAT,
    RecordError,
    append_record,
    iter_records,
    read_records,
    record_game,
    replay,
    steps,
    validate_record,
    write_records,
)
from card_envs.sequitur.rules.words import Dictionary


def _played(env: CardEnv) -> bytes:
    """The game state without what is still scripted: a replay holds the outcomes to come."""
    state = copy.deepcopy(env.game_state)
    state.chance.script = {}
    return pickle.dumps(state)


def play(name, num_players, kind, seed, max_actions=None, **options):
    """A seeded game of ``kind`` agents: the env, its record and what every decision saw."""
    env = make(name, num_players=num_players, **options)
    seats = env.game.num_players
    agents = [make_agent(kind, env.describe(), seed * 10 + s) for s in range(seats)]
    env.reset(seed=seed)
    actions, seen, rewards = [], [], dict.fromkeys(env.possible_agents, 0.0)
    for agent, observation in decisions(env, rewards):
        if max_actions is not None and len(actions) == max_actions:
            break
        action = agents[env.possible_agents.index(agent)].act_at(env, observation)
        seen.append((agent, observation["observation"], observation["action_mask"]))
        actions.append(action)
        env.step(action)
    record = json.loads(json.dumps(record_game(env, actions, [kind] * seats, seed)))
    return env, record, seen, rewards


@pytest.mark.parametrize("kind", ["random", "heuristic"])
@pytest.mark.parametrize(("name", "num_players"), ENV_CASES, ids=CASE_IDS)
def test_a_record_replays_its_game_bit_for_bit_with_any_seed(name, num_players, kind):
    env, record, seen, rewards = play(name, num_players, kind, seed=5)
    assert record["format"] == FORMAT and record["env"] == name
    assert record["options"]["num_players"] == num_players
    assert record["rewards"] == rewards  # what every seat received through last()
    validate_record(record)
    for seed in (None, 999):
        again = replay(record, seed)
        assert _played(again) == _played(env)
        assert again.agents == env.agents == []  # the finished seats' dead steps too
    for step, (agent, observation, mask) in zip(steps(record), seen, strict=True):
        assert step.agent == agent and step.seat == int(agent.split("_")[1])
        assert np.array_equal(step.observations[step.seat], observation)
        assert np.array_equal(step.masks[step.seat], mask)
        assert step.masks[step.seat][step.action] == 1
        others = [m for s, m in enumerate(step.masks) if s != step.seat]
        assert not any(m.any() for m in others)  # only the seat to act has moves


@pytest.mark.parametrize("name", env_names())
def test_score_mode_records_carry_the_rewards_handed_out(name):
    env, record, _, rewards = play(name, None, "random", seed=3, reward_mode="score")
    assert record["options"]["reward_mode"] == "score"
    assert record["rewards"] == pytest.approx(rewards)
    assert record["scores"] == [float(s) for s in env.game.scores(env.game_state)]
    validate_record(record)


def test_an_unfinished_game_is_recorded_and_replays_where_it_stopped():
    env, record, _, _ = play("seamless_v0", 4, "random", seed=2, max_actions=30)
    assert len(record["actions"]) == 30 and set(record["rewards"].values()) == {0.0}
    validate_record(record)
    again = replay(record)
    assert _played(again) == _played(env)
    assert again.agent_selection == env.agent_selection
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    again.step(int(np.flatnonzero(again.observe(again.agent_selection)["action_mask"])[0]))
    assert _played(again) == _played(env)


def test_record_game_refuses_a_wrong_seat_count_and_an_env_never_reset():
    env = make("seals_v0", num_players=2)
    with pytest.raises(RuntimeError, match="reset"):
        record_game(env, [], ["random", "random"], None)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="3 seats; the game has 2"):
        record_game(env, [], ["random"] * 3, None)


def test_records_are_written_appended_and_read_back(tmp_path):
    records = [play("seals_v0", 2, "random", seed)[1] for seed in (1, 2, 3)]
    path = tmp_path / "games.jsonl"
    assert write_records(path, records[:2]) == 2
    with path.open("a") as out:
        out.write("\n")  # a blank line is skipped
    append_record(path, records[2])
    assert read_records(path) == records
    assert list(iter_records(path, check=False)) == records
    assert len(path.read_text().splitlines()) == 4
    write_records(path, records[:1])  # a new file
    assert read_records(path) == records[:1]


# -- malformed records: the error names the line and the field -------------------------------------
def _set(field, value):
    def change(record):
        record[field] = value

    return change


def _option(name, value):
    def change(record):
        record["options"][name] = value

    return change


def _action(index, value):
    def change(record):
        record["actions"][index] = value

    return change


def _illegal_at(index):
    """The ``index``-th action swapped for one the mask refuses at that point."""

    def change(record):
        step = next(s for s in steps(record) if s.index == index)
        record["actions"][index] = int(np.flatnonzero(step.masks[step.seat] == 0)[0])

    return change


def _drop(field):
    def change(record):
        del record[field]

    return change


def _reward(agent, value):
    def change(record):
        record["rewards"][agent] = value

    return change


MALFORMED = {
    "wrong format tag": (_set("format", "card-envs.game/0"), "format", "this reads"),
    "unknown env": (_set("env", "chess_v0"), "env", "unknown env 'chess_v0'"),
    "options not an object": (_set("options", [2]), "options", "must be an object"),
    "too many players": (_option("num_players", 9), "options", "num_players"),
    "num_players a string": (_option("num_players", "2"), "options", "num_players"),
    "unknown option": (_option("speed", 3), "options", "speed"),
    "render_mode": (_option("render_mode", "ansi"), "options", "render_mode"),
    "deal not an object": (_set("deal", "shuffled"), "deal", "must be an object"),
    "deal with an unknown key": (_set("deal", {"hands": []}), "deal", "hands"),
    "deal with a bad outcome": (_set("deal", {"chance": {"shuffle": [[1, 2]]}}), "deal", ""),
    "actions not a list": (_set("actions", "1 2 3"), "actions", "must be an array"),
    "action a string": (_action(4, "7"), "actions", "step 4: '7' is not an action id"),
    "action a boolean": (_action(0, True), "actions", "step 0: True"),
    "action a float": (_action(2, 1.0), "actions", "step 2: 1.0"),
    "action out of range": (_action(5, 10_000), "actions", "step 5: action 10000 is out of range"),
    "illegal action at step 7": (_illegal_at(7), "actions", "step 7: player_"),
    "action after the end": (lambda r: r["actions"].append(0), "actions", "game was over"),
    "agents for too few seats": (_set("agents", ["random"]), "agents", "1 seats"),
    "an agent not a string": (_set("agents", ["random", 3]), "agents", "string"),
    "rewards for other agents": (_set("rewards", {"a": 1}), "rewards", "keys"),
    "a reward not a number": (_reward("player_0", "1"), "rewards", "number"),
    "a reward not the replay's": (_reward("player_0", 7.0), "rewards", "replay gives"),
    "scores of the wrong length": (_set("scores", [0]), "scores", "2 numbers"),
    "scores not the replay's": (_set("scores", [100, 100]), "scores", "replay gives"),
    "negative seed": (_set("seed", -1), "seed", "-1"),
    "seed a string": (_set("seed", "1"), "seed", "'1'"),
    "a field missing": (_drop("deal"), "deal", "missing"),
    "an unknown field": (_set("comment", "x"), "comment", "unknown field"),
    "info not an object": (_set("info", "arena"), "info", "must be an object"),
}


@pytest.fixture(scope="module")
def good_record():
    return play("seals_v0", 2, "random", seed=4)[1]


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_a_malformed_record_is_refused_naming_the_line_and_the_field(tmp_path, good_record, case):
    change, field, words = MALFORMED[case]
    bad = copy.deepcopy(good_record)
    change(bad)
    path = tmp_path / "games.jsonl"
    write_records(path, [good_record, good_record, bad, good_record])
    with pytest.raises(RecordError) as caught:
        read_records(path)
    assert (caught.value.line, caught.value.field) == (3, field)
    assert f"record line 3 field {field!r}: " in str(caught.value)
    assert words in str(caught.value)
    with pytest.raises(RecordError, match=f"^record field {field!r}"):
        validate_record(bad)


def test_bad_json_and_a_record_not_an_object_name_their_line(tmp_path, good_record):
    path = tmp_path / "games.jsonl"
    write_records(path, [good_record])
    with path.open("a") as out:
        out.write('{"format": "card-envs.game/1", \n')
    with pytest.raises(RecordError, match=r"^record line 2: not JSON: ") as caught:
        read_records(path)
    assert caught.value.field is None
    path.write_text("[1, 2]\n")
    with pytest.raises(RecordError, match=r"^record line 1: a record is a JSON object, got list"):
        read_records(path)


def test_steps_stop_before_an_illegal_action(good_record):
    bad = copy.deepcopy(good_record)
    _illegal_at(7)(bad)
    seen = []
    with pytest.raises(RecordError, match="step 7: "):
        for step in steps(bad):
            seen.append(step.index)
    assert seen == list(range(7))


def test_the_live_env_of_a_step_is_the_table_before_its_action(good_record):
    for step in steps(good_record):
        assert step.env.agent_selection == step.agent
        assert np.array_equal(step.env.observe(step.agent)["action_mask"], step.masks[step.seat])
        if step.index == 10:
            break


# -- data sets ---------------------------------------------------------------------------------
def _rows_of(data, game, seat):
    return np.flatnonzero((data["game"] == game) & (data["seat"] == seat))


def test_a_data_set_has_a_row_per_decision_with_what_the_seat_saw():
    games = [play("seals_v0", 3, "heuristic", seed) for seed in (1, 2)]
    data = build_dataset([record for _, record, _, _ in games])
    rows = sum(len(record["actions"]) for _, record, _, _ in games)
    for name, dtype in DTYPES.items():
        assert data[name].dtype == dtype and len(data[name]) == rows
    env = games[0][0]
    assert data["observation"].shape == (rows, env.encoding.spec.size)
    assert data["mask"].shape == (rows, env.game.actions.size)
    first = len(games[0][1]["actions"])
    for row, (agent, observation, mask) in enumerate(games[1][2]):
        assert data["seat"][first + row] == env.possible_agents.index(agent)
        assert np.array_equal(data["observation"][first + row], observation)
        assert np.array_equal(data["mask"][first + row], mask)
    assert data["action"].tolist() == [a for _, r, _, _ in games for a in r["actions"]]
    assert data["step"][:first].tolist() == list(range(first))
    assert data["mask"][np.arange(rows), data["action"]].all()


def test_terminal_rewards_give_every_decision_the_final_reward_as_return_to_go():
    _, record, _, _ = play("seals_v0", 3, "heuristic", seed=1)
    data = build_dataset([record])
    for seat in range(3):
        rows = _rows_of(data, 0, seat)
        final = record["rewards"][f"player_{seat}"]
        assert np.all(data["return_to_go"][rows] == final)
        assert data["reward"][rows].tolist() == [0.0] * (len(rows) - 1) + [final]
        assert data["done"][rows].tolist() == [False] * (len(rows) - 1) + [True]
        assert data["terminal"][rows[-1]]


def test_per_round_rewards_are_summed_to_go_and_discounted_by_the_seats_decisions():
    _, record, _, _ = play("seals_v0", 2, "heuristic", seed=6, reward_mode="score")
    data, discounted = build_dataset([record]), build_dataset([record], gamma=0.9)
    assert len(set(data["reward"].tolist())) > 2  # scores change along the game
    for seat in range(2):
        rows = _rows_of(data, 0, seat)
        rewards = data["reward"][rows].astype(np.float64)
        assert rewards.sum() == pytest.approx(record["rewards"][f"player_{seat}"])
        assert data["return_to_go"][rows] == pytest.approx(np.cumsum(rewards[::-1])[::-1])
        to_go = discounted["return_to_go"][rows]
        assert to_go[:-1] == pytest.approx(rewards[:-1] + 0.9 * to_go[1:], abs=1e-5)


def test_an_unfinished_game_has_no_terminal_row():
    _, record, _, _ = play("seamless_v0", 4, "random", seed=2, max_actions=30)
    data = build_dataset([record])
    assert data["done"].sum() == 4 and not data["terminal"].any()


def test_a_data_set_is_of_one_game_and_has_rows(good_record):
    other = play("seals_v0", 3, "random", seed=1)[1]
    with pytest.raises(RecordError, match=r"record 1 is .* one game per data set"):
        build_dataset([good_record, other])
    with pytest.raises(ValueError, match="no records"):
        build_dataset([])
    with pytest.raises(ValueError, match="gamma"):
        build_dataset([good_record], gamma=1.5)
    bad = copy.deepcopy(good_record)
    _illegal_at(3)(bad)
    with pytest.raises(RecordError, match="step 3"):
        build_dataset([good_record, bad])


def test_options_go_in_the_record_as_json_that_rebuilds_the_game(tmp_path):
    pool = ("Go First", "Crown", "Rod of Reincarnation", "Gift of Fate", "Half Moon", "Lens")
    env, record, _, _ = play("seers_catalog_v0", 3, "random", seed=1, artifact_pool=pool)
    assert record["options"]["artifact_pool"] == list(pool)
    assert _played(replay(record)) == _played(env)
    words = tmp_path / "words.txt"
    words.write_text("cat\ndog\nact\n")
    env = make("sequitur_v0", num_players=2, dictionary=words)
    env.reset(seed=1)
    assert record_game(env, [], ["random"] * 2, 1)["options"]["dictionary"] == str(words)
    env = make("sequitur_v0", num_players=2, dictionary={"dog", "cat"})
    env.reset(seed=1)
    assert record_game(env, [], ["random"] * 2, 1)["options"]["dictionary"] == ["cat", "dog"]
    env = make("sequitur_v0", num_players=2, dictionary=Dictionary(["cat", "dog"]))
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"option dictionary=.* cannot go in a record"):
        record_game(env, [], ["random"] * 2, 1)
