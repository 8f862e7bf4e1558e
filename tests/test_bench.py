"""The bench command on a tiny budget: what it writes, not how fast anything is."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from helpers import load_script

from card_envs import env_names, player_counts
from card_envs.cli import main
from card_envs.registry import env_module
from card_envs.tools import bench
from card_envs.tools.bench import (
    RAW_SUFFIX,
    REFERENCES,
    DecisionTimes,
    Measurement,
    Report,
    RulesReference,
    decision_times,
    heuristic_kinds,
    measure_game,
    measure_hearts,
    measure_references,
    readme_table,
    report_json,
    report_markdown,
    set_ratios,
)
from card_envs.tools.bench import command as bench_command
from card_envs.tools.bench import results as bench_results
from card_envs.tools.docs import (
    BLOCK_END,
    block_names,
    block_start,
    fill_blocks,
    render_page,
    write_block,
)
from card_envs.tools.selection import ALL, cases, default_players

ROOT = Path(__file__).resolve().parents[1]
DOCS_PAGE = ROOT / "docs" / "benchmarks.md"
README = ROOT / "README.md"
INFO = {
    "date": "2026-01-01 00:00 UTC",
    "cpu": "cpu",
    "cores": 2,
    "python": "3.11",
    "numpy": "2",
    "pettingzoo": "1",
    "load_average": 0.5,
}
MARK_START, MARK_END = block_start("bench"), BLOCK_END
TINY = 0.01  # seconds per timed figure: one game or a few (a short game may end inside it)


def has_hearts() -> bool:
    return importlib.util.find_spec("pyspiel") is not None


def has_references() -> bool:
    try:
        for name in REFERENCES:
            bench.reference_module(name)
    except ImportError:
        return False
    return True


def row(name: str, steps: float, reference: bool = False) -> Measurement:
    return Measurement(name, 2, reference, steps, 1.0, None, 1.0, 1.0)


def timed(kind: str, median: float, p99: float, env: str = "g", players: int = 2):
    return DecisionTimes(env, players, kind, median, p99, decisions=10, games=1)


@pytest.mark.parametrize("name", env_names())
def test_every_figure_of_a_game_is_measured(name):
    m = measure_game(name, min(player_counts(name)), TINY)
    assert m.agent_steps_per_s > 0 and m.games_per_s > 0 and m.rules_steps_per_s > 0
    assert m.rules_observed_steps_per_s > 0
    assert m.reset_us > 0 and m.peak_kib > 0
    assert not m.reference and m.ratio is None and m.meets_target is None


@pytest.mark.parametrize("name", env_names())
def test_every_heuristic_kind_is_timed_per_decision(name):
    n = default_players(name)
    kinds = heuristic_kinds(name, n)
    assert "heuristic" in kinds and "random" not in kinds
    for kind in kinds:
        t = decision_times(name, n, kind, TINY)
        assert (t.env, t.players, t.kind) == (name, n, kind) and t.games >= 1
        assert t.decisions > 0 and 0 < t.median_us <= t.p99_us


def test_an_unknown_heuristic_kind_is_refused():
    with pytest.raises(ValueError, match="no heuristic_value agent for seamless_v0"):
        decision_times("seamless_v0", 4, "heuristic_value", TINY)


def test_ratios_are_against_the_faster_reference_in_each_form_with_both_targets():
    refs = [
        row("leduc_holdem_v4", 10.0, True),
        row("texas_holdem_v4", 20.0, True),
        row("leduc_holdem_v4" + RAW_SUFFIX, 60.0, True),
        row("texas_holdem_v4" + RAW_SUFFIX, 40.0, True),
    ]
    fast, wrapped_only, slow = row("f", 90.0), row("w", 80.0), row("s", 30.0)
    set_ratios([fast, wrapped_only, slow], refs)
    assert (fast.ratio, fast.ratio_raw) == (4.5, 1.5) and fast.meets_target
    assert bench.ratio_columns(fast) == ("4.50x ok", "1.50x ok")
    assert bench.ratio_columns(wrapped_only) == ("4.00x ok", "1.33x below")
    assert wrapped_only.meets_target is False
    assert bench.ratio_columns(slow) == ("1.50x below", "0.50x below")
    assert bench.ratio_columns(refs[0]) == ("reference", "reference")


def test_a_heuristic_meets_its_target_at_150_us_median():
    assert timed("h", 150.0, 900.0).meets_target
    assert not timed("h", 150.1, 151.0).meets_target


def test_reports_carry_every_section_with_its_flags():
    game = Measurement("seamless_v0", 4, False, 45.0, 1.0, None, 1.0, 1.0, 4.5, 1.2, 7.0)
    hearts = RulesReference("hearts", 4, 100.0, 70.0)
    report = Report([game], [timed("heuristic", 40.0, 90.0), timed("fancy", 200.0, 300.0)], hearts)
    block = report_markdown(report, INFO, 2.0)
    assert "| `seamless_v0` | 4 | 45 | 1.0 | - | 7 | 1 | 1 | 4.50x ok | 1.20x below |" in block
    assert "| `seamless_v0` | 4 | - | 7 | 0.10x |" in block and "| hearts | 4 | 100 | 70 |" in block
    assert "| `g` | 2 | `heuristic` | 40.0 | 90.0 | 10 (1) | ok |" in block
    assert "| `g` | 2 | `fancy` | 200.0 | 300.0 | 10 (1) | below |" in block
    assert "load average 0.5" in block and "target 4x" in block and "target 1.5x" in block
    data = report_json(report, INFO, 2.0)
    assert data["targets"] == {"ratio": 4.0, "ratio_raw": 1.5, "decision_median_us": 150.0}
    assert data["results"][0]["meets_target"] is False
    assert [d["meets_target"] for d in data["decisions"]] == [True, False]
    assert data["hearts"]["rules_observed_steps_per_s"] == 70.0


def test_the_readme_table_gives_each_game_its_ranges_and_flags():
    low, high = row("g", 40_000.0), row("g", 60_000.0)
    low.ratio, low.ratio_raw, high.ratio, high.ratio_raw = 4.0, 1.4, 6.0, 2.1
    times = [timed("heuristic", 30.0, 100.0), timed("heuristic", 50.0, 80.0, players=3)]
    table = readme_table(Report([low, high], times), INFO)
    line = "| `g` | 40.0-60.0k | 4.0-6.0x ok | 1.4-2.1x below | `heuristic` 50 / 100 ok |"
    assert line in table and "load average 0.5" in table


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
    write_block(page, "bench", "| new |", "B")
    assert page.read_text() == f"# B\n\nintro\n\n{MARK_START}\n| new |\n{MARK_END}\n\nafter\n"
    (tmp_path / "bare.md").write_text("# no block\n")
    with pytest.raises(ValueError, match="generated:bench"):
        write_block(tmp_path / "bare.md", "bench", "x", "B")
    write_block(tmp_path / "new.md", "bench", "| t |", "Benchmarks")
    assert (tmp_path / "new.md").read_text() == f"# Benchmarks\n\n{MARK_START}\n| t |\n{MARK_END}\n"


def test_the_docs_generator_fills_its_blocks_with_the_same_writer():
    """card-envs docs and bench write one kind of block: a game page's blocks are all filled,
    one it does not know is refused; bench's fill leaves every other block as it was."""

    def page(header: str, actions: str) -> str:
        pairs = (("header", header), ("actions", actions))
        return "\n".join(f"{block_start(name)}\n{body}\n{BLOCK_END}\n" for name, body in pairs)

    text = page("old", "old")
    assert block_names(text) == ["header", "actions"]
    assert render_page(text, {"header": "h", "actions": "a"}) == page("h", "a")
    with pytest.raises(ValueError, match="unknown generated block 'actions'"):
        render_page(text, {"header": "h"})
    assert fill_blocks(text, {"header": "h"}) == page("h", "old")


def test_the_docs_page_and_the_readme_have_the_generated_block():
    for page in (DOCS_PAGE, README):
        text = page.read_text()
        assert MARK_START in text and MARK_END in text


def test_hearts_is_measured_or_skipped_with_a_message(monkeypatch):
    messages: list[str] = []
    if has_hearts():
        hearts = measure_hearts(TINY, messages.append)
        assert hearts.players == 4 and messages == []
        assert hearts.rules_steps_per_s > 0 and hearts.rules_observed_steps_per_s > 0
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # makes `import pyspiel` fail
    assert measure_hearts(TINY, messages.append) is None
    assert "hearts skipped" in messages[-1] and "card-envs[bench]" in messages[-1]


def test_cli_writes_json_markdown_and_readme(tmp_path, capsys):
    out, page, readme = tmp_path / "bench.json", tmp_path / "bench.md", tmp_path / "README.md"
    readme.write_text(f"# R\n\n{MARK_START}\nold\n{MARK_END}\n\nrest\n")
    args = ["bench", "--game", "seamless_v0", "--seconds", str(TINY)]
    code = main([*args, "--json", str(out), "--markdown", str(page), "--readme", str(readme)])
    assert code == 0
    data = json.loads(out.read_text())
    assert {"cpu", "cores", "python", "date", "load_average"} <= set(data["machine"])
    names = [r["env"] for r in data["results"]]
    assert names[0] == "seamless_v0"
    assert [(d["env"], d["kind"]) for d in data["decisions"]] == [("seamless_v0", "heuristic")]
    printed = capsys.readouterr().out
    table = page.read_text()
    assert "| `seamless_v0` | 4 |" in table and "| `seamless_v0` | 4 | `heuristic` |" in table
    assert "| `seamless_v0` |" in readme.read_text() and readme.read_text().endswith("rest\n")
    if has_references():
        assert set(names[1:]) == {n + s for n in REFERENCES for s in ("", RAW_SUFFIX)}
        assert data["results"][0]["ratio"] > 0 and data["results"][0]["ratio_raw"] > 0
        assert "faster reference: " in printed and "leduc_holdem_v4" in table
    else:
        assert names == ["seamless_v0"] and "references skipped" in printed
    if has_references() and has_hearts():
        assert data["hearts"]["env"] == bench.HEARTS and "beside OpenSpiel's hearts" in table


def test_cli_skips_the_heuristics_when_asked(tmp_path):
    out = tmp_path / "bench.json"
    args = ["bench", "--game", "seals_v0", "--players", "2", "--seconds", str(TINY)]
    assert main([*args, "--skip-heuristics", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["decisions"] == []


def test_cli_profile_prints_hot_spots_of_games_below_target(monkeypatch, capsys):
    monkeypatch.setattr(bench_results, "TARGET_RATIO", 1e9)  # every game misses
    monkeypatch.setattr(bench_command, "measure_references", lambda s, log: [row("ref", 1.0, True)])
    args = ["bench", "--game", "seamless_v0", "--seconds", str(TINY), "--skip-heuristics"]
    assert main([*args, "--profile"]) == 0
    printed = capsys.readouterr().out
    assert "hot spots of seamless_v0" in printed and "tottime" in printed


def test_cli_rejects_a_non_positive_budget(capsys):
    assert main(["bench", "--game", "seamless_v0", "--seconds", "0"]) == 2
    assert "--seconds" in capsys.readouterr().err


def test_run_all_script_records_results_and_the_tables(tmp_path, monkeypatch):
    run_all = load_script("run_all")
    readme = tmp_path / "README.md"
    readme.write_text(f"{MARK_START}\n{MARK_END}\n")
    monkeypatch.setattr(run_all, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(run_all, "DOCS_PAGE", tmp_path / "benchmarks.md")
    monkeypatch.setattr(run_all, "README", readme)
    monkeypatch.setattr(bench_command, "measure_references", lambda s, log: [row("ref", 1.0, True)])
    monkeypatch.setattr(bench_command, "measure_hearts", lambda s, log: None)
    # the heuristics are timed in their own test
    monkeypatch.setattr(bench_command, "heuristic_kinds", lambda name, n: [])
    assert run_all.run(TINY, arena=False) == 0
    results = json.loads((tmp_path / "results" / "bench.json").read_text())
    assert {r["env"] for r in results["results"]} >= set(env_names())
    assert "| `seamless_v0` | 4 |" in (tmp_path / "benchmarks.md").read_text()
    assert "| `sequitur_v0` |" in readme.read_text()


def test_training_mode_writes_the_issue_json_and_its_own_block(tmp_path, capsys):
    """--training measures the engine and the self-play trainer in one run per game and fills
    only the training block of the page, leaving the speed table as it was."""
    out, page = tmp_path / "training.json", tmp_path / "bench.md"
    page.write_text(
        f"# B\n\n{MARK_START}\nspeed\n{MARK_END}\n\n{block_start('training')}\nold\n{MARK_END}\n"
    )
    args = ["bench", "--training", "--game", "seals_v0", "--seconds", "0.2"]
    assert main([*args, "--json", str(out), "--markdown", str(page)]) == 0
    games = json.loads(out.read_text())["games"]
    assert [(g["game"], g["players"]) for g in games] == [("seals_v0", default_players("seals_v0"))]
    assert {"game", "players", "aec_steps_per_s", "train_steps_per_s"} <= games[0].keys()
    assert games[0]["aec_steps_per_s"] > 0 and games[0]["train_steps_per_s"] > 0
    text = page.read_text()
    assert "speed" in text and "old" not in text and "| `seals_v0` |" in text
    assert "self-play training steps/s" in capsys.readouterr().out


def test_vector_mode_writes_the_issue_json(tmp_path, capsys):
    """--vector: the vector env, the AEC loop and the rules + observation in one run per game,
    the figures issue 46 names; --profile adds where the vector step goes."""
    out = tmp_path / "vector.json"
    args = ["bench", "--vector", "--game", "seals_v0", "--players", "2", "--seconds", "0.05"]
    assert main([*args, "--json", str(out), "--profile"]) == 0
    games = json.loads(out.read_text())["games"]
    assert [(g["game"], g["players"], g["num_envs"]) for g in games] == [("seals_v0", 2, 256)]
    for figure in ("vector_steps_per_s", "aec_steps_per_s", "rules_obs_steps_per_s"):
        assert games[0][figure] > 0
    printed = capsys.readouterr().out
    assert "vs rules+obs" in printed and "vector env hot spots of seals_v0" in printed


def test_vector_tables_have_each_finished_a_game_before_they_are_timed():
    """Timed from the deal, a short run would time the start of one game and no deal; the
    bench's tables have each finished a game first, as in long play."""
    from card_envs.tools.bench.vector import VectorPlay

    venv = VectorPlay("seals_v0", 2, tables=8).venv
    assert all(venv.last_game(i) is not None for i in range(8))


def test_vector_mode_plays_each_game_once_at_its_default_count():
    """A later version of a game's rules with another observation is not measured twice."""
    first: dict[type, str] = {}
    for name in env_names():
        first.setdefault(env_module(name).raw_env.game_class, name)
    expected = [(name, default_players(name)) for name in first.values()]
    assert bench.one_env_per_game(cases(ALL, None)) == expected


def test_vector_loops_are_timed_in_turns_and_the_median_slice_counts():
    """A burst of load slows one slice of each loop, not one loop's whole measurement."""
    from card_envs.tools.bench.vector import interleaved

    calls: list[tuple[str, float]] = []

    def loop(key: str, speeds: list[float]):
        def timed(seconds: float) -> float:
            calls.append((key, seconds))
            return speeds[len([c for c in calls if c[0] == key]) - 1]

        return timed

    slow_burst = [10.0, 1.0, 10.0, 12.0, 9.0]  # the second slice met the burst
    found = interleaved({"a": loop("a", slow_burst), "b": loop("b", [5.0] * 5)}, 2.5)
    assert found == {"a": 10.0, "b": 5.0}
    assert calls == [(key, 0.5) for _ in range(5) for key in "ab"]
