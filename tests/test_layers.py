"""The layers run one way (core <- games <- agents <- training <- tools and the command line):
no module imports a layer above its own, there are no import cycles, and the command line finds
its subcommands as entry points instead of naming higher modules."""

from __future__ import annotations

import argparse
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from card_envs import cli
from card_envs.tools.docs import stale_pages

ROOT = Path(__file__).resolve().parents[1]


def add_hello(subparsers: argparse._SubParsersAction) -> None:
    """A subcommand registered the way a plugin registers one."""
    subparsers.add_parser("hello").set_defaults(func=lambda args: 7)


def test_subcommands_are_the_registered_entry_points(monkeypatch):
    point = EntryPoint("hello", f"{__name__}:add_hello", cli.COMMANDS_GROUP)
    monkeypatch.setattr(cli, "entry_points", lambda group: [point] if group == point.group else [])
    assert cli.main(["hello"]) == 7
    with pytest.raises(SystemExit):  # no arena: cli.py names no tool of its own
        cli.build_parser().parse_args(["arena"])


def test_the_installed_package_registers_every_command():
    names = {point.name for point in cli.registered_commands()}
    assert {"arena", "bench", "docs", "play", "train", "train-rllib"} <= names


def test_docs_folder_is_given_or_found_here(tmp_path, monkeypatch, capsys):
    """The docs are not in the installed package: ``card-envs docs`` reads ``docs/`` here or
    ``--docs-dir``, and says so when there is none."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["docs", "--check"]) == 2
    assert "no docs folder at" in capsys.readouterr().err
    assert cli.main(["docs", "--check", "--docs-dir", str(ROOT / "docs")]) == 0
    assert stale_pages(ROOT / "docs") == []
