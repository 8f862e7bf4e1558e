"""The timed loops: random legal play through the AEC loop, on the rules alone and on the rules
with an agent's observation, resets, peak memory, each built-in heuristic's decisions, and
where the time goes (cProfile). Every figure is CPU time of this process."""

from __future__ import annotations

import cProfile
import io
import pstats
import random
import time
import tracemalloc
from collections.abc import Callable

import numpy as np
from pettingzoo import AECEnv

from card_envs.agents.base import Agent
from card_envs.agents.builtin import builtin_kinds, make_builtin
from card_envs.agents.match import decisions, play_aec_game
from card_envs.core.env import EnvInfo
from card_envs.registry import make
from card_envs.tools.bench.results import DecisionTimes, Measurement

DEFAULT_SECONDS = 1.0  # per timed measurement (AEC loop, rules only, each heuristic)
RESET_SHARE = 0.2  # of DEFAULT_SECONDS spent timing resets
SEED = 0


def time_games(play_one: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Run whole games until ``seconds`` of CPU time have passed (at least one game);
    (steps/s, games/s)."""
    steps = games = 0
    start = time.process_time()
    while True:
        steps += play_one()
        games += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return steps / elapsed, games / elapsed


def aec_speed(env: AECEnv, seconds: float) -> tuple[float, float]:
    """(agent-steps/s, games/s) of random play; one seeded reset, then unseeded ones."""
    rand = random.Random(SEED)
    env.reset(seed=SEED)

    def one() -> int:
        env.reset()
        return play_aec_game(env, rand)

    return time_games(one, seconds)


def rules_speed(env: AECEnv, seconds: float) -> float:
    """Steps/s of random play on the game's rules alone, without observations or the env."""
    game, rand, rng = env.game, random.Random(SEED), np.random.default_rng(SEED)

    def one() -> int:
        state = game.new_game(rng)
        steps = 0
        while not (game.is_over(state) or game.is_truncated(state)):
            legal = game.legal_actions(state)
            game.apply(state, legal[rand.randrange(len(legal))], rng)
            steps += 1
        return steps

    return time_games(one, seconds)[0]


def rules_observed_speed(env: AECEnv, seconds: float) -> float:
    """Steps/s of the rules with what an agent needs at every decision and nothing of the env:
    ``legal_mask``, ``Encoding.observe`` for the seat to act, a uniformly random legal id drawn
    from the mask as in the AEC loop, ``apply``."""
    game, encoding = env.game, env.encoding
    rand, rng = random.Random(SEED), np.random.default_rng(SEED)

    def one() -> int:
        state = game.new_game(rng)
        steps = 0
        while not (game.is_over(state) or game.is_truncated(state)):
            legal = np.flatnonzero(game.legal_mask(state).view(bool))  # as play_aec_game
            encoding.observe(state, game.current_player(state))
            game.apply(state, int(legal[rand.randrange(len(legal))]), rng)
            steps += 1
        return steps

    return time_games(one, seconds)[0]


def decision_times(name: str, num_players: int, kind: str, seconds: float) -> DecisionTimes:
    """CPU time of every ``act_at`` of built-in agent ``kind`` in seeded games of ``kind`` in
    every seat (deal seeds 0, 1, ...; each seat's agent reseeded per game), whole games until
    ``seconds`` of CPU time have passed (at least one game)."""
    env = make(name, num_players=num_players)
    info = env.describe()
    agents = [builtin_agent(kind, info, SEED + seat) for seat in range(num_players)]
    seat_of = {agent: seat for seat, agent in enumerate(env.possible_agents)}
    times: list[float] = []
    games, start = 0, time.process_time()
    while games == 0 or time.process_time() - start < seconds:
        for seat, agent in enumerate(agents):
            agent.reset(games * num_players + seat)
        env.reset(seed=games)
        for name_to_act, observation in decisions(env):
            agent = agents[seat_of[name_to_act]]
            before = time.process_time()
            action = agent.act_at(env, observation)
            times.append(time.process_time() - before)
            env.step(action)
        games += 1
    micros = np.array(times) * 1e6
    return DecisionTimes(
        env=name,
        players=num_players,
        kind=kind,
        median_us=float(np.median(micros)),
        p99_us=float(np.percentile(micros, 99)),
        decisions=len(times),
        games=games,
    )


def builtin_agent(kind: str, info: EnvInfo, seed: int) -> Agent:
    """The built-in agent ``kind``, or a ``ValueError`` when the game has none of that name."""
    agent = make_builtin(kind, info, seed)
    if agent is None:
        raise ValueError(f"no built-in agent {kind!r} for {info.name}")
    return agent


def heuristic_kinds(name: str, num_players: int) -> list[str]:
    """The built-in heuristics that play this table (``builtin_kinds`` without random)."""
    info = make(name, num_players=num_players).describe()
    return [kind for kind in builtin_kinds(info) if kind != "random"]


def reset_time(env: AECEnv, seconds: float) -> float:
    """Mean microseconds of an unseeded ``reset()`` (a new deal from the env's generator)."""
    env.reset(seed=SEED)
    count, start = 0, time.process_time()
    while time.process_time() - start < seconds or count == 0:
        env.reset()
        count += 1
    return (time.process_time() - start) / count * 1e6


def peak_memory(build: Callable[[], AECEnv]) -> float:
    """Peak KiB traced by ``tracemalloc`` while building the env and playing one game."""
    tracemalloc.start()
    try:
        env = build()
        env.reset(seed=SEED)
        play_aec_game(env, random.Random(SEED))
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def measure_game(name: str, num_players: int, seconds: float) -> Measurement:
    env = make(name, num_players=num_players)
    steps, games = aec_speed(env, seconds)
    return Measurement(
        env=name,
        players=num_players,
        reference=False,
        agent_steps_per_s=steps,
        games_per_s=games,
        rules_steps_per_s=rules_speed(env, seconds),
        reset_us=reset_time(env, seconds * RESET_SHARE),
        peak_kib=peak_memory(lambda: make(name, num_players=num_players)),
        rules_observed_steps_per_s=rules_observed_speed(env, seconds),
    )


def hot_spots(run: Callable[[], object], top: int = 12) -> str:
    """cProfile of ``run()``: the ``top`` functions by own time."""
    profiler = cProfile.Profile()
    profiler.enable()
    run()
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def profile_hot_spots(
    name: str, num_players: int, seconds: float, top: int = 12, rules_only: bool = False
) -> str:
    """cProfile of random play (the AEC loop, or the rules alone): ``top`` functions by own time."""
    env = make(name, num_players=num_players)
    return hot_spots(lambda: (rules_speed if rules_only else aec_speed)(env, seconds), top)
