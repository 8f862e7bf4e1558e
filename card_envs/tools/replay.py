"""``card-envs replay``: step through a recorded game in the terminal.

The record is replayed from its deal and actions (``card_envs.records``), from the whole
table's view or, with ``--seat``, from one seat's (``Game.render_seat``: only what that seat may
know, and other seats' moves named only as far as that view tells them apart, as in ``card-envs
play``). Enter steps forward, ``b`` back, a number goes to that step, ``e`` to the end, ``q``
quits; ``--print`` prints every step without stopping.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from card_envs.agents.match import seen_move
from card_envs.core.env import CardEnv
from card_envs.records import RecordError, play_action, replay, start, validate_record
from card_envs.tools.play import QUIT_WORDS, Quit, ask

PROMPT = "[enter] next, b back, <step number>, e end, q quit> "


class Replayer:
    """The positions of a recorded game, replayed lazily as they are asked for: position 0 is
    the deal, position ``t`` the table after ``t`` actions, seen by ``seat`` (``None``: all)."""

    def __init__(self, record: Mapping[str, Any], seat: int | None = None, line: int | None = None):
        validate_record(record, line)  # so every action below is legal
        self.record, self.seat = record, seat
        self.env = start(record)
        seats = len(self.env.possible_agents)
        if seat is not None and not 0 <= seat < seats:
            raise ValueError(f"--seat must be 0..{seats - 1} for {seats} players; got {seat}")
        self.length = len(record["actions"])
        self.frames = [self._view()]

    def _view(self) -> str:
        game, state = self.env.game, self.env.game_state
        return game.render(state) if self.seat is None else game.render_seat(state, self.seat)

    def frame(self, position: int) -> str:
        """The header and view of ``position`` (0..length), replaying up to it if need be."""
        while len(self.frames) <= position:
            self.frames.append(self._advance(len(self.frames) - 1))
        return self.frames[position]

    def _advance(self, index: int) -> str:
        """Play action ``index``; the frame after it, headed by who played what."""
        env, action = self.env, self.record["actions"][index]
        acting = env.possible_agents.index(env.agent_selection)
        move = env.game.actions.names[action]
        if self.seat not in (None, acting):
            move = seen_move(env.game, env.game_state, self.seat, action)
        play_action(env, action, index)
        kind = self.record["agents"][acting]
        header = f"step {index + 1}/{self.length}: player_{acting} ({kind}): {move}"
        if index + 1 == self.length:
            header += f"\nthe record ends here: {ending(env)}"
        return header + "\n" + self._view()


def ending(env: CardEnv) -> str:
    """How the game on ``env`` (replayed to its last action) ended: finished, stopped by the
    step cap, or abandoned (a person quit ``card-envs play``, or the record stops early)."""
    game, state = env.game, env.game_state
    if game.is_over(state):
        winners = ", ".join(f"player_{w}" for w in game.winners(state)) or "nobody"
        return f"finished, won by {winners}"
    if game.is_truncated(state):
        return "stopped by the game's step cap: no winner"
    return f"abandoned: not finished, player_{game.current_player(state)} was to act"


def summary(record: Mapping[str, Any], env: CardEnv | None = None) -> str:
    """The record's game, seats and outcome in two lines (``env``: the game replayed to its
    end, if at hand)."""
    seats = ", ".join(f"player_{s} {kind}" for s, kind in enumerate(record["agents"]))
    rewards = ", ".join(f"{agent} {value:+g}" for agent, value in record["rewards"].items())
    scores = ", ".join(f"{score:g}" for score in record["scores"])
    end = ending(env if env is not None else replay(record))
    return (
        f"{record['env']} {record['options']}, seed {record['seed']}: {seats}; "
        f"{len(record['actions'])} actions, {end}\nrewards: {rewards}; scores: {scores}"
    )


def load(path: str | Path, index: int) -> tuple[dict[str, Any], int]:
    """Record ``index`` (0-based, blank lines not counted) of a JSON Lines file and its line;
    the other lines are not read as JSON."""
    if index < 0:
        raise ValueError(f"--index must be 0 or more; got {index}")
    with Path(path).open(encoding="utf-8") as lines:
        filled = [(number, text) for number, text in enumerate(lines, start=1) if text.strip()]
    if index >= len(filled):
        raise ValueError(f"{path} holds {len(filled)} records: --index {index} is past the end")
    line, text = filled[index]
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"not JSON: {error}", line=line) from None
    return record, line


def browse(replayer: Replayer, read: Callable[[str], str], write: Callable[[str], None]) -> None:
    """Show positions as the person asks, from the deal, until ``q`` or end of input."""
    position = 0
    write(replayer.frame(position))
    while True:
        try:
            text = ask(read, write, PROMPT).strip().lower()
        except Quit:
            return
        if text in QUIT_WORDS:
            return
        target = _target(text, position, replayer.length)
        if isinstance(target, str):
            write(target)
            continue
        position = target
        write(replayer.frame(position))


def _target(text: str, position: int, length: int) -> int | str:
    """The position a command asks for, or a message saying why it asks for none."""
    if text in ("", "n", "next"):
        return min(position + 1, length) if position < length else "the game's end: b goes back"
    if text in ("b", "back"):
        return max(position - 1, 0) if position > 0 else "the deal: nothing before it"
    if text in ("e", "end"):
        return length
    if text.isdecimal() and int(text) <= length:
        return int(text)
    return f"{text!r}: type enter, b, e, q or a step number 0..{length}"


def cmd_replay(args: argparse.Namespace) -> int:
    record, line = load(args.path, args.index)
    replayer = Replayer(record, args.seat, line)
    print(summary(record))
    if args.print:
        for position in range(replayer.length + 1):
            print(replayer.frame(position), end="\n\n")
        return 0
    browse(replayer, input, print)
    return 0


DESCRIPTION = (
    "Step through a recorded game (a JSON Lines file of card-envs.game/1 records, as "
    "'card-envs arena --record' and 'card-envs play --record' write) from the whole table's "
    "view or one seat's. See docs/records.md."
)


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs replay``."""
    parser = subparsers.add_parser(
        "replay", help="step through a recorded game in the terminal", description=DESCRIPTION
    )
    parser.add_argument("path", help="a JSON Lines file of game records")
    parser.add_argument("--index", type=int, default=0, help="which record, from 0 (default 0)")
    parser.add_argument(
        "--seat", type=int, default=None, help="see only what this seat may know (default: all)"
    )
    parser.add_argument(
        "--print", action="store_true", help="print every step without stopping, then exit"
    )
    parser.set_defaults(func=cmd_replay)
