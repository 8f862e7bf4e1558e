"""Data sets from game records: one row per decision, as numpy arrays, for behaviour cloning
and offline RL. Arrays, dtypes and what ``reward`` and ``return_to_go`` mean:
``docs/records.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from card_envs.core.spec import OBS_DTYPE
from card_envs.records import RecordError, play_action, start

# Every array a data set holds, with its dtype; observation and mask are 2-D (rows, size).
DTYPES: dict[str, Any] = {
    "observation": OBS_DTYPE,
    "mask": np.int8,
    "action": np.int64,
    "seat": np.int8,
    "reward": np.float32,
    "return_to_go": np.float32,
    "done": np.bool_,
    "terminal": np.bool_,
    "game": np.int32,
    "step": np.int32,
}


def build_dataset(
    records: Iterable[Mapping[str, Any]], gamma: float = 1.0
) -> dict[str, np.ndarray]:
    """One row per decision of every record, in order: the acting seat's observation and mask,
    its action, the reward it received up to its next decision and the discounted return from
    this decision to the end. The records must share env and options (one observation size)."""
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must be in [0, 1], got {gamma}")
    columns: dict[str, list[Any]] = {name: [] for name in DTYPES}
    game_key = None
    for number, record in enumerate(records):
        key = (record.get("env"), record.get("options")) if isinstance(record, Mapping) else None
        if game_key is None:
            game_key = key
        elif key != game_key:
            raise RecordError(
                f"record {number} is {key}, the first {game_key}: one game per data set",
                "options",
            )
        _add_game(columns, record, number, gamma)
    if game_key is None:
        raise ValueError("no records: a data set needs at least one game")
    return {name: np.asarray(values, DTYPES[name]) for name, values in columns.items()}


def _add_game(
    columns: dict[str, list[Any]], record: Mapping[str, Any], number: int, gamma: float
) -> None:
    """Replay one record and add a row per decision to ``columns``."""
    env = start(record)
    rows: list[dict[str, Any]] = []
    last_row: dict[int, dict[str, Any]] = {}  # each seat's latest decision, which rewards go to
    for index, action in enumerate(record["actions"]):
        if not env.agents:
            play_action(env, action, index)  # raises the RecordError: the game is over
        seat = env.possible_agents.index(env.agent_selection)
        seen = env.observe(env.agent_selection)
        rewards = play_action(env, action, index)  # checks the action before the row is kept
        row = {"observation": seen["observation"], "mask": seen["action_mask"], "seat": seat}
        row.update(action=int(action), reward=0.0, game=number, step=index)
        rows.append(row)
        last_row[seat] = row
        for agent, reward in rewards.items():
            earner = last_row.get(env.possible_agents.index(agent))
            if earner is not None:  # before a seat's first decision, a reward is no choice's
                earner["reward"] += reward
    over = env.game.is_over(env.game_state)
    future = dict.fromkeys(range(len(env.possible_agents)), 0.0)
    for row in reversed(rows):
        seat = row["seat"]
        row["done"] = row is last_row[seat]
        row["terminal"] = row["done"] and over
        future[seat] = row["reward"] + gamma * future[seat]
        row["return_to_go"] = future[seat]
    for row in rows:
        for name, value in row.items():
            columns[name].append(value)
