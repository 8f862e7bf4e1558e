"""What each constructor option of a game is, as data: a form (the browser table's new-table
form) or a tool reads it instead of knowing any game. A game declares its options beside its
rules, as ``options`` on its :class:`~card_envs.core.game.Game` class (and its full name as
``title``); :func:`option_table` adds each one's default from the constructor and its kind.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from card_envs.core.env import REWARD_MODES
from card_envs.core.game import Game


@dataclass(frozen=True)
class Option:
    """One option: its name, what it does, and what it takes: one of ``choices`` (with
    ``many``, a list of distinct ones), a whole number in ``low..high`` (``high`` None: no
    upper bound), or a file (``path``: a word list, a deck; never set from a form)."""

    name: str
    description: str
    choices: tuple[Any, ...] = ()
    low: int | None = None
    high: int | None = None
    many: bool = False
    path: bool = False

    @property
    def kind(self) -> str:
        """``boolean``, ``choice``, ``choices`` (several), ``integer`` or ``path``."""
        if self.path:
            return "path"
        if set(self.choices) == {False, True} and all(type(c) is bool for c in self.choices):
            return "boolean"
        if self.choices:
            return "choices" if self.many else "choice"
        return "integer"


# Options every env has beside its game's (CardEnv's own).
ENV_OPTIONS = (
    Option(
        "reward_mode",
        "win: each seat's share of the result at the end; score: points as they are scored",
        choices=REWARD_MODES,
    ),
)


def declared_options(game_class: type[Game]) -> tuple[Option, ...]:
    """The game's declared options, checked against its constructor: every keyword but
    ``num_players`` (the seats) is declared, and nothing else."""
    declared = tuple(getattr(game_class, "options", ()))
    parameters = inspect.signature(game_class).parameters
    wanted = {name for name in parameters if name != "num_players"}
    names = {option.name for option in declared}
    if names != wanted:
        raise TypeError(
            f"{game_class.__name__}.options declares {sorted(names)}; its constructor takes "
            f"{sorted(wanted)}"
        )
    return declared


def option_table(game_class: type[Game], settable_only: bool = False) -> dict[str, dict[str, Any]]:
    """Each option of the game and its env, by name: ``kind``, ``default``, ``description``
    and ``choices`` or ``min``/``max``, as JSON data (a tuple default as a list). With
    ``settable_only``, the options a form may set: no file."""
    parameters = inspect.signature(game_class).parameters
    table = {}
    for option in (*declared_options(game_class), *ENV_OPTIONS):
        if settable_only and option.path:
            continue
        parameter = parameters.get(option.name)
        default = REWARD_MODES[0] if parameter is None else parameter.default
        entry: dict[str, Any] = {
            "kind": option.kind,
            "default": list(default) if isinstance(default, tuple) else default,
            "description": option.description,
        }
        if option.choices:
            entry["choices"] = list(option.choices)
        if option.kind == "integer":
            entry["min"], entry["max"] = option.low, option.high
        table[option.name] = entry
    return table


def game_title(game_class: type[Game]) -> str:
    """The game's full name (its ``title``), else its short name."""
    return str(getattr(game_class, "title", game_class.name))
