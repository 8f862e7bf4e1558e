"""Human play: scripted input through the real command, parsing of moves, clean exits."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from card_envs import env_names, make
from card_envs.cli import main
from card_envs.core.cards import card_name
from card_envs.tools.play import parse_move, play_session

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
