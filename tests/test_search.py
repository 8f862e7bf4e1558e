"""The search agents (issue 19): legal moves at every table, determinism with a seed, no
peeking at hidden cards, determinisations that keep every public fact, budgets as kind options,
the teacher's distribution, the arena, and (slow) strength."""

from __future__ import annotations

import copy
import json
from dataclasses import replace

import numpy as np
import pytest
from helpers import CASE_IDS, ENV_CASES, random_steps

from card_envs import env_names, make
from card_envs.agents import make_agent
from card_envs.agents.match import decisions
from card_envs.agents.search import Budget, ISMCTSAgent, PIMCAgent, parse_budget
from card_envs.agents.search.values import values
from card_envs.cli import main
from card_envs.core.env import CardEnv
from card_envs.registry import env_module
from card_envs.seamless.rules.cards import NUM_RANKS
from card_envs.seamless.rules.hidden import shown_voids
from card_envs.sequitur.rules.state import ACTION, CLAIM, GOAL, SETUP, SPELL

KINDS = ("ismcts", "pimc")


@pytest.fixture(autouse=True)
def determinisations_are_possible_games(monkeypatch):
    """Every determinisation the search agents build in these tests keeps its game's
    invariants (balls and cards conserved): a redraw must be a game that can happen."""
    classes = {env_module(name).raw_env.game_class for name in env_names()}
    for cls in {c for game in classes for c in game.__mro__ if "resample_hidden" in vars(c)}:

        def checked(self, state, observer, rng, original=cls.resample_hidden):
            world = original(self, state, observer, rng)
            self.check_invariants(world)
            return world

        monkeypatch.setattr(cls, "resample_hidden", checked)


SMALL = "iterations=6,horizon=round,depth=8"  # enough to search, fast enough for every table


def positions(name: str, num_players: int, seed: int, every: int = 9) -> list[CardEnv]:
    """Copies of a random game at every ``every``-th decision with a choice to make."""
    env = make(name, num_players=num_players)
    env.reset(seed=seed)
    found = []
    for step, action in enumerate(random_steps(env, seed, max_steps=120)):
        mask = env.last()[0]["action_mask"]
        if step % every == every - 1 and mask.sum() > 1:
            found.append(copy.deepcopy(env))
        env.step(action)
    return found


def hidden_swapped(env: CardEnv, seed: int) -> CardEnv:
    """``env`` with what the acting seat cannot see redrawn: the same public position."""
    other = copy.deepcopy(env)
    game, state = other.game, other.game_state
    other.game_state = game.resample_hidden(
        state, game.current_player(state), np.random.default_rng(seed)
    )
    other.game_state.chance = state.chance
    return other


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("name", "num_players"), ENV_CASES, ids=CASE_IDS)
def test_search_plays_only_legal_moves_at_every_table(name, num_players, kind):
    env = make(name, num_players=num_players)
    agent = make_agent(f"{kind}:{SMALL}", env.describe(), seed=1)
    env.reset(seed=3)
    for step, (_, observation) in enumerate(decisions(env)):
        action = agent.act_at(env, observation)
        assert observation["action_mask"][action] == 1
        env.step(action)
        if step == 25:
            break


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("name", "num_players"), ENV_CASES, ids=CASE_IDS)
def test_search_does_not_peek_at_hidden_cards(name, num_players, kind):
    """Same seed, hidden cards the seat cannot see redrawn: the same choice and distribution."""
    for i, env in enumerate(positions(name, num_players, seed=num_players)[:3]):
        other = hidden_swapped(env, seed=100 + i)
        assert other.game_state != env.game_state or num_players == 1
        first = make_agent(f"{kind}:{SMALL}", env.describe(), seed=i)
        second = make_agent(f"{kind}:{SMALL}", env.describe(), seed=i)
        assert first.policy(env) == second.policy(other)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["seamless_v0", "sequitur_v0"])
def test_heuristic_rollouts_play_legal_moves(name, kind):
    env = make(name)
    budget = "iterations=4,horizon=round,depth=12,rollout=heuristic"
    agent = make_agent(f"{kind}:{budget}", env.describe(), 1)
    assert agent.rollout_agent is not None
    env.reset(seed=2)
    for step, (_, observation) in enumerate(decisions(env)):
        action = agent.act_at(env, observation)
        assert observation["action_mask"][action] == 1
        env.step(action)
        if step == 10:
            break
    with pytest.raises(ValueError, match="needs the game's heuristic"):
        ISMCTSAgent(env.describe(), 0, Budget(rollout="heuristic"))


@pytest.mark.parametrize("kind", KINDS)
def test_search_is_deterministic_with_a_seed(kind):
    def play(seed: int) -> list[int]:
        env = make("seals_v0", num_players=3)
        agents = [make_agent(f"{kind}:{SMALL}", env.describe(), seed + s) for s in range(3)]
        env.reset(seed=0)
        actions = []
        for name, observation in decisions(env):
            actions.append(agents[env.possible_agents.index(name)].act_at(env, observation))
            env.step(actions[-1])
            if len(actions) == 40:
                break
        return actions

    assert play(5) == play(5)
    assert play(5) != play(6)


@pytest.mark.parametrize(("name", "num_players"), ENV_CASES, ids=CASE_IDS)
def test_determinisations_keep_every_public_fact(name, num_players):
    """Each redraw satisfies the invariants, and the seat's observation, its view of the table
    and its legal moves are as in the true state."""
    rng = np.random.default_rng(0)
    for env in positions(name, num_players, seed=7, every=5):
        game, state = env.game, env.game_state
        seat = game.current_player(state)
        for _ in range(3):
            world = game.resample_hidden(state, seat, rng)
            game.check_invariants(world)
            assert np.array_equal(
                env.encoding.observe(world, seat), env.encoding.observe(state, seat)
            )
            assert game.render_seat(world, seat) == game.render_seat(state, seat)
            assert game.legal_actions(world) == game.legal_actions(state)


@pytest.mark.parametrize("rule", ["no_other_suit", "void_in_a_suit"])
def test_seamless_determinisations_keep_the_voids_shown(rule):
    """A seat that did not follow suit holds none of it in any redraw (the observation shows
    only the cards played, so the test above cannot see this)."""
    env = make("seamless_v0", trick_one_trump_lead=rule)
    rng = np.random.default_rng(1)
    checked = 0
    for seed in range(3):
        env.reset(seed=seed)
        for step, action in enumerate(random_steps(env, seed)):
            game, state = env.game, env.game_state
            voids = shown_voids(state, 4, rule)
            if step % 3 == 0 and any(voids):
                world = game.resample_hidden(state, game.current_player(state), rng)
                for seat, hand in enumerate(world.hands):
                    assert not {card // NUM_RANKS for card in hand} & voids[seat]
                checked += 1
            env.step(action)
    assert checked > 50


def test_sequitur_redraws_the_balls_earlier_seats_drew_this_step():
    """Within a simultaneous step the seats before the observer have drawn balls it has not
    seen: a redraw changes them and keeps every ball shown at the step's start."""
    env = make("sequitur_v0", num_players=4)
    env.reset(seed=0)
    steps = random_steps(env, 0)
    while not (
        env.game_state.actor == 2 and env.game_state.racks[0] != env.game_state.shown_racks[0]
    ):
        env.step(next(steps))
    game, state = env.game, env.game_state
    rng = np.random.default_rng(0)
    worlds = [game.resample_hidden(state, 2, rng) for _ in range(6)]
    for world in worlds:
        assert len(world.racks[0]) == len(state.racks[0])
        assert set(state.shown_racks[0]) <= set(world.racks[0])
    assert len({tuple(world.racks[0]) for world in worlds}) > 1


def seat_zero_turn(env: CardEnv, seed: int) -> CardEnv:
    """A copy of ``env`` after seat 0 plays its turn of this step by random legal moves."""
    env = copy.deepcopy(env)
    rng = np.random.default_rng(seed)
    while env.game_state.actor == 0:
        legal = env.game.legal_actions(env.game_state)
        env.step(legal[int(rng.integers(len(legal)))])
    return env


def world_fields(world: object) -> dict[str, object]:
    """A determinisation's contents, its chance log aside."""
    return {k: v for k, v in vars(world).items() if k != "chance"}


@pytest.mark.parametrize("phase", [SETUP, GOAL, ACTION, SPELL])
def test_sequitur_search_does_not_see_this_steps_earlier_choices(phase):
    """Seat 0's choices in a simultaneous step are hidden from seat 1 until the step ends:
    two tables where seat 0 chose differently give seat 1 the same determinisations (same seed)
    and the search the same distribution."""
    env = make("sequitur_v0", num_players=4)
    env.reset(seed=4)
    steps = random_steps(env, 4)
    while not (env.game_state.phase == phase and env.game_state.actor == 0):
        env.step(next(steps))
    first = seat_zero_turn(env, 0)
    seen = world_fields(first.game_state)
    for seed in range(1, 40):
        second = seat_zero_turn(env, seed)
        if world_fields(second.game_state) != seen:
            break
    assert world_fields(second.game_state) != seen, "seat 0 chose the same every time"
    game = env.game
    for seed in range(3):
        worlds = [
            game.resample_hidden(table.game_state, 1, np.random.default_rng(seed))
            for table in (first, second)
        ]
        assert world_fields(worlds[0]) == world_fields(worlds[1])
        game.check_invariants(worlds[0])
    agents = [make_agent(f"ismcts:{SMALL}", env.describe(), seed=3) for _ in range(2)]
    assert agents[0].policy(first) == agents[1].policy(second)


def test_teacher_gives_the_visit_distribution_over_legal_moves():
    env = positions("seamless_v0", 4, seed=2)[0]
    agent = ISMCTSAgent(env.describe(), seed=0, budget=Budget(iterations=60, horizon="round"))
    policy = agent.policy(env)
    assert sorted(policy) == env.game.legal_actions(env.game_state)
    assert sum(policy.values()) == pytest.approx(1.0)
    agent.reset(seed=0)  # the same search again: it plays the most visited move
    assert max(policy, key=policy.get) == agent.act_at(env, env.last()[0])


def test_a_search_rates_its_moves_by_the_log_of_their_share():
    """Softmax at temperature 1 of ``rated_act_at``'s values is the search's distribution; the
    move is ``act_at``'s; ids off the legal moves are unrated (NaN)."""
    env = positions("seamless_v0", 4, seed=2)[0]
    budget = Budget(iterations=60, horizon="round")
    agent = ISMCTSAgent(env.describe(), seed=0, budget=budget)
    policy = agent.policy(env)
    agent.reset(seed=0)
    move, values = agent.rated_act_at(env, env.last()[0])
    legal = env.game.legal_actions(env.game_state)
    assert np.isnan(np.delete(values, legal)).all() and not np.isnan(values[legal]).any()
    shares = np.exp(values[legal])
    np.testing.assert_allclose(shares, [policy[action] for action in legal], rtol=1e-6)
    agent.reset(seed=0)
    assert move == agent.act_at(env, env.last()[0])


def test_budget_is_given_in_the_kind():
    info = make("seals_v0").describe()
    agent = make_agent("pimc:iterations=40,horizon=round,c=1.5", info, seed=0)
    assert isinstance(agent, PIMCAgent)
    default = PIMCAgent.default_budget(info)  # the options change only what they name
    assert agent.budget == replace(default, iterations=40, horizon="round", c=1.5)
    assert make_agent("ismcts", info, 0).budget == ISMCTSAgent.default_budget(info)
    for bad, message in [
        ("ismcts:iterations=0", "iterations must be >= 1"),
        ("ismcts:speed=3", "must be name=value with name one of"),
        ("pimc:seconds=fast", "seconds must be a number"),
        ("ismcts:horizon=trick", "horizon must be one of game, round"),
        ("ismcts:rollout=greedy", "rollout must be one of random, heuristic"),
        ("ismcts:prior=-1", "prior must be >= 0"),
        ("ismcts:gain=2", r"gain must be in \[0, 1\]"),
        ("ismcts:opponents=minimax", "opponents must be one of search, heuristic"),
        ("ismcts:lean=heuristic_outs", "lean must name one of heuristic, heuristic_value"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_agent(bad, info, 0)
    assert parse_budget("", Budget(depth=3)) == Budget(depth=3)


def test_the_prior_leans_on_the_heuristics_move():
    """With a large prior the search plays the heuristic's move; the teacher shows the lean."""
    env = positions("seamless_v0", 4, seed=2)[0]
    heuristic = make_agent("heuristic", env.describe(), 0).act_at(env, env.last()[0])
    agent = make_agent("ismcts:iterations=8,horizon=round,prior=100", env.describe(), 0)
    policy = agent.policy(env)
    assert policy[heuristic] > 0.99
    assert sum(policy.values()) == pytest.approx(1.0)


def test_the_prior_can_lean_on_a_stronger_heuristic():
    """``lean`` names the agent whose move the prior favours and who plays the seat's own
    moves in playouts; the other seats keep the plain heuristic (the opponents' model)."""
    env = positions("seals_v0", 4, seed=2)[0]
    info, observation = env.describe(), env.last()[0]
    plain = make_agent("heuristic", info, 0).act_at(env, observation)
    stronger = {make_agent("heuristic_value", info, s).act_at(env, observation) for s in range(8)}
    assert plain not in stronger  # a position where the two differ (ties drawn at random)
    agent = make_agent("ismcts:iterations=8,prior=100,lean=heuristic_value", info, 0)
    assert type(agent.prior_agent).__name__ == "ValueHeuristicAgent"
    assert type(agent.rollout_agent).__name__ == "HeuristicAgent"
    policy = agent.policy(env)
    assert sum(policy[action] for action in stronger) > 0.99
    calls = []
    act = agent.prior_agent.act
    agent.prior_agent.act = lambda seen: calls.append(1) or act(seen)
    agent.policy(env)  # the prior asks once; the seat's own moves in the playouts ask too
    assert len(calls) > 1


@pytest.mark.parametrize("kind", KINDS)
def test_random_rollouts_do_not_ask_the_heuristic(kind):
    """With ``rollout=random`` the heuristic is asked only for the prior's move."""
    env = positions("seals_v0", 4, seed=2)[0]
    options = "iterations=12,rollout=random,prior=0.5,opponents=search,lean=heuristic"
    agent = make_agent(f"{kind}:{options}", env.describe(), 0)
    calls = []
    act = agent.rollout_agent.act
    agent.rollout_agent.act = lambda seen: calls.append(1) or act(seen)
    agent.policy(env)
    assert len(calls) == 1


def test_heuristic_opponents_leave_only_the_seats_own_moves_in_the_tree():
    """With ``opponents=heuristic`` every node below the root is the searching seat's move."""
    env = positions("unfortunate_events_v0", 4, seed=2)[0]
    agent = make_agent("ismcts:iterations=30,opponents=heuristic", env.describe(), 0)
    seat = env.game.current_player(env.game_state)
    found = []
    original = agent._iterate
    agent._iterate = lambda game, world, root: found.append(root) or original(game, world, root)
    agent.policy(env)
    players, stack = set(), list(found[0].children.values())
    while stack:
        node = stack.pop()
        players.add(node.player)
        stack += node.children.values()
    assert players == {seat} and len(found) == 30  # with opponents=search: {0, 1}


def test_a_sequitur_round_playout_runs_through_every_claim():
    """Each claimed goal scores at once in Sequitur: the round's horizon is its end, not the
    first claim."""
    env = make("sequitur_v0")
    env.reset(seed=1)
    steps = random_steps(env, 1)
    while env.game_state.phase != CLAIM:
        env.step(next(steps))
    game, state = env.game, env.game_state
    agent = make_agent("ismcts:rollout=random,prior=0,gain=0", env.describe(), 0)
    world = game.resample_hidden(state, game.current_player(state), np.random.default_rng(0))
    agent.playout(game, world)
    assert world.round == state.round + 1 and world.phase != CLAIM


def test_gain_values_the_points_won_since_the_decision():
    """A seat too far behind for a round to change its standing still values winning it."""
    env = make("seals_v0")
    env.reset(seed=0)
    game, state = env.game, copy.deepcopy(env.game_state)
    state.blasons = [1, 0, 0, 6]  # seat 0 won this round's point, seat 3 leads
    before = [0.0, 0.0, 0.0, 6.0]
    plain = values(game, state)
    mixed = values(game, state, before, gain=0.5)
    assert plain[0] == pytest.approx(2 / 3) and mixed[0] == pytest.approx(2 / 3 * 0.5 + 0.5)
    assert mixed[3] < plain[3]


def test_a_search_agent_needs_the_env():
    env = make("seals_v0")
    env.reset(seed=0)
    agent = make_agent("ismcts", env.describe(), 0)
    with pytest.raises(TypeError, match=r"act_at\(env, observation\)"):
        agent.act(env.last()[0])


def test_seconds_cap_the_search():
    env = positions("seamless_v0", 4, seed=2)[0]
    agent = ISMCTSAgent(env.describe(), 0, Budget(iterations=10**9, seconds=0.05))
    policy = agent.policy(env)
    assert sum(policy.values()) == pytest.approx(1.0)


def test_arena_plays_a_search_agent_against_heuristics(tmp_path):
    out = tmp_path / "arena.json"
    agents = [f"ismcts:{SMALL}", "heuristic", "heuristic", "heuristic"]
    command = ["arena", "--game", "seals_v0", "--agents", *agents, "--episodes", "1"]
    assert main([*command, "--workers", "1", "--json", str(out)]) == 0
    names = [entry["name"] for entry in json.loads(out.read_text())["agents"]]
    assert f"ismcts:{SMALL}" in names


@pytest.mark.slow
def test_ismcts_beats_random_players_at_seals():
    """At its default budget, alone against three random players, over 16 seat-rotated games."""
    env = make("seals_v0")
    wins = 0.0
    for game in range(16):
        seat = game % 4
        agents = [make_agent("random", env.describe(), 100 + game * 4 + s) for s in range(4)]
        agents[seat] = make_agent("ismcts", env.describe(), game)
        env.reset(seed=game // 4)
        for name, observation in decisions(env):
            env.step(agents[env.possible_agents.index(name)].act_at(env, observation))
        winners = env.game.winners(env.game_state)
        wins += (seat in winners) / len(winners)
    assert wins / 16 >= 0.6
