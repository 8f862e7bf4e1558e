"""``make lab`` works: the notebooks extra installs JupyterLab and nbconvert beside the tests.

The README points newcomers at ``make lab`` to open the notebooks; these tests fail when the
environment running them lacks the tools (for example an install without the notebooks extra).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def notebooks_extra() -> dict[str, SpecifierSet]:
    """The version ranges of pyproject.toml's ``notebooks`` extra, by package name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = map(Requirement, project["optional-dependencies"]["notebooks"])
    return {requirement.name: requirement.specifier for requirement in requirements}


def test_the_notebooks_extra_holds_jupyterlab_and_it_is_installed():
    ranges = notebooks_extra()
    assert "jupyterlab" in ranges
    assert ranges["jupyterlab"].contains(version("jupyterlab"))


@pytest.mark.parametrize("command", ["jupyter-lab", "jupyter-nbconvert"])
def test_notebook_command_runs_from_the_environment(command):
    path = BIN / command
    assert path.is_file(), f"{path} is missing: install the notebooks extra (make setup)"
    run = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip()[0].isdigit()
