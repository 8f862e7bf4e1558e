"""Reports: what a finished job's tables add up to per entry (games, win share with its interval
over deals, mean score and reward, rating), for a pool or for each cell of a matrix."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from card_envs.agents.match import GameResult
from card_envs.evaluation.adjust import adjusted_share
from card_envs.tools.arena.jobs import Job
from card_envs.tools.arena.tasks import entry_labels
from card_envs.tools.stats import Ratings, deal_interval, win_ranks


@dataclass(frozen=True)
class AgentReport:
    """One arena entry's results (the JSON ``agents`` items, plus ``mu``/``sigma``)."""

    name: str
    games: int
    win_rate: float
    win_ci: tuple[float, float]
    mean_score: float
    mean_reward: float
    rating: float
    mu: float
    sigma: float
    adjusted: tuple[float, float, float] | None = None  # luck-adjusted win rate, its interval

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "games": self.games,
            "win_rate": self.win_rate,
            "win_ci": list(self.win_ci),
            "mean_score": self.mean_score,
            "mean_reward": self.mean_reward,
            "rating": self.rating,
        }


@dataclass(frozen=True)
class ArenaReport:
    """The results of one pool of entries in one game at one player count."""

    game: str
    players: int
    episodes: int
    seed: int
    seatings: int
    agents: tuple[AgentReport, ...]

    def to_json(self) -> dict[str, Any]:
        """The documented JSON object: no timings or worker counts, so it is reproducible."""
        return {
            "game": self.game,
            "players": self.players,
            "episodes": self.episodes,
            "seed": self.seed,
            "agents": [agent.to_json() for agent in self.agents],
        }


@dataclass(frozen=True)
class CellReport:
    """One agent alone against a field of one kind: the agent's seat-games."""

    agent: str
    opponent: str
    deals: int
    result: AgentReport

    def to_json(self) -> dict[str, Any]:
        data = self.result.to_json()
        del data["name"], data["rating"]  # one agent against a field: nothing to rate
        return {"agent": self.agent, "opponent": self.opponent, "deals": self.deals, **data}


@dataclass(frozen=True)
class MatrixReport:
    """Each agent alone against a field of each opponent kind, in one game."""

    game: str
    players: int
    seed: int
    agents: tuple[str, ...]
    opponents: tuple[str, ...]
    cells: tuple[CellReport, ...]

    def cell(self, agent: str, opponent: str) -> CellReport | None:
        return next((c for c in self.cells if (c.agent, c.opponent) == (agent, opponent)), None)

    def to_json(self) -> dict[str, Any]:
        """The documented JSON object: no timings or worker counts, so it is reproducible."""
        return {
            "game": self.game,
            "players": self.players,
            "seed": self.seed,
            "agents": list(self.agents),
            "opponents": list(self.opponents),
            "cells": [cell.to_json() for cell in self.cells],
        }


Report = ArenaReport | MatrixReport


def job_report(job: Job, seed: int) -> Report:
    """A finished job as its report."""
    if not job.matrix:
        lineup, deals = job.lineups[0], job.deals[0]
        played = [lineup.tables[i % len(lineup.tables)] for i in range(len(job.outcomes[0]))]
        return ArenaReport(
            game=job.env_name,
            players=job.num_players,
            episodes=deals,
            seed=seed,
            seatings=len(lineup.tables),
            agents=summarise(entry_labels(lineup.names), played, job.outcomes[0]),
        )
    cells = []
    for lineup, deals, outcomes in zip(job.lineups, job.deals, job.outcomes, strict=True):
        played = [lineup.tables[i % len(lineup.tables)] for i in range(len(outcomes))]
        agent = summarise(lineup.names, played, outcomes, len(lineup.tables), rate=False)[0]
        cells.append(CellReport(lineup.names[0], lineup.names[1], deals, agent))
    return MatrixReport(
        game=job.env_name,
        players=job.num_players,
        seed=seed,
        agents=job.agents,
        opponents=job.opponents,
        cells=tuple(cells),
    )


def summarise(
    labels: Sequence[str],
    tasks_seatings: Sequence[tuple[int, ...]],
    outcomes: Sequence[GameResult],
    tables_per_deal: int | None = None,
    rate: bool = True,
) -> tuple[AgentReport, ...]:
    """Per-entry games, win share with its interval over deals, means and rating, accumulated
    in table order. Tables come deal by deal, ``tables_per_deal`` each (default: the number of
    distinct seatings, every deal played in each once)."""
    count = len(labels)
    per_deal = tables_per_deal or len(dict.fromkeys(tasks_seatings))
    if len(outcomes) % per_deal:
        raise ValueError(f"{len(outcomes)} tables do not make whole deals of {per_deal} tables")
    deals = len(outcomes) // per_deal
    games, wins = [0] * count, [[0.0] * deals for _ in range(count)]
    luck = [[0.0] * deals for _ in range(count)]
    lucks = [getattr(o, "luck", ()) for o in outcomes]  # where the game measures its luck
    lucky = bool(outcomes) and all(lucks)
    score_sum, reward_sum = [0.0] * count, [0.0] * count
    ratings = Ratings(count)
    for index, (seating, outcome) in enumerate(zip(tasks_seatings, outcomes, strict=True)):
        for seat, entry in enumerate(seating):
            games[entry] += 1
            if seat in outcome.winners:
                wins[entry][index // per_deal] += 1 / len(outcome.winners)
            if lucky:
                luck[entry][index // per_deal] += lucks[index][seat]
            score_sum[entry] += outcome.scores[seat]
            reward_sum[entry] += outcome.rewards[seat]
        if rate:
            ratings.update(seating, win_ranks(outcome.winners, len(seating)))
    return tuple(
        AgentReport(
            name=labels[e],
            games=games[e],
            win_rate=sum(wins[e]) / games[e] if games[e] else 0.0,
            win_ci=deal_interval(wins[e], games[e] // deals) if games[e] else (0.0, 1.0),
            mean_score=score_sum[e] / games[e] if games[e] else 0.0,
            mean_reward=reward_sum[e] / games[e] if games[e] else 0.0,
            rating=ratings.ordinal(e),
            mu=float(ratings.ratings[e].mu),
            sigma=float(ratings.ratings[e].sigma),
            adjusted=adjusted_share(wins[e], luck[e], games[e] // deals)
            if lucky and games[e]
            else None,
        )
        for e in range(count)
    )
