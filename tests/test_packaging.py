"""Ranges for users, a lock for us: pyproject.toml declares ranges, requirements/lock.txt pins a
tree inside them, and the installed version is the declared one (docs/install.md)."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

import card_envs

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
REQUIREMENTS = [
    *PROJECT["dependencies"],
    *(r for extra in PROJECT["optional-dependencies"].values() for r in extra),
]
LOCKS = [ROOT / "requirements" / "lock.txt", ROOT / "requirements" / "lock-rllib.txt"]


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked(path: Path) -> dict[str, Version]:
    """Each package a lock file pins, with its version; every pin must carry a hash."""
    text = path.read_text()
    pins = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+) \\\n\s+--hash=sha256:", text, re.M)
    assert len(pins) == len(re.findall(r"^[A-Za-z0-9].*==", text, re.M)), "a pin without a hash"
    return {canonical(name): Version(pinned) for name, pinned in pins}


def test_version_comes_from_the_metadata():
    assert card_envs.__version__ == version("card-envs") == PROJECT["version"]


@pytest.mark.parametrize("requirement", REQUIREMENTS)
def test_every_dependency_is_a_range_with_a_lower_bound(requirement):
    operators = {spec.operator for spec in Requirement(requirement).specifier}
    assert ">=" in operators and "==" not in operators, requirement


def test_python_has_no_upper_bound():
    assert PROJECT["requires-python"] == ">=3.11"


@pytest.mark.parametrize("lock", LOCKS, ids=[lock.name for lock in LOCKS])
def test_the_lock_pins_versions_inside_the_ranges(lock):
    """A range changed in pyproject.toml without `make lock` fails here, naming the package."""
    pins = locked(lock)
    extras = PROJECT["optional-dependencies"]
    names = [extra for extra in extras if extra != "rllib" or lock.name != "lock.txt"]
    declared = [*PROJECT["dependencies"], *(r for extra in names for r in extras[extra])]
    for requirement in map(Requirement, declared):
        name = canonical(requirement.name)
        assert name in pins, f"{lock.name} lacks {name}"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"{lock.name}: {name} {pins[name]} is outside {requirement.specifier}: run make lock"
        )


@pytest.mark.parametrize("lock", LOCKS, ids=[lock.name for lock in LOCKS])
def test_the_lock_takes_the_cpu_wheel_of_torch(lock):
    assert locked(lock)["torch"] == Version("2.13.0+cpu")


def test_the_rllib_lock_keeps_the_main_locks_versions():
    main, rllib = locked(LOCKS[0]), locked(LOCKS[1])
    assert {name: main[name] for name in main} == {name: rllib[name] for name in main}
    assert rllib["pandas"].major == 2
