"""The arena: seatings, seeds, statistics, ratings, determinism across workers, JSON and plot."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents import agent_kinds
from agents.match import GameResult
from card_envs import env_names, make
from card_envs.cli import main
from card_envs.tools.arena import (
    MAX_TABLES,
    MIN_TABLES,
    ArenaReport,
    Workers,
    default_episodes,
    entry_labels,
    make_tasks,
    run_arena,
    seatings,
    summarise,
    write_plot,
)
from card_envs.tools.selection import default_players
from card_envs.tools.stats import Ratings, finishing_ranks, wilson_interval

REPORT_KEYS = {"game", "players", "episodes", "seed", "agents"}
AGENT_KEYS = {"name", "games", "win_rate", "win_ci", "mean_score", "mean_reward", "rating"}


def shipped_agents(name: str) -> list[str]:
    return agent_kinds(make(name).describe())


# -- seatings and seeds -------------------------------------------------------------------------
@given(entries=st.integers(1, 6), players=st.integers(2, 6))
def test_every_entry_sits_in_each_seat_equally_often(entries, players):
    tables = seatings(entries, players)
    assert len(set(tables)) == len(tables), "a seating is played twice per deal"
    for entry in range(entries):
        per_seat = Counter(seat for table in tables for seat, e in enumerate(table) if e == entry)
        assert set(per_seat) == set(range(players)), f"entry {entry} misses a seat"
        assert len(set(per_seat.values())) == 1, f"entry {entry} favours seats {per_seat}"


def test_seatings_documented_cases():
    # K == N: the N rotations; K < N: the list cycled, distinct rotations; K > N: combinations.
    assert seatings(4, 4) == [(0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2)]
    assert seatings(2, 4) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert seatings(1, 4) == [(0, 0, 0, 0)]
    assert seatings(3, 2) == [(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)]
    with pytest.raises(ValueError, match="at least one agent"):
        seatings(0, 4)


def test_every_seating_of_a_deal_gets_the_same_deal_and_deals_differ():
    tasks = make_tasks("seamless_v0", 4, ["heuristic", "random"], episodes=3, seed=7)
    assert len(tasks) == 3 * 2
    deal_seeds = [t.deal_seed for t in tasks]
    assert deal_seeds[0] == deal_seeds[1] != deal_seeds[2] == deal_seeds[3] != deal_seeds[4]
    assert tasks[0].kinds == ("heuristic", "random", "heuristic", "random")
    assert tasks[1].kinds == ("random", "heuristic", "random", "heuristic")
    assert len({t.agent_seeds for t in tasks}) == len(tasks)
    again = make_tasks("seamless_v0", 4, ["heuristic", "random"], episodes=3, seed=8)
    assert {t.deal_seed for t in again}.isdisjoint(deal_seeds)


def test_repeated_agent_names_get_distinct_labels():
    assert entry_labels(["random", "heuristic", "random", "random"]) == [
        "random",
        "heuristic",
        "random#2",
        "random#3",
    ]


# -- statistics ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [  # Newcombe (1998), Statistics in Medicine 17:857, Table I, method 3 (Wilson score)
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_interval_matches_published_values(successes, trials, low, high):
    lo, hi = wilson_interval(successes, trials)
    assert lo == pytest.approx(low, abs=5e-5)
    assert hi == pytest.approx(high, abs=5e-5)


@given(trials=st.integers(1, 10_000), share=st.floats(0, 1))
def test_wilson_interval_contains_the_rate_and_stays_in_unit_range(trials, share):
    successes = share * trials
    lo, hi = wilson_interval(successes, trials)
    assert 0 <= lo <= successes / trials <= hi <= 1


@given(trials=st.integers(1, 10_000))
def test_wilson_interval_is_exactly_closed_at_zero_and_one(trials):
    assert wilson_interval(0, trials)[0] == 0.0
    assert wilson_interval(trials, trials)[1] == 1.0


def test_wilson_interval_without_trials_is_uninformative():
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_finishing_ranks_put_winners_first_then_scores():
    assert finishing_ranks([2], [10, 12, 9, 12]) == [4, 2, 1, 2]
    assert finishing_ranks([0, 3], [5, 5, 5, 5]) == [1, 3, 3, 1]
    assert finishing_ranks([], [1, 1]) == [1, 1]


def test_ratings_reward_the_winner_and_ignore_one_agent_tables():
    ratings = Ratings(2)
    ratings.update([0, 0, 0, 0], [1, 2, 3, 4])
    assert ratings.ordinal(0) == ratings.ordinal(1)
    for _ in range(20):
        ratings.update([0, 1, 0, 1], [1, 2, 3, 4])
    assert ratings.ratings[0].mu > 25 > ratings.ratings[1].mu
    assert ratings.ordinal(0) > ratings.ordinal(1)


def test_shared_wins_count_a_share_and_truncated_games_count_none():
    outcomes = [
        GameResult(winners=(0, 1), scores=(3, 3, 1), rewards=(0.5, 0.5, -1), steps=9),
        GameResult(winners=(), scores=(0, 0, 0), rewards=(0, 0, 0), steps=9),
    ]
    reports = summarise(["a", "b", "c"], [(0, 1, 2), (0, 1, 2)], outcomes)
    assert [r.games for r in reports] == [2, 2, 2]
    assert [r.win_rate for r in reports] == [0.25, 0.25, 0.0]
    assert reports[0].mean_score == 1.5 and reports[2].mean_reward == -0.5


# -- whole runs ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", env_names())
def test_results_are_identical_with_one_or_two_workers(name):
    agents = [*shipped_agents(name), "random"]
    runs = []
    for count in (1, 2):
        with Workers(count) as workers:
            runs.append(run_arena(name, agents, None, 2, seed=11, workers=workers).to_json())
    assert runs[0] == runs[1]
    assert json.dumps(runs[0]) == json.dumps(runs[1])
    other_seed = run_arena(name, agents, None, 2, seed=12).to_json()
    assert other_seed != runs[0]


def test_reports_are_consistent():
    report = run_arena("seamless_v0", ["heuristic", "random"], 4, episodes=6, seed=3)
    assert report.seatings == 2
    assert [a.games for a in report.agents] == [6 * 2 * 2, 6 * 2 * 2]
    # Every table of Seamless has a winner; each seat-game's win share adds up to the tables.
    assert sum(a.win_rate * a.games for a in report.agents) == pytest.approx(6 * 2)
    assert sum(a.mean_reward * a.games for a in report.agents) == pytest.approx(0, abs=1e-9)
    for agent in report.agents:
        assert agent.win_ci[0] <= agent.win_rate <= agent.win_ci[1]


@pytest.mark.parametrize("name", env_names())
def test_default_episodes_follow_the_measured_game_length(name):
    players = default_players(name)
    tables = default_episodes(name, players, 1)
    assert MIN_TABLES <= tables <= MAX_TABLES
    assert default_episodes(name, players, 1) == tables
    assert default_episodes(name, players, 4) == math.ceil(tables / 4)


def test_cli_writes_the_documented_json_and_a_png(tmp_path, capsys):
    out, png = tmp_path / "arena.json", tmp_path / "arena.png"
    args = "arena --game seamless_v0 --agents heuristic random --episodes 3 --seed 5 --workers 2"
    code = main([*args.split(), "--json", str(out), "--plot", str(png)])
    assert code == 0
    data = json.loads(out.read_text())
    assert set(data) == REPORT_KEYS
    assert (data["game"], data["players"], data["episodes"], data["seed"]) == (
        "seamless_v0",
        4,
        3,
        5,
    )
    assert [a["name"] for a in data["agents"]] == ["heuristic", "random"]
    for agent in data["agents"]:
        assert set(agent) == AGENT_KEYS
        assert isinstance(agent["games"], int)
        assert all(isinstance(agent[k], float) for k in AGENT_KEYS - {"name", "games", "win_ci"})
        assert len(agent["win_ci"]) == 2
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    printed = capsys.readouterr().out
    assert "seamless_v0, 4 players: 3 deals x 2 seatings = 6 games" in printed
    assert "95% CI" in printed and "arena: 1 runs in" in printed


def test_cli_game_all_covers_every_registered_game(tmp_path):
    out = tmp_path / "all.json"
    assert main(["arena", "--episodes", "1", "--workers", "2", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [d["game"] for d in data] == env_names()
    for report in data:
        assert set(report) == REPORT_KEYS
        assert {a["name"] for a in report["agents"]} == set(shipped_agents(report["game"]))


def test_plot_accepts_win_rates_of_zero_and_one(tmp_path):
    outcomes = [GameResult(winners=(0,), scores=(1, 0), rewards=(1, -1), steps=3)] * 7
    agents = summarise(["always", "never"], [(0, 1)] * 7, outcomes)
    report = ArenaReport("g", 2, 7, 0, 1, agents)
    write_plot([report, report], tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 0


def test_cli_rejects_unknown_agents_and_player_counts(capsys):
    assert main(["arena", "--game", "seamless_v0", "--agents", "nobody", "--episodes", "1"]) == 2
    assert "nobody" in capsys.readouterr().err
    assert main(["arena", "--game", "seamless_v0", "--players", "3", "--episodes", "1"]) == 2
    assert "not 3" in capsys.readouterr().err
    assert main(["arena", "--game", "seamless_v0", "--players", "x", "--episodes", "1"]) == 2
    assert main(["arena", "--game", "seamless_v0", "--workers", "0", "--episodes", "1"]) == 2
    assert main(["arena", "--game", "seamless_v0", "--episodes", "0"]) == 2


def test_trained_agent_in_parallel_workers_does_not_hang():
    """Regression: a forked worker deadlocked once torch had started threads in the parent."""
    from agents import make_agent

    make_agent("ppo", make("seamless_v0").describe())  # start torch here, as the arena's check does
    with Workers(2) as workers:
        report = run_arena("seamless_v0", ["ppo", "random"], 4, episodes=2, seed=5, workers=workers)
    assert sum(entry.games for entry in report.agents) > 0
