"""Seers Catalog as a PettingZoo AEC environment: the rules and encoding on the shared base."""

from __future__ import annotations

from typing import Any, ClassVar

from card_envs.core.env import CardEnv
from card_envs.seers_catalog.encoding import SeersCatalogEncoding
from card_envs.seers_catalog.rules import SeersCatalogGame


class raw_env(CardEnv):
    """Seers Catalog, 2-5 seers (default 4). Options: ``num_rounds`` (4), ``artifact_pool``
    (a list of artifact names including ``"Go First"``; default all ten), ``reward_mode``
    (``"win"`` or ``"score"``), ``render_mode`` (``"ansi"``/``"human"``)."""

    game_class = SeersCatalogGame
    encoding_class = SeersCatalogEncoding
    metadata: ClassVar[dict[str, Any]] = {**CardEnv.metadata, "name": "seers_catalog_v0"}


def env(**options: Any) -> raw_env:
    """The environment. It needs no PettingZoo wrappers: the base enforces order and checks
    every action (type, range, legality) with clear errors."""
    return raw_env(**options)
