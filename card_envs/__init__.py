"""card-envs: PettingZoo AEC environments for five tabletop card games."""

from importlib.metadata import version

from card_envs.registry import env_names, make, player_counts

__version__ = version("card-envs")  # the installed package's metadata, from pyproject.toml
__all__ = ["__version__", "env_names", "make", "player_counts"]
