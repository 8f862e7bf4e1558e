"""OpenSpiel's Python IS-MCTS against this library's ``ismcts``, head to head at one table.

Each game seats OpenSpiel's ``ISMCTSBot`` (random-rollout evaluator, through the OpenSpiel game
of :mod:`card_envs.openspiel`) and the library's ``ismcts`` agent at the same number of
iterations, one seat each, and the game's heuristic in the other seats. The AEC env deals from
the game's seed; the ordered pair of seats the two searchers take cycles game by game, so over
a multiple of ``n (n - 1)`` games each takes every seat against every seat of the other. Both
searchers' time per move is CPU time of the process, so it holds on a shared machine.

    python -m card_envs.tools.versus seamless_v0 --games 200 --workers 2 --json out.json
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from card_envs import make
from card_envs.agents import make_agent
from card_envs.agents.match import decisions
from card_envs.core.extras import require
from card_envs.openspiel import load
from card_envs.tools.stats import wilson_interval

with require("openspiel"):
    from open_spiel.python.algorithms import ismcts, mcts

SIDES = ("openspiel", "library")
CHUNK = 2  # games a worker plays per job


@dataclass
class Tally:
    """One side's results: its share of the wins (a shared win counts 1/k), its summed env
    rewards, and its moves with their CPU time."""

    wins: float = 0.0
    reward: float = 0.0
    moves: int = 0
    seconds: float = 0.0

    def add(self, other: Tally) -> None:
        for name in ("wins", "reward", "moves", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Result:
    """Both sides' tallies over ``games`` games."""

    games: int = 0
    sides: dict[str, Tally] = field(default_factory=lambda: {side: Tally() for side in SIDES})

    def add(self, other: Result) -> None:
        self.games += other.games
        for side in SIDES:
            self.sides[side].add(other.sides[side])

    def summary(self) -> dict[str, Any]:
        """Per side: win share with its 95% Wilson interval, mean reward, moves and CPU
        milliseconds per move."""
        return {
            side: {
                "win_share": tally.wins / max(self.games, 1),
                "win_interval": list(wilson_interval(tally.wins, self.games)),
                "mean_reward": tally.reward / max(self.games, 1),
                "moves": tally.moves,
                "ms_per_move": 1000 * tally.seconds / max(tally.moves, 1),
            }
            for side, tally in self.sides.items()
        } | {"games": self.games}


def seats(game: int, num_players: int) -> tuple[int, int]:
    """The seats of OpenSpiel's bot and the library's agent in game ``game``: every ordered
    pair of distinct seats in turn."""
    pairs = [(a, b) for a in range(num_players) for b in range(num_players) if a != b]
    return pairs[game % len(pairs)]


def play(
    env_id: str, options: dict[str, Any], iterations: int, uct_c: float, games: Sequence[int]
) -> Result:
    """Play the games numbered ``games`` (each dealt from its number as the seed)."""
    env = make(env_id, **options)
    spiel = load(env_id, **options)
    info, rules, n = env.describe(), env.unwrapped.game, env.unwrapped.game.num_players
    result = Result()
    for number in games:
        bot_seat, agent_seat = seats(number, n)
        bot = ismcts.ISMCTSBot(
            spiel,
            mcts.RandomRolloutEvaluator(1, np.random.RandomState(number)),
            uct_c,
            iterations,
            random_state=np.random.RandomState(number + 1),
        )
        agents = {s: make_agent("heuristic", info, number * 31 + s) for s in range(n)}
        agents[agent_seat] = make_agent(f"ismcts:iterations={iterations},c={uct_c}", info, number)
        env.reset(seed=number)
        moves: list[list[int]] = [[] for _ in range(n)]
        rewards = dict.fromkeys(env.possible_agents, 0.0)
        side_of = {bot_seat: SIDES[0], agent_seat: SIDES[1]}
        played = Result(games=1)
        for name, observation in decisions(env, rewards):
            seat = env.possible_agents.index(name)
            start = time.process_time()
            if seat == bot_seat:
                action = bot.step(spiel.state_at(env.unwrapped.game_state, moves))
            else:
                action = agents[seat].act_at(env, observation)
            if seat in side_of:
                tally = played.sides[side_of[seat]]
                tally.moves += 1
                tally.seconds += time.process_time() - start
            moves[seat].append(int(action))
            env.step(int(action))
        state = env.unwrapped.game_state
        winners = rules.winners(state) if rules.is_over(state) else []
        for seat, side in side_of.items():
            played.sides[side].wins += (seat in winners) / max(len(winners), 1)
            played.sides[side].reward += rewards[env.possible_agents[seat]]
        result.add(played)
    return result


def run(
    env_id: str,
    games: int,
    iterations: int = 100,
    uct_c: float = 0.7,
    workers: int = 1,
    first: int = 0,
    **options: Any,
) -> dict[str, Any]:
    """The summary of ``games`` games numbered from ``first`` (so a long run can be split into
    blocks of whole seat rotations), shared out between ``workers``."""
    last = first + games
    jobs = [
        (env_id, options, iterations, uct_c, range(start, min(start + CHUNK, last)))
        for start in range(first, last, CHUNK)
    ]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_play_chunk, jobs))
    else:
        parts = [_play_chunk(job) for job in jobs]
    total = Result()
    for part in parts:
        total.add(part)
    return {
        "env": env_id,
        "options": options,
        "iterations": iterations,
        "first": first,
        **total.summary(),
    }


def _play_chunk(job: tuple[str, dict[str, Any], int, float, range]) -> Result:
    return play(*job)


def _option(text: str) -> tuple[str, Any]:
    name, _, value = text.partition("=")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env_id")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--uct-c", type=float, default=0.7)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, help="the first game's number")
    parser.add_argument("--option", action="append", default=[], type=_option, metavar="K=V")
    parser.add_argument("--json", help="write the summary here too")
    args = parser.parse_args(argv)
    summary = run(
        args.env_id,
        args.games,
        args.iterations,
        args.uct_c,
        args.workers,
        args.first,
        **dict(args.option),
    )
    text = json.dumps(summary, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as out:
            out.write(text + "\n")


if __name__ == "__main__":
    main()
