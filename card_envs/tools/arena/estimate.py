"""What a fixed-size run (``--episodes``) will take, said before it starts when that is long:
each agent kind's decisions timed on a few positions of heuristic games, times the decisions a
seat makes in a game, times the planned tables."""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence, Set
from dataclasses import dataclass
from typing import Any

import numpy as np

from card_envs.agents import Agent, agent_kinds, make_agent
from card_envs.agents.match import decisions
from card_envs.core.env import CardEnv, EnvInfo
from card_envs.registry import make
from card_envs.tools.arena.jobs import Job
from card_envs.tools.arena.progress import clock_text, clock_text_fine, plural
from card_envs.tools.arena.tasks import HEURISTIC, RANDOM

# A run estimated to take longer than this says so before it starts, from SAMPLE_DECISIONS
# timed decisions of each agent on positions of SAMPLE_GAMES games.
LONG_RUN_SECONDS = 10.0
SAMPLE_DECISIONS = 8
SAMPLE_GAMES = 4


@dataclass(frozen=True)
class Estimate:
    """What a fixed-size job will cost: CPU seconds per decision of each agent kind, timed on
    positions of one game, and the decisions a seat makes in that game."""

    per_decision: dict[str, float]
    per_seat: float

    @classmethod
    def of(cls, job: Job, trust: bool = False) -> Estimate:
        env = make(job.env_name, num_players=job.num_players)
        info = env.describe()
        positions, per_seat = sample_positions(env, info, trust)
        kinds = sorted({name for lineup in job.lineups for name in lineup.names})
        return cls(
            {k: decision_seconds(make_agent(k, info, 0, trust=trust), positions) for k in kinds},
            per_seat,
        )

    def seconds(self, job: Job) -> float:
        """CPU seconds of the job's planned tables."""
        return sum(
            deals * self.per_seat * sum(self.per_decision[lineup.names[e]] for e in seating)
            for deals, lineup in zip(job.deals, job.lineups, strict=True)
            for seating in lineup.tables
        )


def sample_positions(
    env: CardEnv, info: EnvInfo, trust: bool = False
) -> tuple[list[tuple[CardEnv, Any]], float]:
    """Copies of :data:`SAMPLE_GAMES` seeded games at :data:`SAMPLE_DECISIONS` + 1 of their
    decisions with a choice, spread over them, and the decisions per seat they took (played by
    the heuristic where the game has one: cheap, and near the length of real games). A forced
    move costs any agent little, so none is sampled (the estimate errs long).

    The games are played twice, the second time copying only the picked positions: a copy of
    an env can be dear (a game's caches come along), and every decision's would add up to
    minutes and gigabytes."""
    kind = HEURISTIC if HEURISTIC in agent_kinds(info) else RANDOM
    _, choices, count = walk_games(env, make_agent(kind, info, 0, trust=trust))
    picks = np.linspace(0, choices - 1, SAMPLE_DECISIONS + 1).round().astype(int)
    positions, _, _ = walk_games(env, make_agent(kind, info, 0, trust=trust), set(picks))
    return positions, count / SAMPLE_GAMES / info.num_players


def walk_games(
    env: CardEnv, agent: Agent, keep: Set[int] = frozenset()
) -> tuple[list[tuple[CardEnv, Any]], int, int]:
    """``agent`` in every seat of :data:`SAMPLE_GAMES` seeded games: copies at the decisions
    with a choice whose numbers (from 0, over all the games) are in ``keep``, and the counts of
    decisions with a choice and of all decisions."""
    kept, choices, count = [], 0, 0
    for seed in range(SAMPLE_GAMES):
        env.reset(seed=seed)
        for _, observation in decisions(env):
            count += 1
            if observation["action_mask"].sum() > 1:
                if choices in keep:
                    kept.append((copy.deepcopy(env), observation))
                choices += 1
            env.step(agent.act_at(env, observation))
    return kept, choices, count


def decision_seconds(agent: Agent, positions: Sequence[tuple[CardEnv, Any]]) -> float:
    """The mean CPU seconds of ``agent``'s decisions at ``positions``, the first a warm-up
    (a trained agent's first forward pass, a cache filled)."""
    times = []
    for env, observation in positions:
        table = copy.deepcopy(env)
        started = time.process_time()
        agent.act_at(table, observation)
        times.append(time.process_time() - started)
    return float(np.mean(times[1:] or times))


def long_run_note(jobs: Sequence[Job], workers: int, trust: bool = False) -> str | None:
    """The line saying how long the planned tables of ``jobs`` will take on ``workers``, when
    that is longer than :data:`LONG_RUN_SECONDS` (else ``None``)."""
    costs: dict[str, float] = {}
    seconds = 0.0
    for job in jobs:
        estimate = Estimate.of(job, trust)
        costs |= estimate.per_decision
        seconds += estimate.seconds(job) / workers
    if seconds <= LONG_RUN_SECONDS:
        return None
    dearest = max(costs.values())
    dear = ", ".join(
        f"{kind} {clock_text_fine(c)} a decision"
        for kind, c in sorted(costs.items(), key=lambda kc: -kc[1])
        if c > dearest / 10
    )
    return (
        f"arena: about {clock_text(seconds)} to play on "
        f"{plural(workers, 'worker')} with the cores to themselves, "
        f"estimated from a few timed decisions ({dear}); Ctrl-C stops"
    )
