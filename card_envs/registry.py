"""Registry of environments: every ``card_envs/<game>_v<N>.py`` module is one entry."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType
from typing import Any

_ENV_MODULE = re.compile(r"^[a-z_]+_v\d+$")


def env_names() -> list[str]:
    """Names of the registered environments, e.g. ``["seamless_v0", ...]``."""
    return sorted(
        info.name
        for info in pkgutil.iter_modules([str(Path(__file__).parent)])  # card_envs/, not imported
        if _ENV_MODULE.match(info.name)
    )


def env_module(name: str) -> ModuleType:
    """The PettingZoo-style module (``env``, ``raw_env``, ``metadata``) of a registered env."""
    names = env_names()
    if name not in names:
        raise ValueError(f"unknown environment {name!r}; registered: {names}")
    return importlib.import_module(f"card_envs.{name}")


def make(name: str, **options: Any):
    """Build a registered environment: ``make("seamless_v0", render_mode="ansi")``."""
    return env_module(name).env(**options)


def player_counts(name: str) -> tuple[int, ...]:
    """The player counts a registered environment supports."""
    return env_module(name).raw_env.game_class.player_counts
