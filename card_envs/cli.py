"""The ``card-envs`` command: ``list``, ``demo`` and the subcommands registered as entry points.

A module adds subcommands by naming its ``add_parser(subparsers)`` (which sets ``func`` on each
parser it adds) in the ``card_envs.commands`` entry-point group of ``pyproject.toml``, so this
module names none of them: the tools and training register themselves. A command line that
names one of them loads only that one, so a command starts without importing the others (and
``--help`` imports no command's heavy dependencies: each module imports those where it runs).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib.metadata import EntryPoint, entry_points

import card_envs
from card_envs.registry import env_names, make, player_counts

COMMANDS_GROUP = "card_envs.commands"  # the entry-point group of the subcommands
BROKEN_PIPE = 141  # the shell's exit code for a reader that went away (128 + SIGPIPE)

# What each agent kind of `card-envs list --agents` is, in the order the legend lists them.
KIND_LEGEND = {
    "random": "a legal move at random",
    "heuristic": "the game's rule-based player, reading only its own observation",
    "ppo": "a shipped network acting on its observation alone",
    "ppo_advised": "a shipped network that also reads the heuristic's move",
    "ismcts": "information-set Monte Carlo tree search (slow; a budget as ismcts:iterations=400)",
    "pimc": "perfect-information Monte Carlo over sampled deals (slow; pimc:iterations=400)",
}


def version_text() -> str:
    """``card-envs X.Y.Z`` and how many of the engines' kernels run compiled here."""
    from card_envs.core.kernels import status

    kernels = status()
    compiled = sum(kernels.values())
    line = f"kernels: {compiled}/{len(kernels)} compiled"
    if compiled < len(kernels):
        line += " (plain Python: " + ", ".join(n for n, c in kernels.items() if not c) + ")"
    return f"card-envs {card_envs.__version__}\n{line}"


class VersionAction(argparse.Action):
    """``--version``: the text is built when asked for, so other commands never look."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # type: ignore[no-untyped-def]
        print(version_text())
        parser.exit()


def agent_table() -> list[tuple[str, list[str]]]:
    """Each env's agent kinds, in ``make_agent`` order, a kind that plays at only some player
    counts followed by them in brackets (``ppo[4]``); the search kinds play everywhere."""
    from card_envs.agents import agent_kinds
    from card_envs.agents.builtin import SEARCH_KINDS

    rows = []
    for name in env_names():
        counts = player_counts(name)
        by_count = {n: agent_kinds(make(name, num_players=n).describe()) for n in counts}
        kinds: dict[str, list[int]] = {}
        for n, names in by_count.items():
            for kind in names:
                kinds.setdefault(kind, []).append(n)
        shown = [
            kind if len(at) == len(counts) else f"{kind}[{','.join(map(str, at))}]"
            for kind, at in kinds.items()
        ]
        rows.append((name, shown + list(SEARCH_KINDS)))
    return rows


def legend(kinds: Sequence[str]) -> list[str]:
    """One line per kind named in the table: what it is."""
    lines = []
    for kind in dict.fromkeys(kinds):
        lines.append(f"  {kind:<16} {KIND_LEGEND.get(kind, 'a stronger heuristic of this game')}")
    return lines


def legend_order(kind: str) -> tuple[int, str]:
    """The legend's order: the kinds every game may have first, then the games' own."""
    known = list(KIND_LEGEND)
    return (known.index(kind) if kind in known else len(known), kind)


def cmd_list(args: argparse.Namespace) -> int:
    if not args.agents:
        for name in env_names():
            counts = ", ".join(map(str, player_counts(name)))
            print(f"{name:28s} players: {counts}")
        return 0
    rows = agent_table()
    for name, kinds in rows:
        print(f"{name:24s} {' '.join(kinds)}")
    seen = [kind.split("[")[0] for _, kinds in rows for kind in kinds]
    print("\nkind[n]: only at n players (a trained network fits the count it was trained at)")
    print("\n".join(legend(sorted(seen, key=legend_order))))
    print("also: a .safetensors path, or your own class as package.module:ClassName")
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
LIST_DESCRIPTION = (
    "List the registered environments and the player counts each supports; with --agents, "
    "the agent kinds each one takes (what arena, play and serve accept), with a legend."
)
DEMO_DESCRIPTION = (
    "Play one seeded game of random legal moves (or one per game with 'all') and print the "
    "final table as text."
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``card-envs`` parser with every subcommand, the registered ones included (with
    ``only``, the one registered command of that name, if there is one, and no other)."""
    parser = argparse.ArgumentParser(prog="card-envs", description=DESCRIPTION)
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser(
        "list",
        help="registered environments (--agents: their agents)",
        description=LIST_DESCRIPTION,
    )
    listing.add_argument(
        "--agents", action="store_true", help="one line per env: the agent kinds it takes"
    )
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
    points = registered_commands()
    if only in sub.choices:  # list or demo: no registered command is needed
        points = []
    elif any(point.name == only for point in points):
        points = [point for point in points if point.name == only]
    for point in points:
        point.load()(sub)
    return parser


def command_named(argv: Sequence[str]) -> str | None:
    """The subcommand a command line names: its first word that is not an option."""
    return next((word for word in argv if not word.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser(command_named(words)).parse_args(words)
        try:
            return args.func(args)
        except (ValueError, FileNotFoundError) as error:
            print(f"card-envs: error: {error}", file=sys.stderr)
            return 2
    except BrokenPipeError:
        return closed_pipe()


def closed_pipe() -> int:
    """The reader of our output went away (``| head``): stop quietly, as a shell tool does.
    Python would otherwise complain again when it flushes stdout at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
