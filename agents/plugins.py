"""A game's agents module and its declarations, found through the registry's
:class:`~card_envs.core.plugin.Plugin`: the heuristic, the stronger heuristics, the search
agents' default budget and self-play settings live in the game's own ``agents/<game>.py``."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import numpy as np

from card_envs.core.env import EnvInfo
from card_envs.registry import plugin


def import_module(name: str) -> ModuleType | None:
    """The module, or None when there is no such module. A ModuleNotFoundError raised inside it
    (a broken agent module importing something missing) propagates: it is a bug to see."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is not None and (name == error.name or name.startswith(error.name + ".")):
            return None
        raise


def agents_module(env_name: str) -> ModuleType | None:
    """The game's agents module (``HeuristicAgent`` and declarations), or None without one."""
    path = plugin(env_name).agents
    return None if path is None else import_module(path)


def declaration(env_name: str, key: str) -> dict[str, Any]:
    """A declaration of the game's agents module (a dict), empty where it declares none."""
    module = agents_module(env_name)
    return dict(getattr(module, key, {})) if module is not None else {}


def action_feature_map(info: EnvInfo) -> tuple[np.ndarray, int]:
    """The game's ``action_feature_map(info)``, each action's features (counts) as a fixed linear
    map of the observation, ``(actions, features, observation)``, and its
    ``ACTION_FEATURE_LEVELS``, the count steps a network reads (what ``ActionFeaturePolicy``
    scores); a ValueError for a game that declares no map."""
    module = agents_module(info.name)
    make_map = getattr(module, "action_feature_map", None)
    if make_map is None:
        raise ValueError(
            f"{info.name} declares no action_feature_map in its agents module: its actions "
            "have no features for a network to score"
        )
    return make_map(info), int(getattr(module, "ACTION_FEATURE_LEVELS", 1))
