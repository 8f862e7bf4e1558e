"""``card-envs bench``: the speed of every game and heuristic, beside PettingZoo's Leduc and
Texas Hold'em and OpenSpiel's C++ hearts.

For each game and player count: agent-steps/s and games/s of random legal play through the full
AEC loop (``agent_iter``/``last``/``step``, an observation built every step), rules-only steps/s
(``Game.legal_actions``/``apply`` without the env), the rules with what an agent needs each step
(mask and observation), reset time and peak traced memory, and the decision time of every
built-in heuristic. PettingZoo's ``leduc_holdem_v4`` and ``texas_holdem_v4`` are measured the
same way in the same run (they need ``rlcard``; skipped with a message without it), and each
game's AEC speed is divided by the faster reference's; OpenSpiel's hearts (``open_spiel``) stands
beside the rules-only figures. Every figure is CPU time of this process, so other work on a
shared machine slows it less than it would wall time. How to read and reproduce:
``docs/benchmarks.md``.

The package, a module per concern: ``measure`` (the timed loops), ``references`` (PettingZoo's
Hold'em, OpenSpiel's hearts), ``results`` (what a run measured, the targets), ``report`` (text,
JSON, the machine), ``markdown`` (the docs page's and README's tables), ``training``
(``--training``), ``vector`` (``--vector``) and ``command``. The tables go into the pages'
generated blocks through ``card_envs.tools.docs.write_block``, as the docs generator's do.
"""

from __future__ import annotations

from card_envs.tools.bench.command import add_parser, cmd_bench, run_bench
from card_envs.tools.bench.markdown import readme_table, report_markdown
from card_envs.tools.bench.measure import (
    DEFAULT_SECONDS,
    decision_times,
    heuristic_kinds,
    measure_game,
    profile_hot_spots,
)
from card_envs.tools.bench.references import (
    HEARTS,
    RAW_SUFFIX,
    REFERENCES,
    measure_hearts,
    measure_references,
    reference_module,
    rlcard_rules_speed,
    set_ratios,
)
from card_envs.tools.bench.report import machine, ratio_columns, report_json, report_text
from card_envs.tools.bench.results import (
    TARGET_DECISION_US,
    TARGET_RATIO,
    TARGET_RAW_RATIO,
    DecisionTimes,
    Measurement,
    Report,
    RulesReference,
)
from card_envs.tools.bench.training import training_rows
from card_envs.tools.bench.vector import one_env_per_game, vector_rows

__all__ = [
    "DEFAULT_SECONDS",
    "HEARTS",
    "RAW_SUFFIX",
    "REFERENCES",
    "TARGET_DECISION_US",
    "TARGET_RATIO",
    "TARGET_RAW_RATIO",
    "DecisionTimes",
    "Measurement",
    "Report",
    "RulesReference",
    "add_parser",
    "cmd_bench",
    "decision_times",
    "heuristic_kinds",
    "machine",
    "measure_game",
    "measure_hearts",
    "measure_references",
    "one_env_per_game",
    "profile_hot_spots",
    "ratio_columns",
    "readme_table",
    "reference_module",
    "report_json",
    "report_markdown",
    "report_text",
    "rlcard_rules_speed",
    "run_bench",
    "set_ratios",
    "training_rows",
    "vector_rows",
]
