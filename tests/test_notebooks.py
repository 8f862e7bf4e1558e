"""The notebooks are committed clean: CI executes them (``pytest --nbmake notebooks``), so git
holds only their sources, never outputs or execution counts that would go stale."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
EXPECTED = (
    "01_quickstart.ipynb",
    "02_agents_and_arena.ipynb",
    "03_training.ipynb",
    "04_rules_and_encodings.ipynb",
)
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))


def test_the_four_notebooks_exist():
    assert set(EXPECTED) <= {path.name for path in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.name for path in NOTEBOOKS])
def test_notebook_is_valid_and_stripped(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    dirty = [
        number
        for number, cell in enumerate(notebook.cells)
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None)
    ]
    assert not dirty, (
        f"{path.name}: cells {dirty} hold outputs or execution counts; clear them before "
        "committing (Jupyter: Edit > Clear Outputs of All Cells, then save)"
    )
