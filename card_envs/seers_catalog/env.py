"""Seers Catalog as a PettingZoo AEC environment: the rules and encoding on the shared base."""

from __future__ import annotations

from typing import Any, ClassVar

from card_envs.core.env import CardEnv
from card_envs.seers_catalog.encoding import SeersCatalogEncoding
from card_envs.seers_catalog.rules import SeersCatalogGame
from card_envs.seers_catalog.rules.game import ROUND_SCORE_RANGE


class raw_env(CardEnv):
    """Seers Catalog, 2-5 seers (default 4). Options: ``num_rounds`` (4), ``artifact_pool``
    (a list of artifact names including ``"Go First"``; default all ten), ``reward_mode``
    (``"win"`` or ``"score"``), ``render_mode`` (``"ansi"``/``"human"``).

    Rewards: ``"win"`` gives each seat -1..1 once the game ends (``reward_range``); ``"score"``
    gives each seat its round score at each round end, -75..12 (``score_reward_range``: no hand
    holds more than the 75 cards, and the best is a lone 13, 13 - 1)."""

    game_class = SeersCatalogGame
    encoding_class = SeersCatalogEncoding
    metadata: ClassVar[dict[str, Any]] = {
        **CardEnv.metadata,
        "name": "seers_catalog_v0",
        "version": 0,
        "reward_range": (-1.0, 1.0),
        "score_reward_range": tuple(map(float, ROUND_SCORE_RANGE)),
    }


def env(**options: Any) -> raw_env:
    """The environment. It needs no PettingZoo wrappers: the base enforces order and checks
    every action (type, range, legality) with clear errors."""
    return raw_env(**options)
