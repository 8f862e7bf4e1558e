"""The bench command on a tiny budget: what it writes, not how fast anything is."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from card_envs import env_names, player_counts
from card_envs.cli import main
from card_envs.tools import bench
from card_envs.tools.bench import (
    MARK_END,
    MARK_START,
    RAW_SUFFIX,
    REFERENCES,
    Measurement,
    measure_game,
    measure_references,
    set_ratios,
    write_markdown,
)

ROOT = Path(__file__).resolve().parents[1]
DOCS_PAGE = ROOT / "docs" / "benchmarks.md"
TINY = 0.01  # seconds per timed figure: one game each


def has_references() -> bool:
    try:
        for name in REFERENCES:
            bench.reference_module(name)
    except ImportError:
        return False
    return True


def row(name: str, steps: float, reference: bool = False) -> Measurement:
    return Measurement(name, 2, reference, steps, 1.0, None, 1.0, 1.0)


@pytest.mark.parametrize("name", env_names())
def test_every_figure_of_a_game_is_measured(name):
    m = measure_game(name, min(player_counts(name)), TINY)
    assert m.agent_steps_per_s > 0 and m.games_per_s > 0 and m.rules_steps_per_s > 0
    assert m.reset_us > 0 and m.peak_kib > 0
    assert not m.reference and m.ratio is None


def test_ratios_are_against_the_faster_reference_in_each_form():
    refs = [
        row("leduc_holdem_v4", 10.0, True),
        row("texas_holdem_v4", 20.0, True),
        row("leduc_holdem_v4" + RAW_SUFFIX, 50.0, True),
        row("texas_holdem_v4" + RAW_SUFFIX, 40.0, True),
    ]
    game = row("g", 60.0)
    set_ratios([game], refs)
    assert (game.ratio, game.ratio_raw) == (3.0, 1.2)
    assert game.meets_target
    slow = row("s", 30.0)
    set_ratios([slow], refs)
    assert slow.meets_target is False
    assert "MISS" in bench.verdict(slow) and "0.60x raw_env" in bench.verdict(slow)


def test_references_are_skipped_with_a_message_without_rlcard(monkeypatch):
    monkeypatch.setitem(sys.modules, "rlcard", None)  # makes `import rlcard` fail
    for module in [m for m in sys.modules if m.startswith("pettingzoo.classic")]:
        monkeypatch.delitem(sys.modules, module)
    messages = []
    assert measure_references(TINY, messages.append) == []
    assert "references skipped" in messages[0] and "rlcard" in messages[0]


def test_markdown_block_is_replaced_and_the_rest_kept(tmp_path):
    page = tmp_path / "b.md"
    page.write_text(f"# B\n\nintro\n\n{MARK_START}\nold\n{MARK_END}\n\nafter\n")
    write_markdown(page, "| new |")
    assert page.read_text() == f"# B\n\nintro\n\n{MARK_START}\n| new |\n{MARK_END}\n\nafter\n"
    (tmp_path / "bare.md").write_text("# no block\n")
    with pytest.raises(ValueError, match="generated:bench"):
        write_markdown(tmp_path / "bare.md", "x")
    write_markdown(tmp_path / "new.md", "| t |")
    assert "| t |" in (tmp_path / "new.md").read_text()


def test_the_docs_page_has_the_generated_block():
    text = DOCS_PAGE.read_text()
    assert MARK_START in text and MARK_END in text


def test_cli_writes_json_and_markdown(tmp_path, capsys):
    out, page = tmp_path / "bench.json", tmp_path / "bench.md"
    args = ["bench", "--game", "seamless_v0", "--seconds", str(TINY)]
    code = main([*args, "--json", str(out), "--markdown", str(page)])
    assert code == 0
    data = json.loads(out.read_text())
    assert {"cpu", "cores", "python", "date"} <= set(data["machine"])
    names = [r["env"] for r in data["results"]]
    assert names[0] == "seamless_v0"
    printed = capsys.readouterr().out
    table = page.read_text()
    assert "| `seamless_v0` | 4 |" in table
    if has_references():
        assert set(names[1:]) == {n + s for n in REFERENCES for s in ("", RAW_SUFFIX)}
        assert data["results"][0]["ratio"] > 0 and data["results"][0]["ratio_raw"] > 0
        assert "faster reference: " in printed and "leduc_holdem_v4" in table
    else:
        assert names == ["seamless_v0"] and "references skipped" in printed


def test_cli_profile_prints_hot_spots_of_games_below_target(monkeypatch, capsys):
    monkeypatch.setattr(bench, "TARGET_RATIO", 1e9)  # every game misses
    monkeypatch.setattr(bench, "measure_references", lambda s, log: [row("ref", 1.0, True)])
    assert main(["bench", "--game", "seamless_v0", "--seconds", str(TINY), "--profile"]) == 0
    printed = capsys.readouterr().out
    assert "hot spots of seamless_v0" in printed and "tottime" in printed


def test_cli_rejects_a_non_positive_budget(capsys):
    assert main(["bench", "--game", "seamless_v0", "--seconds", "0"]) == 2
    assert "--seconds" in capsys.readouterr().err


def test_run_all_script_records_results_and_the_table(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("run_all", ROOT / "benchmarks" / "run_all.py")
    run_all = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_all)
    monkeypatch.setattr(run_all, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(run_all, "DOCS_PAGE", tmp_path / "benchmarks.md")
    monkeypatch.setattr(bench, "measure_references", lambda s, log: [row("ref", 1.0, True)])
    assert run_all.run(TINY, arena=False) == 0
    results = json.loads((tmp_path / "results" / "bench.json").read_text())
    assert {r["env"] for r in results["results"]} >= set(env_names())
    assert "| `seamless_v0` | 4 |" in (tmp_path / "benchmarks.md").read_text()
