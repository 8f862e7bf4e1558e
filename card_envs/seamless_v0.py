"""Seamless, version 0: ``from card_envs import seamless_v0; env = seamless_v0.env()``.

Rules, rulings, observation planes and action ids: ``docs/seamless.md``.
"""

from card_envs.core.plugin import Plugin
from card_envs.seamless.env import env, raw_env

metadata = raw_env.metadata
plugin = Plugin(agents="card_envs.agents.seamless", view="card_envs.seamless.view")

__all__ = ["env", "metadata", "plugin", "raw_env"]
