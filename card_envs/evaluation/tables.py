"""One table of an evaluation: a deal of the protocol played by one agent per seat, timed, and
its luck measured after it. Tables run in worker processes; each is a pure function of its
[`Table`][], so results do not depend on the workers."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from card_envs.agents import Agent, make_agent
from card_envs.agents.match import decisions
from card_envs.core.env import CardEnv
from card_envs.evaluation.luck import Luck, chance_taken, game_luck, known_policy
from card_envs.evaluation.streams import deal_streamed
from card_envs.evaluation.values import ValueEstimate, make_value
from card_envs.registry import make


@dataclass(frozen=True)
class Table:
    """Everything that decides a table's outcome and how its luck is measured."""

    env_name: str
    num_players: int
    kinds: tuple[str, ...]  # the agent kind in each seat
    deal_seed: int
    agent_seeds: tuple[int, ...]
    value: str | None = None  # the value estimate for its luck, None: not measured
    samples: int = 8
    trust: bool = False


@dataclass(frozen=True)
class TableResult:
    """A played table: each seat's win share and score, its luck, the CPU seconds of play and
    of the luck, and each seat's decisions and their CPU seconds. ``error`` names the agent that
    stopped the game (its results are then empty)."""

    table: Table
    win: tuple[float, ...] = ()
    scores: tuple[float, ...] = ()
    luck: Luck | None = None
    cpu_game: float = 0.0
    cpu_luck: float = 0.0
    decisions: tuple[int, ...] = ()
    decision_seconds: tuple[float, ...] = ()
    error: str | None = None
    steps: int = field(default=0)


_ENVS: dict[tuple[str, int], CardEnv] = {}
_AGENTS: dict[tuple[str, int, str, int, bool], Agent] = {}
_VALUES: dict[tuple[str, int, str], ValueEstimate] = {}


def table_env(env_name: str, num_players: int) -> CardEnv:
    """The process's env for this game and count (built once)."""
    key = (env_name, num_players)
    if key not in _ENVS:
        _ENVS[key] = make(env_name, num_players=num_players)
    return _ENVS[key]


def table_agents(env: CardEnv, table: Table) -> list[Agent]:
    """The agent in each seat (built once per process and kind copy), reseeded for the table."""
    agents = []
    for seat, kind in enumerate(table.kinds):
        key = (table.env_name, table.num_players, kind, table.kinds[:seat].count(kind), table.trust)
        if key not in _AGENTS:
            _AGENTS[key] = make_agent(kind, env.describe(), trust=table.trust)
        agents.append(_AGENTS[key])
    for agent, seed in zip(agents, table.agent_seeds, strict=True):
        agent.reset(seed)
    return agents


def table_value(env: CardEnv, table: Table) -> ValueEstimate:
    assert table.value is not None
    key = (table.env_name, table.num_players, table.value)
    if key not in _VALUES:
        _VALUES[key] = make_value(table.value, env)
    return _VALUES[key]


def play_table(table: Table) -> TableResult:
    """Play ``table`` to the end and measure its luck; an agent that fails (an illegal move, an
    error of its own) ends the table with ``error`` naming it."""
    env = table_env(table.env_name, table.num_players)
    agents = table_agents(env, table)
    started = time.process_time()
    seat_of = {name: seat for seat, name in enumerate(env.possible_agents)}
    spent = [0.0] * table.num_players
    made = [0] * table.num_players
    deal_streamed(env, table.deal_seed)
    actions: list[int] = []
    counts = [chance_taken(env.game_state)]
    for name, observation in decisions(env, observe=lambda a: _observe(env, agents, seat_of, a)):
        seat = seat_of[name]
        clock = time.process_time()
        try:
            action = agents[seat].act_at(env, observation)
            spent[seat] += time.process_time() - clock
            env.step(action)
        except Exception as error:  # any agent failure: named, and the run keeps what it has
            return TableResult(table, error=f"agent {table.kinds[seat]!r} in seat {seat}: {error}")
        made[seat] += 1
        actions.append(action)
        counts.append(chance_taken(env.game_state))
    game, state = env.game, env.game_state
    winners = game.winners(state) if game.is_over(state) else []
    win = tuple(1 / len(winners) if seat in winners else 0.0 for seat in range(game.num_players))
    scores = tuple(float(s) for s in game.scores(state))
    played = time.process_time()
    luck = None
    if table.value is not None:
        policies = [known_policy(kind) for kind in table.kinds]
        value = table_value(env, table)
        luck = game_luck(
            env, env.deal_record(), actions, policies, value, table.samples, table.deal_seed, counts
        )
    return TableResult(
        table,
        win,
        scores,
        luck,
        cpu_game=played - started,
        cpu_luck=time.process_time() - played,
        decisions=tuple(made),
        decision_seconds=tuple(spent),
        steps=len(actions),
    )


def _observe(env: CardEnv, agents: list[Agent], seat_of: dict[str, int], name: str) -> dict:
    """The observation an agent reads (without the derived pieces it never reads)."""
    return env.observe(name, derived=agents[seat_of[name]].reads_derived)
