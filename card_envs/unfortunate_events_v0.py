"""The Catastrophic Card Game, version 0:
``from card_envs import unfortunate_events_v0; env = unfortunate_events_v0.env()``.

Rules, rulings, observation planes and action ids: ``docs/unfortunate_events.md``.
"""

from card_envs.core.plugin import Plugin
from card_envs.unfortunate_events.env import env, raw_env

metadata = raw_env.metadata
plugin = Plugin(
    agents="card_envs.agents.unfortunate_events", view="card_envs.unfortunate_events.view"
)

__all__ = ["env", "metadata", "plugin", "raw_env"]
