"""Playing one table, in a worker process or this one: the env and agents are built once per
process and reseeded for every game, so a table depends on nothing but its task."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from card_envs.agents import Agent, make_agent
from card_envs.agents.match import GameResult, play_game
from card_envs.core.env import CardEnv
from card_envs.evaluation.adjust import with_luck
from card_envs.records import record_game
from card_envs.registry import make
from card_envs.tools.arena.tasks import Task

_ENVS: dict[tuple[str, int], CardEnv] = {}
_AGENTS: dict[tuple[str, int, str, int, bool], Agent] = {}


@dataclass(frozen=True)
class Played:
    """A table's result and the CPU seconds it took: its play, and in all (building the env and
    agents the first time, imports included)."""

    result: GameResult
    play: float
    total: float
    record: dict[str, Any] | None = None


def _env(name: str, num_players: int) -> CardEnv:
    key = (name, num_players)
    if key not in _ENVS:
        _ENVS[key] = make(name, num_players=num_players)
    return _ENVS[key]


def _agent(env: CardEnv, kind: str, copy: int, trust: bool) -> Agent:
    """The ``copy``-th agent of a kind at a table: built once, reseeded every game by ``reset``.

    Agents do not know their seat (observations are seat-relative), so a table with one ``ppo``
    loads one, whichever seat it sits in.
    """
    key = (env.metadata["name"], env.game.num_players, kind, copy, trust)
    if key not in _AGENTS:
        _AGENTS[key] = make_agent(kind, env.describe(), trust=trust)
    return _AGENTS[key]


def seat_table(task: Task) -> tuple[CardEnv, list[Agent]]:
    """The env and the agent in each seat of ``task``, reseeded for its game (built once per
    process), as the arena plays them."""
    env = _env(task.env_name, task.num_players)
    agents = [
        _agent(env, kind, task.kinds[:seat].count(kind), task.trust)
        for seat, kind in enumerate(task.kinds)
    ]
    for agent, seed in zip(agents, task.agent_seeds, strict=True):
        agent.reset(seed)
    return env, agents


def play(task: Task) -> GameResult:
    """Play one table to the end; depends on nothing but ``task``."""
    return play_timed(task).result


def play_timed(task: Task) -> Played:
    """One table, timed; depends on nothing but ``task``."""
    started = time.process_time()
    env, agents = seat_table(task)
    actions: list[int] = []
    on_move = (lambda _agent, action: actions.append(action)) if task.record or task.luck else None
    playing = time.process_time()
    result = play_game(env, agents, seed=task.deal_seed, on_move=on_move)
    ended = time.process_time()
    if task.luck:
        result = with_luck(env, result, actions, task.kinds, task.deal_seed)
    record = record_game(env, actions, task.kinds, task.deal_seed) if task.record else None
    return Played(result, ended - playing, time.process_time() - started, record)
