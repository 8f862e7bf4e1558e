"""Sequitur, version 0: ``from card_envs import sequitur_v0; env = sequitur_v0.env()``.

Rules, rulings, observation planes and action ids: ``docs/sequitur.md``.
"""

from card_envs.sequitur.env import env, raw_env

metadata = raw_env.metadata

__all__ = ["env", "metadata", "raw_env"]
