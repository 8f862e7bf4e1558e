"""``card-envs arena``: agents compared on fixed seeded deals, seats rotated.

Every deal is played once per seating, so every agent sits in every seat on the same cards (the
DouZero/RLCard evaluation practice). The default run is a matrix: each agent alone against three
of the field (random, the heuristic), the README's claims; ``--matrix`` puts every agent against
every other, and ``--agents`` plays one pool of entries with ratings. Games run in parallel, but
each is a pure function of its task (deal seed, seating, agent seeds) and results are reassembled
in task order, so a report is identical bit for bit whatever ``--workers``. Without
``--episodes`` the deals are sized to a time budget from each line-up's measured cost; with it
the run starts at once, first saying how long it will take when that is long. How seats are
filled, how shared wins count and how the interval and rating are computed: ``docs/arena.md``.

The package, a module per concern: ``tasks`` (what decides a table, seatings and seeds),
``tables`` (playing one), ``jobs`` (a run's games and their planned deals), ``estimate`` (a
fixed run's length, up front), ``schedule`` (playing jobs on the workers, ``Arena``),
``progress``, ``report`` (what the tables add up to), ``output`` (text, JSON, plot) and
``command``. The processes are ``card_envs.agents.pool.Workers``.
"""

from __future__ import annotations

from card_envs.agents.match import derived_seed
from card_envs.agents.pool import Workers
from card_envs.tools.arena.command import add_parser, cmd_arena
from card_envs.tools.arena.estimate import Estimate
from card_envs.tools.arena.jobs import (
    DEFAULT_BUDGET,
    LOPSIDED_SHARE,
    MAX_DEALS,
    MIN_DEALS,
    Job,
    build_jobs,
    claims,
    deals_text,
    lineup_deals,
    matrix_job,
    plan_deals,
    plan_text,
    pool_job,
)
from card_envs.tools.arena.output import (
    format_matrix,
    format_report,
    rating_notes,
    write_json,
    write_plot,
)
from card_envs.tools.arena.progress import Progress
from card_envs.tools.arena.report import (
    AgentReport,
    ArenaReport,
    CellReport,
    MatrixReport,
    Report,
    job_report,
    summarise,
)
from card_envs.tools.arena.schedule import Arena, run_arena, run_matrix
from card_envs.tools.arena.tables import Played, play, play_timed, seat_table
from card_envs.tools.arena.tasks import (
    Lineup,
    Task,
    alone_seatings,
    entry_labels,
    make_tasks,
    seatings,
)

__all__ = [
    "DEFAULT_BUDGET",
    "LOPSIDED_SHARE",
    "MAX_DEALS",
    "MIN_DEALS",
    "AgentReport",
    "Arena",
    "ArenaReport",
    "CellReport",
    "Estimate",
    "Job",
    "Lineup",
    "MatrixReport",
    "Played",
    "Progress",
    "Report",
    "Task",
    "Workers",
    "add_parser",
    "alone_seatings",
    "build_jobs",
    "claims",
    "cmd_arena",
    "deals_text",
    "derived_seed",
    "entry_labels",
    "format_matrix",
    "format_report",
    "job_report",
    "lineup_deals",
    "make_tasks",
    "matrix_job",
    "plan_deals",
    "plan_text",
    "play",
    "play_timed",
    "pool_job",
    "rating_notes",
    "run_arena",
    "run_matrix",
    "seat_table",
    "seatings",
    "summarise",
    "write_json",
    "write_plot",
]
