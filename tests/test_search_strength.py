"""benchmarks/search_strength.py, the search strength table's script: it plays the arena's
games and reports what the arena would, plus the searcher's clock."""

from __future__ import annotations

import json

import pytest
from helpers import load_script

from card_envs.agents.search import Budget, ISMCTSAgent
from card_envs.tools.arena import Lineup, make_tasks, play, tables

strength = load_script("search_strength")


@pytest.fixture
def cheap_search(monkeypatch):
    """ismcts at 2 iterations by default, so a row costs seconds; the arena's agents built
    meanwhile are forgotten after, so no other test meets a 2-iteration "ismcts"."""
    monkeypatch.setattr(
        ISMCTSAgent, "default_budget", classmethod(lambda cls, info: Budget(iterations=2))
    )
    monkeypatch.setattr(tables, "_AGENTS", {})


def test_each_table_is_the_arenas_game_with_the_searcher_clocked():
    lineup = Lineup.cell("ismcts:iterations=3", "heuristic", 4)
    for task in make_tasks("seals_v0", 4, lineup, range(2), seed=5):
        winners = play(task).winners
        searcher = task.kinds.index("ismcts:iterations=3")
        table = strength.play_table(task)
        assert table.share == (searcher in winners) / max(len(winners), 1)
        assert table.times and all(t >= 0 for t in table.times)


def test_a_row_against_random_players_plays_a_quarter_of_the_deals(cheap_search):
    row = strength.measure("seals_v0", "ismcts", 4, "random", deals=4, seed=0, workers=1)
    assert (row.iterations, row.deals, row.games) == (8, 1, 4)
    assert len(row.deal_wins) == 1 and sum(row.deal_wins) / 4 == row.win_share
    low, high = row.interval
    assert 0 <= low <= row.win_share <= high <= 1
    assert row.ms_max >= row.ms_mean > 0
    assert strength.markdown(row).startswith("| seals_v0 | `ismcts` | 8 | random | 4 |")


def test_the_script_writes_json_only_when_asked(cheap_search, tmp_path, capsys):
    out = tmp_path / "rows.json"
    argv = ["--games", "seals_v0", "--deals", "1", "--rows", "ismcts:random", "--workers", "1"]
    assert strength.main([*argv, "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [(r["game"], r["agent"], r["opponent"], r["games"]) for r in rows] == [
        ("seals_v0", "ismcts", "random", 4)
    ]
    assert "| seals_v0 | `ismcts` | 2 | random | 4 |" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "row"),
    [("ismcts:heuristic", ("ismcts", 1, "heuristic")), ("pimcx4:random", ("pimc", 4, "random"))],
)
def test_rows_are_named_kind_multiple_and_opponent(text, row):
    assert strength.parse_row(text) == row


@pytest.mark.parametrize("text", ["mcts:heuristic", "ismcts:ppo", "ismcts"])
def test_a_bad_row_says_what_a_row_is(text):
    with pytest.raises(SystemExit, match="KIND\\[x4\\]:OPPONENT"):
        strength.parse_row(text)
