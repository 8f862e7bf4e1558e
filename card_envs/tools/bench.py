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
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import importlib
import io
import json
import os
import platform
import pstats
import random
import re
import time
import tracemalloc
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium.error import DependencyNotInstalled
from pettingzoo import AECEnv

from card_envs import vector
from card_envs.agents.base import Agent
from card_envs.agents.builtin import builtin_kinds, make_builtin
from card_envs.agents.match import decisions, play_aec_game
from card_envs.core.env import EnvInfo
from card_envs.core.extras import install_hint, require
from card_envs.registry import env_module, make
from card_envs.tools.selection import ALL, cases, default_players, game_choices, parse_players

DEFAULT_SECONDS = 1.0  # per timed measurement (AEC loop, rules only, each heuristic)
RESET_SHARE = 0.2  # of DEFAULT_SECONDS spent timing resets
# The targets of issue 18: every game at least this many times the faster reference's env() and
# raw_env() in AEC agent-steps/s, every built-in heuristic at most this median decision time.
TARGET_RATIO = 4.0
TARGET_RAW_RATIO = 1.5
TARGET_DECISION_US = 150.0
# PettingZoo reference env -> the rlcard game it wraps (for the rules-only figure).
REFERENCES = {"leduc_holdem_v4": "leduc-holdem", "texas_holdem_v4": "limit-holdem"}
MARK_START, MARK_END = "<!-- generated:bench -->", "<!-- /generated -->"
TRAINING_START = "<!-- generated:training -->"
TRAINING_BAR = 0.2  # self-play trainer steps/s over random-play AEC steps/s (issue 20)
SEED = 0
VECTOR_TABLES = 256  # tables of card-envs bench --vector (issue 46)
RAW_SUFFIX = " (raw_env)"
HEARTS = "open_spiel hearts (C++)"


@dataclass
class Measurement:
    """One environment at one player count."""

    env: str
    players: int
    reference: bool
    agent_steps_per_s: float
    games_per_s: float
    rules_steps_per_s: float | None
    reset_us: float
    peak_kib: float
    ratio: float | None = None  # agent-steps/s over the faster reference's (both env())
    ratio_raw: float | None = None  # the same over the faster unwrapped reference
    rules_observed_steps_per_s: float | None = None  # rules + mask + observation

    @property
    def meets_target(self) -> bool | None:
        """Both ratios at their targets (None without references)."""
        if self.ratio is None:
            return None
        raw_ok = self.ratio_raw is None or self.ratio_raw >= TARGET_RAW_RATIO
        return self.ratio >= TARGET_RATIO and raw_ok


@dataclass
class DecisionTimes:
    """CPU time of one built-in heuristic's decisions, in games of that kind against itself."""

    env: str
    players: int
    kind: str
    median_us: float
    p99_us: float
    decisions: int
    games: int

    @property
    def meets_target(self) -> bool:
        return self.median_us <= TARGET_DECISION_US


@dataclass
class RulesReference:
    """OpenSpiel's hearts: decisions/s of its rules alone and with its observation."""

    env: str
    players: int
    rules_steps_per_s: float
    rules_observed_steps_per_s: float


@dataclass
class Report:
    """Everything one run measured, section by section (a new section is a new field, with its
    text and Markdown tables and its JSON key)."""

    rows: list[Measurement]  # the games, then the references
    decisions: list[DecisionTimes] = field(default_factory=list)
    hearts: RulesReference | None = None


# -- timed loops --------------------------------------------------------------------------------
def time_games(play_one: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Run whole games until ``seconds`` of CPU time have passed (at least one game);
    (steps/s, games/s)."""
    steps = games = 0
    start = time.process_time()
    while True:
        steps += play_one()
        games += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return steps / elapsed, games / elapsed


def aec_speed(env: AECEnv, seconds: float) -> tuple[float, float]:
    """(agent-steps/s, games/s) of random play; one seeded reset, then unseeded ones."""
    rand = random.Random(SEED)
    env.reset(seed=SEED)

    def one() -> int:
        env.reset()
        return play_aec_game(env, rand)

    return time_games(one, seconds)


def rules_speed(env: AECEnv, seconds: float) -> float:
    """Steps/s of random play on the game's rules alone, without observations or the env."""
    game, rand, rng = env.game, random.Random(SEED), np.random.default_rng(SEED)

    def one() -> int:
        state = game.new_game(rng)
        steps = 0
        while not (game.is_over(state) or game.is_truncated(state)):
            legal = game.legal_actions(state)
            game.apply(state, legal[rand.randrange(len(legal))], rng)
            steps += 1
        return steps

    return time_games(one, seconds)[0]


def rules_observed_speed(env: AECEnv, seconds: float) -> float:
    """Steps/s of the rules with what an agent needs at every decision and nothing of the env:
    ``legal_mask``, ``Encoding.observe`` for the seat to act, a uniformly random legal id drawn
    from the mask as in the AEC loop, ``apply``."""
    game, encoding = env.game, env.encoding
    rand, rng = random.Random(SEED), np.random.default_rng(SEED)

    def one() -> int:
        state = game.new_game(rng)
        steps = 0
        while not (game.is_over(state) or game.is_truncated(state)):
            legal = np.flatnonzero(game.legal_mask(state).view(bool))  # as play_aec_game
            encoding.observe(state, game.current_player(state))
            game.apply(state, int(legal[rand.randrange(len(legal))]), rng)
            steps += 1
        return steps

    return time_games(one, seconds)[0]


def hearts_speed(seconds: float) -> RulesReference:
    """OpenSpiel's C++ hearts driven from Python: decisions/s of uniformly random legal moves
    (``legal_actions``, ``apply_action``; chance nodes, the deal, are sampled and not counted),
    alone and with the observation of the player to act every step through the pyspiel observer
    API (``make_observation`` with perfect recall, hearts' only tensor: ``set_from`` fills its
    numpy buffer, copied out as our ``observe`` returns a fresh vector). An ``ImportError``
    without ``open_spiel``."""
    with require("bench"):
        import pyspiel
        from open_spiel.python.observation import make_observation

    game, rand = pyspiel.load_game("hearts"), random.Random(SEED)
    observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))

    def play(observe: bool) -> int:
        state, steps = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rand.randrange(len(outcomes))][0])
                continue
            if observe:
                observer.set_from(state, state.current_player())
                observer.tensor.copy()
            legal = state.legal_actions()
            state.apply_action(legal[rand.randrange(len(legal))])
            steps += 1
        return steps

    return RulesReference(
        env=HEARTS,
        players=game.num_players(),
        rules_steps_per_s=time_games(lambda: play(False), seconds)[0],
        rules_observed_steps_per_s=time_games(lambda: play(True), seconds)[0],
    )


def decision_times(name: str, num_players: int, kind: str, seconds: float) -> DecisionTimes:
    """CPU time of every ``act_at`` of built-in agent ``kind`` in seeded games of ``kind`` in
    every seat (deal seeds 0, 1, ...; each seat's agent reseeded per game), whole games until
    ``seconds`` of CPU time have passed (at least one game)."""
    env = make(name, num_players=num_players)
    info = env.describe()
    agents = [builtin_agent(kind, info, SEED + seat) for seat in range(num_players)]
    seat_of = {agent: seat for seat, agent in enumerate(env.possible_agents)}
    times: list[float] = []
    games, start = 0, time.process_time()
    while games == 0 or time.process_time() - start < seconds:
        for seat, agent in enumerate(agents):
            agent.reset(games * num_players + seat)
        env.reset(seed=games)
        for name_to_act, observation in decisions(env):
            agent = agents[seat_of[name_to_act]]
            before = time.process_time()
            action = agent.act_at(env, observation)
            times.append(time.process_time() - before)
            env.step(action)
        games += 1
    micros = np.array(times) * 1e6
    return DecisionTimes(
        env=name,
        players=num_players,
        kind=kind,
        median_us=float(np.median(micros)),
        p99_us=float(np.percentile(micros, 99)),
        decisions=len(times),
        games=games,
    )


def builtin_agent(kind: str, info: EnvInfo, seed: int) -> Agent:
    """The built-in agent ``kind``, or a ``ValueError`` when the game has none of that name."""
    agent = make_builtin(kind, info, seed)
    if agent is None:
        raise ValueError(f"no built-in agent {kind!r} for {info.name}")
    return agent


def heuristic_kinds(name: str, num_players: int) -> list[str]:
    """The built-in heuristics that play this table (``builtin_kinds`` without random)."""
    info = make(name, num_players=num_players).describe()
    return [kind for kind in builtin_kinds(info) if kind != "random"]


def rlcard_rules_speed(game_name: str, seconds: float) -> float:
    """The rules-only figure for a reference: its rlcard game driven directly."""
    with require("bench"):
        import rlcard

    game, rand = rlcard.make(game_name, config={"seed": SEED}).game, random.Random(SEED)

    def one() -> int:
        game.init_game()
        steps = 0
        while not game.is_over():
            legal = game.get_legal_actions()
            game.step(legal[rand.randrange(len(legal))])
            steps += 1
        return steps

    return time_games(one, seconds)[0]


def reset_time(env: AECEnv, seconds: float) -> float:
    """Mean microseconds of an unseeded ``reset()`` (a new deal from the env's generator)."""
    env.reset(seed=SEED)
    count, start = 0, time.process_time()
    while time.process_time() - start < seconds or count == 0:
        env.reset()
        count += 1
    return (time.process_time() - start) / count * 1e6


def peak_memory(build: Callable[[], AECEnv]) -> float:
    """Peak KiB traced by ``tracemalloc`` while building the env and playing one game."""
    tracemalloc.start()
    try:
        env = build()
        env.reset(seed=SEED)
        play_aec_game(env, random.Random(SEED))
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


# -- measuring games and references -------------------------------------------------------------
def measure_game(name: str, num_players: int, seconds: float) -> Measurement:
    env = make(name, num_players=num_players)
    steps, games = aec_speed(env, seconds)
    return Measurement(
        env=name,
        players=num_players,
        reference=False,
        agent_steps_per_s=steps,
        games_per_s=games,
        rules_steps_per_s=rules_speed(env, seconds),
        reset_us=reset_time(env, seconds * RESET_SHARE),
        peak_kib=peak_memory(lambda: make(name, num_players=num_players)),
        rules_observed_steps_per_s=rules_observed_speed(env, seconds),
    )


def reference_module(name: str) -> Any:
    """The PettingZoo reference module, or an ``ImportError`` saying what to install."""
    try:
        with warnings.catch_warnings():  # PettingZoo's notice about its old creation API
            warnings.simplefilter("ignore", DeprecationWarning)
            return importlib.import_module(f"pettingzoo.classic.{name}")
    except (ImportError, DependencyNotInstalled) as error:
        raise ImportError(
            f"{name} needs rlcard and pygame-ce ({error}); install them with "
            f"`{install_hint('bench')}`"
        ) from error


def measure_reference(name: str, seconds: float, raw: bool) -> Measurement:
    """A PettingZoo reference as users make it (``env()``, with PettingZoo's wrappers) or
    unwrapped (``raw_env()``, its fastest form)."""
    module = reference_module(name)
    build = module.raw_env if raw else module.env
    env = build()
    steps, games = aec_speed(env, seconds)
    return Measurement(
        env=name + RAW_SUFFIX * raw,
        players=len(env.possible_agents),
        reference=True,
        agent_steps_per_s=steps,
        games_per_s=games,
        rules_steps_per_s=rlcard_rules_speed(REFERENCES[name], seconds),
        reset_us=reset_time(env, seconds * RESET_SHARE),
        peak_kib=peak_memory(build),
    )


def measure_references(seconds: float, log: Callable[[str], None]) -> list[Measurement]:
    """Both references in both forms, or none with a clear message when rlcard is missing."""
    try:
        return [
            measure_reference(name, seconds, raw) for raw in (False, True) for name in REFERENCES
        ]
    except ImportError as error:
        log(f"bench: PettingZoo references skipped: {error}")
        return []


def set_ratios(rows: Sequence[Measurement], references: Sequence[Measurement]) -> None:
    """Each game's AEC agent-steps/s over the faster reference's, as users make both
    (``ratio``: our ``env()`` against PettingZoo's ``env()``) and against the unwrapped
    references (``ratio_raw``)."""
    wrapped = [r.agent_steps_per_s for r in references if not r.env.endswith(RAW_SUFFIX)]
    raw = [r.agent_steps_per_s for r in references if r.env.endswith(RAW_SUFFIX)]
    for row in rows:
        row.ratio = row.agent_steps_per_s / max(wrapped) if wrapped else None
        row.ratio_raw = row.agent_steps_per_s / max(raw) if raw else None


def profile_hot_spots(
    name: str, num_players: int, seconds: float, top: int = 12, rules_only: bool = False
) -> str:
    """cProfile of random play (the AEC loop, or the rules alone): ``top`` functions by own time."""
    env = make(name, num_players=num_players)
    profiler = cProfile.Profile()
    profiler.enable()
    (rules_speed if rules_only else aec_speed)(env, seconds)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


# -- reports ------------------------------------------------------------------------------------
def machine() -> dict[str, Any]:
    """What the figures depend on: CPU, cores, load, Python and library versions, date."""
    import pettingzoo

    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        found = re.search(r"model name\s*:\s*(.+)", cpuinfo.read_text())
        cpu = found.group(1).strip() if found else cpu
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pettingzoo": pettingzoo.__version__,
        "load_average": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def mark(value: float | None, target: float) -> str:
    """``4.31x ok`` or ``3.20x below`` against a ratio target; ``n/a`` without a reference."""
    if value is None:
        return "n/a"
    return f"{value:.2f}x {'ok' if value >= target else 'below'}"


def ratio_columns(row: Measurement) -> tuple[str, str]:
    """The two target columns: against the faster reference's ``env()`` and ``raw_env()``."""
    if row.reference:
        return "reference", "reference"
    return mark(row.ratio, TARGET_RATIO), mark(row.ratio_raw, TARGET_RAW_RATIO)


def count(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def measured_line(info: dict[str, Any], seconds: float) -> str:
    return (
        f"Measured {info['date']} on {info['cpu']} ({info['cores']} cores), Python "
        f"{info['python']}, numpy {info['numpy']}, PettingZoo {info['pettingzoo']}; "
        f"load average {info['load_average']}; {seconds:g} s of CPU time per timed figure, "
        "one process."
    )


def markdown_table(rows: Sequence[Measurement]) -> str:
    """The engines: every game at every player count, then the references."""
    lines = [
        "| environment | players | agent-steps/s (AEC) | games/s | rules-only steps/s "
        "| rules + observation steps/s | reset (µs) | peak memory (KiB) "
        f"| vs faster env() (target {TARGET_RATIO:g}x) "
        f"| vs faster raw_env() (target {TARGET_RAW_RATIO:g}x) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        wrapped, raw = ratio_columns(r)
        lines.append(
            f"| `{r.env}` | {r.players} | {r.agent_steps_per_s:,.0f} | {r.games_per_s:,.1f} "
            f"| {count(r.rules_steps_per_s)} | {count(r.rules_observed_steps_per_s)} "
            f"| {r.reset_us:,.0f} | {r.peak_kib:,.0f} | {wrapped} | {raw} |"
        )
    return "\n".join(lines)


def decision_mark(d: DecisionTimes) -> str:
    return "ok" if d.meets_target else "below"


def decisions_markdown(times: Sequence[DecisionTimes]) -> str:
    """The heuristics: median and 99th percentile of the CPU time of one decision."""
    lines = [
        "| environment | players | heuristic | median µs per decision | 99th percentile µs "
        f"| decisions (games) | target: median ≤ {TARGET_DECISION_US:g} µs |",
        "|---|---:|---|---:|---:|---:|---|",
    ]
    for d in times:
        lines.append(
            f"| `{d.env}` | {d.players} | `{d.kind}` | {d.median_us:,.1f} | {d.p99_us:,.1f} "
            f"| {d.decisions:,} ({d.games}) | {decision_mark(d)} |"
        )
    return "\n".join(lines)


def hearts_markdown(rows: Sequence[Measurement], hearts: RulesReference) -> str:
    """Each game's rules-only path with its observation at its default table, beside hearts."""
    lines = [
        "| rules path | players | rules-only steps/s | rules + observation steps/s "
        "| with observation vs hearts |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r.reference or r.players != default_players(r.env):
            continue
        vs = (r.rules_observed_steps_per_s or 0) / hearts.rules_observed_steps_per_s
        lines.append(
            f"| `{r.env}` | {r.players} | {count(r.rules_steps_per_s)} "
            f"| {count(r.rules_observed_steps_per_s)} | {vs:.2f}x |"
        )
    lines.append(
        f"| {hearts.env} | {hearts.players} | {hearts.rules_steps_per_s:,.0f} "
        f"| {hearts.rules_observed_steps_per_s:,.0f} | 1.00x |"
    )
    return "\n".join(lines)


def report_markdown(report: Report, info: dict[str, Any], seconds: float) -> str:
    """The generated block of ``docs/benchmarks.md``: one table per section."""
    parts = [measured_line(info, seconds), "", markdown_table(report.rows)]
    if report.decisions:
        parts += ["", "Built-in heuristics, each in every seat:", ""]
        parts.append(decisions_markdown(report.decisions))
    if report.hearts is not None:
        parts += ["", "Rules-only paths at each game's default table, beside OpenSpiel's hearts:"]
        parts += ["", hearts_markdown(report.rows, report.hearts)]
    return "\n".join(parts)


def spread(values: Sequence[float], form: str) -> str:
    """``low-high`` (or one value) of ``values`` in ``form``."""
    low, high = form.format(min(values)), form.format(max(values))
    return low if low == high else f"{low}-{high}"


def readme_table(report: Report, info: dict[str, Any]) -> str:
    """The README's block: per game, over its player counts, the AEC speed, both ratios with
    their targets, and each heuristic's worst median and 99th percentile decision time."""
    lines = [
        f"Measured {info['date']} on {info['cpu']} ({info['cores']} cores, load average "
        f"{info['load_average']}) by `make bench`: whole games of random legal moves through the "
        "AEC loop, over the player counts, against PettingZoo's faster Hold'em reference in the "
        "same run; heuristic decisions in games of that heuristic in every seat, CPU time. "
        "Details: [docs/benchmarks.md](docs/benchmarks.md), `benchmarks/results/bench.json`.",
        "",
        "| env | agent-steps/s (AEC) | vs faster `env()` (target "
        f"{TARGET_RATIO:g}x) | vs faster `raw_env()` (target {TARGET_RAW_RATIO:g}x) | heuristic "
        f"decision µs, median / p99 (target: median ≤ {TARGET_DECISION_US:g}) |",
        "|---|---|---|---|---|",
    ]
    games = dict.fromkeys(r.env for r in report.rows if not r.reference)
    for name in games:
        rows = [r for r in report.rows if r.env == name]
        steps = spread([r.agent_steps_per_s / 1000 for r in rows], "{:.1f}") + "k"
        ratios = [r.ratio for r in rows if r.ratio is not None]
        raws = [r.ratio_raw for r in rows if r.ratio_raw is not None]
        wrapped = (
            f"{spread(ratios, '{:.1f}')}x {flag(min(ratios), TARGET_RATIO)}" if ratios else "n/a"
        )
        raw = f"{spread(raws, '{:.1f}')}x {flag(min(raws), TARGET_RAW_RATIO)}" if raws else "n/a"
        lines.append(
            f"| `{name}` | {steps} | {wrapped} | {raw} | {heuristics_cell(report, name)} |"
        )
    return "\n".join(lines)


def flag(value: float, target: float) -> str:
    return "ok" if value >= target else "below"


def heuristics_cell(report: Report, name: str) -> str:
    """``heuristic 33 / 122 ok``: each kind's worst median and p99 over the player counts."""
    cells = []
    for kind in dict.fromkeys(d.kind for d in report.decisions if d.env == name):
        times = [d for d in report.decisions if d.env == name and d.kind == kind]
        median, p99 = max(d.median_us for d in times), max(d.p99_us for d in times)
        ok = "ok" if all(d.meets_target for d in times) else "below"
        cells.append(f"`{kind}` {median:,.0f} / {p99:,.0f} {ok}")
    return "; ".join(cells) or "-"


def text_table(rows: Sequence[Measurement]) -> str:
    head = (
        f"{'environment':<26} {'n':>2} {'steps/s':>10} {'games/s':>9} {'rules/s':>10} "
        f"{'rules+obs/s':>11} {'reset us':>9} {'peak KiB':>9}  "
        f"{'vs env() (' + format(TARGET_RATIO, 'g') + 'x)':<16} "
        f"vs raw_env() ({TARGET_RAW_RATIO:g}x)"
    )
    lines = [head]
    for r in rows:
        wrapped, raw = ratio_columns(r)
        lines.append(
            f"{r.env:<26} {r.players:>2} {r.agent_steps_per_s:>10,.0f} {r.games_per_s:>9,.1f} "
            f"{count(r.rules_steps_per_s):>10} {count(r.rules_observed_steps_per_s):>11} "
            f"{r.reset_us:>9,.0f} {r.peak_kib:>9,.0f}  {wrapped:<16} {raw}"
        )
    return "\n".join(lines)


def decisions_text(times: Sequence[DecisionTimes]) -> str:
    lines = [
        f"{'environment':<26} {'n':>2} {'heuristic':<16} {'median us':>10} {'p99 us':>10} "
        f"{'decisions':>10}  median <= {TARGET_DECISION_US:g} us"
    ]
    for d in times:
        lines.append(
            f"{d.env:<26} {d.players:>2} {d.kind:<16} {d.median_us:>10,.1f} {d.p99_us:>10,.1f} "
            f"{d.decisions:>10,}  {decision_mark(d)}"
        )
    return "\n".join(lines)


def report_text(report: Report) -> str:
    """What the command prints: the engine table, the heuristics, hearts."""
    parts = [text_table(report.rows)]
    for raw in (False, True):
        refs = [r for r in report.rows if r.reference and r.env.endswith(RAW_SUFFIX) == raw]
        if refs:
            best = max(refs, key=lambda r: r.agent_steps_per_s)
            parts.append(
                f"faster reference: {best.env} ({best.agent_steps_per_s:,.0f} agent-steps/s)"
            )
    if report.decisions:
        parts += ["", decisions_text(report.decisions)]
    if report.hearts is not None:
        h = report.hearts
        parts += [
            "",
            f"{h.env}: {h.rules_steps_per_s:,.0f} rules-only steps/s, "
            f"{h.rules_observed_steps_per_s:,.0f} with its observation",
        ]
    return "\n".join(parts)


def report_json(report: Report, info: dict[str, Any], seconds: float) -> dict[str, Any]:
    """``--json``: the machine, the targets and every section, each row with its verdict."""
    return {
        "machine": info,
        "seconds": seconds,
        "targets": {
            "ratio": TARGET_RATIO,
            "ratio_raw": TARGET_RAW_RATIO,
            "decision_median_us": TARGET_DECISION_US,
        },
        "results": [{**asdict(r), "meets_target": r.meets_target} for r in report.rows],
        "decisions": [{**asdict(d), "meets_target": d.meets_target} for d in report.decisions],
        "hearts": None if report.hearts is None else asdict(report.hearts),
    }


def write_markdown(path: Path, block: str, start: str = MARK_START) -> None:
    """Replace the generated block opened by ``start`` in ``path`` (a new page with just the
    block if the file is absent)."""
    text = path.read_text() if path.exists() else f"# Benchmarks\n\n{start}\n{MARK_END}\n"
    if start not in text or MARK_END not in text.split(start, 1)[-1]:
        raise ValueError(f"{path} has no {start} ... {MARK_END} block to fill")
    head, rest = text.split(start, 1)
    tail = rest.split(MARK_END, 1)[1]
    path.write_text(f"{head}{start}\n{block}\n{MARK_END}{tail}")


def measure_hearts(seconds: float, log: Callable[[str], None]) -> RulesReference | None:
    """OpenSpiel's hearts, or None with a clear message when open_spiel is missing."""
    try:
        return hearts_speed(seconds)
    except ImportError as error:
        log(f"bench: OpenSpiel's hearts skipped ({error})")
        return None


def run_bench(
    todo: Sequence[tuple[str, int]],
    seconds: float,
    references: bool = True,
    log: Callable[[str], None] = print,
    heuristics: bool = True,
) -> Report:
    """Measure every ``(game, players)`` case, its heuristics, the references and hearts.

    The references run before and after the games and the faster run of each is kept, so a
    machine whose load changes during the run cannot flatter the games' ratios.
    """
    before = measure_references(seconds, log) if references else []
    rows, times = [], []
    for name, num_players in todo:
        log(f"bench: {name} at {num_players} players ...")
        rows.append(measure_game(name, num_players, seconds))
        for kind in heuristic_kinds(name, num_players) if heuristics else []:
            times.append(decision_times(name, num_players, kind, seconds))
    hearts = measure_hearts(seconds, log) if references else None
    after = measure_references(seconds, log) if before else []
    refs = [
        max(pair, key=lambda r: r.agent_steps_per_s) for pair in zip(before, after, strict=True)
    ]
    set_ratios(rows, refs)
    return Report(rows + refs, times, hearts)


def training_rows(
    todo: Sequence[tuple[str, int]], seconds: float, log: Callable[[str], None] = print
) -> list[dict[str, Any]]:
    """Each game's random-play AEC steps/s and self-play trainer steps/s, measured in one run
    (:func:`card_envs.training.selfplay_bench.measure`), with their ratio."""
    from card_envs.training.selfplay_bench import measure  # torch: only for --training

    rows = []
    for name, num_players in todo:
        log(f"bench --training: {name} at {num_players} players ...")
        row = measure(name, num_players, seconds)
        rows.append({**row, "ratio": round(row["train_steps_per_s"] / row["aec_steps_per_s"], 3)})
    return rows


def training_markdown(rows: Sequence[dict[str, Any]], info: dict[str, Any], seconds: float) -> str:
    """The self-play speed table, each row flagged against the 0.2x bar."""
    lines = [
        f"Measured {info['date']} on {info['cpu']} ({info['cores']} cores), load average "
        f"{info['load_average']}; {seconds:g} CPU s per game, one torch thread.",
        "",
        "| environment | players | AEC steps/s (random play) | self-play training steps/s "
        "| ratio |",
        "|---|---:|---:|---:|---|",
    ]
    for row in rows:
        flag = "ok" if row["ratio"] >= TRAINING_BAR else "below"
        lines.append(
            f"| `{row['game']}` | {row['players']} | {row['aec_steps_per_s']:,} | "
            f"{row['train_steps_per_s']:,} | {row['ratio']:.3f} {flag} |"
        )
    return "\n".join(lines)


def cmd_training(args: argparse.Namespace, todo: Sequence[tuple[str, int]]) -> int:
    """``card-envs bench --training``: the trainer's speed beside the engine's, per game."""
    rows = training_rows(todo, args.seconds)
    info = machine()
    block = training_markdown(rows, info, args.seconds)
    print(block)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        data = {"machine": info, "seconds": args.seconds, "bar": TRAINING_BAR, "games": rows}
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n")
    if args.markdown:
        write_markdown(Path(args.markdown), block, TRAINING_START)
    return 0


# -- the vector env beside the AEC loop (--vector) ---------------------------------------------
def vector_speed(name: str, num_players: int, seconds: float, tables: int = VECTOR_TABLES) -> float:
    """Agent-steps/s of random legal play on ``tables`` tables of ``card_envs.vector``, every
    table's move drawn at once from the masks (the first deal untimed)."""
    venv = vector.make(name, tables, seed=SEED, num_players=num_players)
    obs, _ = venv.reset()
    rng, masks, steps = np.random.default_rng(SEED), obs["action_mask"], 0
    start = time.process_time()
    while True:
        venv.step(vector.random_actions(masks, rng))
        steps += tables
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return steps / elapsed


def one_env_per_game(todo: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """The first registered version of each game's rules: a later version with another
    observation of the same game (a variant) is left to ``--game``."""
    seen: set[type] = set()
    kept = []
    for name, num_players in todo:
        rules = env_module(name).raw_env.game_class
        if rules not in seen:
            seen.add(rules)
            kept.append((name, num_players))
    return kept


def vector_rows(
    todo: Sequence[tuple[str, int]], seconds: float, log: Callable[[str], None] = print
) -> list[dict[str, Any]]:
    """Each game's vector, AEC and rules + observation steps/s, measured in one run."""
    rows = []
    for name, num_players in todo:
        log(f"bench --vector: {name} at {num_players} players ...")
        env = make(name, num_players=num_players)
        rows.append(
            {
                "game": name,
                "players": num_players,
                "num_envs": VECTOR_TABLES,
                "vector_steps_per_s": round(vector_speed(name, num_players, seconds)),
                "aec_steps_per_s": round(aec_speed(env, seconds)[0]),
                "rules_obs_steps_per_s": round(rules_observed_speed(env, seconds)),
            }
        )
    return rows


def vector_text(rows: Sequence[dict[str, Any]]) -> str:
    """The vector figures with the two ratios the issue's bar reads."""
    lines = [
        f"{'env':24} {'players':>7} {'vector/s':>10} {'AEC/s':>10} {'rules+obs/s':>12} "
        f"{'vs AEC':>7} {'vs rules+obs':>12}"
    ]
    for row in rows:
        speed = row["vector_steps_per_s"]
        lines.append(
            f"{row['game']:24} {row['players']:>7} {speed:>10,} {row['aec_steps_per_s']:>10,} "
            f"{row['rules_obs_steps_per_s']:>12,} {speed / row['aec_steps_per_s']:>6.2f}x "
            f"{speed / row['rules_obs_steps_per_s']:>11.2f}x"
        )
    return "\n".join(lines)


def profile_vector(name: str, num_players: int, seconds: float, top: int = 12) -> str:
    """cProfile of the vector env's random play: ``top`` functions by own time."""
    profiler = cProfile.Profile()
    profiler.enable()
    vector_speed(name, num_players, seconds)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def cmd_vector(args: argparse.Namespace) -> int:
    """``card-envs bench --vector``: the vector env's speed beside the AEC loop's, per game
    (``--game all``: each game once, at its default player count unless ``--players``)."""
    players = None if args.players == ALL else parse_players(args.players)
    todo = cases(args.game, players)
    rows = vector_rows(one_env_per_game(todo) if args.game == ALL else todo, args.seconds)
    print(vector_text(rows))
    for row in rows if args.profile else []:
        print(f"\nvector env hot spots of {row['game']} (cProfile, by own time):")
        print(profile_vector(row["game"], row["players"], args.seconds))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        data = {"machine": machine(), "seconds": args.seconds, "games": rows}
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    if args.seconds <= 0:
        raise ValueError(f"--seconds must be positive; got {args.seconds}")
    if args.training:
        players = None if args.players == ALL else parse_players(args.players)
        return cmd_training(args, cases(args.game, players))
    if args.vector:
        return cmd_vector(args)
    todo = cases(args.game, parse_players(args.players))
    report = run_bench(todo, args.seconds, heuristics=not args.skip_heuristics)
    info = machine()
    print(report_text(report))
    misses = [r for r in report.rows if r.meets_target is False]
    for row in misses if args.profile else []:
        print(f"\nhot spots of {row.env} at {row.players} players (cProfile, by own time):")
        print(profile_hot_spots(row.env, row.players, args.seconds))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        data = report_json(report, info, args.seconds)
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n")
    if args.markdown:
        write_markdown(Path(args.markdown), report_markdown(report, info, args.seconds))
    if args.readme:
        write_markdown(Path(args.readme), readme_table(report, info))
    return 0


DESCRIPTION = (
    "Measure every game's speed (AEC loop, rules only, rules with observation, reset, memory) "
    "beside PettingZoo's leduc_holdem_v4 and texas_holdem_v4 and OpenSpiel's hearts, and the "
    "decision time of every built-in heuristic. See docs/benchmarks.md."
)


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs bench``."""
    parser = subparsers.add_parser(
        "bench",
        help="speed of every game and heuristic vs PettingZoo's Leduc/Texas Hold'em",
        description=DESCRIPTION,
    )
    parser.add_argument("--game", default=ALL, choices=game_choices(), help="default: all")
    parser.add_argument("--players", default=ALL, help="a count or 'all' (default: all)")
    parser.add_argument(
        "--seconds", type=float, default=DEFAULT_SECONDS, help="time per timed figure"
    )
    parser.add_argument("--json", default=None, metavar="PATH", help="write results as JSON")
    parser.add_argument(
        "--markdown", default=None, metavar="PATH", help="fill the table in e.g. docs/benchmarks.md"
    )
    parser.add_argument(
        "--readme", default=None, metavar="PATH", help="fill the speed table in e.g. README.md"
    )
    parser.add_argument(
        "--skip-heuristics", action="store_true", help="do not time the built-in heuristics"
    )
    parser.add_argument(
        "--profile", action="store_true", help="print cProfile hot spots of games below target"
    )
    parser.add_argument(
        "--training",
        action="store_true",
        help="instead: each game's self-play trainer steps/s beside its random-play AEC steps/s "
        "(at the game's default player count unless --players; --seconds of CPU per game)",
    )
    parser.add_argument(
        "--vector",
        action="store_true",
        help=f"instead: card_envs.vector's steps/s at {VECTOR_TABLES} tables beside the AEC "
        "loop's and the rules + observation's (each game once at its default player count "
        "unless --game/--players; --profile adds where the vector step goes)",
    )
    parser.set_defaults(func=cmd_bench)
