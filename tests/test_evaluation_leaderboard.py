"""card-envs leaderboard: line-ups where every pair meets, ratings that order agents as their
pairwise results do, and a run that writes only where it is told."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from card_envs.cli import main
from card_envs.evaluation.leaderboard import Outcome, fit_strengths, lineups, ratings, rotations

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("count", "seats"), [(c, s) for c in range(2, 10) for s in (2, 3, 4, 5)])
def test_every_pair_meets(count, seats):
    schedule = lineups(count, seats)
    met = {pair for lineup in schedule for pair in itertools.combinations(sorted(set(lineup)), 2)}
    assert met == set(itertools.combinations(range(count), 2))
    assert all(len(lineup) == seats for lineup in schedule)
    if count >= seats:
        assert all(len(set(lineup)) == seats for lineup in schedule)


def test_rotations_seat_every_entry_in_every_seat():
    tables = rotations((0, 1, 2, 3))
    for seat in range(4):
        assert sorted(t[seat] for t in tables) == [0, 1, 2, 3]


def pairwise_case(strengths: list[float], seats: int, deals: int) -> list[Outcome]:
    """Tables of the line-ups of ``len(strengths)`` agents, each seat winning in proportion to
    ``exp(strength)`` (fractional wins: the expectation, no sampling noise)."""
    tables = []
    for deal in range(deals):
        for lineup in lineups(len(strengths), seats):
            for entries in rotations(lineup):
                p = np.exp([strengths[e] for e in entries])
                tables.append(Outcome(deal, entries, tuple(p / p.sum())))
    return tables


def test_ratings_order_agents_as_their_pairwise_results_do():
    """Three agents, each pair at two-seat tables: A beats B, B beats C, A beats C."""
    tables = []
    rng = np.random.default_rng(0)
    beats = {(0, 1): 0.7, (1, 2): 0.65, (0, 2): 0.8}
    for deal in range(80):
        for (a, b), p in beats.items():
            for entries in ((a, b), (b, a)):
                first = rng.random() < (p if entries[0] == a else 1 - p)
                tables.append(Outcome(deal, entries, (float(first), float(not first))))
    lines = ratings(["A", "B", "C"], tables, tables, anchor=2)
    assert [line.agent for line in lines] == ["A", "B", "C"]
    by_agent = {line.agent: line for line in lines}
    for (a, b), _ in beats.items():
        name_a, name_b = "ABC"[a], "ABC"[b]
        mine = [t.wins[t.entries.index(a)] for t in tables if set(t.entries) == {a, b}]
        assert np.mean(mine) > 0.5
        assert by_agent[name_a].rating > by_agent[name_b].rating
    assert by_agent["C"].rating == 0.0 and by_agent["A"].low > 0


def test_a_four_seat_schedule_recovers_the_strengths():
    strengths = [1.0, 0.5, 0.0, -0.5, -1.5, 0.2]
    theta = fit_strengths(pairwise_case(strengths, 4, 30), len(strengths), anchor=2)
    assert theta == pytest.approx(np.array(strengths) - strengths[2], abs=0.05)


def test_luck_adjusted_wins_may_be_negative():
    """Adjusted wins are real numbers that still add up to one a table."""
    tables = [
        Outcome(0, (0, 1), (1.3, -0.3)),
        Outcome(0, (1, 0), (0.2, 0.8)),
        Outcome(1, (0, 1), (0.6, 0.4)),
        Outcome(1, (1, 0), (-0.1, 1.1)),
    ]
    theta = fit_strengths(tables, 2)
    assert np.isfinite(theta).all() and theta[1] < theta[0] == 0


def test_a_run_writes_its_folder_and_leaves_the_shipped_page(tmp_path, capsys):
    shipped = ROOT / "docs" / "leaderboard.md"
    before = shipped.read_text() if shipped.exists() else None
    out = tmp_path / "board"
    code = main(
        [
            "leaderboard",
            "--game",
            "seals_v0",
            "--deals",
            "2",
            "--workers",
            "1",
            "--without",
            "ismcts",
            "pimc",
            "ppo",
            "ppo_advised",
            "heuristic_value",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    assert "seals_v0, 4 players: 2 agents" in capsys.readouterr().out
    data = json.loads((out / "leaderboard.json").read_text())
    assert data["format"] == "card-envs.leaderboard/1"
    [game] = data["games"]
    assert game["agents"] == ["random", "heuristic"] and game["deals"] == 2
    assert {r["agent"] for r in game["ratings"]} == {"random", "heuristic"}
    assert (out / "leaderboard.png").exists() and "## `seals_v0`" in (
        out / "leaderboard.md"
    ).read_text()
    assert sorted(p.name for p in (out / "scorecards").iterdir()) == [
        "seals_v0_heuristic.json",
        "seals_v0_random.json",
    ]
    assert (shipped.read_text() if shipped.exists() else None) == before


@pytest.mark.parametrize("part", [["--game", "seals_v0"], ["--players", "2"]])
def test_a_part_of_the_leaderboard_never_replaces_the_shipped_page(part, capsys):
    """The shipped page rates every game: one game written over it would drop the others."""
    shipped = [
        ROOT / "docs" / "leaderboard.md",
        ROOT / "benchmarks" / "results" / "leaderboard.json",
    ]
    before = [path.read_bytes() for path in shipped]
    assert main(["leaderboard", *part, "--write", "--deals", "1", "--workers", "1"]) == 2
    assert "--write replaces the shipped page" in capsys.readouterr().err
    assert [path.read_bytes() for path in shipped] == before
