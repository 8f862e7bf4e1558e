"""Leduc Hold'em, version 0, a game outside the package: ``register("leduc_v0",
"leduc.leduc_v0")`` and then ``card_envs.make("leduc_v0")`` (docs/adding-a-game.md)."""

from card_envs.core.plugin import Plugin
from leduc.env import env, raw_env

metadata = raw_env.metadata
plugin = Plugin(agents="leduc.agents", view="leduc.view")

__all__ = ["env", "metadata", "plugin", "raw_env"]
