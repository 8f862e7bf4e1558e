"""Where a game spends its time: cProfile of random play, the functions by own time.

Usage: ``.venv/bin/python benchmarks/profile_env.py seamless_v0 [--players 4] [--rules-only]``.
"""

from __future__ import annotations

import argparse

from card_envs.tools.bench import profile_hot_spots
from card_envs.tools.selection import default_players

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--rules-only", action="store_true", help="the rules without the env")
    args = parser.parse_args()
    players = args.players or default_players(args.game)
    print(profile_hot_spots(args.game, players, args.seconds, args.top, args.rules_only))
