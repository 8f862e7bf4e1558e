"""The arena: seatings, seeds, statistics, ratings, determinism across workers, JSON and plot."""

from __future__ import annotations

import io
import json
import random
from collections import Counter
from typing import ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from card_envs import env_names, make
from card_envs.agents import TRAINED_KINDS, RandomAgent, agent_kinds
from card_envs.agents.match import GameResult
from card_envs.cli import main
from card_envs.tools import arena
from card_envs.tools.arena import (
    LOPSIDED_SHARE,
    MAX_DEALS,
    MIN_DEALS,
    AgentReport,
    ArenaReport,
    Job,
    Lineup,
    Progress,
    Workers,
    alone_seatings,
    build_jobs,
    claims,
    entry_labels,
    format_report,
    make_tasks,
    plan_deals,
    rating_notes,
    run_arena,
    run_matrix,
    seatings,
    summarise,
    write_plot,
)
from card_envs.tools.arena import estimate as estimate_module
from card_envs.tools.arena import jobs as jobs_module
from card_envs.tools.arena import tables as tables_module
from card_envs.tools.stats import Ratings, deal_interval, wilson_interval, win_ranks

REPORT_KEYS = {"game", "players", "episodes", "seed", "agents"}
AGENT_KEYS = {"name", "games", "win_rate", "win_ci", "mean_score", "mean_reward", "rating"}
MATRIX_KEYS = {"game", "players", "seed", "agents", "opponents", "cells"}
CELL_KEYS = {"agent", "opponent", "deals", "games", "win_rate", "win_ci", "mean_score"}
CELL_KEYS |= {"mean_reward"}


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


@given(players=st.integers(2, 6))
def test_one_agent_alone_sits_in_every_seat_once_against_the_field(players):
    tables = alone_seatings(players)
    assert len(tables) == players
    assert sorted(table.index(0) for table in tables) == list(range(players))
    assert all(table.count(0) == 1 and table.count(1) == players - 1 for table in tables)


def test_every_seating_of_a_deal_gets_the_same_deal_and_deals_differ():
    lineup = Lineup.pool(["heuristic", "random"], 4)
    tasks = make_tasks("seamless_v0", 4, lineup, range(3), seed=7)
    assert len(tasks) == 3 * 2
    deal_seeds = [t.deal_seed for t in tasks]
    assert deal_seeds[0] == deal_seeds[1] != deal_seeds[2] == deal_seeds[3] != deal_seeds[4]
    assert tasks[0].kinds == ("heuristic", "random", "heuristic", "random")
    assert tasks[1].kinds == ("random", "heuristic", "random", "heuristic")
    assert len({t.agent_seeds for t in tasks}) == len(tasks)
    again = make_tasks("seamless_v0", 4, lineup, range(3), seed=8)
    assert {t.deal_seed for t in again}.isdisjoint(deal_seeds)
    cell = make_tasks("seamless_v0", 4, Lineup.cell("ppo_advised", "random", 4), range(3), seed=7)
    assert [t.deal_seed for t in cell[::4]] == deal_seeds[::2], "cells share the run's deals"
    assert cell[1].kinds == ("random", "random", "random", "ppo_advised")


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


def test_deal_interval_is_wilsons_when_the_deals_vary_like_independent_games():
    rng = random.Random(3)
    wins = [sum(rng.random() < 0.3 for _ in range(4)) for _ in range(2000)]
    lo, hi = deal_interval(wins, 4)
    wlo, whi = wilson_interval(sum(wins), 8000)
    assert hi - lo == pytest.approx(whi - wlo, rel=0.1)


def test_deal_interval_narrows_when_the_seatings_of_a_deal_balance_out():
    """An agent as good as the field wins about one of its four rotations of a deal: the
    deal's share hardly varies, which independent games would not explain."""
    wins = [1.0, 1.0, 2.0, 0.0, 1.0, 1.0, 1.0, 1.0] * 25  # 200 deals of 4 seat-games
    lo, hi = deal_interval(wins, 4)
    wlo, whi = wilson_interval(sum(wins), 800)
    assert lo <= 0.25 <= hi
    assert hi - lo < 0.6 * (whi - wlo)  # a third of the variance: 0.58 of the width
    # deals that all agree leave the interval of four times the games, not a point
    assert deal_interval([1.0] * 50, 4) == pytest.approx(wilson_interval(200, 800))


def test_deal_interval_falls_back_to_games_at_zero_one_and_few_deals():
    assert deal_interval([0.0] * 40, 4) == wilson_interval(0, 160)
    assert deal_interval([4.0] * 40, 4) == wilson_interval(160, 160)
    assert deal_interval([1.0] * 29, 4) == wilson_interval(29, 116)
    assert deal_interval([3.0], 4) == wilson_interval(3, 4)


def test_deal_interval_covers_the_true_share():
    """Coverage near 95% for deals whose seat-games are negatively correlated."""
    rng = random.Random(5)
    covered = 0
    for _ in range(400):
        wins = []
        for _deal in range(60):
            best = rng.randrange(4)  # the deal favours one seat; the agent wins there, mostly
            wins.append(
                sum((rng.random() < 0.7) if s == best else (rng.random() < 0.1) for s in range(4))
            )
        lo, hi = deal_interval(wins, 4)
        covered += lo <= (0.7 + 3 * 0.1) / 4 <= hi
    assert 0.92 <= covered / 400 <= 0.98


def test_win_ranks_put_winners_first_and_tie_the_rest():
    assert win_ranks([2], 4) == [2, 2, 1, 2]
    assert win_ranks([0, 3], 4) == [1, 2, 2, 1]
    assert win_ranks([], 2) is None  # a truncated game says nothing
    assert win_ranks([0, 1], 2) is None  # nor does everyone winning


def test_ratings_reward_the_winner_and_ignore_one_agent_tables():
    ratings = Ratings(2)
    ratings.update([0, 0, 0, 0], [1, 2, 2, 2])
    ratings.update([0, 1, 0, 1], None)
    assert ratings.ordinal(0) == ratings.ordinal(1)
    for _ in range(20):
        ratings.update([0, 1, 0, 1], win_ranks([0], 4))
    assert ratings.ratings[0].mu > 25 > ratings.ratings[1].mu
    assert ratings.ordinal(0) > ratings.ordinal(1)


def test_ratings_follow_the_win_rates_not_the_places():
    """The issue's case: an entry that wins more but places worse behind the winner was rated
    lower. Rated on wins, the order is the win rates'."""
    outcomes, played = [], []
    for deal in range(60):
        winner = 0 if deal % 5 < 2 else 1 if deal % 5 < 3 else 2  # wins: a 40%, b 20%, c 40%
        scores = [0.0, 5.0, 1.0]  # b is always second by score
        scores[winner] = 9.0
        outcomes.append(GameResult((winner,), tuple(scores), (0, 0, 0), 1))
        played.append((0, 1, 2))
    a, b, c = summarise(["a", "b", "c"], played, outcomes)
    assert a.win_rate > b.win_rate and a.rating > b.rating
    assert c.rating > b.rating


def test_a_rating_against_the_win_rates_is_explained_on_the_table():
    def entry(name: str, rate: float, ci: tuple[float, float], rating: float) -> AgentReport:
        return AgentReport(name, 100, rate, ci, 0.0, 0.0, rating, 25.0, 1.0)

    close = [entry("a", 0.33, (0.25, 0.41), 17.2), entry("b", 0.30, (0.22, 0.38), 22.5)]
    assert rating_notes(close) == [
        "note: b is rated above a, which wins more (0.330 vs 0.300): their 95% intervals "
        "overlap, so the games do not tell the two apart"
    ]
    apart = [entry("a", 0.6, (0.55, 0.65), 17.2), entry("b", 0.3, (0.25, 0.35), 22.5)]
    assert "whom each beat" in rating_notes(apart)[0]
    assert (
        rating_notes([entry("a", 0.6, (0.5, 0.7), 22.0), entry("b", 0.3, (0.2, 0.4), 17.0)]) == []
    )
    report = ArenaReport("g", 4, 25, 0, 4, tuple(close))
    assert format_report(report, 1.0).endswith(rating_notes(close)[0])


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
    """Every built-in agent (a kind twice at a table where there are three), measured on the
    first deal and played on the second: the same report from one process or two."""
    agents = shipped_agents(name)
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


# -- sizing to a budget ------------------------------------------------------------------------
def job(cost: list[float], lopsided: list[bool]) -> Job:
    """A job whose line-ups measured ``cost`` CPU seconds per deal on one deal."""
    lineups = [Lineup.cell("a", "random" if lop else "b", 4) for lop in lopsided]
    out = Job("g", 4, lineups, matrix=True)
    out.start()
    for k, c in enumerate(cost):
        for _ in range(4):
            out.add(k, GameResult((0,), (0, 0, 0, 0), (0, 0, 0, 0), 1), c / 4)
    return out


def test_the_plan_fills_the_capacity_with_more_deals_for_cheaper_games():
    cheap, dear = job([0.1], [False]), job([1.6], [False])
    deals = plan_deals([cheap, dear], capacity=100.0)
    assert deals[0] == pytest.approx(4 * deals[1], abs=4), "deals go as 1 / sqrt(cost)"
    spent = cheap.spent(deals[0]) + dear.spent(deals[1])
    assert spent <= 100.0
    assert cheap.spent(deals[0] + 4) + dear.spent(deals[1] + 1) > 100.0, "room was left"


def test_the_plan_stays_within_its_bounds():
    assert plan_deals([job([1.0], [False])], capacity=0.0) == [MIN_DEALS]
    assert plan_deals([job([1.0], [False])], capacity=1e9) == [MAX_DEALS]


def test_lopsided_line_ups_play_a_share_of_the_others_deals():
    both = job([1.0, 1.0], [False, True])
    assert arena.lineup_deals(400, True) == 400 // LOPSIDED_SHARE
    assert arena.lineup_deals(12, True) == MIN_DEALS
    main = plan_deals([both], capacity=500.0)[0]
    assert both.spent(main) == pytest.approx(main + max(MIN_DEALS, main // LOPSIDED_SHARE))


def test_a_game_is_played_in_rounds_of_half_of_what_is_left():
    game = job([1.0, 1.0], [False, True])  # one deal of each line-up played
    game.deals = [41, 10]
    assert game.next_round(last=True) == [range(1, 41), range(1, 10)]
    sizes = []
    while any(rounds := game.next_round(last=False)):
        sizes.append([len(r) for r in rounds])
        for k, deals in enumerate(rounds):
            for _ in range(len(deals) * 4):
                game.add(k, GameResult((0,), (0, 0, 0, 0), (0, 0, 0, 0), 1), 0.0)
    # half of what is left until a quarter of the plan (or ROUND_DEALS) is left: then all
    assert sizes == [[20, 5], [10, 4], [10, 0]]
    assert game.played() == [41, 10]


def test_a_budget_run_measures_then_plans():
    report = run_arena("seals_v0", ["random", "random"], budget=1e-3)
    assert report.episodes == MIN_DEALS  # no time left after measuring: the least there is
    assert sum(a.games for a in report.agents) == MIN_DEALS * 2 * 4


def test_budget_and_episodes_are_checked(capsys):
    base = ["arena", "--game", "seals_v0", "--agents", "random", "--workers", "1"]
    assert main([*base, "--episodes", "1", "--budget", "10"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main([*base, "--budget", "0"]) == 2
    assert "--budget must be a positive" in capsys.readouterr().err


# -- progress -----------------------------------------------------------------------------------
class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_writes_lines_with_an_eta_when_not_a_terminal():
    stream, clock = io.StringIO(), Clock()
    progress = Progress(stream, tty=False, every=10.0, clock=clock)
    progress.start("arena")
    for games in range(1, 5):
        clock.now += 6.0
        progress.update(games, 4, done=3.0 * games, left=3.0 * (4 - games))
    progress.note("arena: seals_v0 done")
    progress.close()
    assert stream.getvalue().splitlines() == [
        "arena:  50% (2/4 games), 0:12 elapsed, ETA 0:12",
        "arena: 100% (4/4 games), 0:24 elapsed, ETA 0:00",
        "arena: seals_v0 done",
    ]


def test_progress_eta_weighs_tables_by_their_cost():
    """One cheap table done of a run whose expensive tables are left: the ETA is long."""
    progress = Progress(io.StringIO(), tty=False)
    assert progress.status(1, 10, done=0.1, left=9.9, elapsed=1.0).endswith("ETA 1:39")
    assert progress.status(0, 10, done=0.0, left=9.9, elapsed=1.0).endswith("ETA ?")


def test_progress_redraws_one_line_on_a_terminal_and_leaves_it():
    stream, clock = io.StringIO(), Clock()
    progress = Progress(stream, tty=True, clock=clock)
    progress.start("arena")
    clock.now = 1.0
    progress.update(1, 2, 1.0, 1.0)
    progress.note("plan")
    clock.now = 2.0
    progress.update(2, 2, 2.0, 0.0)
    progress.close()
    assert stream.getvalue() == (
        "\r\033[Karena:  50% (1/2 games), 0:01 elapsed, ETA 0:01"
        "\r\033[Kplan\n"
        "\r\033[Karena: 100% (2/2 games), 0:02 elapsed, ETA 0:00\n"
    )


def test_the_command_shows_progress_on_stderr_when_it_is_not_a_terminal(capsys):
    """With --episodes the run starts at once (no measuring) and every line says what it counts."""
    base = ["arena", "--game", "seals_v0", "--agents", "random", "heuristic", "--workers", "1"]
    assert main([*base, "--episodes", "2"]) == 0
    out, err = capsys.readouterr()
    assert "measuring" not in err and "measuring" not in out
    assert "arena: plan: seals_v0: 2 deals a line-up, each in 2 seatings = 4 games" in err
    assert "ETA 0:00" in err
    assert "arena: seals_v0 done: 2 deals a line-up, 4 games in" in err
    assert "games: seat-games played; win rate: wins per seat-game" in out  # the legend
    assert "s playing them (the times above)" in out


def test_a_budget_run_names_no_game_total_that_would_change():
    stream = io.StringIO()
    jobs = build_jobs([("seals_v0", 4)], None, matrix=False)
    progress = Progress(stream, tty=False, every=0.0)
    arena.Arena(Workers(1), progress=progress).run(jobs, budget=1e-3)
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("arena: measuring what each of 7 line-ups in 1 games costs")
    assert any(line.startswith("arena: plan for the budget's time left") for line in lines)
    jobs[0].deals = [40 if not lineup.lopsided else 10 for lineup in jobs[0].lineups]
    assert arena.deals_text(jobs[0]) == "40 deals a line-up (10 where a random player sits)"
    played = [line for line in lines if "games played" in line]
    assert played and all("/" not in line for line in played)


def test_every_table_advances_the_progress_by_its_cost():
    stream = io.StringIO()
    jobs = build_jobs([("seals_v0", 4)], ["random", "heuristic"], matrix=False)
    arena.Arena(Workers(1), progress=Progress(stream, tty=False, every=0.0)).run(jobs, 2)
    lines = [line for line in stream.getvalue().splitlines() if "games)" in line]
    assert lines[0].startswith("arena:  25% (1/4 games)")  # not 100% at the start
    assert "% (2/4 games)" in lines[1] and "100%" not in lines[1]
    assert lines[-1].startswith("arena: 100% (4/4 games)")


def test_a_long_fixed_run_says_how_long_before_it_starts(monkeypatch):
    """A search agent's decisions are timed on a few positions: the run's length, up front."""
    stream = io.StringIO()
    jobs = build_jobs([("seals_v0", 4)], ["ismcts:iterations=20", "random"], matrix=False)
    monkeypatch.setattr(estimate_module, "LONG_RUN_SECONDS", 0.0)
    estimate = arena.Estimate.of(jobs[0])
    assert estimate.per_decision["ismcts:iterations=20"] > estimate.per_decision["random"]
    assert estimate.per_seat > 1
    jobs[0].deals = [1]
    assert estimate.seconds(jobs[0]) > 0
    arena.Arena(Workers(1), progress=Progress(stream, tty=False, every=0.0)).run(jobs, 1)
    first = stream.getvalue().splitlines()[1]
    assert first.startswith("arena: about ") and "ismcts:iterations=20" in first


# -- matrices -----------------------------------------------------------------------------------
def test_the_default_matrix_is_each_kind_against_random_and_heuristic():
    assert claims(["random", "heuristic", "heuristic_value", "ppo"]) == (
        ["heuristic", "heuristic_value", "ppo"],
        ["random", "heuristic"],
    )
    jobs = build_jobs([("seals_v0", 4)], None, matrix=False)
    assert jobs[0].matrix and jobs[0].agents == tuple(claims(shipped_agents("seals_v0"))[0])
    assert [lineup.names for lineup in jobs[0].lineups][:2] == [
        ("heuristic", "random"),
        ("heuristic_value", "random"),
    ]
    assert not build_jobs([("seals_v0", 4)], ["random", "heuristic"], matrix=False)[0].matrix
    solo = build_jobs([("sequitur_v0", 1)], ["random", "heuristic"], matrix=True)[0]
    assert not solo.matrix and solo.lineups[0].tables == ((0,), (1,))  # each alone


def test_a_later_version_plays_only_its_trained_agents(monkeypatch):
    """sequitur_v1 is sequitur_v0's game: the default run does not replay its built-in agents,
    and skips it while it ships no trained agent of its own."""
    alone = build_jobs([("sequitur_v1", 4)], None, matrix=False)  # alone it is shown whole
    assert alone[0].agents == tuple(claims(agent_kinds(make("sequitur_v1").describe()))[0])
    real = jobs_module.agent_kinds
    builtin = [kind for kind in real(make("sequitur_v1").describe()) if kind not in TRAINED_KINDS]
    monkeypatch.setattr(jobs_module, "agent_kinds", lambda info: builtin)
    jobs = build_jobs([("sequitur_v0", 4), ("sequitur_v1", 4)], None, matrix=False)
    assert [job.env_name for job in jobs] == ["sequitur_v0"]
    monkeypatch.setattr(
        jobs_module, "agent_kinds", lambda info: builtin + ["ppo"] * info.name.endswith("_v1")
    )
    monkeypatch.setattr(jobs_module, "check_agents", lambda *args: None)
    jobs = build_jobs([("sequitur_v0", 4), ("sequitur_v1", 4)], None, matrix=False)
    assert jobs[1].agents == ("ppo",) and jobs[1].opponents == ("random", "heuristic")
    both = build_jobs([("sequitur_v0", 4), ("sequitur_v1", 4)], None, matrix=True)
    assert "heuristic" in both[1].agents  # a matrix asked for plays everything


def test_matrix_puts_every_kind_against_every_other(tmp_path, capsys):
    out = tmp_path / "matrix.json"
    args = (
        "arena --game seals_v0 --agents random heuristic ppo_advised --matrix --episodes 2 "
        "--workers 1"
    )
    assert main([*args.split(), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert set(data) == MATRIX_KEYS
    assert data["agents"] == data["opponents"] == ["random", "heuristic", "ppo_advised"]
    pairs = [(c["agent"], c["opponent"]) for c in data["cells"]]
    assert pairs == [(a, b) for a in data["agents"] for b in data["agents"] if a != b]
    for cell in data["cells"]:
        assert set(cell) == CELL_KEYS
        assert (cell["deals"], cell["games"]) == (2, 2 * 4)  # alone: one seat at each table
        assert cell["win_ci"][0] <= cell["win_rate"] <= cell["win_ci"][1]
    printed = capsys.readouterr().out
    assert "vs 3 random" in printed and "vs 3 ppo" in printed
    assert printed.count("\nrandom ") == 1


def test_a_matrix_cell_is_the_agent_alone_against_the_field():
    report = run_matrix("seamless_v0", ["heuristic", "random"], episodes=3, seed=2)
    alone = run_arena(
        "seamless_v0", ["heuristic", "random", "random", "random"], episodes=3, seed=2
    )
    cell = report.cell("heuristic", "random")
    assert cell is not None and report.cell("heuristic", "heuristic") is None
    assert cell.result.games == alone.agents[0].games == 12
    assert cell.result.win_rate == alone.agents[0].win_rate  # same deals, same seatings


def test_a_users_agent_class_plays_in_the_arena():
    report = run_arena("seals_v0", ["card_envs.agents.seals:HeuristicAgent", "random"], episodes=2)
    assert [a.name for a in report.agents] == ["card_envs.agents.seals:HeuristicAgent", "random"]
    assert report.agents[0].win_rate > report.agents[1].win_rate


def test_trust_checkpoint_reaches_make_agent(monkeypatch):
    calls = []
    real = tables_module.make_agent

    def spy(kind, info, seed=None, *, trust=False):
        calls.append(trust)
        return real(kind, info, seed, trust=trust)

    monkeypatch.setattr(jobs_module, "make_agent", spy)  # the check, in this process
    monkeypatch.setattr(estimate_module, "make_agent", spy)  # the up-front estimate
    monkeypatch.setattr(tables_module, "make_agent", spy)  # the agents that play
    monkeypatch.setattr(tables_module, "_AGENTS", {})
    base = ["arena", "--game", "seals_v0", "--agents", "random", "heuristic", "--episodes", "1"]
    assert main([*base, "--workers", "1"]) == 0
    assert calls and not any(calls)
    calls.clear()
    assert main([*base, "--workers", "1", "--trust-checkpoint"]) == 0
    assert calls and all(calls)  # the check in this process and the agents that play


def test_the_default_command_writes_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["arena", "--game", "seals_v0", "--episodes", "1", "--workers", "1"]) == 0
    assert list(tmp_path.iterdir()) == []


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
    assert "95% CI" in printed and "arena: 1 game in" in printed


def test_cli_game_all_covers_every_registered_game(tmp_path):
    out = tmp_path / "all.json"
    assert main(["arena", "--episodes", "1", "--workers", "2", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    # a later version of a game plays only its trained agents, and without one it is left out
    played, expected = set(), []
    for name in env_names():
        game = make(name).game.name
        trained = [k for k in claims(shipped_agents(name))[0] if k in TRAINED_KINDS]
        if game not in played or trained:
            expected.append(name)
        played.add(game)
    assert "sequitur_v1" in expected and "seamless_v1" not in expected  # only v1 with a ppo
    assert [d["game"] for d in data] == expected
    games = set()
    for report in data:
        assert set(report) == MATRIX_KEYS
        agents, opponents = claims(shipped_agents(report["game"]))
        game = make(report["game"]).game.name
        if game in games:  # a later version: only its trained agents
            agents = [kind for kind in agents if kind in TRAINED_KINDS]
        games.add(game)
        assert (report["agents"], report["opponents"]) == (agents, opponents)
        vs_itself = "heuristic" in agents  # the heuristic is not played against itself
        assert len(report["cells"]) == len(agents) * len(opponents) - vs_itself


def test_plot_accepts_win_rates_of_zero_and_one(tmp_path):
    outcomes = [GameResult(winners=(0,), scores=(1, 0), rewards=(1, -1), steps=3)] * 7
    agents = summarise(["always", "never"], [(0, 1)] * 7, outcomes)
    report = ArenaReport("g", 2, 7, 0, 1, agents)
    write_plot([report, report], tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 0


def test_cli_rejects_unknown_agents_and_player_counts(capsys):
    assert (
        main(
            [
                "arena",
                "--game",
                "seals_v0",
                "--agents",
                "card_envs.agents.seals:Nobody",
                "--episodes",
                "1",
            ]
        )
        == 2
    )
    assert "card_envs.agents.seals:Nobody" in capsys.readouterr().err
    assert main(["arena", "--game", "seamless_v0", "--agents", "nobody", "--episodes", "1"]) == 2
    assert "nobody" in capsys.readouterr().err
    assert main(["arena", "--game", "seamless_v0", "--players", "3", "--episodes", "1"]) == 2
    assert "not 3" in capsys.readouterr().err
    assert main(["arena", "--game", "seamless_v0", "--players", "x", "--episodes", "1"]) == 2
    assert main(["arena", "--game", "seamless_v0", "--workers", "0", "--episodes", "1"]) == 2
    assert main(["arena", "--game", "seamless_v0", "--episodes", "0"]) == 2


class ThreadsAgent(RandomAgent):
    """A random player that records how many threads torch may use while it plays."""

    seen: ClassVar[list[int]] = []

    def act(self, observation):
        import torch

        ThreadsAgent.seen.append(torch.get_num_threads())
        return super().act(observation)


def test_playing_in_this_process_runs_torch_on_one_thread_and_restores_it():
    """A trained agent's forward pass took 5 ms instead of 0.1 with torch's threads contending
    on a busy machine; one worker plays as the pool's workers do, then gives the threads back."""
    torch = pytest.importorskip("torch")
    saved = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        ThreadsAgent.seen.clear()
        run_arena("seals_v0", ["test_arena:ThreadsAgent", "random"], episodes=1)
        assert ThreadsAgent.seen and set(ThreadsAgent.seen) == {1}
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(saved)


def test_trained_agent_in_parallel_workers_does_not_hang():
    """Regression: a forked worker deadlocked once torch had started threads in the parent."""
    from card_envs.agents import make_agent

    # start torch here, as the arena's check does
    make_agent("ppo_advised", make("seamless_v0").describe())
    with Workers(2) as workers:
        lineup = ["ppo_advised", "random"]
        report = run_arena("seamless_v0", lineup, 4, episodes=2, seed=5, workers=workers)
    assert sum(entry.games for entry in report.agents) > 0
