"""card-envs: PettingZoo AEC environments for five tabletop card games."""

from card_envs.registry import env_names, make, player_counts

__version__ = "0.1.0"
__all__ = ["__version__", "env_names", "make", "player_counts"]
