"""The ``card-envs`` command: ``list``, ``demo`` and the subcommands registered as entry points.

A module adds subcommands by naming its ``add_parser(subparsers)`` (which sets ``func`` on each
parser it adds) in the ``card_envs.commands`` entry-point group of ``pyproject.toml``, so this
module names none of them: the tools and training register themselves.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.metadata import EntryPoint, entry_points

from card_envs.registry import env_names, make, player_counts

COMMANDS_GROUP = "card_envs.commands"  # the entry-point group of the subcommands


def cmd_list(args: argparse.Namespace) -> int:
    for name in env_names():
        counts = ", ".join(map(str, player_counts(name)))
        print(f"{name:28s} players: {counts}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """A seeded game of random legal moves, rendered as text."""
    from card_envs.agents import RandomAgent
    from card_envs.agents.match import play_game

    names = env_names() if args.game == "all" else [args.game]
    for name in names:
        env = make(name, num_players=args.players, render_mode="ansi")
        info = env.describe()
        agents = [RandomAgent(info, args.seed + seat) for seat in range(info.num_players)]

        def show(player: str, action: int, env=env) -> None:
            if args.verbose:
                print(f"{player}: {env.game.actions.names[action]}")

        result = play_game(env, agents, seed=args.seed, on_move=show)
        print(f"== {name}, seed {args.seed}: {result.steps} moves ==")
        print(env.render())
        print()
    return 0


def registered_commands() -> list[EntryPoint]:
    """The installed ``card_envs.commands`` entry points, by name (the order of ``--help``)."""
    return sorted(entry_points(group=COMMANDS_GROUP), key=lambda point: point.name)


# Plain text for --help: the module docstring's reST markup would show as is.
DESCRIPTION = (
    "PettingZoo AEC environments for five card games, with agents, an arena, benchmarks and "
    "training. Run 'card-envs COMMAND --help' for a command's options."
)
LIST_DESCRIPTION = "List the registered environments and the player counts each supports."
DEMO_DESCRIPTION = (
    "Play one seeded game of random legal moves (or one per game with 'all') and print the "
    "final table as text."
)


def build_parser() -> argparse.ArgumentParser:
    """The ``card-envs`` parser with every subcommand, the registered ones included."""
    parser = argparse.ArgumentParser(prog="card-envs", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help="registered environments", description=LIST_DESCRIPTION)
    listing.set_defaults(func=cmd_list)
    demo = sub.add_parser(
        "demo", help="play one seeded random game and print it", description=DEMO_DESCRIPTION
    )
    demo.add_argument("game", choices=[*env_names(), "all"])
    demo.add_argument(
        "--seed", type=int, default=0, help="seeds the deal and the random players (default: 0)"
    )
    demo.add_argument("--players", type=int, default=None, help="default: the game's")
    demo.add_argument("--verbose", action="store_true", help="print every move")
    demo.set_defaults(func=cmd_demo)
    for point in registered_commands():
        point.load()(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, FileNotFoundError) as error:
        print(f"card-envs: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
