"""Game records: one played game as plain JSON, written one per line (JSON Lines).

A record holds the env's name and constructor options, every chance outcome of the game (the
env's ``deal_record()``) and the actions in order, so ``make`` + ``reset(options={"deal": ...})``
+ stepping the actions replays the game bit for bit, with any seed or none. Reading a record
checks it whole, replay included: a malformed one raises [`RecordError`][] naming the line
and the field. Format and fields: ``docs/records.md``.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.core.env import CardEnv
from card_envs.core.game import win_rewards
from card_envs.registry import env_names, make

FORMAT = "card-envs.game/1"
FIELDS = ("format", "env", "options", "deal", "actions", "agents", "rewards", "scores", "seed")
OPTIONAL_FIELDS = ("info",)  # free-form JSON object: what wrote the record, a lineup, a note
REWARD_TOLERANCE = 1e-9  # rewards and scores are sums of floats: compared to this


class RecordError(ValueError):
    """A malformed record: ``line`` (1-based, ``None`` for a record not read from a file) and
    ``field`` (``None`` when the record as a whole is wrong) say where."""

    def __init__(self, message: str, field: str | None = None, line: int | None = None):
        where = " ".join(
            part
            for part in (
                f"line {line}" if line is not None else "",
                f"field {field!r}" if field is not None else "",
            )
            if part
        )
        super().__init__(f"record {where}: {message}" if where else f"record: {message}")
        self.field, self.line = field, line


@dataclass(frozen=True)
class RecordStep:
    """One decision of a recorded game. ``env`` is the live replay *before* the action: it
    moves on when the iteration does, so read it (or copy it) before asking for the next step.
    ``observations[k]`` and ``masks[k]`` are seat ``k``'s (a seat not to act has a zero mask)."""

    index: int
    agent: str
    seat: int
    action: int
    action_name: str
    observations: tuple[np.ndarray, ...]
    masks: tuple[np.ndarray, ...]
    env: CardEnv


# -- making a record ------------------------------------------------------------------------------
def record_game(
    env: CardEnv, actions: Sequence[int], agents: Sequence[str], seed: int | None
) -> dict[str, Any]:
    """The record of the game played on ``env`` (finished or not) by ``actions`` (dead steps
    left out), ``agents`` naming the kind in each seat; ``seed`` is kept for information."""
    game, state = env.game, env.game_state
    if state is None:
        raise RuntimeError("call reset() and play before record_game()")
    if len(agents) != game.num_players:
        raise ValueError(f"agents names {len(agents)} seats; the game has {game.num_players}")
    deal = env.deal_record()
    scores = [float(s) for s in game.scores(state)]
    return {
        "format": FORMAT,
        "env": env.metadata["name"],
        "options": {
            "num_players": game.num_players,
            "reward_mode": env.reward_mode,
            **{name: _json_option(name, value) for name, value in env.options.items()},
        },
        "deal": deal,
        "actions": [int(a) for a in actions],
        "agents": [str(a) for a in agents],
        "rewards": dict(zip(env.possible_agents, _total_rewards(env, deal, scores), strict=True)),
        "scores": scores,
        "seed": seed,
    }


def _json_option(name: str, value: Any) -> Any:
    """An option as JSON that rebuilds the same game: a path as a string, a tuple as a list, a
    set of words sorted; a ValueError naming an option that JSON cannot hold."""
    if isinstance(value, Path):
        value = str(value)
    elif isinstance(value, set | frozenset):
        value = sorted(value)
    elif isinstance(value, tuple):
        value = list(value)
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"option {name}={value!r:.60} cannot go in a record: give it as JSON data (a path "
            "or a list) to record the game"
        ) from None
    return value


def _total_rewards(env: CardEnv, deal: dict[str, Any], scores: list[float]) -> list[float]:
    """What each seat has received through ``last()`` so far, from the rules' outcome: the
    win/loss shares of a finished game, or in score mode the score gained since the deal."""
    game, state = env.game, env.game_state
    if env.reward_mode == "score":
        start = game.scores(game.new_game(np.random.default_rng(0), deal))
        return [now - float(before) for now, before in zip(scores, start, strict=True)]
    if game.is_over(state):
        return win_rewards(game.winners(state), game.num_players)
    return [0.0] * game.num_players


# -- files ----------------------------------------------------------------------------------------
def write_records(
    path: str | Path, records: Iterable[Mapping[str, Any]], append: bool = False
) -> int:
    """Write ``records`` one per line to ``path`` (a new file, or added at its end with
    ``append``); returns how many were written."""
    count = 0
    with Path(path).open("a" if append else "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, separators=(",", ":")) + "\n")
            count += 1
    return count


def append_record(path: str | Path, record: Mapping[str, Any]) -> None:
    """Add one record at the end of ``path`` (created if missing)."""
    write_records(path, [record], append=True)


def iter_records(path: str | Path, check: bool = True) -> Iterator[dict[str, Any]]:
    """The records of a JSON Lines file in order, each checked (replay included) unless
    ``check`` is false; blank lines are skipped."""
    with Path(path).open(encoding="utf-8") as lines:
        for number, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as error:
                raise RecordError(f"not JSON: {error}", line=number) from None
            if check:
                validate_record(record, number)
            yield record


def read_records(path: str | Path, check: bool = True) -> list[dict[str, Any]]:
    """Every record of a JSON Lines file, checked as [`iter_records`][] does."""
    return list(iter_records(path, check))


# -- checking and replaying -----------------------------------------------------------------------
def validate_record(record: Any, line: int | None = None) -> None:
    """Raise [`RecordError`][] naming ``line`` and the field if ``record`` is not a record
    of a game that replays: every field's type, the options, the deal, each action's legality,
    and the rewards and scores the replay ends with."""
    env, rewards = _replayed(record, None, line)
    _check_totals(record, env, rewards, line)


def replay(record: Mapping[str, Any], seed: int | None = None) -> CardEnv:
    """The recorded game replayed to its last action on a fresh env (reset with ``seed``,
    which changes nothing: the deal holds every chance outcome)."""
    return _replayed(record, seed, None)[0]


def steps(record: Mapping[str, Any], seed: int | None = None) -> Iterator[RecordStep]:
    """Each decision of the recorded game in order, with every seat's observation and mask
    at that point and the live env before the action (see [`RecordStep`][]). An action
    that cannot be played raises [`RecordError`][] before its step is yielded."""
    env = start(record, seed)
    names = env.game.actions.names
    for index, action in enumerate(record["actions"]):
        if not env.agents:
            play_action(env, action, index)  # raises the RecordError: the game is over
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        seen = [env.observe(a) for a in env.possible_agents]
        if not 0 <= action < len(names) or not seen[seat]["action_mask"][action]:
            play_action(env, action, index)  # raises the RecordError saying why
        yield RecordStep(
            index=index,
            agent=agent,
            seat=seat,
            action=int(action),
            action_name=names[action],
            observations=tuple(s["observation"] for s in seen),
            masks=tuple(s["action_mask"] for s in seen),
            env=env,
        )
        play_action(env, action, index)


def _replayed(record: Any, seed: int | None, line: int | None) -> tuple[CardEnv, dict[str, float]]:
    """The env after every recorded action, and each agent's total reward along the way."""
    env = start(record, seed, line)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for index, action in enumerate(record["actions"]):
        for agent, reward in play_action(env, action, index, line).items():
            totals[agent] += reward
    return env, totals


def start(record: Any, seed: int | None = None, line: int | None = None) -> CardEnv:
    """A fresh env of the record's game, dealt the record's deal, before its first action;
    every field's shape checked (not yet the actions' legality: [`play_action`][])."""
    _check_fields(record, line)
    try:
        env = make(record["env"], **record["options"])
    except Exception as error:  # a constructor that cannot take the options: name the field
        raise RecordError(f"{type(error).__name__}: {error}", "options", line) from None
    _check_seats(record, env, line)
    try:
        env.reset(seed=seed, options={"deal": record["deal"]})
    except Exception as error:  # any failure to deal is the deal's fault: name the field
        raise RecordError(f"{type(error).__name__}: {error}", "deal", line) from None
    return env


def play_action(env: CardEnv, action: Any, index: int, line: int | None = None) -> dict[str, float]:
    """Step the ``index``-th recorded action (a [`RecordError`][] if it cannot be played),
    then every dead step after it (the end of the game); returns the rewards the action handed
    out (the dead steps clear them)."""
    if not env.agents:
        raise RecordError(f"step {index}: the game was over after {index} actions", "actions", line)
    try:
        env.step(action)
    except (TypeError, ValueError) as error:
        raise RecordError(f"step {index}: {error}", "actions", line) from None
    rewards = dict(env.rewards)
    while env.agents and (
        env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
    ):
        env.step(None)
    return rewards


def _check_fields(record: Any, line: int | None) -> None:
    """Each field present, of its type, before anything is built from it."""
    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, got {type(record).__name__}", None, line)
    missing = [name for name in FIELDS if name not in record]
    if missing:
        raise RecordError(f"missing; a record has {list(FIELDS)}", missing[0], line)
    unknown = sorted(set(record) - set(FIELDS) - set(OPTIONAL_FIELDS))
    if unknown:
        raise RecordError(f"unknown field; fields: {[*FIELDS, *OPTIONAL_FIELDS]}", unknown[0], line)
    if record["format"] != FORMAT:
        raise RecordError(f"is {record['format']!r}; this reads {FORMAT!r}", "format", line)
    if record["env"] not in env_names():
        raise RecordError(f"unknown env {record['env']!r}; envs: {env_names()}", "env", line)
    _expect(record, "options", dict, line)
    _expect(record, "deal", dict, line)
    _expect(record, "actions", list, line)
    _expect(record, "agents", list, line)
    _expect(record, "rewards", dict, line)
    _expect(record, "scores", list, line)
    if "info" in record:
        _expect(record, "info", dict, line)
    if "render_mode" in record["options"]:
        raise RecordError("render_mode is not a game option", "options", line)
    for index, action in enumerate(record["actions"]):
        if not _is_int(action):
            raise RecordError(f"step {index}: {action!r} is not an action id", "actions", line)
    if not all(isinstance(kind, str) for kind in record["agents"]):
        raise RecordError("every seat's agent is a string", "agents", line)
    seed = record["seed"]
    if seed is not None and not (_is_int(seed) and seed >= 0):
        raise RecordError(f"{seed!r} is not an integer >= 0 or null", "seed", line)


def _check_seats(record: Mapping[str, Any], env: CardEnv, line: int | None) -> None:
    """The per-seat fields name every seat of the env the options built, and nothing else."""
    seats = len(env.possible_agents)
    if len(record["agents"]) != seats:
        raise RecordError(
            f"names {len(record['agents'])} seats; the game has {seats}", "agents", line
        )
    if sorted(record["rewards"]) != sorted(env.possible_agents):
        raise RecordError(
            f"keys are {sorted(record['rewards'])}; want {env.possible_agents}", "rewards", line
        )
    if not all(_is_number(v) for v in record["rewards"].values()):
        raise RecordError("every reward is a number", "rewards", line)
    if len(record["scores"]) != seats or not all(map(_is_number, record["scores"])):
        raise RecordError(f"is not {seats} numbers, one per seat", "scores", line)


def _check_totals(
    record: Mapping[str, Any], env: CardEnv, rewards: dict[str, float], line: int | None
) -> None:
    """The recorded rewards and scores are the replay's."""
    for agent, total in rewards.items():
        if not math.isclose(record["rewards"][agent], total, abs_tol=REWARD_TOLERANCE):
            raise RecordError(
                f"{agent} has {record['rewards'][agent]}; the replay gives {total}", "rewards", line
            )
    replayed = [float(s) for s in env.game.scores(env.game_state)]
    if not all(
        math.isclose(a, b, abs_tol=REWARD_TOLERANCE)
        for a, b in zip(record["scores"], replayed, strict=True)
    ):
        raise RecordError(f"are {record['scores']}; the replay gives {replayed}", "scores", line)


def _expect(record: Mapping[str, Any], field: str, kind: type, line: int | None) -> None:
    if not isinstance(record[field], kind):
        json_name = "an object" if kind is dict else "an array"
        raise RecordError(f"must be {json_name}, got {type(record[field]).__name__}", field, line)


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)
