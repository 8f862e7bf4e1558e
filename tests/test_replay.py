"""``card-envs replay``, the commands that write records (``arena --record``, ``play
--record``) and ``card-envs dataset``: what they write replays, and the replay shows each seat
only its own view."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from card_envs import cli, make
from card_envs.agents import make_agent
from card_envs.agents.match import play_game, seen_move
from card_envs.cli import BROKEN_PIPE
from card_envs.datasets import build_dataset
from card_envs.records import read_records, record_game, replay, write_records
from card_envs.tools.arena import Lineup, make_tasks, play_timed
from card_envs.tools.play import play_session
from card_envs.tools.replay import Replayer, browse, load, summary


def recorded(name="seals_v0", num_players=2, seed=3, kinds=("heuristic", "random")):
    env = make(name, num_players=num_players)
    agents = [make_agent(kind, env.describe(), seed + s) for s, kind in enumerate(kinds)]
    actions = []
    play_game(env, agents, seed, on_move=lambda _agent, action: actions.append(action))
    return record_game(env, actions, kinds, seed)


@pytest.fixture(scope="module")
def record():
    return recorded()


def scripted(lines):
    """A ``read`` that answers ``lines`` in turn, then ends the input."""
    answers = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    return read


def test_the_frames_are_the_table_after_each_action(record):
    replayer = Replayer(record)
    env = make("seals_v0", num_players=2)
    env.reset(options={"deal": record["deal"]})
    names = env.game.actions.names
    assert replayer.frame(0) == env.game.render(env.game_state)
    for t, action in enumerate(record["actions"][:20], start=1):
        acting = env.possible_agents.index(env.agent_selection)
        env.step(action)
        header, view = replayer.frame(t).split("\n", 1)
        kind = record["agents"][acting]
        assert header == f"step {t}/{replayer.length}: player_{acting} ({kind}): {names[action]}"
        assert view == env.game.render(env.game_state)
    last = replayer.frame(replayer.length)
    assert last.endswith(replay(record).game.render(replay(record).game_state))
    assert replayer.frame(3) == replayer.frames[3]  # going back shows what was shown


def test_a_seat_sees_only_its_view_and_others_moves_as_far_as_it_tells():
    record = recorded("seamless_v0", 4, seed=1, kinds=("random",) * 4)
    replayer = Replayer(record, seat=2)
    env = make("seamless_v0", num_players=4)
    env.reset(options={"deal": record["deal"]})
    assert replayer.frame(0) == env.game.render_seat(env.game_state, 2)
    for t, action in enumerate(record["actions"][:12], start=1):
        move = seen_move(env.game, env.game_state, 2, action)
        env.step(action)
        header, view = replayer.frame(t).split("\n", 1)
        assert header.endswith(": " + move)
        assert view == env.game.render_seat(env.game_state, 2)


def test_browsing_goes_forward_back_to_a_step_and_to_the_end(record):
    replayer, written = Replayer(record), []
    browse(
        replayer,
        scripted(["", "n", "b", "b", "b", "7", "e", "", "x", "q", "not read"]),
        written.append,
    )
    shown = [text for text in written if "\n" in text or text.startswith("step")]
    frames = [replayer.frame(p) for p in (0, 1, 2, 1, 0, 7, replayer.length)]
    assert shown == frames
    assert "the deal: nothing before it" in written
    assert "the game's end: b goes back" in written
    assert any(text.startswith("'x': type enter") for text in written)


def test_end_of_input_ends_browsing(record):
    written = []
    browse(Replayer(record), scripted([""]), written.append)
    assert len(written) == 3  # the deal, step 1, and the blank line end of input writes


def test_the_command_prints_a_whole_game_from_a_seat(tmp_path, capsys, record):
    path = tmp_path / "games.jsonl"
    write_records(path, [recorded(seed=1), record])
    assert cli.main(["replay", str(path), "--index", "1", "--seat", "1", "--print"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("seals_v0 {'num_players': 2, 'reward_mode': 'win'}, seed 3: ")
    length = len(record["actions"])
    assert f"step {length}/{length}: " in out and out.count("\nstep ") == length
    assert load(path, 1) == (record, 2)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--index", "2"], "holds 2 records: --index 2 is past the end"),
        (["--index", "-1"], "--index must be 0 or more"),
        (["--seat", "2"], "--seat must be 0..1 for 2 players; got 2"),
    ],
)
def test_a_wrong_index_or_seat_is_an_error(tmp_path, capsys, record, args, message):
    path = tmp_path / "games.jsonl"
    write_records(path, [record, record])
    assert cli.main(["replay", str(path), "--print", *args]) == 2
    assert message in capsys.readouterr().err


def test_a_malformed_record_is_an_error_naming_its_line(tmp_path, capsys, record):
    path = tmp_path / "games.jsonl"
    bad = dict(record, actions=[*record["actions"], 0])
    path.write_text("\n" + "{broken\n")
    write_records(path, [record, bad], append=True)
    assert cli.main(["replay", str(path), "--index", "2"]) == 2
    assert "record line 4 field 'actions': step " in capsys.readouterr().err
    assert cli.main(["replay", str(path)]) == 2
    assert "record line 2: not JSON" in capsys.readouterr().err


# -- commands that write records ---------------------------------------------------------------
def test_recording_changes_no_arena_game_and_its_records_replay():
    tasks = make_tasks("seers_catalog_v0", 3, Lineup.cell("heuristic", "random", 3), range(2), 5)
    for task in tasks:
        plain = play_timed(task)
        with_record = play_timed(dataclasses.replace(task, record=True))
        assert plain.record is None and with_record.result == plain.result
        record = with_record.record
        assert record["agents"] == list(task.kinds) and record["seed"] == task.deal_seed
        assert list(record["rewards"].values()) == list(plain.result.rewards)
        assert len(record["actions"]) == plain.result.steps
        replay(record)


def test_the_arena_adds_every_game_to_the_record_file(tmp_path, capsys):
    path = tmp_path / "arena.jsonl"
    write_records(path, [recorded()])  # records are added, never overwritten
    args = ["arena", "--game", "seals_v0", "--players", "2", "--agents", "heuristic", "random"]
    assert cli.main([*args, "--episodes", "2", "--workers", "1", "--record", str(path)]) == 0
    assert "2 deals x 2 seatings = 4 games" in capsys.readouterr().out
    games = read_records(path)  # each checked: it replays to the same rewards and scores
    assert len(games) == 5
    assert [g["agents"] for g in games[1:]] == [
        ["heuristic", "random"],
        ["random", "heuristic"],
    ] * 2


def test_play_records_the_game_finished_or_abandoned(tmp_path):
    path = tmp_path / "play.jsonl"
    moves = ["1"] * make("seals_v0").game.max_steps
    assert (
        play_session("seals_v0", 1, ["random"], 3, 4, scripted(moves), lambda _: None, record=path)
        == 0
    )
    assert (
        play_session("seals_v0", 0, None, 2, 5, scripted(["1", "q"]), lambda _: None, record=path)
        == 0
    )
    finished, abandoned = read_records(path)
    assert finished["agents"] == ["random", "human", "random"] and finished["seed"] == 4
    assert replay(finished).game.is_over(replay(finished).game_state)
    assert abandoned["agents"] == ["human", "heuristic"] and len(abandoned["actions"]) >= 1
    assert not replay(abandoned).game.is_over(replay(abandoned).game_state)
    assert ", finished, won by player_" in summary(finished)
    assert "abandoned: not finished, player_0 was to act" in summary(abandoned).splitlines()[0]
    last = Replayer(abandoned).frame(len(abandoned["actions"]))
    assert "the record ends here: abandoned" in last


def test_a_replay_cut_by_a_closed_pipe_ends_quietly(tmp_path):
    """``card-envs replay X --print | head``: the reader goes away, no traceback (a whole
    Seamless game prints far more than a pipe holds)."""
    path = tmp_path / "games.jsonl"
    write_records(path, [recorded("seamless_v0", 4, kinds=("random",) * 4)])
    command = [sys.executable, "-c", "import sys; from card_envs.cli import main; sys.exit(main())"]
    with subprocess.Popen(
        [*command, "replay", str(path), "--print"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.readline()
        process.stdout.close()
        errors = process.stderr.read().decode()
        assert process.wait(timeout=120) == BROKEN_PIPE
    assert errors == ""


# -- card-envs dataset -------------------------------------------------------------------------
def test_the_dataset_command_writes_the_arrays_and_never_overwrites(tmp_path, capsys):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    records = [recorded(seed=seed) for seed in (1, 2, 3)]
    write_records(first, records[:2])
    write_records(second, records[2:])
    out = tmp_path / "data.npz"
    assert cli.main(["dataset", str(first), str(second), "--out", str(out), "--gamma", "0.9"]) == 0
    rows = sum(len(r["actions"]) for r in records)
    assert f"{rows:,} decisions of 3 games (gamma 0.9)" in capsys.readouterr().out
    with np.load(out) as saved:
        expected = build_dataset(records, gamma=0.9)
        assert sorted(saved.files) == sorted(expected)
        for name, array in expected.items():
            assert saved[name].dtype == array.dtype and np.array_equal(saved[name], array)
    before = out.read_bytes()
    assert cli.main(["dataset", str(first), "--out", str(out)]) == 2
    assert "exists" in capsys.readouterr().err and out.read_bytes() == before
    assert cli.main(["dataset", str(first), "--out", str(tmp_path / "data.npy")]) == 2
    assert "name the .npz file" in capsys.readouterr().err


def test_the_dataset_command_names_the_file_of_a_malformed_record(tmp_path, capsys, record):
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    write_records(good, [record])
    write_records(bad, [record, dict(record, format="other")])
    assert cli.main(["dataset", str(good), str(bad), "--out", str(tmp_path / "d.npz")]) == 2
    assert f"{bad}: record line 2 field 'format'" in capsys.readouterr().err
    assert not (tmp_path / "d.npz").exists()
