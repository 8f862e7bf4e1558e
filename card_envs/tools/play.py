"""``card-envs play``: a person plays one seat in the terminal against agents.

The screen shows only ``Game.render_seat`` (what that seat may know, leak-tested like the
observations): the full view when it is the person's turn and, after each opponent's move, the
move's name and the lines of that view that changed. A move the view does not tell apart from
another (a secret one) is named only as far as the view tells. Moves are chosen by their listed
number, by name, or by the action block's word in the docs' tables (Seals' ``stop`` is ``end
turn``); anything else is refused with the reason and asked again. ``q``, end of input (Ctrl-D)
or Ctrl-C end the game cleanly.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents import Agent, agent_kinds, make_agent
from card_envs.agents.match import decisions, derived_seed, seen_move
from card_envs.core.env import CardEnv, EnvInfo
from card_envs.core.spec import ActionSpec
from card_envs.records import append_record, record_game
from card_envs.registry import env_names, make

QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("?", "h", "help")
# Suit symbols may be typed as letters: "play 10h" is "play 10♥".
SUIT_LETTERS = str.maketrans({"♣": "c", "♦": "d", "♥": "h", "♠": "s", "_": " "})
INTERRUPTED = 130  # the shell's exit code for Ctrl-C
Blocks = Sequence[tuple[str, range]]  # an action block's word (the docs' tables) and its ids


class Quit(Exception):
    """The person left (``q``, end of input or Ctrl-C); ``args[0]`` says how."""


def normalise(text: str) -> str:
    """Case, spacing, underscores and suit symbols folded, so typed names match action names."""
    return " ".join(text.lower().translate(SUIT_LETTERS).split())


def action_blocks(actions: ActionSpec) -> list[tuple[str, range]]:
    """Each action block's name, as the docs' action tables give it, and its ids."""
    return [
        (block.name, range(actions.start[block.name], actions.start[block.name] + block.size))
        for block in actions.blocks
    ]


def parse_move(
    text: str,
    legal: Sequence[int],
    names: Sequence[str],
    reason: Callable[[int], str | None],
    blocks: Blocks = (),
) -> int | str:
    """The action id ``text`` picks from ``legal``, or a message saying why it picks none.

    A number is a position in the listed moves (1-based); otherwise the text is an action name,
    or a block's word from the docs (``stop``; ``take_colour red``: the block's moves whose name
    ends so), or an unambiguous beginning of a name, with suits typed as symbols or letters.
    """
    text = text.strip()
    if not text:
        return "type a move's number or its name (? lists the moves, q quits)"
    if text.lstrip("+-").isdecimal():
        number = int(text)
        if 1 <= number <= len(legal):
            return legal[number - 1]
        return f"{number} is not one of the listed moves: choose 1..{len(legal)}"
    wanted = normalise(text)
    exact = [a for a in legal if normalise(names[a]) == wanted]
    if exact:
        return exact[0]
    known = [a for a in range(len(names)) if normalise(names[a]) == wanted]
    if known:
        return f"{names[known[0]]} is not legal now: {reason(known[0]) or 'not allowed'}"
    by_block = block_move(wanted, legal, names, reason, blocks)
    if by_block is not None:
        return by_block
    starts = [a for a in legal if normalise(names[a]).startswith(wanted)]
    if len(starts) == 1:
        return starts[0]
    if starts:
        return ambiguous(text, starts, names)
    return f"{text!r} is not a move: type a listed number or a move's name"


def block_move(
    wanted: str,
    legal: Sequence[int],
    names: Sequence[str],
    reason: Callable[[int], str | None],
    blocks: Blocks,
) -> int | str | None:
    """The move a normalised block word (and the end of a name) picks, a message, or ``None``
    when ``wanted`` names no block or none of its moves."""
    for block, ids in blocks:
        word = normalise(block)
        if wanted != word and not wanted.startswith(word + " "):
            continue
        rest = wanted[len(word) :].split()
        matching = [a for a in ids if not rest or normalise(names[a]).split()[-len(rest) :] == rest]
        playable = [a for a in matching if a in legal]
        if len(playable) == 1:
            return playable[0]
        if playable:
            return ambiguous(wanted, playable, names)
        if len(matching) == 1:
            return f"{names[matching[0]]} is not legal now: {reason(matching[0]) or 'not allowed'}"
        if matching:
            return f"no {block} move is legal now"
    return None


def ambiguous(text: str, moves: Sequence[int], names: Sequence[str]) -> str:
    shown = ", ".join(names[a] for a in moves[:6]) + (", ..." if len(moves) > 6 else "")
    return f"{text!r} could be {len(moves)} moves ({shown}): type more of the name"


def ask(read: Callable[[str], str], write: Callable[[str], None], prompt: str) -> str:
    """One line of input; end of input and Ctrl-C become :class:`Quit`."""
    try:
        return read(prompt)
    except EOFError:
        write("")
        raise Quit("end of input") from None
    except KeyboardInterrupt:
        write("")
        raise Quit("interrupted") from None


def list_moves(legal: Sequence[int], names: Sequence[str], blocks: Blocks = ()) -> str:
    """The numbered moves; a name that does not start with its block's word (the docs') shows
    the word too: ``end turn [stop]``."""
    lines = []
    for i, a in enumerate(legal, 1):
        word = next((w for w, ids in blocks if a in ids), "")
        shown = normalise(names[a]).startswith(normalise(word))
        lines.append(f"  {i:>3}) {names[a]}" + ("" if shown else f" [{word}]"))
    return "\n".join(lines)


def choose(
    legal: Sequence[int],
    names: Sequence[str],
    reason: Callable[[int], str | None],
    read: Callable[[str], str],
    write: Callable[[str], None],
    blocks: Blocks = (),
) -> int:
    """Ask until the person names a legal move (or leaves)."""
    write("your moves:\n" + list_moves(legal, names, blocks))
    while True:
        text = ask(read, write, "your move> ")
        if text.strip().lower() in QUIT_WORDS:
            raise Quit("quit")
        if text.strip() in HELP_WORDS:
            write("your moves:\n" + list_moves(legal, names, blocks))
            continue
        picked = parse_move(text, legal, names, reason, blocks)
        if isinstance(picked, str):
            write(f"not accepted: {picked}")
            continue
        return picked


def changed_lines(before: str, after: str) -> list[str]:
    """Lines of ``after`` not in ``before`` (what an opponent's move visibly changed)."""
    old = set(before.splitlines())
    return [line for line in after.splitlines() if line not in old]


def seat_opponents(
    info: EnvInfo, seat: int, opponents: Sequence[str] | None, seed: int, trust: bool = False
) -> dict[int, Agent]:
    """An agent for every other seat, the ``opponents`` names in turn (default: the game's
    heuristic, else random), each seeded from ``seed`` and its seat; ``trust`` as for
    ``make_agent`` (checkpoints that unpickle)."""
    if not 0 <= seat < info.num_players:
        raise ValueError(
            f"--seat must be 0..{info.num_players - 1} for {info.num_players} players; got {seat}"
        )
    kinds = list(opponents or ["heuristic" if "heuristic" in agent_kinds(info) else "random"])
    others = [s for s in range(info.num_players) if s != seat]
    return {
        s: make_agent(kinds[i % len(kinds)], info, derived_seed(seed, s), trust=trust)
        for i, s in enumerate(others)
    }


def play_session(
    env_name: str,
    seat: int = 0,
    opponents: Sequence[str] | None = None,
    num_players: int | None = None,
    seed: int = 0,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    trust: bool = False,
    record: str | Path | None = None,
) -> int:
    """One game with a person at ``seat``; the exit code (0 also when the person quits). With
    ``record``, the game's record (finished or abandoned) is added to that JSON Lines file."""
    env = make(env_name, num_players=num_players)
    agents = seat_opponents(env.describe(), seat, opponents, seed, trust)
    cast = ", ".join(f"player_{s} is {agent.name}" for s, agent in agents.items())
    write(f"{env_name}: you are player_{seat}; {cast or 'no opponents'}")
    write("choose a move by its number or name; ? lists the moves, q quits")
    env.reset(seed=seed)
    actions: list[int] = []
    kinds = [agents[s].name if s in agents else "human" for s in range(len(env.possible_agents))]
    try:
        view = play_turns(env, seat, agents, read, write, actions)
    except Quit as left:
        write(f"{left.args[0]}: game abandoned")
        return INTERRUPTED if left.args[0] == "interrupted" else 0
    finally:
        if record is not None:
            append_record(record, record_game(env, actions, kinds, seed))
    write("\n" + view)
    write(result_line(env, seat))
    return 0


def play_turns(
    env: CardEnv,
    seat: int,
    agents: dict[int, Agent],
    read: Callable[[str], str],
    write: Callable[[str], None],
    actions: list[int] | None = None,
) -> str:
    """The AEC loop to the end of the game: the person chooses for ``seat``, agents for the
    others; returns the person's final view. Every action played is added to ``actions``."""
    played = [] if actions is None else actions
    game, names = env.game, env.game.actions.names
    blocks = action_blocks(game.actions)
    view = game.render_seat(env.game_state, seat)
    for agent, observation in decisions(env):
        acting = env.possible_agents.index(agent)
        if acting == seat:
            write("\n" + view)
            legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
            reason = partial(game.illegal_reason, env.game_state)
            action = choose(legal, names, reason, read, write, blocks)
            env.step(action)
            played.append(action)
            write(f"you: {names[action]}")
            view = game.render_seat(env.game_state, seat)
            continue
        action = agents[acting].act_at(env, observation)
        move = seen_move(game, env.game_state, seat, action)
        env.step(action)
        played.append(action)
        new_view = game.render_seat(env.game_state, seat)
        write(f"{agent}: {move}")
        write("\n".join(f"  | {line}" for line in changed_lines(view, new_view)) or "  | -")
        view = new_view
    return view


def result_line(env: CardEnv, seat: int) -> str:
    """Who won and the final scores, from the person's point of view."""
    game, state = env.game, env.game_state
    if not game.is_over(state):
        return "game stopped by the step cap: no winner"
    winners = ", ".join(f"player_{w}" for w in game.winners(state)) or "nobody"
    scores = ", ".join(f"player_{s} {v:g}" for s, v in enumerate(game.scores(state)))
    verdict = "you won" if seat in game.winners(state) else "you did not win"
    return f"game over: {verdict} (winners: {winners}; scores: {scores})"


def cmd_play(args: argparse.Namespace) -> int:
    return play_session(
        args.game,
        args.seat,
        args.opponents,
        args.players,
        args.seed,
        trust=args.trust_checkpoint,
        record=args.record,
    )


DESCRIPTION = (
    "Play one seat yourself in the terminal against agents; you see only what your seat "
    "may know. See docs/arena.md."
)


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs play``."""
    parser = subparsers.add_parser(
        "play",
        help="play a seat yourself in the terminal against agents",
        description=DESCRIPTION,
    )
    parser.add_argument("game", choices=env_names())
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=None,
        help="agents filling the other seats in turn: the game's kinds ('card-envs list "
        "--agents' lists them), a checkpoint path or package.module:ClassName (default: "
        "heuristic, else random)",
    )
    parser.add_argument("--players", type=int, default=None, help="default: the game's")
    parser.add_argument("--seed", type=int, default=0, help="the deal")
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="allow checkpoints that unpickle (SB3 .zip, RLlib exports): they can run code",
    )
    parser.add_argument(
        "--record",
        default=None,
        metavar="PATH",
        help="add the game's record to this JSON Lines file (docs/records.md)",
    )
    parser.set_defaults(func=cmd_play)
