"""Playing jobs on the workers: every line-up's first deal (its cost), then each game's planned
deals, in rounds re-planned to the budget when the run is sized to one; results reassembled in
task order, so a report is the same whatever the workers."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from card_envs.agents.match import GameResult
from card_envs.agents.pool import Workers
from card_envs.records import append_record
from card_envs.tools.arena.estimate import long_run_note
from card_envs.tools.arena.jobs import (
    DEFAULT_BUDGET,
    PROBE_DEALS,
    Job,
    build_jobs,
    lineup_deals,
    plan_deals,
    plan_text,
)
from card_envs.tools.arena.progress import Progress
from card_envs.tools.arena.report import ArenaReport, MatrixReport, Report, job_report
from card_envs.tools.arena.tables import play_timed
from card_envs.tools.arena.tasks import Lineup, Task, make_tasks


class Arena:
    """Plays jobs: first :data:`PROBE_DEALS` of every line-up (their cost), then each game's
    planned deals, calling ``finished(job, report, seconds)`` after each game.

    Sized to a budget, a game's deals are played in rounds (:meth:`Job.next_round`), and after
    each round the deals of it and of the games after it are planned again from the costs
    measured so far, the time left and the rate the workers have got through CPU seconds: a
    game that costs more than its first deal showed leaves less to itself and the later ones,
    so the run ends near its budget whatever the load on the machine.
    """

    def __init__(
        self,
        workers: Workers,
        seed: int = 0,
        *,
        trust: bool = False,
        progress: Progress | None = None,
        record: Path | None = None,
        luck: bool = False,
    ):
        self.workers = workers
        self.seed = seed
        self.trust = trust
        self.record = record  # a JSON Lines file every game's record is added to
        self.luck = luck  # each seat's luck measured, for the luck-adjusted win rates
        self.progress = progress
        self.cpu = self.wall = 0.0  # CPU seconds played and the wall seconds they took

    def run(
        self,
        jobs: Sequence[Job],
        episodes: int | None = None,
        budget: float | None = None,
        finished: Callable[[Job, Report, float], None] | None = None,
    ) -> list[Report]:
        """Reports in job order; ``episodes`` deals per line-up, else sized to ``budget``
        seconds (default :data:`DEFAULT_BUDGET`) from the start of this call.

        Sized to a budget, the games are played dearest first (per deal, as measured): the
        cheap ones at the end take up what the estimates of the dear ones got wrong, a few
        deals at a time, so the run ends near its budget and no dear game is left the minimum.
        """
        if episodes is not None and episodes < 1:
            raise ValueError(f"--episodes must be at least 1; got {episodes}")
        if budget is not None and budget <= 0:
            raise ValueError(f"--budget must be a positive number of seconds; got {budget}")
        budget = budget or DEFAULT_BUDGET
        deadline = time.perf_counter() + budget
        order = list(jobs)
        if episodes is None:
            self._size_to_budget(order, deadline)
        else:
            self._size_fixed(order, episodes)
        self._start_progress("arena", budgeted=episodes is None)
        reports: dict[int, Report] = {}
        for j, job in enumerate(order):
            began = time.perf_counter()
            while any(rounds := job.next_round(last=episodes is not None)):
                self._play(job, rounds, order[j + 1 :])
                if episodes is None:
                    self._plan(order[j:], deadline)
            job.deals = job.played()
            reports[id(job)] = job_report(job, self.seed)
            if finished is not None:
                finished(job, reports[id(job)], time.perf_counter() - began)
        if self.progress is not None:
            self.progress.close()
        return [reports[id(job)] for job in jobs]

    def _size_to_budget(self, order: list[Job], deadline: float) -> None:
        """Measure every line-up on its first deals, sort ``order`` dearest first and plan
        the deals that fit before ``deadline``."""
        self._probe(order, PROBE_DEALS)
        for job in order:
            job.deals = [PROBE_DEALS] * len(job.lineups)
        order.sort(key=lambda job: -sum(job.cost))
        self._plan(order, deadline)
        self._note(
            "arena: plan for the budget's time left (revised as games finish): "
            + "; ".join(plan_text(job) for job in order)
        )

    def _size_fixed(self, order: Sequence[Job], episodes: int) -> None:
        """``episodes`` deals for every line-up, said with how long they take when long."""
        for job in order:
            job.start()
            job.deals = [episodes] * len(job.lineups)
        self._note("arena: plan: " + "; ".join(plan_text(job) for job in order))
        if self.progress is not None:
            long_run = long_run_note(order, self.workers.count, self.trust)
            if long_run is not None:
                self._note(long_run)

    def _tasks(self, job: Job, lineup: Lineup, deals: range) -> list[Task]:
        return make_tasks(
            job.env_name,
            job.num_players,
            lineup,
            deals,
            self.seed,
            self.trust,
            bool(self.record),
            self.luck,
        )

    def _stream(self, tasks: Sequence[Task]) -> Iterator[tuple[GameResult, float]]:
        """Each table's result and the CPU seconds of its play, timing how fast the workers get
        through CPU seconds (setting up agents included) from the first result on, so that
        starting the workers does not count as slowness but any other load on the machine does."""
        first = None
        for played in self.workers.imap(play_timed, tasks):
            if first is None:
                first = time.perf_counter()
            else:
                self.cpu += played.total
            if self.record is not None and played.record is not None:
                append_record(self.record, played.record)
            yield played.result, played.play
        if first is not None:
            self.wall += time.perf_counter() - first

    def _start_progress(self, label: str, budgeted: bool = False) -> None:
        self.done_games, self.done_cpu = 0, 0.0
        if self.progress is not None:
            self.progress.start(label, budgeted)

    def _advance(self, seconds: float, left: tuple[int, float]) -> None:
        """One more table, ``seconds`` of CPU; ``left`` tables and CPU seconds to go."""
        self.done_games += 1
        self.done_cpu += seconds
        if self.progress is not None:
            games, work = left
            self.progress.update(self.done_games, self.done_games + games, self.done_cpu, work)

    def _probe(self, jobs: Sequence[Job], deals: int) -> None:
        """Play the first ``deals`` of every line-up, which measures each one's cost."""
        tasks, owners = [], []
        for j, job in enumerate(jobs):
            job.start()
            for k, lineup in enumerate(job.lineups):
                batch = self._tasks(job, lineup, range(deals))
                tasks += batch
                owners += [(j, k)] * len(batch)
        lineups = sum(len(job.lineups) for job in jobs)
        self._note(
            f"arena: measuring what each of {lineups} line-ups in {len(jobs)} games costs: "
            f"{deals} deal each, in every seating (they count as results)"
        )
        self._start_progress("arena: measuring")
        for index, ((j, k), (result, seconds)) in enumerate(
            zip(owners, self._stream(tasks), strict=True)
        ):
            jobs[j].add(k, result, seconds)
            left = len(tasks) - index - 1
            self._advance(seconds, (left, left * (self.done_cpu + seconds) / (index + 1)))

    def _plan(self, jobs: Sequence[Job], deadline: float) -> None:
        """Deals for ``jobs`` (the games still to play) in the time left before ``deadline``.

        The rate counts the workers' start and any other load on the machine, so it errs low.
        """
        rate = min(float(self.workers.count), self.cpu / self.wall) if self.wall else 1.0
        left = max(0.0, deadline - time.perf_counter()) * rate
        capacity = left + sum(sum(job.cpu) for job in jobs)  # what they played counts
        for job, main in zip(jobs, plan_deals(jobs, capacity), strict=True):
            job.deals = [lineup_deals(main, lineup.lopsided) for lineup in job.lineups]

    def _play(self, job: Job, rounds: Sequence[range], later: Sequence[Job]) -> None:
        """The deals ``rounds`` of each line-up of ``job``, as one stream of tables."""
        tasks, owners = [], []
        for k, (lineup, deals) in enumerate(zip(job.lineups, rounds, strict=True)):
            batch = self._tasks(job, lineup, deals)
            tasks += batch
            owners += [k] * len(batch)
        for index, (result, seconds) in enumerate(self._stream(tasks)):
            job.add(owners[index], result, seconds)
            mean = (self.done_cpu + seconds) / (self.done_games + 1)  # for line-ups not yet played
            games, work = job.left(mean)
            for other in later:
                more = other.left(mean)
                games, work = games + more[0], work + more[1]
            self._advance(seconds, (games, work))

    def _note(self, text: str) -> None:
        if self.progress is not None:
            self.progress.note(text)


def run_arena(
    env_name: str,
    agents: Sequence[str] | None = None,
    num_players: int | None = None,
    episodes: int | None = None,
    seed: int = 0,
    workers: Workers | None = None,
    *,
    budget: float | None = None,
    trust: bool = False,
) -> ArenaReport:
    """Play ``episodes`` deals of one game in every seating of the entries ``agents`` (default:
    the game's built-in kinds) and report per entry; without ``episodes``, as many as fit in
    ``budget`` seconds."""
    job = build_jobs([(env_name, num_players)], agents, matrix=False, trust=trust)[0]
    report = Arena(workers or Workers(1), seed, trust=trust).run([job], episodes, budget)[0]
    assert isinstance(report, ArenaReport)
    return report


def run_matrix(
    env_name: str,
    agents: Sequence[str] | None = None,
    num_players: int | None = None,
    episodes: int | None = None,
    seed: int = 0,
    workers: Workers | None = None,
    *,
    budget: float | None = None,
    trust: bool = False,
) -> MatrixReport:
    """Each of ``agents`` (default: the game's built-in kinds) alone against a field of each
    other, ``episodes`` deals per cell (or as many as fit in ``budget`` seconds)."""
    job = build_jobs([(env_name, num_players)], agents, matrix=True, trust=trust)[0]
    report = Arena(workers or Workers(1), seed, trust=trust).run([job], episodes, budget)[0]
    assert isinstance(report, MatrixReport)
    return report
