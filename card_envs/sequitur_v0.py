"""Sequitur, version 0: ``from card_envs import sequitur_v0; env = sequitur_v0.env()``.

Rules, rulings, observation planes and action ids: ``docs/sequitur.md``.
"""

from card_envs.core.plugin import Plugin
from card_envs.sequitur.env import env, raw_env

metadata = raw_env.metadata
plugin = Plugin(agents="card_envs.agents.sequitur", view="card_envs.sequitur.view")

__all__ = ["env", "metadata", "plugin", "raw_env"]
