"""benchmarks/load_server.py at a small size (the full run's figures are in docs/serve.md): the
server answers tables at once and finished ones, and every record replays as the API said."""

from __future__ import annotations

import asyncio

import pytest
from helpers import load_script

pytest.importorskip("uvicorn", reason="the serve extra is not installed")


@pytest.mark.slow
def test_a_small_load_run_replays_every_table(capsys):
    script = load_script("load_server")
    asyncio.run(
        script.main(script.parse(["--tables", "6", "--finished", "30", "--concurrency", "2"]))
    )
    out = capsys.readouterr().out
    assert "30 finished tables" in out and "36 records replayed in all, all consistent" in out
    assert "| POST /api/tables/{id}/act (6 at once) |" in out
