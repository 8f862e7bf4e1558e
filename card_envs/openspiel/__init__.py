"""Every registered env as an OpenSpiel game (the ``openspiel`` extra).

Importing this package registers ``card_envs_<env_id>`` for each env with OpenSpiel, so
``pyspiel.load_game("card_envs_seamless_v0")`` works, with the env's options as game parameters
(``pyspiel.load_game("card_envs_seals_v0", {"num_players": 2})``); :func:`load` does both. An env
registered later (``card_envs.registry.register``) joins on the next :func:`register_all` or
:func:`load`.
"""

from __future__ import annotations

from typing import Any

from card_envs import registry
from card_envs.core.extras import require

with require("openspiel"):
    import pyspiel

from card_envs.openspiel.chance import MAX_CHANCE_OUTCOMES, ChoiceRng, NeedChance
from card_envs.openspiel.game import (
    CardGame,
    CardObserver,
    CardState,
    game_class,
    game_type,
    short_name,
)

__all__ = [
    "MAX_CHANCE_OUTCOMES",
    "CardGame",
    "CardObserver",
    "CardState",
    "ChoiceRng",
    "NeedChance",
    "load",
    "register_all",
    "short_name",
]


def register_all() -> list[str]:
    """Register every registered env not yet known to OpenSpiel; the OpenSpiel names of all."""
    known = set(pyspiel.registered_names())
    names = []
    for env_id in registry.env_names():
        name = short_name(env_id)
        if name not in known:
            pyspiel.register_game(game_type(env_id), game_class(env_id))
        names.append(name)
    return names


def load(env_id: str, **options: Any) -> pyspiel.Game:
    """The env ``env_id`` as a ``pyspiel.Game``: ``load("seals_v0", num_players=2)``."""
    register_all()
    return pyspiel.load_game(short_name(env_id), options)


register_all()
