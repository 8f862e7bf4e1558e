"""The one AEC play loop ([`decisions`][]) and whole games with one agent per seat
([`play_game`][]), shared by the arena, the bench, human play, training, the demo and tests."""

from __future__ import annotations

import functools
import multiprocessing
import os
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.pool import Pool
from typing import Any, TypeVar

import numpy as np
from pettingzoo import AECEnv

from card_envs import make
from card_envs.agents.base import Agent
from card_envs.core.env import CardEnv
from card_envs.registry import registrations, restore

Observation = dict[str, np.ndarray]
Item = TypeVar("Item")
Result = TypeVar("Result")


@dataclass(frozen=True)
class GameResult:
    """How a game ended: ``winners`` is empty when a cap truncated it."""

    winners: tuple[int, ...]
    scores: tuple[float, ...]
    rewards: tuple[float, ...]  # what each seat received through ``last()``
    steps: int


def decisions(
    env: AECEnv,
    rewards: dict[str, float] | None = None,
    observe: Callable[[str], Observation] | None = None,
) -> Iterator[tuple[str, Observation]]:
    """The decisions of the game in progress on ``env``, in turn order: yields ``(agent,
    observation)`` for each move, and the caller steps ``env`` with its action before asking for
    the next. Seats that have finished are stepped with ``None`` here, so a caller sees only
    live decisions. With ``rewards``, every reward ``last()`` hands out (finished seats'
    included) is added to ``rewards[agent]``. ``observe(agent)`` makes the observation
    (default ``env.observe``)."""
    observe = env.observe if observe is None else observe
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last(observe=False)
        if rewards is not None:
            rewards[agent] = rewards.get(agent, 0.0) + reward
        if terminated or truncated:
            env.step(None)
            continue
        yield agent, observe(agent)


def play_aec_game(env: AECEnv, rand: random.Random) -> int:
    """The rest of the game in progress on ``env``, uniformly random legal moves drawn from
    ``rand`` through [`decisions`][]: the benchmarks' random play (one policy for every env,
    PettingZoo's references included); returns agent-steps. The int8 mask (every env's, the
    references' too) is read as bool: the same legal ids, 2-3x faster on a long mask."""
    steps = 0
    for _agent, observation in decisions(env):
        legal = np.flatnonzero(observation["action_mask"].view(bool))
        env.step(int(legal[rand.randrange(len(legal))]))
        steps += 1
    return steps


def play_game(
    env: CardEnv,
    agents: Sequence[Agent],
    seed: int | None = None,
    on_move: Callable[[str, int], None] | None = None,
) -> GameResult:
    """Reset ``env`` with ``seed`` and play to the end, ``agents[i]`` in seat ``i``;
    ``on_move(agent, action)`` runs before each move."""
    env.reset(seed=seed)
    seat_of = {name: seat for seat, name in enumerate(env.possible_agents)}
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0

    def observe(name: str) -> Observation:
        return env.observe(name, derived=agents[seat_of[name]].reads_derived)

    for name, observation in decisions(env, rewards, observe):
        action = agents[seat_of[name]].act_at(env, observation)
        if on_move is not None:
            on_move(name, action)
        env.step(action)
        steps += 1
    game, state = env.game, env.game_state
    winners = tuple(game.winners(state)) if game.is_over(state) else ()
    scores = tuple(float(s) for s in game.scores(state))
    return GameResult(winners, scores, tuple(rewards[name] for name in env.possible_agents), steps)


def win_share(
    env_name: str,
    num_players: int,
    kind: str | Callable[[Any, int], Agent],
    opponent: str = "random",
    games: int = 100,
    first_seed: int = 0,
    workers: int = 1,
    **options: Any,
) -> float:
    """Win share of ``kind`` in one seat (rotated game by game) against ``opponent`` in the
    others, on deals seeded ``first_seed`` onwards; a shared win counts 1/k, a truncated game 0.
    With ``workers`` the games are shared out between processes (``kind`` must pickle) and the
    share is the same bit for bit."""
    deals = range(first_seed, first_seed + games)
    chunks = [deals[start : start + 10] for start in range(0, games, 10)]
    job = functools.partial(_seat_shares, env_name, num_players, kind, opponent, options)
    shares = [share for part in in_processes(job, chunks, workers) for share in part]
    return sum(shares, 0.0) / games


def _seat_shares(
    env_name: str,
    num_players: int,
    kind: str | Callable[[Any, int], Agent],
    opponent: str,
    options: dict[str, Any],
    deals: range,
) -> list[float]:
    """What ``kind``'s seat won on each of ``deals`` (``win_share``'s games)."""
    from card_envs.agents import make_agent

    env = make(env_name, num_players=num_players, **options)
    info = env.describe()
    shares = []
    for game in deals:
        seat = game % num_players
        agents = [
            (make_agent(kind, info, game * 31 + s) if isinstance(kind, str) else kind(info, s))
            if s == seat
            else make_agent(opponent, info, game * 31 + s)
            for s in range(num_players)
        ]
        winners = play_game(env, agents, seed=game).winners
        shares.append((seat in winners) / max(len(winners), 1))
    return shares


def in_processes(
    function: Callable[[Item], Result], items: Iterable[Item], workers: int = 1
) -> Iterator[Result]:
    """``function`` over ``items``, results in order: here with ``workers`` 1, else in that many
    processes (``function`` and the items must pickle), each with one torch thread."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if workers == 1:
        yield from map(function, items)
        return
    with process_pool(workers) as pool:
        yield from pool.imap(function, items)


def process_pool(workers: int) -> Pool:
    """A pool of ``workers`` processes started from a fresh server (no inherited torch
    threads), each on one thread: a game's forward passes are tiny and threads only contend."""
    context = multiprocessing.get_context("forkserver")
    return context.Pool(workers, initializer=start_worker, initargs=(registrations(),))


def start_worker(registered: dict[str, Any]) -> None:
    """Runs first in each worker process: one thread (before any import of torch or numpy's
    BLAS can start more), and the envs registered in the parent (:func:`registrations`)."""
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    restore(registered)
