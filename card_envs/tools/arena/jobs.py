"""Jobs: the games of a run, each at one player count with its line-ups (a pool, or a matrix of
cells), the deals planned for them and, once played, their outcomes; and how deals are planned
to a time budget from each line-up's measured cost."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from card_envs.agents import TRAINED_KINDS, agent_kinds, make_agent
from card_envs.agents.match import GameResult
from card_envs.core.env import EnvInfo
from card_envs.registry import make
from card_envs.tools.arena.tasks import HEURISTIC, RANDOM, Lineup

# Sizing without --episodes: the whole run aims at DEFAULT_BUDGET seconds. Every line-up plays
# MIN_DEALS deals at least and MAX_DEALS at most; a line-up with a random player (its result is
# far from the fair share, so few games settle it) plays a LOPSIDED_SHARE-th of the others'.
DEFAULT_BUDGET = 100.0
MIN_DEALS, MAX_DEALS, LOPSIDED_SHARE = 10, 2500, 4
PROBE_DEALS = 1  # deals every line-up plays first, to measure its cost (they count as results)
ROUND_DEALS = 4  # sized to a budget, a game's deals are played in rounds of at least this many


@dataclass
class Job:
    """One game at one player count: its line-ups and, once played, their outcomes."""

    env_name: str
    num_players: int
    lineups: list[Lineup]
    matrix: bool
    agents: tuple[str, ...] = ()
    opponents: tuple[str, ...] = ()
    deals: list[int] = field(default_factory=list)  # planned deals per line-up
    outcomes: list[list[GameResult]] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # CPU seconds each line-up's tables took

    def start(self) -> None:
        self.outcomes = [[] for _ in self.lineups]
        self.cpu = [0.0] * len(self.lineups)

    def add(self, k: int, result: GameResult, seconds: float) -> None:
        self.outcomes[k].append(result)
        self.cpu[k] += seconds

    def played(self) -> list[int]:
        """Deals played so far, per line-up."""
        return [
            len(out) // len(lineup.tables)
            for out, lineup in zip(self.outcomes, self.lineups, strict=True)
        ]

    def next_round(self, last: bool) -> list[range]:
        """Deals to play next per line-up, towards ``deals``: all that is left when ``last``,
        or when it is little (:data:`ROUND_DEALS` or a quarter of the plan), else half of it,
        so that the plan can be redone on the costs measured meanwhile."""
        rounds = []
        for done, target in zip(self.played(), self.deals, strict=True):
            left = max(0, target - done)
            if not last and left > max(ROUND_DEALS, target // 4):
                left = (left + 1) // 2
            rounds.append(range(done, done + left))
        return rounds

    @property
    def cost(self) -> list[float]:
        """Measured CPU seconds per deal of each line-up (the mean of its tables so far)."""
        return [
            cpu / len(out) * len(lineup.tables) if out else 0.0
            for cpu, out, lineup in zip(self.cpu, self.outcomes, self.lineups, strict=True)
        ]

    def left(self, unmeasured: float = 0.0) -> tuple[int, float]:
        """Tables still to play of the planned deals, and their estimated CPU seconds (a
        line-up not played yet at ``unmeasured`` seconds a table)."""
        games, work = 0, 0.0
        for lineup, deals, out, cost in zip(
            self.lineups, self.deals, self.outcomes, self.cost, strict=True
        ):
            tables = max(0, deals * len(lineup.tables) - len(out))
            games += tables
            work += tables * (cost / len(lineup.tables) if out else unmeasured)
        return games, work

    def games(self) -> int:
        """Tables of the planned deals."""
        return sum(
            d * len(lineup.tables) for d, lineup in zip(self.deals, self.lineups, strict=True)
        )

    @property
    def main_cost(self) -> float:
        """CPU seconds per deal of the line-ups that are not lopsided."""
        return sum(
            c for c, lineup in zip(self.cost, self.lineups, strict=True) if not lineup.lopsided
        )

    def spent(self, main: int) -> float:
        """CPU seconds of the whole job when its main line-ups play ``main`` deals."""
        return sum(
            cost * lineup_deals(main, lineup.lopsided)
            for cost, lineup in zip(self.cost, self.lineups, strict=True)
        )


def pool_job(env_name: str, num_players: int, names: Sequence[str]) -> Job:
    return Job(env_name, num_players, [Lineup.pool(names, num_players)], matrix=False)


def matrix_job(
    env_name: str, num_players: int, agents: Sequence[str], opponents: Sequence[str]
) -> Job:
    """Every agent alone against a field of every opponent kind but its own."""
    lineups = [
        Lineup.cell(agent, opponent, num_players)
        for agent in agents
        for opponent in opponents
        if agent != opponent
    ]
    if not lineups:
        raise ValueError("a matrix needs two different agents")
    return Job(env_name, num_players, lineups, True, tuple(agents), tuple(opponents))


def claims(kinds: Sequence[str]) -> tuple[list[str], list[str]]:
    """The default matrix: every kind but random, against three random players and against
    three heuristics (the README's baselines)."""
    opponents = [k for k in (RANDOM, HEURISTIC) if k in kinds]
    agents = [k for k in kinds if k != RANDOM] or [RANDOM]
    return agents, opponents


def check_agents(info: EnvInfo, names: Sequence[str], trust: bool = False) -> None:
    """Fail early, in this process, on an agent name ``make_agent`` does not know."""
    for name in sorted(set(names)):
        make_agent(name, info, 0, trust=trust)


def build_jobs(
    todo: Sequence[tuple[str, int | None]],
    agents: Sequence[str] | None,
    matrix: bool,
    trust: bool = False,
) -> list[Job]:
    """The jobs of a run, agents checked: with ``agents`` a pool of them (or, with ``matrix``,
    every one against every other); without, the default matrix (:func:`claims`) or, with
    ``matrix``, every built-in kind against every other. One player: a pool, each alone. In
    the default run a later version of a game already in it plays only its trained agents."""
    jobs = []
    games_done: set[tuple[str, int]] = set()
    for env_name, players in todo:
        env = make(env_name, num_players=players)
        info, num_players = env.describe(), env.game.num_players
        kinds = list(agents) if agents else agent_kinds(info)
        check_agents(info, kinds, trust)
        unique = list(dict.fromkeys(kinds))
        rows, columns = (unique, unique) if matrix else claims(kinds)
        game = (env.game.name, num_players)  # every version of a game has the same name
        if not (agents or matrix) and game in games_done:
            # A later version (sequitur_v1) is the same game with a larger observation: the
            # built-in agents play the same games on it, so only its trained agents are new.
            rows = [kind for kind in rows if kind in TRAINED_KINDS]
            kinds = [HEURISTIC, *rows]
            if not rows:
                continue
        games_done.add(game)
        if num_players == 1 or (agents and not matrix) or set(rows) == set(columns) == {RANDOM}:
            jobs.append(pool_job(env_name, num_players, kinds))
        else:
            jobs.append(matrix_job(env_name, num_players, rows, columns))
    return jobs


def lineup_deals(main: int, lopsided: bool) -> int:
    """Deals of a line-up when the job's main ones play ``main``: a lopsided one plays fewer."""
    return max(MIN_DEALS, main // LOPSIDED_SHARE) if lopsided else main


def plan_deals(jobs: Sequence[Job], capacity: float) -> list[int]:
    """Main deals per job within ``capacity`` CPU seconds, in ``MIN_DEALS..MAX_DEALS``.

    A job gets deals in proportion to ``1 / sqrt(cost per deal)``, the split that makes the sum
    of the jobs' win-share variances smallest for the time: cheap games get narrower intervals,
    and every game gets some. The common factor is the largest that fits.
    """
    weights = [1 / max(job.main_cost or sum(job.cost), 1e-9) ** 0.5 for job in jobs]

    def deals(scale: float) -> list[int]:
        return [min(MAX_DEALS, max(MIN_DEALS, int(scale * w))) for w in weights]

    def spent(scale: float) -> float:
        return sum(job.spent(d) for job, d in zip(jobs, deals(scale), strict=True))

    low, high = 0.0, MAX_DEALS / min(weights)  # at ``high`` every job is at MAX_DEALS
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if spent(middle) <= capacity else (low, middle)
    return deals(low)


def deals_text(job: Job) -> str:
    """A game's deals per line-up: ``250 deals a line-up (62 where a random player sits)``."""
    main = max(job.deals)
    lopsided = {d for d, lineup in zip(job.deals, job.lineups, strict=True) if lineup.lopsided}
    text = f"{main:,} deal{'s' * (main != 1)} a line-up"
    if lopsided and lopsided != {main}:
        text += f" ({min(lopsided):,} where a random player sits)"
    return text


def plan_text(job: Job) -> str:
    """A game's plan: ``seals_v0: 250 deals a line-up (62 where a random player sits), each in
    4 seatings = 2,480 games``."""
    seatings = len(job.lineups[0].tables)
    return f"{job.env_name}: {deals_text(job)}, each in {seatings} seatings = {job.games():,} games"
