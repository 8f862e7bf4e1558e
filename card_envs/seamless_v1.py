"""Seamless, version 1: ``from card_envs import seamless_v1; env = seamless_v1.env()``.

Version 0's game with this round's plays by seat and the voids they show appended to the
observation. Rules, observation planes and action ids: ``docs/seamless.md`` and
``docs/seamless_v1.md``.
"""

from card_envs.core.plugin import Plugin
from card_envs.seamless.env import env_v1 as env
from card_envs.seamless.env import raw_env_v1 as raw_env

metadata = raw_env.metadata
plugin = Plugin(agents="card_envs.agents.seamless", view="card_envs.seamless.view")

__all__ = ["env", "metadata", "plugin", "raw_env"]
