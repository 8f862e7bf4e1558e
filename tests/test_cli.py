"""``card-envs --help``: plain text a newcomer can read, and every built-in command described."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

import card_envs
from card_envs.cli import BROKEN_PIPE, build_parser, main
from card_envs.core.kernels import status
from card_envs.registry import env_names


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


def test_version_names_the_package_and_its_kernels(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    first, second = capsys.readouterr().out.splitlines()
    assert first == f"card-envs {card_envs.__version__}"
    kernels = status()
    assert second.startswith(f"kernels: {sum(kernels.values())}/{len(kernels)} compiled")


def test_list_agents_has_a_line_per_env_naming_its_kinds_and_a_legend(capsys):
    assert main(["list", "--agents"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line[:1].isalpha()}
    for name in env_names():
        kinds = lines[name]
        assert "ismcts" in kinds and "pimc" in kinds and "random" in kinds
    assert "ppo" not in lines["seals_v0"] and "ppo_advised[4]" in lines["seals_v0"]
    for kind in ("random", "heuristic", "ppo_advised", "ismcts", "heuristic_value"):
        assert f"\n  {kind} " in out  # the legend says what each kind is


def test_arena_help_points_at_the_agent_list():
    help_text = " ".join(subcommands(build_parser())["arena"].format_help().split())
    assert "card-envs list --agents" in help_text


CLI = [sys.executable, "-c", "import sys; from card_envs.cli import main; sys.exit(main())"]


def test_help_imports_no_heavy_dependency():
    """``card-envs --help`` loads every command's parser, and none of them torch or Starlette."""
    code = (
        "import sys; from card_envs.cli import build_parser; build_parser().format_help(); "
        "print(sorted(m for m in ('torch', 'starlette', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stderr


def test_a_command_loads_only_its_own_module():
    parser = build_parser("replay")
    assert set(subcommands(parser)) == {"list", "demo", "replay"}
    assert set(subcommands(build_parser("list"))) == {"list", "demo"}
    assert {"arena", "serve", "train"} <= set(subcommands(build_parser("nothing")))


def test_a_closed_pipe_ends_a_command_quietly():
    """``card-envs demo all | head -1``: no BrokenPipeError, the shell's code for a closed pipe."""
    with subprocess.Popen(
        [*CLI, "demo", "all", "--verbose"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.readline()
        process.stdout.close()
        errors = process.stderr.read().decode()
        assert process.wait(timeout=120) == BROKEN_PIPE
    assert errors == ""


def test_an_agent_module_in_the_current_folder_is_named_with_the_way_to_reach_it(
    tmp_path, monkeypatch, capsys
):
    (tmp_path / "my_agents.py").write_text("")
    monkeypatch.chdir(tmp_path)
    words = ["arena", "--game", "seals_v0", "--agents", "my_agents:HighCardAgent", "random"]
    assert main([*words, "--episodes", "1", "--workers", "1"]) == 2
    error = capsys.readouterr().err
    assert "no module 'my_agents' on the Python path: my_agents is in the current folder" in error
    assert "PYTHONPATH=." in error
