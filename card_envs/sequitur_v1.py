"""Sequitur, version 1: ``from card_envs import sequitur_v1; env = sequitur_v1.env()``.

Version 0's game with what each legal action is worth appended to the observation
(``action_values``). Rules, observation planes and action ids: ``docs/sequitur.md``.
"""

from card_envs.core.plugin import Plugin
from card_envs.sequitur.env import env_v1 as env
from card_envs.sequitur.env import raw_env_v1 as raw_env

metadata = raw_env.metadata
plugin = Plugin(agents="card_envs.agents.sequitur", view="card_envs.sequitur.view")

__all__ = ["env", "metadata", "plugin", "raw_env"]
