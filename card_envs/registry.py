"""Registry of environments: every ``card_envs/<game>_v<N>.py`` module is one entry, and a game
outside the package joins with :func:`register`. Each entry knows its PettingZoo-style module
(``env``, ``raw_env``, ``metadata``) and its :class:`~card_envs.core.plugin.Plugin`: where its
agents and its browser view live."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType
from typing import Any

from card_envs.core.plugin import Plugin

_ENV_MODULE = re.compile(r"^[a-z_]+_v\d+$")
_REGISTERED: dict[str, tuple[str, Plugin | None]] = {}  # name -> (module path, plugin)


def _builtin_names() -> list[str]:
    return [
        info.name
        for info in pkgutil.iter_modules([str(Path(__file__).parent)])  # card_envs/, not imported
        if _ENV_MODULE.match(info.name)
    ]


def register(name: str, module: str, plugin: Plugin | None = None) -> None:
    """Add the env ``name`` (``"mygame_v0"``) whose PettingZoo-style module is importable as
    ``module``; ``plugin`` says where its agents and view live (default: the module's own
    ``plugin`` attribute, if any). Every tool then finds it by name as it finds the built-in
    games: ``card_envs.make(name)``, the agents, the arena, records, the browser table."""
    if not _ENV_MODULE.match(name):
        raise ValueError(f"env name {name!r} must look like 'mygame_v0' (lower-case, _v<N>)")
    if name in _builtin_names():
        raise ValueError(f"{name!r} is a built-in env of card_envs; choose another name")
    if plugin is not None and not isinstance(plugin, Plugin):
        raise TypeError(f"plugin must be a card_envs.core.plugin.Plugin, got {plugin!r}")
    _REGISTERED[name] = (module, plugin)


def unregister(name: str) -> None:
    """Remove an env added by :func:`register` (the built-in ones stay)."""
    _REGISTERED.pop(name, None)


def registrations() -> dict[str, tuple[str, Plugin | None]]:
    """The envs added by :func:`register`, to hand to a worker process: a process started
    fresh (forkserver, spawn) knows only the built-in envs until it calls :func:`restore`."""
    return dict(_REGISTERED)


def restore(entries: dict[str, tuple[str, Plugin | None]]) -> None:
    """Register again, in a worker process, what :func:`registrations` returned."""
    for name, (module, plugin) in entries.items():
        register(name, module, plugin)


def env_names() -> list[str]:
    """Names of the registered environments, e.g. ``["seamless_v0", ...]``."""
    return sorted({*_builtin_names(), *_REGISTERED})


def env_module(name: str) -> ModuleType:
    """The PettingZoo-style module (``env``, ``raw_env``, ``metadata``) of a registered env."""
    if name in _REGISTERED:
        return importlib.import_module(_REGISTERED[name][0])
    names = env_names()
    if name not in names:
        raise ValueError(f"unknown environment {name!r}; registered: {names}")
    return importlib.import_module(f"card_envs.{name}")


def plugin(name: str) -> Plugin:
    """Where the env's agents and browser view live."""
    given = _REGISTERED.get(name, (None, None))[1]
    if given is not None:
        return given
    found = getattr(env_module(name), "plugin", None)
    return found if isinstance(found, Plugin) else Plugin()


def make(name: str, **options: Any):
    """Build a registered environment: ``make("seamless_v0", render_mode="ansi")``."""
    return env_module(name).env(**options)


def player_counts(name: str) -> tuple[int, ...]:
    """The player counts a registered environment supports."""
    return env_module(name).raw_env.game_class.player_counts
