"""``--game`` and ``--players`` of the arena, the leaderboard and the bench."""

from __future__ import annotations

import json

import pytest

from card_envs import env_names
from card_envs.cli import main
from card_envs.tools.selection import ALL, cases, default_players


def test_several_games_joined_by_commas_run_in_registry_order():
    """A list leaves games out of a run (a leaderboard without `seamless_v1`, say)."""
    first, second = env_names()[0], env_names()[2]
    expected = [(name, default_players(name)) for name in (first, second)]
    assert cases(f"{second},{first}", None) == expected
    assert cases(first, None) == expected[:1]
    assert len(cases(ALL, None)) == len(env_names())


def test_a_named_game_at_a_count_it_is_not_played_at_is_an_error():
    with pytest.raises(ValueError, match="seamless_v0 is played by"):
        cases("seals_v0,seamless_v0", 2)
    assert ("seals_v0", 2) in cases(ALL, 2) and ("seamless_v0", 2) not in cases(ALL, 2)


@pytest.mark.parametrize(
    ("game", "message"),
    [
        ("seals_v0,chess_v0", "unknown game 'chess_v0'"),
        ("seals_v0,seals_v0", "names a game twice"),
        ("", "unknown game ''"),
    ],
)
def test_a_bad_game_list_is_refused_as_the_command_line_is_read(game, message, capsys):
    for command in ("arena", "leaderboard", "bench"):
        with pytest.raises(SystemExit) as stop:
            main([command, "--game", game])
        assert stop.value.code == 2
        assert message in capsys.readouterr().err


def test_the_arena_writes_a_list_for_two_named_games(tmp_path):
    out = tmp_path / "arena.json"
    args = ["arena", "--game", "seals_v0,seamless_v0", "--agents", "random", "random"]
    assert main([*args, "--players", "2", "--episodes", "1", "--workers", "1"]) == 2  # seamless: 4
    args = ["arena", "--game", "seals_v0,seers_catalog_v0", "--agents", "random", "random"]
    assert (
        main([*args, "--players", "2", "--episodes", "1", "--workers", "1", "--json", str(out)])
        == 0
    )
    assert [entry["game"] for entry in json.loads(out.read_text())] == [
        "seals_v0",
        "seers_catalog_v0",
    ]
