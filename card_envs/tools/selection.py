"""Which games and player counts a tool runs: ``--game all`` and ``--players all`` expand here."""

from __future__ import annotations

import argparse

from card_envs.registry import env_module, env_names, player_counts

ALL = "all"


def game_choices() -> list[str]:
    """Accepted ``--game`` values: every registered environment, or ``all``."""
    return [*env_names(), ALL]


def add_game_argument(parser: argparse.ArgumentParser) -> None:
    """``--game``: ``all`` (the default), one env id, or several joined by commas."""
    parser.add_argument(
        "--game",
        default=ALL,
        type=game_option,
        metavar="GAME[,GAME...]",
        help=f"all (default), or env ids joined by commas: {', '.join(env_names())}",
    )


def game_option(text: str) -> str:
    """``--game`` checked as it is parsed (:func:`named_games`), so argparse reports a bad one."""
    try:
        named_games(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def named_games(game: str) -> list[str]:
    """The env ids ``game`` names: ``all``, or ids joined by commas, each known and named once."""
    if game == ALL:
        return env_names()
    names = game.split(",")
    for name in names:
        if name not in env_names():
            raise ValueError(f"unknown game {name!r}; choose one of {game_choices()}")
    if len(set(names)) < len(names):
        raise ValueError(f"{game!r} names a game twice")
    return names


def default_players(name: str) -> int:
    """The player count a game is played at when none is asked for."""
    return env_module(name).raw_env.game_class.default_players


def parse_players(text: str | None) -> int | str | None:
    """``--players``: an integer, ``all``, or absent (each game's default)."""
    if text is None or text == ALL:
        return text
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"--players must be an integer or 'all'; got {text!r}") from None


def cases(game: str, players: int | str | None) -> list[tuple[str, int]]:
    """The ``(env name, player count)`` pairs to run, in registry order; ``game`` is ``all``, an
    env id, or env ids joined by commas.

    A named game at an unsupported count is an error; with ``--game all`` such games are
    skipped, so ``--game all --players 2`` runs every two-player game.
    """
    asked = named_games(game)
    names = [name for name in env_names() if name in asked]
    out = []
    for name in names:
        counts = player_counts(name)
        if players is None:
            out.append((name, default_players(name)))
        elif players == ALL:
            out.extend((name, n) for n in counts)
        elif players in counts:
            out.append((name, int(players)))
        elif game != ALL:
            raise ValueError(f"{name} is played by {list(counts)} players, not {players}")
    if not out:
        raise ValueError(f"no registered game is played by {players} players")
    return out
