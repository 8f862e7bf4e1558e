"""Self-play training speed beside the engine's: :func:`measure` (``card-envs bench --training``).

python -m card_envs.training.selfplay_bench --game all --seconds 10
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

from card_envs import make
from card_envs.agents.match import play_aec_game
from card_envs.core.extras import require
from card_envs.registry import env_names
from card_envs.training.config import SelfPlayConfig, default_config
from card_envs.training.selfplay_ppo import SelfPlayTrainer

with require("train"):
    import torch


def measure(game: str, players: int | None = None, seconds: float = 10.0) -> dict[str, Any]:
    """Random-play AEC steps/s and self-play training env steps/s of ``game`` at ``players``
    (default: the game's), measured in one run on one torch thread, per CPU second.

    ``aec_steps_per_s``: whole games of uniformly random legal moves through the AEC loop
    (:func:`card_envs.agents.match.decisions`), timed for half of ``seconds`` before the training
    and half after, so a change in the machine's load reaches both figures.
    ``train_steps_per_s``: every seat's decisions at every table of a
    :class:`~card_envs.training.selfplay_ppo.SelfPlayTrainer` at the training defaults, over
    whole cycles of collection and update (at least two, after one untimed cycle), with one
    snapshot in the pool as in a run past its first snapshot.
    Returns ``{"game", "players", "aec_steps_per_s", "train_steps_per_s"}``."""
    config = default_config(game, players)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        before = aec_steps_per_s(game, config.num_players, seconds / 2)
        train = train_steps_per_s(config, seconds)
        after = aec_steps_per_s(game, config.num_players, seconds / 2)
    finally:
        torch.set_num_threads(threads)
    return {
        "game": game,
        "players": config.num_players,
        "aec_steps_per_s": round((before + after) / 2),
        "train_steps_per_s": round(train),
    }


def aec_steps_per_s(game: str, players: int, seconds: float) -> float:
    """Agent-steps per CPU second of random legal play, whole games until ``seconds``."""
    env, rand = make(game, num_players=players), random.Random(0)
    steps, seed = 0, 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        env.reset(seed=seed)
        seed += 1
        steps += play_aec_game(env, rand)
    return steps / (time.process_time() - started)


def train_steps_per_s(config: SelfPlayConfig, seconds: float) -> float:
    """Env steps per CPU second of self-play training cycles (collection and update)."""
    trainer = SelfPlayTrainer(config)
    trainer.collector.add_snapshot(trainer.policy)
    trainer.cycle()  # untimed: first calls, and the tables' games under way
    steps, cycles = 0, 0
    started = time.process_time()
    while cycles < 2 or time.process_time() - started < seconds:
        steps += int(trainer.cycle()["env_steps"])
        cycles += 1
    return steps / (time.process_time() - started)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="all", choices=[*env_names(), "all"])
    parser.add_argument("--players", type=int, default=None, help="default: each game's")
    parser.add_argument("--seconds", type=float, default=10.0, help="CPU seconds per game")
    args = parser.parse_args(argv)
    rows = []
    for game in env_names() if args.game == "all" else [args.game]:
        rows.append(measure(game, args.players, args.seconds))
        row = rows[-1]
        print(
            json.dumps(
                {**row, "ratio": round(row["train_steps_per_s"] / row["aec_steps_per_s"], 3)}
            )
        )
    return rows


if __name__ == "__main__":
    main()
