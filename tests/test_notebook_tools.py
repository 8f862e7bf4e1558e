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

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def notebooks_extra() -> dict[str, str]:
    """The pinned requirements of pyproject.toml's ``notebooks`` extra, by package name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = (req.split("==") for req in project["optional-dependencies"]["notebooks"])
    return {name: pin for name, pin in pins}


def test_the_notebooks_extra_pins_jupyterlab_and_it_is_installed():
    pins = notebooks_extra()
    assert "jupyterlab" in pins
    assert version("jupyterlab") == pins["jupyterlab"]


@pytest.mark.parametrize("command", ["jupyter-lab", "jupyter-nbconvert"])
def test_notebook_command_runs_from_the_environment(command):
    path = BIN / command
    assert path.is_file(), f"{path} is missing: install the notebooks extra (make setup)"
    run = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip()[0].isdigit()
