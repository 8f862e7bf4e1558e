"""card_envs.openspiel: every env as an OpenSpiel game. OpenSpiel's own random-simulation test,
chance as explicit chance nodes, equivalence with the AEC env fed the same deal, the
information-state string under resampling, and OpenSpiel's Python IS-MCTS playing every env."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra")

from helpers import CASE_IDS, ENV_CASES  # noqa: E402
from open_spiel.python.algorithms import ismcts  # noqa: E402

from card_envs import env_names, make, player_counts  # noqa: E402
from card_envs.openspiel import (  # noqa: E402
    MAX_CHANCE_OUTCOMES,
    ChoiceRng,
    NeedChance,
    load,
    short_name,
)


def play_random(state, rng: np.random.Generator, on_decision=None) -> list[int]:
    """Play ``state`` to the end, chance by its probabilities and players uniformly; the player
    actions in order. ``on_decision(state)`` is called at each decision before it is made."""
    actions = []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            continue
        if on_decision is not None:
            on_decision(state)
        action = int(rng.choice(state.legal_actions()))
        actions.append(action)
        state.apply_action(action)
    return actions


# -- the generator of chance choices ------------------------------------------------------------
def test_choice_rng_asks_for_each_choice_and_replays_it():
    with pytest.raises(NeedChance) as need:
        ChoiceRng([]).permutation(4)
    assert need.value.probabilities == [0.25] * 4
    assert ChoiceRng([3, 0, 1]).permutation(4).tolist() == [3, 0, 2, 1]
    assert ChoiceRng([]).integers(1) == 0  # a choice among one takes no chance action
    assert ChoiceRng([2]).integers(5, 8) == 7
    items = ["a", "b", "c"]
    ChoiceRng([1, 1]).shuffle(items)
    assert items == ["b", "c", "a"]


def test_choice_rng_splits_a_choice_past_the_bound_exactly():
    """A choice among more than MAX_CHANCE_OUTCOMES is a block weighted by its size, then an
    outcome in it: every outcome keeps probability 1/k."""
    k = 2 * MAX_CHANCE_OUTCOMES + 3
    with pytest.raises(NeedChance) as need:
        ChoiceRng([]).integers(k)
    blocks = need.value.probabilities
    assert len(blocks) == 3 and sum(blocks) == pytest.approx(1.0)
    assert blocks[2] == pytest.approx(3 / k)
    assert ChoiceRng([2, 1]).integers(k) == 2 * MAX_CHANCE_OUTCOMES + 1


def test_choice_rng_refuses_a_continuous_draw():
    with pytest.raises(TypeError, match=r"rng\.random.*integers\(k\), permutation\(n\)"):
        ChoiceRng([]).random()


# -- the registered games -----------------------------------------------------------------------
def test_every_env_is_registered_with_its_options_as_parameters():
    names = set(pyspiel.registered_names())
    for env_id in env_names():
        assert short_name(env_id) in names
    game = pyspiel.load_game("card_envs_seals_v0", {"num_players": 2, "tie_rounds": 1})
    assert game.num_players() == 2 and game.get_parameters()["tie_rounds"] == 1
    info = load(
        "seers_catalog_v0", num_players=3, artifact_pool="Go First,Crown,Prism,Lens,Echo,Half Moon"
    )
    assert info.num_players() == 3
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'colour'"):
        load("seals_v0", colour="red")
    with pytest.raises(ValueError, match="tie_rounds must be an integer >= 0"):
        load("seals_v0", tie_rounds=-1)


def test_game_type_and_info_are_declared():
    game = load("seamless_v0")
    kind, env = game.get_type(), make("seamless_v0")
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert game.num_distinct_actions() == env.action_space("player_0").n
    assert game.max_chance_outcomes() == MAX_CHANCE_OUTCOMES
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    assert game.max_game_length() == env.unwrapped.game.max_steps
    scored = load("seamless_v0", reward_mode="score").get_type()
    assert scored.utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert scored.reward_model == pyspiel.GameType.RewardModel.REWARDS


def test_a_deal_is_one_chance_action_a_card():
    """The first deal of Seamless: 51 chance actions (the last card is forced), the k-th among
    52 - k outcomes, then player 1 (the dealer's left) leads."""
    state = load("seamless_v0").new_initial_state()
    sizes = []
    while state.is_chance_node():
        sizes.append(len(state.chance_outcomes()))
        state.apply_action(0)
    assert sizes == list(range(52, 1, -1))
    assert state.current_player() == 1


def short(env_id: str, **options) -> dict:
    """``options`` and, where the game has a round count, one round: a random game of the
    Catastrophic Card Game runs to thousands of moves at its default twenty."""
    spec = load(env_id).get_parameters()
    rounds = {name: 1 for name in ("max_rounds", "num_rounds") if name in spec}
    return {**rounds, **options}


@pytest.mark.parametrize(("env_id", "num_players"), ENV_CASES, ids=CASE_IDS)
def test_random_sim_test(env_id, num_players):
    """OpenSpiel's own checks on a random game: legal actions and masks, clones, observation
    and information-state strings, returns in the declared bounds and summing as declared."""
    game = load(env_id, **short(env_id, num_players=num_players))
    pyspiel.random_sim_test(game, 1, False, False)


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "num_players"), ENV_CASES, ids=CASE_IDS)
def test_random_sim_test_full(env_id, num_players):
    """Five random games each at the default options, serialised and deserialised, in both
    reward modes."""
    for reward_mode in ("win", "score"):
        game = load(env_id, num_players=num_players, reward_mode=reward_mode)
        pyspiel.random_sim_test(game, 5, True, False)


# -- equivalence with the AEC env ---------------------------------------------------------------
EQUIVALENCE = [
    (name, n, mode)
    for name in env_names()
    for n in player_counts(name)[:1]
    for mode in ("win", "score")
]


@pytest.mark.parametrize(("env_id", "num_players", "reward_mode"), EQUIVALENCE)
def test_same_game_as_the_aec_env_fed_the_same_deal(env_id, num_players, reward_mode):
    """A random game through the OpenSpiel state, then its deal and actions through the AEC
    env: the same observation tensors and masks at every decision, the same returns."""
    state = load(env_id, num_players=num_players, reward_mode=reward_mode).new_initial_state()
    seen: list[tuple[int, list[np.ndarray], np.ndarray]] = []

    def record(state):
        views = [np.asarray(state.observation_tensor(p), np.float32) for p in range(num_players)]
        mask = np.asarray(state.legal_actions_mask(state.current_player()), np.int8)
        seen.append((state.current_player(), views, mask))

    actions = play_random(state, np.random.default_rng(7), record)
    env = make(env_id, num_players=num_players, reward_mode=reward_mode)
    env.reset(options={"deal": _deal(state)})
    size = env.unwrapped.encoding.spec.size
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for action, (player, views, mask) in zip(actions, seen, strict=True):
        agent = env.agent_selection
        assert agent == f"player_{player}"
        observation = env.observe(agent)
        np.testing.assert_array_equal(observation["action_mask"], mask)
        for seat, view in enumerate(views):
            expected = env.observe(f"player_{seat}")["observation"]
            np.testing.assert_array_equal(view[:size], expected)
        env.step(action)
        for name in env.possible_agents:
            totals[name] += env.rewards.get(name, 0.0)
    assert all(env.terminations.values()) or all(env.truncations.values())
    assert state.returns() == pytest.approx([totals[a] for a in env.possible_agents])


def _deal(state) -> dict:
    game = state.get_game().table.rules
    return game.deal_record(state.engine_state())


# -- information states under resampling --------------------------------------------------------
CHECKED_DECISIONS = 150


@pytest.mark.parametrize("env_id", env_names())
def test_resampled_states_keep_the_information_state_and_the_invariants(env_id):
    """At every decision of a random game, a resampled state is a state the player cannot tell
    from the true one: the same information-state string and legal actions, and a consistent
    state by the game's invariants. Another player's string changes (their hidden cards)."""
    game = load(env_id, **short(env_id))
    rules = game.table.rules
    sampler = pyspiel.UniformProbabilitySampler(1, 0.0, 1.0)
    changed = []

    def check(state):
        if len(changed) == CHECKED_DECISIONS:
            return
        player = state.current_player()
        world = state.resample_from_infostate(player, sampler)
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.legal_actions() == state.legal_actions()
        rules.check_invariants(world.engine_state())
        others = [p for p in range(game.num_players()) if p != player]
        changed.append(
            any(
                world.information_state_string(p) != state.information_state_string(p)
                for p in others
            )
        )
        world.apply_action(world.legal_actions()[0])  # the resampled world plays on

    play_random(game.new_initial_state(), np.random.default_rng(3), check)
    assert any(changed)


def test_resampling_inside_a_transition_is_refused():
    state = load("seals_v0", num_players=2).new_initial_state()
    sampler = pyspiel.UniformProbabilitySampler(1, 0.0, 1.0)
    with pytest.raises(ValueError, match="chance node"):
        state.resample_from_infostate(0, sampler)


def test_information_state_strings_differ_by_player_and_by_own_moves():
    state = load("seals_v0", num_players=2).new_initial_state()
    while state.is_chance_node():
        state.apply_action(0)
    before = state.information_state_string(state.current_player())
    assert before != state.information_state_string(1 - state.current_player())
    player = state.current_player()
    state.apply_action(state.legal_actions()[0])
    assert state.information_state_string(player) != before


# -- OpenSpiel's IS-MCTS ------------------------------------------------------------------------
class _FlatEvaluator:
    """Values every leaf at 0 with a uniform prior: the test is of the game's side (chance
    nodes, resampling, information-state keys), not of playing well."""

    def __init__(self, num_players: int):
        self.num_players = num_players

    def evaluate(self, state):
        return np.zeros(self.num_players)

    def prior(self, state):
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


@pytest.mark.parametrize("env_id", env_names())
def test_openspiel_ismcts_plays_a_full_game_of_every_env(env_id):
    """OpenSpiel's Python ISMCTSBot plays every seat to the end with the library's resampler.
    It asserts itself that every resampled root has the root's information-state key."""
    options = {"num_players": 2} if 2 in player_counts(env_id) else {}
    game = load(env_id, **short(env_id, **options))
    bot = ismcts.ISMCTSBot(
        game,
        _FlatEvaluator(game.num_players()),
        uct_c=0.7,
        max_simulations=4,
        random_state=np.random.RandomState(5),
    )
    rules, rng = game.table.rules, np.random.default_rng(5)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            continue
        state.apply_action(bot.step(state))
        rules.check_invariants(state.engine_state())
    assert len(state.returns()) == game.num_players()


def test_without_the_extra_the_error_names_it():
    script = "import sys; sys.modules['pyspiel'] = None\nimport card_envs.openspiel"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert 'pip install "card-envs[openspiel]"' in result.stderr.strip().splitlines()[-1]


def test_the_head_to_head_plays_both_searchers():
    """card_envs.tools.versus on one short game: both searchers move, their seats differ,
    and at most one game's worth of wins is shared out."""
    from card_envs.tools import versus

    assert versus.seats(0, 4) != versus.seats(1, 4)
    assert len({versus.seats(g, 4) for g in range(12)}) == 12
    result = versus.play("seamless_v0", {"max_rounds": 1}, 2, 0.7, range(1))
    summary = result.summary()
    assert summary["games"] == 1
    for side in versus.SIDES:
        assert summary[side]["moves"] > 0 and summary[side]["ms_per_move"] > 0
    assert summary["openspiel"]["win_share"] + summary["library"]["win_share"] <= 1.0


def test_sequitur_simultaneous_steps_stay_hidden_until_the_step_ends():
    """Sequitur's simultaneous steps are played seat by seat, as in the AEC env: at such a
    step the next seat's information state is the same whichever legal choice the seat before
    it made."""
    state = load("sequitur_v0", num_players=2).new_initial_state()
    rng, hidden = np.random.default_rng(1), 0
    while not state.is_terminal() and hidden == 0:
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            continue
        player, legal = state.current_player(), state.legal_actions()
        children = [state.child(action) for action in legal[:2]]
        if len(children) == 2 and all(c.current_player() == 1 - player for c in children):
            keys = {c.information_state_string(1 - player) for c in children}
            hidden += len(keys) == 1
        state.apply_action(int(rng.choice(legal)))
    assert hidden > 0
