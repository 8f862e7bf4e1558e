"""Run the benchmarks and the arena and record them for the repository.

Writes ``benchmarks/results/bench.json``, ``arena.json`` and ``arena.png``, refreshes the tables
in ``docs/benchmarks.md`` and the README, and prints cProfile hot spots of any game below the
speed target (``make bench`` is the same without the arena and the hot spots).
Usage: ``.venv/bin/python benchmarks/run_all.py [--seconds 2] [--skip-arena]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from card_envs.cli import main

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
DOCS_PAGE = ROOT / "docs" / "benchmarks.md"
README = ROOT / "README.md"


def run(seconds: float, arena: bool) -> int:
    RESULTS.mkdir(parents=True, exist_ok=True)
    bench = ["bench", "--seconds", str(seconds), "--profile"]
    pages = ["--markdown", str(DOCS_PAGE), "--readme", str(README)]
    code = main([*bench, "--json", str(RESULTS / "bench.json"), *pages])
    if code or not arena:
        return code
    return main(
        ["arena", "--json", str(RESULTS / "arena.json"), "--plot", str(RESULTS / "arena.png")]
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per timed figure")
    parser.add_argument("--skip-arena", action="store_true", help="benchmarks only")
    args = parser.parse_args()
    sys.exit(run(args.seconds, not args.skip_arena))
