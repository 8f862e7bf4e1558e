"""The documentation site builds: ``mkdocs build --strict`` fails on a broken link, anchor, nav
entry or API reference, and the built site holds what its readers look for first."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from card_envs import env_names
from card_envs.tools.docs import doc_path

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built from ``mkdocs.yml`` into a temporary folder. The notebooks are rendered
    without executing them: ``make test`` already executes them (nbmake)."""
    pytest.importorskip("mkdocs", reason="mkdocs is not installed: pip install -e '.[docs]'")
    folder = tmp_path_factory.mktemp("site")
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)]
    env = os.environ | {"CARD_ENVS_DOCS_EXECUTE": "false", "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    problems = [line for line in run.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert run.returncode == 0, "mkdocs build --strict failed:\n" + "\n".join(
        problems or run.stderr.splitlines()[-20:]
    )
    return folder


def test_the_core_env_has_an_api_page(site):
    page = (site / "api" / "env" / "index.html").read_text()
    for name in ("card_envs.core.env.CardEnv", "card_envs.core.env.EnvInfo"):
        assert f'id="{name}"' in page, f"the API page of card_envs.core.env has no {name}"


def test_every_game_is_two_clicks_from_home(site):
    """The home page's games table links each game's rules, observation table and action ids,
    and each link lands on a heading of that name."""
    html = (site / "index.html").read_text()
    home = html[html.index("<article") : html.index("</article>")]  # the page, not the nav
    for name in env_names():
        page = doc_path(Path(), name).stem
        row = next((r for r in home.split("<tr>") if f'href="{page}/"' in r), None)
        assert row is not None, f"the home page's games table has no row for {name}"
        for section in ("rules-as-implemented", "observation", "actions"):
            target = re.search(rf'href="(\w+)/#{section}"', row)
            assert target, f"{name}: the home page's row links no #{section}"
            landing = (site / target[1] / "index.html").read_text()
            assert f'id="{section}"' in landing, f"{target[1]} has no heading #{section}"


def test_every_notebook_is_a_page(site):
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks
    for notebook in notebooks:
        assert (site / "notebooks" / notebook.stem / "index.html").is_file(), notebook.name
