"""Seers Catalog, version 0: ``from card_envs import seers_catalog_v0``; ``seers_catalog_v0.env()``.

Rules, rulings, observation pieces and action ids: ``docs/seers_catalog.md``.
"""

from card_envs.seers_catalog.env import env, raw_env

metadata = raw_env.metadata

__all__ = ["env", "metadata", "raw_env"]
