"""Human play: scripted input through the real command, parsing of moves, clean exits."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from card_envs import env_names, make
from card_envs.agents.match import seen_move
from card_envs.cli import main
from card_envs.core.cards import card_name
from card_envs.tools import play
from card_envs.tools.play import action_blocks, list_moves, parse_move, play_session

CLI = [sys.executable, "-m", "card_envs.cli"]
ROOT = Path(__file__).resolve().parents[1]
NAMES = ["play 10♥", "play J♥", "claim 10♥", "claim J♥", "pass"]


def no_reason(action: int) -> str:
    return "it is not your turn"


def run_cli(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        CLI + args, input=stdin, capture_output=True, text=True, timeout=120, cwd=ROOT, env=env
    )


# -- parsing one answer -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", 0),
        (" 2 ", 1),
        ("play 10♥", 0),
        ("PLAY  10h", 0),  # case, spacing and suit letters folded
        ("play j", 1),  # an unambiguous beginning
        ("pass", 4),
    ],
)
def test_moves_are_accepted_by_number_or_name(text, expected):
    assert parse_move(text, [0, 1, 4], NAMES, no_reason) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "type a move"),
        ("0", "choose 1..3"),
        ("4", "choose 1..3"),
        ("-1", "choose 1..3"),
        ("99999999999999999999", "choose 1..3"),
        ("play", "could be 2 moves"),
        ("claim 10h", "claim 10♥ is not legal now: it is not your turn"),
        ("fold", "not a move"),
        ("1.5", "not a move"),
        ("\x00\x1b[A", "not a move"),
    ],
)
def test_anything_else_is_refused_with_a_reason(text, message):
    picked = parse_move(text, [0, 1, 4], NAMES, no_reason)
    assert isinstance(picked, str) and message in picked


# -- the docs' words for the action blocks ------------------------------------------------------
def seals_parse(text: str, legal: list[int]) -> int | str:
    actions = make("seals_v0").game.actions
    return parse_move(text, legal, actions.names, no_reason, action_blocks(actions))


def test_seals_stop_from_the_docs_is_end_turn():
    """The docs' action table calls Seals' block `stop`; the move is named "end turn"."""
    ids = make("seals_v0").game.actions.ids
    assert seals_parse("stop", [ids["end turn"]]) == ids["end turn"]
    assert seals_parse("end turn", [ids["end turn"]]) == ids["end turn"]
    assert (
        seals_parse("stop", [ids["take red"]]) == "end turn is not legal now: it is not your turn"
    )


def test_a_block_word_and_the_end_of_a_name_pick_a_move():
    ids = make("seals_v0").game.actions.ids
    legal = [ids["take red"], ids["take blue"], ids["take 7s"]]
    assert seals_parse("take_colour red", legal) == ids["take red"]
    assert seals_parse("take colour blue", legal) == ids["take blue"]
    assert seals_parse("take_symbol", legal) == ids["take 7s"]  # the only legal one
    assert "could be 2 moves (take red, take blue)" in seals_parse("take_colour", legal)
    assert (
        seals_parse("take_colour green", legal)
        == "take green is not legal now: it is not your turn"
    )
    assert seals_parse("reveal", legal) == "no reveal move is legal now"


@pytest.mark.parametrize("name", env_names())
def test_every_one_move_block_of_the_docs_is_accepted_by_its_word(name):
    actions = make(name).game.actions
    page = (ROOT / "docs" / f"{name.removesuffix('_v0')}.md").read_text()
    for block in actions.blocks:
        assert f"`{block.name}`" in page, f"docs/{name}.md does not name block {block.name}"
        if block.size == 1:
            action = actions.start[block.name]
            picked = parse_move(
                block.name, [action], actions.names, no_reason, action_blocks(actions)
            )
            assert picked == action, f"{block.name!r} does not pick {actions.names[action]!r}"


def test_the_move_list_shows_the_docs_word_where_the_name_differs():
    actions = make("seals_v0").game.actions
    ids = actions.ids
    shown = list_moves([ids["take red"], ids["end turn"]], actions.names, action_blocks(actions))
    assert shown.splitlines() == ["    1) take red [take_colour]", "    2) end turn [stop]"]
    seamless = make("seamless_v0").game.actions
    assert "[" not in list_moves([0, 52], seamless.names, action_blocks(seamless))


# -- other seats' moves -------------------------------------------------------------------------
def test_a_public_move_is_named_as_the_render_names_it():
    env = make("seamless_v0")
    env.reset(seed=4)
    state, game = env.game_state, env.game
    leader = game.current_player(state)
    action = game.legal_actions(state)[0]
    assert seen_move(game, state, (leader + 1) % 4, action) == game.actions.names[action]


def test_a_secret_move_is_named_only_as_far_as_the_view_tells():
    """Sequitur's secret goal colour is chosen unseen: another seat learns only that a colour
    was chosen, the chooser sees its own choice."""
    env = make("sequitur_v0")
    env.reset(seed=3)
    state, game = env.game_state, env.game
    chooser = game.current_player(state)
    before = game.render(state)
    red = game.actions.ids["secret goal red"]
    other = seen_move(game, state, (chooser + 1) % 4, red)
    assert other == (
        "secret goal red or secret goal yellow or secret goal green (you cannot tell which)"
    )
    assert seen_move(game, state, chooser, red) == "secret goal red"
    assert game.render(state) == before  # trying the moves on copies left the game as it was


def test_opponents_moves_are_named_in_a_session():
    _, out = session("seamless_v0", ["1"] * 3, seat=2, opponents=["random"], seed=4)
    assert "player_0: play " in out and "player_1: play " in out
    assert " moved" not in out


def test_a_users_agent_class_can_be_an_opponent():
    code, out = session("seals_v0", [], opponents=["card_envs.agents.seals:HeuristicAgent"], seed=1)
    assert code == 0 and "player_1 is heuristic" in out


def test_trust_checkpoint_reaches_make_agent(monkeypatch):
    calls = []
    real = play.make_agent

    def spy(kind, info, seed=None, *, trust=False):
        calls.append(trust)
        return real(kind, info, seed, trust=trust)

    monkeypatch.setattr(play, "make_agent", spy)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "seals_v0", "--opponents", "random"]) == 0
    assert calls == [False] * 3
    assert main(["play", "seals_v0", "--opponents", "random", "--trust-checkpoint"]) == 0
    assert calls[3:] == [True] * 3


# -- whole sessions -----------------------------------------------------------------------------
def session(name: str, lines: list[str], **options) -> tuple[int, str]:
    """Play with scripted lines (then end of input); the exit code and everything written."""
    answers, written = iter(lines), []

    def read(prompt: str) -> str:
        written.append(prompt)
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    code = play_session(name, read=read, write=written.append, **options)
    return code, "\n".join(written)


@pytest.mark.parametrize("name", env_names())
def test_a_whole_game_can_be_played_to_the_end(name):
    env = make(name)
    code, out = session(name, ["1"] * env.game.max_steps, opponents=["random"], seed=2)
    assert code == 0
    # random tables of the Catastrophic Card Game rarely finish a round before the turn cap
    ended = "game over: " in out or "game stopped by the step cap" in out
    assert ended and "end of input" not in out


def test_garbage_then_end_of_input_exits_cleanly_through_the_command():
    result = run_cli(
        ["play", "seamless_v0", "--seat", "2", "--opponents", "random", "--seed", "4"],
        "garbage\n0\n99\n-3\nplay\n\n?\n",
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    assert "you are player_2" in out
    assert out.count("not accepted: ") == 6
    assert "'garbage' is not a move" in out and "choose 1.." in out
    assert out.rstrip().endswith("end of input: game abandoned")


def test_a_move_by_number_is_played_and_shown():
    result = run_cli(["play", "seamless_v0", "--opponents", "random"], "1\n")
    assert result.returncode == 0, result.stderr
    assert "you: play " in result.stdout


def test_quit_and_ctrl_c_end_the_game_cleanly():
    assert session("seamless_v0", ["q"])[0] == 0
    assert "quit: game abandoned" in session("seamless_v0", ["bad", "quit"])[1]

    def interrupt(prompt: str) -> str:
        raise KeyboardInterrupt

    written = []
    assert play_session("seamless_v0", read=interrupt, write=written.append) == 130
    assert written[-1] == "interrupted: game abandoned"


def test_the_screen_shows_only_what_the_seat_may_know():
    """Seat 1 leads trick 1: its first screen shows its own hand, the dealer's revealed trump
    card, and only the sizes of the other hands."""
    env = make("seamless_v0")
    env.reset(seed=6)
    hidden = {card_name(c) for seat in (0, 2, 3) for c in env.game_state.hands[seat]}
    hidden.discard(card_name(env.game_state.trump_card))
    _, out = session("seamless_v0", [], seat=1, seed=6)
    assert not hidden & set(out.replace("|", " ").split())
    assert all(card_name(c) in out for c in env.game_state.hands[1])
    assert out.count("13 cards") == 3


def test_bad_seat_or_opponent_is_an_error_not_a_crash(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "seamless_v0", "--seat", "4"]) == 2
    assert "--seat must be 0..3" in capsys.readouterr().err
    assert main(["play", "seamless_v0", "--opponents", "nobody"]) == 2
    assert "nobody" in capsys.readouterr().err
