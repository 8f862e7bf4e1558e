"""``card-envs --help``: plain text a newcomer can read, and every built-in command described."""

from __future__ import annotations

import argparse

from card_envs.cli import build_parser, main


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Each subcommand's own parser, by name."""
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_help_shows_no_rest_markup():
    parser = build_parser()
    assert "``" not in parser.format_help()
    assert "PettingZoo AEC environments" in parser.format_help()
    for name, sub in subcommands(parser).items():
        assert "``" not in sub.format_help(), f"card-envs {name} --help shows reST markup"


def test_list_demo_and_docs_say_what_they_do():
    subs = subcommands(build_parser())
    for name in ("list", "demo", "docs"):
        description = subs[name].description
        assert description, f"card-envs {name} has no description"
        assert description in " ".join(subs[name].format_help().split())  # argparse wraps lines
    assert "player counts" in subs["list"].description
    assert "seeded" in subs["demo"].description


def test_list_prints_every_environment(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "sequitur_v0" in out and "players: 1, 2, 3, 4, 5" in out
