"""Whole games with one agent per seat: the loop shared by the arena, training, demo and tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agents.base import Agent
from card_envs import make
from card_envs.core.env import CardEnv


@dataclass(frozen=True)
class GameResult:
    """How a game ended: ``winners`` is empty when a cap truncated it."""

    winners: tuple[int, ...]
    scores: tuple[float, ...]
    rewards: tuple[float, ...]  # what each seat received through ``last()``
    steps: int


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
    rewards = [0.0] * len(agents)
    steps = 0
    for name in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        seat = seat_of[name]
        rewards[seat] += reward
        if terminated or truncated:
            env.step(None)
            continue
        action = agents[seat].act(observation)
        if on_move is not None:
            on_move(name, action)
        env.step(action)
        steps += 1
    game, state = env.game, env.game_state
    winners = tuple(game.winners(state)) if game.is_over(state) else ()
    return GameResult(winners, tuple(float(s) for s in game.scores(state)), tuple(rewards), steps)


def win_share(
    env_name: str,
    num_players: int,
    kind: str | Callable[[Any, int], Agent],
    opponent: str = "random",
    games: int = 100,
    first_seed: int = 0,
    **options: Any,
) -> float:
    """Win share of ``kind`` in one seat (rotated game by game) against ``opponent`` in the
    others, on deals seeded ``first_seed`` onwards; a shared win counts 1/k, a truncated game 0."""
    from agents import make_agent

    env = make(env_name, num_players=num_players, **options)
    info = env.describe()
    share = 0.0
    for game in range(first_seed, first_seed + games):
        seat = game % num_players
        agents = [
            (make_agent(kind, info, game * 31 + s) if isinstance(kind, str) else kind(info, s))
            if s == seat
            else make_agent(opponent, info, game * 31 + s)
            for s in range(num_players)
        ]
        winners = play_game(env, agents, seed=game).winners
        share += (seat in winners) / max(len(winners), 1)
    return share / games
