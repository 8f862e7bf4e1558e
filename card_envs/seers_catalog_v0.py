"""Seers Catalog, version 0: ``from card_envs import seers_catalog_v0``; ``seers_catalog_v0.env()``.

Rules, rulings, observation pieces and action ids: ``docs/seers_catalog.md``.
"""

from card_envs.core.plugin import Plugin
from card_envs.seers_catalog.env import env, raw_env

metadata = raw_env.metadata
plugin = Plugin(agents="card_envs.agents.seers_catalog", view="card_envs.seers_catalog.view")

__all__ = ["env", "metadata", "plugin", "raw_env"]
