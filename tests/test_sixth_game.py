"""A sixth game that lives only in its own folders (issue 45): Leduc Hold'em, in
``tests/leduc/``, registered from this module with ``card_envs.registry.register``. Its rules
are checked on exact deals and against OpenSpiel's ``leduc_poker``; then every generic layer is
run on it through its public entry points (the contract tests, the arena, the search agents,
self-play, records and replay, the browser API) with no line changed outside its folders."""

from __future__ import annotations

import importlib
import inspect
import itertools
import json
import re
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import test_env_reliability as reliability
from helpers import snapshot
from leduc.rules import ACTIONS, NO_CARD, LeducGame, card_name, parse_card

import card_envs
from card_envs.agents import agent_kinds, make_agent
from card_envs.agents.match import decisions, play_game
from card_envs.core.env import CardEnv
from card_envs.core.errors import IllegalActionError
from card_envs.registry import env_module, env_names, plugin, register, unregister

ROOT = Path(__file__).resolve().parents[1]
LEDUC = "leduc_v0"
# The shared contract tests, run on the sixth game as pytest runs them on the five: every test
# of these modules that takes an env ``name``, with Leduc's name and player count, the other
# values it is parametrized by, and the fixtures below. Found by their parameters, so a contract
# test added there runs here too.
CONTRACT_MODULES = ("test_envs", "test_env_reliability", "test_chance")
ENV_ARGUMENTS = {"name": LEDUC, "num_players": 2}
FIXTURES = ("capsys",)
# Contract tests whose helper assumes a longer game than Leduc's (at most 8 moves): they copy the
# env after 12 random moves, so here they copy a finished game; the same checks run below on a
# game copied after one move.
LONGER_GAMES = ("test_a_copy_made_mid_game", "test_a_copy_is_independent_of_the_original")


@pytest.fixture(scope="module", autouse=True)
def registered():
    """Leduc is an env of the registry while this module runs, and only then."""
    register(LEDUC, "leduc.leduc_v0")
    yield
    unregister(LEDUC)


def own_parameters(function: Callable) -> list[str]:
    """The parameters pytest fills (those Hypothesis draws left out)."""
    wrapped = getattr(function, "hypothesis", None)
    inner = wrapped.inner_test if wrapped is not None else function
    drawn = getattr(wrapped, "_given_kwargs", None) or {}
    return [p for p in inspect.signature(inner).parameters if p not in drawn]


def other_values(function: Callable) -> dict[str, list[tuple[str, object]]]:
    """The values (with their ids) of each parameter pytest parametrizes it by, but the env's."""
    values = {}
    for mark in getattr(function, "pytestmark", []):
        names = mark.args[0] if mark.name == "parametrize" else ""
        names = names.replace(" ", "").split(",") if isinstance(names, str) else list(names)
        if len(names) == 1 and names[0] not in ENV_ARGUMENTS:
            given = [getattr(v, "values", (v,))[0] for v in mark.args[1]]
            ids = mark.kwargs.get("ids") or [str(value) for value in given]
            values[names[0]] = list(zip(ids, given, strict=True))
    return values


def contract_tests() -> list:
    found = []
    for module_name in CONTRACT_MODULES:
        for test_name, function in vars(importlib.import_module(module_name)).items():
            if not (test_name.startswith("test_") and callable(function)):
                continue
            parameters, others = own_parameters(function), other_values(function)
            known = {*ENV_ARGUMENTS, *FIXTURES, *others}
            if "name" not in parameters or not set(parameters) <= known:
                continue
            reason = "its helper plays 12 moves, past the end of a Leduc game"
            marks = [pytest.mark.xfail(strict=True, reason=reason)]
            for combination in itertools.product(*others.values()):
                extra = {name: value for name, (_, value) in zip(others, combination, strict=True)}
                found.append(
                    pytest.param(
                        module_name,
                        test_name,
                        extra,
                        marks=marks if test_name.startswith(LONGER_GAMES) else [],
                        id="-".join([module_name, test_name, *(label for label, _ in combination)]),
                    )
                )
    return found


def play(deal: dict, moves: str, **options) -> CardEnv:
    """A game on ``deal`` (cards by name) after ``moves`` (action names, space-separated)."""
    env = card_envs.make(LEDUC, **options)
    hands = [parse_card(card) for card in deal["hands"]]
    given = {"hands": hands} | ({"public": parse_card(deal["public"])} if "public" in deal else {})
    env.reset(seed=0, options={"deal": given})
    for move in moves.split():
        env.step(ACTIONS.ids[move])
    return env


def outcome(env) -> tuple[list[float], list[int]]:
    game, state = env.game, env.game_state
    assert game.is_over(state)
    return list(game.scores(state)), game.winners(state)


# -- registration -----------------------------------------------------------------------------
def test_the_game_joins_from_outside_the_package():
    assert LEDUC in env_names() and card_envs.player_counts(LEDUC) == (2,)
    assert env_module(LEDUC).__name__ == "leduc.leduc_v0"
    assert plugin(LEDUC).agents == "leduc.agents" and plugin(LEDUC).view == "leduc.view"
    assert agent_kinds(card_envs.make(LEDUC).describe()) == ["random", "heuristic"]
    unregister(LEDUC)
    try:
        assert LEDUC not in env_names()
        with pytest.raises(ValueError, match="unknown environment 'leduc_v0'"):
            card_envs.make(LEDUC)
    finally:
        register(LEDUC, "leduc.leduc_v0")


@pytest.mark.parametrize(("module_name", "test_name", "extra"), contract_tests())
def test_the_shared_contract_tests_hold(module_name, test_name, extra, capsys):
    """Each contract test the five games pass, called on Leduc as pytest calls it on them:
    PettingZoo's ``api_test``, ``seed_test`` and ``render_test`` on ``card_envs.make``, random
    play, rewards, determinism, bad actions and options, no information leak, copies, deal
    records that replay."""
    function = getattr(importlib.import_module(module_name), test_name)
    arguments = {**ENV_ARGUMENTS, "capsys": capsys, **extra}
    function(**{p: arguments[p] for p in own_parameters(function)})


# -- the rules, on exact deals ----------------------------------------------------------------
def test_a_pair_with_the_public_card_beats_a_higher_card():
    env = play({"hands": ["J♠", "K♥"], "public": "J♥"}, "call call call call")
    assert outcome(env) == ([1.0, -1.0], [0])


def test_the_higher_card_wins_without_a_pair():
    env = play({"hands": ["Q♠", "K♥"], "public": "J♠"}, "raise call raise call")
    assert env.game_state.contributions == [7, 7]  # ante 1, a raise of 2, a raise of 4
    assert outcome(env) == ([-7.0, 7.0], [1])


def test_equal_ranks_split_the_pot():
    env = play({"hands": ["K♠", "K♥"], "public": "Q♠"}, "raise raise call call raise call")
    assert env.game_state.pot == 2 * 9
    assert outcome(env) == ([0.0, 0.0], [0, 1])  # so both win rewards are 0


def test_two_raises_a_round_at_most():
    env = play({"hands": ["Q♠", "K♥"], "public": "J♠"}, "raise raise")
    game, state = env.game, env.game_state
    assert game.legal_actions(state) == [ACTIONS.ids["fold"], ACTIONS.ids["call"]]
    assert game.illegal_reason(state, ACTIONS.ids["raise"]) == (
        "no more raises this round: 2 made already"
    )
    with pytest.raises(IllegalActionError, match="no more raises this round"):
        env.step(ACTIONS.ids["raise"])
    env.step(ACTIONS.ids["call"])
    assert state.round == 1 and state.raises == 0 and state.contributions == [5, 5]
    for move in ("raise", "raise", "call"):
        env.step(ACTIONS.ids[move])
    assert outcome(env) == ([-13.0, 13.0], [1])  # the most a seat can lose


def test_a_fold_gives_the_pot_and_deals_no_public_card():
    env = play({"hands": ["K♠", "J♥"]}, "raise fold")
    assert outcome(env) == ([1.0, -1.0], [0])
    assert env.game_state.public_card == NO_CARD
    assert env.deal_record() == {"chance": {"deal": [[parse_card("K♠"), parse_card("J♥")]]}}
    assert "player_1 folded" in env.game.render(env.game_state)


def test_fold_needs_a_bet_to_fold_to():
    env = play({"hands": ["K♠", "J♥"]}, "call")
    game, state = env.game, env.game_state
    assert game.legal_actions(state) == [ACTIONS.ids["call"], ACTIONS.ids["raise"]]
    assert game.illegal_reason(state, ACTIONS.ids["fold"]) == "no bet to fold to: call to check"


def test_the_raise_sizes_and_cap_are_options():
    env = play(
        {"hands": ["Q♠", "K♥"], "public": "J♠"},
        "raise call raise call",
        first_raise=3,
        second_raise=5,
        max_raises=1,
    )
    assert outcome(env) == ([-9.0, 9.0], [1])
    assert env.metadata["score_reward_range"] == (-13.0, 13.0)  # the defaults'
    with pytest.raises(ValueError, match="max_raises must be an integer >= 1, at most 4"):
        card_envs.make(LEDUC, max_raises=5)


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        ({"hands": [0, 0]}, r"deal\['hands'\] holds J♠ twice"),
        ({"hands": [0, 1], "public": 1}, r"deal\['public'\] is J♥, player_1's card"),
        ({"hands": [0, 6]}, r"deal\['hands'\]\[1\] must be a card code 0..5"),
        ({"chance": {"public": [3]}}, "gives the public card without the hands"),
        ({"hands": [0, 1], "chance": {"deal": [[2, 3]]}}, "both give the deal outcome"),
        ({"chance": {"deal": [[0, 1], [2, 3]]}}, "holds 2 outcomes"),
        ({"hand": [0, 1]}, r"unknown deal key\(s\) 'hand'"),
    ],
)
def test_bad_deals_are_refused_before_anything_is_drawn(deal, message):
    game, rng = LeducGame(), np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match=message):
        game.new_game(rng, deal)
    assert rng.bit_generator.state == before


def test_a_scripted_public_card_is_dealt_between_the_rounds():
    deal = {"chance": {"deal": [[4, 1]], "public": [2]}}
    env = card_envs.make(LEDUC)
    env.reset(seed=9, options={"deal": deal})
    env.step(ACTIONS.ids["call"])
    assert env.game_state.public_card == NO_CARD
    env.step(ACTIONS.ids["call"])
    assert card_name(env.game_state.public_card) == "Q♠" and env.deal_record() == deal


def test_random_games_keep_the_invariants_and_the_mask_is_the_legal_list():
    for seed in range(300):
        env = card_envs.make(LEDUC)
        env.reset(seed=seed)
        game, rng, steps = env.game, np.random.default_rng(seed), 0
        for _agent, observation in decisions(env):
            state, mask = env.game_state, observation["action_mask"]
            game.check_invariants(state)
            legal = game.legal_actions(state)
            assert np.flatnonzero(mask).tolist() == legal
            assert [game.illegal_reason(state, a) is None for a in range(ACTIONS.size)] == [
                a in legal for a in range(ACTIONS.size)
            ]
            env.step(int(rng.choice(legal)))
            steps += 1
        game.check_invariants(env.game_state)
        assert steps <= game.max_steps == 8


def test_the_rules_agree_with_openspiel():
    """Random games fed to OpenSpiel's leduc_poker with the same cards and actions: the same
    player to act, the same legal actions at every step, the same returns."""
    pyspiel = pytest.importorskip("pyspiel")
    spiel, env = pyspiel.load_game("leduc_poker"), card_envs.make(LEDUC)
    rng = np.random.default_rng(0)
    for seed in range(3000):
        env.reset(seed=seed)
        game, state = env.game, env.game_state
        theirs = spiel.new_initial_state()
        for card in state.hands:
            theirs.apply_action(card)
        while not game.is_over(state):
            if theirs.is_chance_node():
                theirs.apply_action(state.public_card)
            assert theirs.current_player() == game.current_player(state)
            assert theirs.legal_actions() == game.legal_actions(state)
            action = int(rng.choice(game.legal_actions(state)))
            theirs.apply_action(action)
            env.step(action)
        assert theirs.is_terminal()
        assert list(theirs.returns()) == list(game.scores(state)), f"seed {seed}"


def test_a_copy_made_after_one_move_plays_on_alone_like_the_original():
    """The shared copy tests, on a game short enough for them: every copy (deep, pickled,
    ``copy.copy``) plays on as the original, across the public card drawn after the copy, and
    playing a copy leaves the original as it was."""
    env = reliability.mid_game(LEDUC, 2, seed=7, moves=1)
    before, drawn_at = snapshot(env), env._rng.bit_generator.state
    for twin in reliability.copies(env):
        reliability.play_in_lockstep([twin])
        assert snapshot(env) == before
    twins = reliability.copies(env)
    reliability.play_in_lockstep([env, *twins])
    assert all(snapshot(twin) == snapshot(env) for twin in twins)
    assert env._rng.bit_generator.state != drawn_at, "no public card drawn after the copy"


# -- what a seat may know ---------------------------------------------------------------------
def test_resampling_the_hidden_card_changes_no_observation():
    """At every position of random games, for both seats: the redraw keeps the seat's
    observation and text view, and moves the opponent's card unless it was shown."""
    moved = 0
    for seed in range(100):
        env = card_envs.make(LEDUC)
        env.reset(seed=seed)
        game, rng = env.game, np.random.default_rng(seed)
        while True:
            state = env.game_state
            for seat in (0, 1):
                world = game.resample_hidden(state, seat, rng)
                game.check_invariants(world)
                observed = env.encoding.observe(world, seat)
                assert np.array_equal(observed, env.encoding.observe(state, seat))
                assert game.render_seat(world, seat) == game.render_seat(state, seat)
                moved += world.hands[1 - seat] != state.hands[1 - seat]
            if game.is_over(state):
                break
            env.step(int(rng.choice(game.legal_actions(state))))
        if game.winners(state) and state.folded < 0:  # a showdown shows both cards
            assert game.resample_hidden(state, 0, rng).hands == state.hands
    assert moved > 100


def test_the_heuristic_bets_its_card():
    info = card_envs.make(LEDUC).describe()
    agent = make_agent("heuristic", info, 0)
    for deal, moves, expected in [
        ({"hands": ["K♠", "J♥"]}, "", "raise"),
        ({"hands": ["Q♠", "J♥"]}, "", "call"),
        ({"hands": ["K♠", "J♥"]}, "raise", "fold"),
        ({"hands": ["K♠", "J♥"]}, "call", "call"),
        ({"hands": ["K♠", "J♥"], "public": "J♠"}, "call call call raise", "raise"),
        ({"hands": ["K♠", "Q♥"]}, "raise raise", "call"),
    ]:
        env = play(deal, moves)
        assert ACTIONS.names[agent.act(env.last()[0])] == expected, (deal, moves)


# -- the generic layers on the sixth game -----------------------------------------------------
@pytest.mark.parametrize("workers", [1, 2])
def test_the_arena_finds_the_heuristic_wins_chips_from_random(workers):
    """In poker the chips tell, not the games won: the heuristic folds its jacks to a bet and
    loses many small pots, but wins about 1.2 chips a game from a random player. In this
    process, or shared out between two worker processes (the same report either way)."""
    from card_envs.tools.arena import Workers, run_arena

    with Workers(workers) as pool:
        report = run_arena(LEDUC, ["heuristic", "random"], episodes=100, seed=0, workers=pool)
    chips = {agent.name: agent.mean_score for agent in report.agents}
    assert report.episodes * report.seatings == 200
    assert chips["heuristic"] > 0.5 and chips["random"] == -chips["heuristic"]


def test_the_arena_command_records_games_that_replay(tmp_path, capsys):
    from card_envs.cli import main
    from card_envs.records import read_records, replay

    path = tmp_path / "leduc.jsonl"
    flags = ["--game", LEDUC, "--episodes", "6", "--workers", "1", "--record", str(path)]
    assert main(["arena", *flags]) == 0
    assert "leduc_v0, 2 players" in capsys.readouterr().out
    records = read_records(path)  # each one checked whole, its replay included
    assert len(records) >= 12 and {r["env"] for r in records} == {LEDUC}
    env = replay(records[0])
    assert list(env.game.scores(env.game_state)) == records[0]["scores"]
    assert main(["replay", str(path), "--index", "1", "--seat", "0", "--print"]) == 0
    printed = capsys.readouterr().out
    assert "Leduc Hold'em, round 1/2" in printed and "the record ends here: finished" in printed


@pytest.mark.parametrize("kind", ["ismcts", "pimc"])
def test_search_agents_play_legal_moves_on_possible_worlds(kind, monkeypatch):
    worlds = []

    def checked(self, state, observer, rng, original=LeducGame.resample_hidden):
        world = original(self, state, observer, rng)
        self.check_invariants(world)
        worlds.append(world)
        return world

    monkeypatch.setattr(LeducGame, "resample_hidden", checked)
    env = card_envs.make(LEDUC)
    info = env.describe()
    for seed in range(6):
        agents = [make_agent(f"{kind}:iterations=20", info, seed), make_agent("random", info, 0)]
        result = play_game(env, agents[:: 1 if seed % 2 else -1], seed=seed)
        assert result.winners  # an illegal move would have raised
    assert len(worlds) >= 20 * 6


def test_the_search_budget_is_the_games_declaration():
    from card_envs.agents.search import ISMCTSAgent

    budget = ISMCTSAgent.default_budget(card_envs.make(LEDUC).describe())
    assert budget.iterations == importlib.import_module("leduc.agents").SEARCH_BUDGET["iterations"]


@pytest.mark.parametrize("workers", [1, 2])
def test_selfplay_trains_a_network_that_plays(tmp_path, workers):
    """``card-envs train leduc_v0 --selfplay`` at toy size (a few hundred env steps), its
    tables in this process or shared out between two collector processes."""
    pytest.importorskip("sb3_contrib")
    from card_envs.agents.policy import load_policy_agent
    from card_envs.training.cli import main

    out = tmp_path / "leduc.safetensors"
    flags = ["--selfplay", "--timesteps", "400", "--tables", "4", "--rollout", "128"]
    flags += ["--batch-size", "64", "--width", "16", "--eval-games", "4"]
    flags += ["--snapshot-every", "200", "--eval-every", "200", "--out", str(out)]
    flags += ["--collect-workers", str(workers)]
    assert main([LEDUC, *flags, "--logdir", str(tmp_path / "runs")]) == 0
    meta = json.loads(out.with_suffix(".json").read_text())  # written beside the network
    assert meta["evaluations"][-1]["timesteps"] >= 400
    env = card_envs.make(LEDUC)
    agents = [load_policy_agent(out, env.describe()), make_agent("random", env.describe(), 0)]
    assert play_game(env, agents, seed=0).winners


def test_selfplay_takes_the_games_declared_settings():
    pytest.importorskip("sb3_contrib")
    from card_envs.training.config import default_config

    declared = importlib.import_module("leduc.agents").SELFPLAY
    assert default_config(LEDUC).as_dict().items() >= declared.items()


def test_a_record_written_and_read_back_replays(tmp_path):
    from card_envs.records import read_records, record_game, steps, write_records

    env = card_envs.make(LEDUC, reward_mode="score")
    info = env.describe()
    agents = [make_agent("heuristic", info, 0), make_agent("random", info, 1)]
    env.reset(seed=4)
    actions = []
    for agent, observation in decisions(env):
        actions.append(agents[env.possible_agents.index(agent)].act(observation))
        env.step(actions[-1])
    record = record_game(env, actions, ["heuristic", "random"], seed=4)
    assert record["rewards"] == dict(zip(env.possible_agents, record["scores"], strict=True))
    assert write_records(tmp_path / "game.jsonl", [record]) == 1
    (read,) = read_records(tmp_path / "game.jsonl")
    assert [step.action_name for step in steps(read)] == [ACTIONS.names[a] for a in actions]


@pytest.fixture
def client():
    pytest.importorskip("starlette", reason="the serve extra is not installed")
    with warnings.catch_warnings():  # Starlette suggests httpx2; the project pins httpx
        warnings.filterwarnings("ignore", "Using `httpx`")
        from starlette.testclient import TestClient
    from card_envs.server.app import create_app
    from card_envs.server.tables import TableStore

    return TestClient(create_app(TableStore()))


def test_the_browser_table_lists_the_game_and_its_options(client):
    listing = {game["name"]: game for game in client.get("/api/games").json()}
    assert listing[LEDUC]["title"] == "Leduc Hold'em"
    assert listing[LEDUC]["agents"] == {"2": ["random", "heuristic"]}
    assert listing[LEDUC]["options"]["max_raises"]["max"] == 4


def test_the_browser_table_plays_a_game_to_the_end(client):
    from card_envs.records import validate_record

    body = {"game": LEDUC, "seats": ["human", "heuristic"], "seed": 3}
    response = client.post("/api/tables", json=body)
    assert response.status_code == 201, response.text
    table = response.json()["table"]
    state = client.get(f"/api/tables/{table}?seat=0").json()
    groups = {group["title"]: group["cards"] for group in state["view"]["groups"]}
    assert [card["label"] for card in groups["your card"]] == [
        line.split(": ")[1] for line in state["view"]["text"].splitlines() if "player_0:" in line
    ]
    while not state["over"]:
        move = state["legal"][-1]["name"]  # raise while it may, then call
        response = client.post(f"/api/tables/{table}/act", json={"seat": 0, "action": move})
        assert response.status_code == 200, response.text
        state = response.json()
    assert state["result"]["scores"] and sum(state["result"]["scores"]) == 0
    assert state["view"]["scores"] == state["result"]["scores"]
    spectator = client.get(f"/api/tables/{table}").json()
    assert spectator["over"] and "your card" not in str(spectator["view"]["groups"])
    record = json.loads(client.get(f"/api/tables/{table}/record").text)
    validate_record(record)
    frames = client.post("/api/replay", json=record).json()["frames"]
    assert len(frames) == len(record["actions"]) + 1


def test_the_walk_through_quotes_the_game_as_it_is():
    """docs/adding-a-game.md walks through these files: each ``py`` excerpt names its file on
    its first line, and its lines are in that file in order (``...`` for lines left out)."""
    page = (ROOT / "docs" / "adding-a-game.md").read_text()
    excerpts = re.findall(r"```py\n# (tests/\S+\.py)\n(.*?)```", page, re.S)
    assert len(excerpts) == page.count("```py\n") >= 10
    for path, excerpt in excerpts:
        source = [line.strip() for line in (ROOT / path).read_text().splitlines()]
        at = 0
        for line in excerpt.strip().splitlines():
            if line.strip() != "...":
                assert line.strip() in source[at:], f"{path} has no {line.strip()!r} here"
                at = source.index(line.strip(), at) + 1
