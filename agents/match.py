"""The one AEC play loop ([`decisions`][]) and whole games with one agent per seat
([`play_game`][]), shared by the arena, the bench, human play, training, the demo and tests;
the seeds a table's deal and agents derive from ([`derived_seed`][]), and a move named as far as
a seat can tell it ([`seen_move`][]), for the arena, human play, replays and the browser table."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pettingzoo import AECEnv

from card_envs import make
from card_envs.agents.base import Agent
from card_envs.agents.pool import in_processes
from card_envs.core.env import CardEnv
from card_envs.core.game import Game

Observation = dict[str, np.ndarray]
NAMED_ALTERNATIVES = 3  # a hidden move is named as "a or b or c" up to this many candidates


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


def derived_seed(*keys: int) -> int:
    """A 32-bit seed drawn from ``keys`` by ``numpy.random.SeedSequence`` (independent streams)."""
    return int(np.random.SeedSequence(list(keys)).generate_state(1)[0])


def seen_move(game: Game, state: Any, viewer: int, action: int) -> str:
    """``action``, about to be played from ``state``, as ``viewer`` can tell it: its name, or the
    legal moves its view after the move does not tell apart (``place left or place right (you
    cannot tell which)``), or for more of them their blocks (``one of 12 spell moves ...``).

    Each legal move is tried on a copy with the same generator, so chance draws agree; the moves
    whose redrawn view equals the played one's are those the viewer cannot tell from it.
    """
    return alike_text(game, action, alike_moves(game, state, [viewer], action))


def public_move(game: Game, state: Any, action: int) -> str:
    """``action`` as someone who sees only what every seat sees (a spectator) can tell it: the
    legal moves that any seat but the mover cannot tell from it are not told apart."""
    mover = game.current_player(state)
    viewers = [seat for seat in range(game.num_players) if seat != mover] or [mover]
    return alike_text(game, action, alike_moves(game, state, viewers, action))


def alike_moves(game: Game, state: Any, viewers: Sequence[int], action: int) -> list[int]:
    """The legal moves some seat of ``viewers`` cannot tell from ``action`` by its view after."""
    legal = game.legal_actions(state)
    if len(legal) == 1:
        return legal
    after = {}
    for move in legal:
        after[move] = game.clone(state)
        game.apply(after[move], move, np.random.default_rng(0))
    alike = {action}
    for viewer in viewers:
        seen = game.render_seat(after[action], viewer)
        alike |= {m for m in legal if m not in alike and game.render_seat(after[m], viewer) == seen}
    return sorted(alike)


def alike_text(game: Game, action: int, alike: Sequence[int]) -> str:
    """A move named as far as it can be told from ``alike`` (the moves not told apart)."""
    names = game.actions.names
    if len(alike) == 1:
        return names[action]
    if len(alike) <= NAMED_ALTERNATIVES:
        return " or ".join(names[a] for a in alike) + " (you cannot tell which)"
    kinds = " or ".join(dict.fromkeys(game.actions.decoded[a][0] for a in alike))
    return f"one of {len(alike)} {kinds} moves (you cannot tell which)"
