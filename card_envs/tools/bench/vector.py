"""``card-envs bench --vector``: the vector env's steps/s beside the AEC loop's and the rules +
observation's, per game."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from card_envs import vector
from card_envs.registry import env_module, make
from card_envs.tools.bench.measure import SEED, aec_speed, hot_spots, rules_observed_speed
from card_envs.tools.bench.report import machine, write_json
from card_envs.tools.selection import ALL, cases, parse_players

VECTOR_TABLES = 256  # tables of card-envs bench --vector (issue 46)


ROUNDS = 5  # slices each loop of a game is timed in, taken in turn (the median slice counts)


class VectorPlay:
    """Random legal play on ``tables`` tables of ``card_envs.vector``, every table's move drawn
    at once from the masks; the tables play on from one timed slice to the next.

    Before the first slice, untimed, the tables play from the deal until each has finished a
    game. Timed from the deal, a short run would time only the start of the first game, all
    tables in the same phase, and no deal. After it, the tables are where long play puts them:
    in step where every hand lasts the same number of moves, drifting apart elsewhere."""

    def __init__(self, name: str, num_players: int, tables: int = VECTOR_TABLES):
        self.venv = vector.make(name, tables, seed=SEED, num_players=num_players)
        self.masks = self.venv.reset()[0]["action_mask"]
        self.rng = np.random.default_rng(SEED)
        finished = np.zeros(tables, bool)
        while not finished.all():
            self.venv.step(vector.random_actions(self.masks, self.rng))
            finished |= self.venv.ended

    def speed(self, seconds: float) -> float:
        """Agent-steps/s over the next ``seconds`` of CPU time."""
        venv, masks, rng, steps = self.venv, self.masks, self.rng, 0
        start = time.process_time()
        while True:
            venv.step(vector.random_actions(masks, rng))
            steps += venv.num_envs
            elapsed = time.process_time() - start
            if elapsed >= seconds:
                return steps / elapsed


def vector_speed(name: str, num_players: int, seconds: float, tables: int = VECTOR_TABLES) -> float:
    """Agent-steps/s of :class:`VectorPlay` over ``seconds`` of CPU time."""
    return VectorPlay(name, num_players, tables).speed(seconds)


def interleaved(
    loops: dict[str, Callable[[float], float]], seconds: float, rounds: int = ROUNDS
) -> dict[str, float]:
    """Each loop's median speed over ``rounds`` slices of ``seconds / rounds``, the loops
    taking turns: a burst of load on the shared machine then slows one slice of each loop,
    not one loop's whole measurement, and the ratios between them hold."""
    speeds: dict[str, list[float]] = {key: [] for key in loops}
    for _ in range(rounds):
        for key, loop in loops.items():
            speeds[key].append(loop(seconds / rounds))
    return {key: float(np.median(found)) for key, found in speeds.items()}


def one_env_per_game(todo: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """The first registered version of each game's rules: a later version with another
    observation of the same game (a variant) is left to ``--game``."""
    seen: set[type] = set()
    kept = []
    for name, num_players in todo:
        rules = env_module(name).raw_env.game_class
        if rules not in seen:
            seen.add(rules)
            kept.append((name, num_players))
    return kept


def timed_loops(name: str, num_players: int) -> dict[str, Callable[[float], float]]:
    """The three loops of a game's row, each a function of the seconds to time it for."""
    env = make(name, num_players=num_players)
    return {
        "vector_steps_per_s": VectorPlay(name, num_players).speed,
        "aec_steps_per_s": lambda seconds: aec_speed(env, seconds)[0],
        "rules_obs_steps_per_s": lambda seconds: rules_observed_speed(env, seconds),
    }


def vector_rows(
    todo: Sequence[tuple[str, int]], seconds: float, log: Callable[[str], None] = print
) -> list[dict[str, Any]]:
    """Each game's vector, AEC and rules + observation steps/s, measured in one run."""
    rows = []
    for name, num_players in todo:
        log(f"bench --vector: {name} at {num_players} players ...")
        speeds = interleaved(timed_loops(name, num_players), seconds)
        row: dict[str, Any] = {"game": name, "players": num_players, "num_envs": VECTOR_TABLES}
        rows.append(row | {key: round(speed) for key, speed in speeds.items()})
    return rows


def vector_text(rows: Sequence[dict[str, Any]]) -> str:
    """The vector figures with the two ratios the issue's bar reads."""
    lines = [
        f"{'env':24} {'players':>7} {'vector/s':>10} {'AEC/s':>10} {'rules+obs/s':>12} "
        f"{'vs AEC':>7} {'vs rules+obs':>12}"
    ]
    for row in rows:
        speed = row["vector_steps_per_s"]
        lines.append(
            f"{row['game']:24} {row['players']:>7} {speed:>10,} {row['aec_steps_per_s']:>10,} "
            f"{row['rules_obs_steps_per_s']:>12,} {speed / row['aec_steps_per_s']:>6.2f}x "
            f"{speed / row['rules_obs_steps_per_s']:>11.2f}x"
        )
    return "\n".join(lines)


def profile_vector(name: str, num_players: int, seconds: float, top: int = 12) -> str:
    """cProfile of the vector env's random play: ``top`` functions by own time."""
    return hot_spots(lambda: vector_speed(name, num_players, seconds), top)


def cmd_vector(args: argparse.Namespace) -> int:
    """``card-envs bench --vector``: the vector env's speed beside the AEC loop's, per game
    (``--game all``: each game once, at its default player count unless ``--players``)."""
    players = None if args.players == ALL else parse_players(args.players)
    todo = cases(args.game, players)
    rows = vector_rows(one_env_per_game(todo) if args.game == ALL else todo, args.seconds)
    print(vector_text(rows))
    for row in rows if args.profile else []:
        print(f"\nvector env hot spots of {row['game']} (cProfile, by own time):")
        print(profile_vector(row["game"], row["players"], args.seconds))
    if args.json:
        write_json(Path(args.json), {"machine": machine(), "seconds": args.seconds, "games": rows})
    return 0
