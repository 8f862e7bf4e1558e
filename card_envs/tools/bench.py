"""``card-envs bench``: the speed of every game, beside PettingZoo's Leduc and Texas Hold'em.

For each game and player count: agent-steps/s and games/s of random legal play through the full
AEC loop (``agent_iter``/``last``/``step``, an observation built every step), rules-only steps/s
(``Game.legal_actions``/``apply`` without the env), reset time and peak traced memory. PettingZoo's
``leduc_holdem_v4`` and ``texas_holdem_v4`` are measured the same way in the same run (they need
``rlcard``; skipped with a message without it), and each game's AEC speed is divided by the
faster reference's. How to read and reproduce: ``docs/benchmarks.md``.
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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium.error import DependencyNotInstalled
from pettingzoo import AECEnv

from card_envs.agents.match import decisions
from card_envs.registry import make
from card_envs.tools.selection import ALL, cases, game_choices, parse_players

DEFAULT_SECONDS = 1.0  # per timed measurement (AEC loop, rules only)
RESET_SHARE = 0.2  # of DEFAULT_SECONDS spent timing resets
TARGET_RATIO = 2.0  # every game at least this many times the faster reference
# PettingZoo reference env -> the rlcard game it wraps (for the rules-only figure).
REFERENCES = {"leduc_holdem_v4": "leduc-holdem", "texas_holdem_v4": "limit-holdem"}
MARK_START, MARK_END = "<!-- generated:bench -->", "<!-- /generated -->"
SEED = 0
RAW_SUFFIX = " (raw_env)"


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

    @property
    def meets_target(self) -> bool | None:
        return None if self.ratio is None else self.ratio >= TARGET_RATIO


# -- timed loops --------------------------------------------------------------------------------
def play_aec_game(env: AECEnv, rand: random.Random) -> int:
    """One game of uniformly random legal moves through the AEC loop (the library's one loop,
    :func:`card_envs.agents.match.decisions`); returns agent-steps."""
    steps = 0
    for _agent, observation in decisions(env):
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[rand.randrange(len(legal))]))
        steps += 1
    return steps


def time_games(play_one: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Run whole games until ``seconds`` have passed (at least one); (steps/s, games/s)."""
    steps = games = 0
    start = time.perf_counter()
    while True:
        steps += play_one()
        games += 1
        elapsed = time.perf_counter() - start
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


def rlcard_rules_speed(game_name: str, seconds: float) -> float:
    """The rules-only figure for a reference: its rlcard game driven directly."""
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
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds or count == 0:
        env.reset()
        count += 1
    return (time.perf_counter() - start) / count * 1e6


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
            "`pip install 'card-envs[bench]'`"
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


def verdict(row: Measurement) -> str:
    """``2.3x ok`` / ``1.2x MISS``: against the faster reference's ``env()`` (and its raw_env)."""
    if row.reference:
        return "reference"
    if row.ratio is None:
        return "n/a"
    mark = "ok" if row.meets_target else f"MISS (< {TARGET_RATIO:g}x)"
    raw = "" if row.ratio_raw is None else f" ({row.ratio_raw:.2f}x raw_env)"
    return f"{row.ratio:.2f}x {mark}{raw}"


def markdown_table(rows: Sequence[Measurement], info: dict[str, Any], seconds: float) -> str:
    """The generated block of ``docs/benchmarks.md``."""
    lines = [
        f"Measured {info['date']} on {info['cpu']} ({info['cores']} cores), Python "
        f"{info['python']}, numpy {info['numpy']}, PettingZoo {info['pettingzoo']}; "
        f"load average {info['load_average']}; {seconds:g} s per timed figure, one process.",
        "",
        "| environment | players | agent-steps/s (AEC) | games/s | rules-only steps/s "
        "| reset (µs) | peak memory (KiB) | vs faster reference |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        rules = "-" if r.rules_steps_per_s is None else f"{r.rules_steps_per_s:,.0f}"
        lines.append(
            f"| `{r.env}` | {r.players} | {r.agent_steps_per_s:,.0f} | {r.games_per_s:,.1f} "
            f"| {rules} | {r.reset_us:,.0f} | {r.peak_kib:,.0f} | {verdict(r)} |"
        )
    return "\n".join(lines)


def text_table(rows: Sequence[Measurement]) -> str:
    head = (
        f"{'environment':<26} {'n':>2} {'steps/s':>10} {'games/s':>9} {'rules/s':>10} "
        f"{'reset us':>9} {'peak KiB':>9}  vs faster reference"
    )
    lines = [head]
    for r in rows:
        rules = "-" if r.rules_steps_per_s is None else f"{r.rules_steps_per_s:,.0f}"
        lines.append(
            f"{r.env:<26} {r.players:>2} {r.agent_steps_per_s:>10,.0f} {r.games_per_s:>9,.1f} "
            f"{rules:>10} {r.reset_us:>9,.0f} {r.peak_kib:>9,.0f}  {verdict(r)}"
        )
    return "\n".join(lines)


def write_markdown(path: Path, block: str) -> None:
    """Replace the generated block of ``path`` (a new page with just the block if absent)."""
    text = path.read_text() if path.exists() else f"# Benchmarks\n\n{MARK_START}\n{MARK_END}\n"
    if MARK_START not in text or MARK_END not in text:
        raise ValueError(f"{path} has no {MARK_START} ... {MARK_END} block to fill")
    head, rest = text.split(MARK_START, 1)
    tail = rest.split(MARK_END, 1)[1]
    path.write_text(f"{head}{MARK_START}\n{block}\n{MARK_END}{tail}")


def run_bench(
    todo: Sequence[tuple[str, int]],
    seconds: float,
    references: bool = True,
    log: Callable[[str], None] = print,
) -> list[Measurement]:
    """Measure every ``(game, players)`` case and the references; ratios filled in.

    The references run before and after the games and the faster run of each is kept, so a
    machine whose load changes during the run cannot flatter the games' ratios.
    """
    before = measure_references(seconds, log) if references else []
    rows = []
    for name, num_players in todo:
        log(f"bench: {name} at {num_players} players ...")
        rows.append(measure_game(name, num_players, seconds))
    after = measure_references(seconds, log) if before else []
    refs = [
        max(pair, key=lambda r: r.agent_steps_per_s) for pair in zip(before, after, strict=True)
    ]
    set_ratios(rows, refs)
    return rows + refs


def cmd_bench(args: argparse.Namespace) -> int:
    if args.seconds <= 0:
        raise ValueError(f"--seconds must be positive; got {args.seconds}")
    rows = run_bench(cases(args.game, parse_players(args.players)), args.seconds)
    info = machine()
    print(text_table(rows))
    for raw in (False, True):
        refs = [r for r in rows if r.reference and r.env.endswith(RAW_SUFFIX) == raw]
        if refs:
            best = max(refs, key=lambda r: r.agent_steps_per_s)
            print(f"faster reference: {best.env} ({best.agent_steps_per_s:,.0f} agent-steps/s)")
    misses = [r for r in rows if r.meets_target is False]
    for row in misses if args.profile else []:
        print(f"\nhot spots of {row.env} at {row.players} players (cProfile, by own time):")
        print(profile_hot_spots(row.env, row.players, args.seconds))
    if args.json:
        data = {"machine": info, "seconds": args.seconds, "target_ratio": TARGET_RATIO}
        data["results"] = [asdict(r) for r in rows]
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n")
    if args.markdown:
        write_markdown(Path(args.markdown), markdown_table(rows, info, args.seconds))
    return 0


DESCRIPTION = (
    "Measure every game's speed (AEC loop, rules only, reset, memory) beside PettingZoo's "
    "leduc_holdem_v4 and texas_holdem_v4. See docs/benchmarks.md."
)


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs bench``."""
    parser = subparsers.add_parser(
        "bench",
        help="speed of every game vs PettingZoo's Leduc/Texas Hold'em",
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
        "--profile", action="store_true", help="print cProfile hot spots of games below target"
    )
    parser.set_defaults(func=cmd_bench)
