"""The docs are executable and true: every Python example in README.md and docs/*.md runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLES = [
    (page, number, block)
    for page in PAGES
    for number, block in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), re.S))
]


@pytest.mark.parametrize(
    ("page", "number", "block"),
    EXAMPLES,
    ids=[f"{page.name}-{number}" for page, number, _ in EXAMPLES],
)
def test_python_example_runs(page, number, block):
    exec(compile(block, f"{page.name} example {number}", "exec"), {})


def test_every_game_page_has_an_example():
    pages = {page.name for page, _, _ in EXAMPLES}
    games = [p.name for p in (ROOT / "docs").glob("*.md") if p.stem not in ("arena", "benchmarks")]
    assert set(games) <= pages
