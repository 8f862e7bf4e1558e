"""Seals, version 0: ``from card_envs import seals_v0; env = seals_v0.env(num_players=3)``.

Rules, rulings, observation planes and action ids: ``docs/seals.md``.
"""

from card_envs.core.plugin import Plugin
from card_envs.seals.env import env, raw_env

metadata = raw_env.metadata
plugin = Plugin(agents="card_envs.agents.seals", view="card_envs.seals.view")

__all__ = ["env", "metadata", "plugin", "raw_env"]
