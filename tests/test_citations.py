"""The docs and code cite published rulebooks, never files outside this repository.

The rulebook texts and the rulings file live beside the repository, not in it, so a citation of
them (``shared/rules/seals_fr.txt``, ``RULINGS.md``) is a dead end for every reader. A rulebook
is cited by title, publisher and edition; a ruling of this library by the game's docs page.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("README.md", "docs", "card_envs", "agents", "training", "notebooks")
# ``shared/`` as a path of its own (not RLlib's ``learners/shared/...`` metric names), a rulebook
# text file, or the rulings file.
OUTSIDE = re.compile(r"(?:^|[\s`'\"(\[]|\.\./)shared/|\brules/[\w-]+\.txt\b|RULINGS")


def tracked_text_files() -> list[Path]:
    """The tracked files under ``CHECKED`` that are text (checkpoints and images skipped)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout to list the tracked files")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *CHECKED],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    paths = [ROOT / name.decode() for name in listed if name]
    return [p for p in paths if p.is_file() and b"\0" not in p.read_bytes()[:8192]]


@pytest.mark.parametrize(
    ("text", "cites_outside"),
    [
        ("Rulebook: `shared/rules/seamless.txt`.", True),
        ("open points: `shared/RULINGS.md`", True),
        ("see ../shared/STYLE.md", True),
        ("the French text in rules/seals_fr.txt", True),
        ("Rulebook: *Seals*, French edition, Mandoo Games / Matagot", False),
        ("RLlib reports learners/shared/entropy", False),
        ("the thin AEC env in `card_envs/seals/rules/game.py`", False),
    ],
)
def test_the_pattern_finds_citations_of_files_outside_the_repository(text, cites_outside):
    assert bool(OUTSIDE.search(text)) is cites_outside


def test_no_tracked_file_cites_the_rulebook_texts_or_rulings_file():
    files = tracked_text_files()
    assert any(p.name == "seals.md" for p in files)  # the listing found the docs
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert not found, "cite the published rulebook or the docs page instead:\n" + "\n".join(found)
