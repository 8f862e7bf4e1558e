"""The layers run one way (core <- games <- agents <- training <- tools and the command line):
no module imports a layer above its own, there are no import cycles, and the command line finds
its subcommands as entry points instead of naming higher modules."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from card_envs import cli
from card_envs.tools.docs import stale_pages

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
VERSION = PYPROJECT["project"]["version"]
PYCACHE = shutil.ignore_patterns("__pycache__")


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


@pytest.fixture(scope="module")
def installed_tree(tmp_path_factory) -> Path:
    """The package's modules laid out as they install (agents/ and training/ inside
    card_envs/, as package-dir maps them), for the import checks to read."""
    tree = tmp_path_factory.mktemp("installed")
    for package, folder in SETUPTOOLS["package-dir"].items():
        shutil.copytree(
            ROOT / folder,
            tree.joinpath(*package.split(".")),
            ignore=shutil.ignore_patterns("__pycache__", "checkpoints", "data"),
        )
    return tree


def run_on(tree: Path, command: list[str | Path]) -> subprocess.CompletedProcess[str]:
    """``command`` with ``tree`` first on the import path."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)


def test_imports_run_down_the_layers(installed_tree):
    """import-linter's contracts in pyproject.toml: the layers, the games independent of each
    other, and no cycles between the modules of a package."""
    lint = Path(sys.executable).with_name("lint-imports")
    assert lint.exists(), "import-linter is missing: pip install -e '.[dev]'"
    result = run_on(installed_tree, [lint, "--no-cache", ROOT / "pyproject.toml"])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "0 broken" in result.stdout


CYCLES = """
import grimp
graph = grimp.build_graph("card_envs", cache_dir=None)
cycles = set()
for module in sorted(graph.modules):
    for imported in graph.find_modules_directly_imported_by(module):
        back = graph.find_shortest_chain(importer=imported, imported=module)
        if back:
            cycles.add(" -> ".join([module, *back]))
print("\\n".join(sorted(cycles)))
"""


def test_no_module_imports_itself_through_others(installed_tree):
    """No import cycle anywhere, a package's __init__ and its modules included (the contracts'
    acyclic_siblings sees only cycles between the modules of one package)."""
    result = run_on(installed_tree, [sys.executable, "-c", CYCLES])
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "", "import cycles:\n" + result.stdout


def test_every_folder_installs_under_card_envs():
    """The wheel's packages are the folders, each under the one import name."""
    mapping = SETUPTOOLS["package-dir"]
    assert set(mapping) == {"card_envs", "card_envs.agents", "card_envs.training"}
    folders = {
        ".".join([package, *path.relative_to(ROOT / folder).parts])
        for package, folder in mapping.items()
        for path in [ROOT / folder, *(ROOT / folder).rglob("*")]
        if path.is_dir() and "__pycache__" not in path.parts
    }
    assert sorted(SETUPTOOLS["packages"]) == sorted(folders)


@pytest.mark.parametrize("name", ["agents", "training"])
def test_the_folders_do_not_import_by_their_own_names(name):
    """From the repository root ``import agents`` would load the files a second time beside
    ``card_envs.agents`` (two Agent classes): it fails, naming the import to use."""
    result = subprocess.run(
        [sys.executable, "-c", f"import {name}"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert f"import card_envs.{name}, not {name}" in result.stderr


@pytest.mark.slow
def test_the_wheel_installs_only_card_envs(tmp_path):
    """A built wheel holds one top-level name, the checkpoints inside it (make test-slow)."""
    source = tmp_path / "source"
    for folder in SETUPTOOLS["package-dir"].values():
        shutil.copytree(ROOT / folder, source / folder, ignore=PYCACHE)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    build = [sys.executable, "-m", "pip", "wheel", source, "--no-deps", "-q"]
    subprocess.run([*build, "-w", tmp_path / "wheel"], check=True)
    (wheel,) = (tmp_path / "wheel").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names} == {"card_envs", f"card_envs-{VERSION}.dist-info"}
    assert "card_envs/agents/checkpoints/seals_v0_ppo_advised.safetensors" in names
    assert "card_envs/training/rllib/train.py" in names
