"""The Catastrophic Card Game heuristics (plain and heuristic_outs): measures, choices, edge."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_unfortunate_events import SNICKET_DEAL, _env_after_poe

from card_envs import make
from card_envs.agents import agent_kinds, make_agent
from card_envs.agents.match import play_game, win_share
from card_envs.agents.unfortunate_events import coverage, outs, unseen
from card_envs.unfortunate_events.rules import parse_kinds
from card_envs.unfortunate_events.rules.cards import COPIES, NUM_KINDS, counts_of, parse_kind


def hand_of(*names: str) -> list[int]:
    return counts_of(parse_kinds(names))


def test_coverage_counts_owed_cards_the_hand_already_fills():
    assert (
        coverage(hand_of("Klaus", "Klaus", "Klaus", "Sunny", "Sunny", "Sunny", "Sunny"), [3, 4])
        == 7
    )
    assert coverage(hand_of("Klaus", "Klaus", "Sunny", "Sunny"), [4]) == 4  # two pairs
    assert coverage(hand_of("Violet", "Klaus", "Monty", "Stephano"), [3]) == 2
    assert coverage(hand_of("Violet", "green wild", "Beatrice"), [3]) == 3
    assert coverage(hand_of("Olaf's Eye", "Mr. Poe", "Beatrice"), [3, 4]) == 0  # never all wilds
    assert coverage(hand_of("Violet", "Violet", "blue wild"), [3]) == 2  # wrong-colour wild


def _decide(env, seed: int = 0) -> str:
    agent = make_agent("heuristic", env.describe(), seed=seed)
    return env.game.actions.names[agent.act(env.observe(env.agent_selection))]


def test_heuristic_cancels_mr_poe_with_its_snicket():
    assert _decide(_env_after_poe()) == "Snicket: cancel"


def test_heuristic_fires_mr_poe_and_keeps_wilds():
    env = make("unfortunate_events_v0", num_players=3)
    deal = {**SNICKET_DEAL, "pile": ["Monty"]}
    env.reset(seed=0, options={"deal": deal})
    env.step(env.game.actions.ids["draw from the pile"])
    assert _decide(env) == "lay Klaus+Klaus+Sunny+Sunny"  # no wild spent on a natural set
    env.step(env.game.actions.ids["lay Klaus+Klaus+Sunny+Sunny"])
    assert _decide(env) == "discard Mr. Poe"


def test_heuristic_reads_only_its_observation():
    env = make("unfortunate_events_v0", num_players=4)
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    agent = make_agent("heuristic", env.describe(), seed=0)
    copy = {key: value.copy() for key, value in obs.items()}
    assert agent.act(obs) == agent.act(copy)
    assert obs["action_mask"][agent.act(obs)] == 1


@pytest.mark.parametrize(("num_players", "games"), [(2, 12), (4, 12), (6, 12)])
def test_heuristic_beats_random_clearly(num_players, games):
    """Measured 1.00 over 300 games at each count (fair shares 0.50, 0.25, 0.17)."""
    assert win_share("unfortunate_events_v0", num_players, "heuristic", games=games) >= 0.9


def test_heuristic_games_end_by_the_rules():
    """All-heuristic tables finish (no stealing loop up to the round cap)."""
    for seed in range(4):
        env = make("unfortunate_events_v0", num_players=4)
        agents = [make_agent("heuristic", env.describe(), seed=s) for s in range(4)]
        play_game(env, agents, seed=seed)
        assert (
            env.game.is_over(env.game_state)
            and np.sum(env.game_state.victory) == 7 - env.game_state.centre
        )


# -- heuristic_outs: the heuristic with a card counter's tie-break --------------------------------
def _table(hand: list[int], *, next_known: list[int] | None = None):
    """An OutsAgent at a 4-player table where nothing is public: every card but the hand unseen."""
    info = make("unfortunate_events_v0").describe()
    views = info.obs_spec.views(np.zeros(info.obs_spec.size, np.float32))
    views["hand"][:] = hand
    if next_known is not None:
        views["known"][1] = next_known
    return make_agent("heuristic_outs", info, seed=0), views


def _discards(agent, hand: list[int]) -> list[int]:
    return [agent.start["discard"] + kind for kind, count in enumerate(hand) if count]


def test_outs_count_the_unseen_cards_that_raise_coverage():
    hand = hand_of("Klaus", "Klaus", "Monty")
    pool = np.asarray(COPIES) - np.asarray(hand)
    # Klaus (5 left), the green wild (3) or Beatrice (1) makes a 3-set; Violet does not.
    assert outs(list(hand), [3], pool) == 5 + 3 + 1
    _, views = _table(hand)
    assert list(unseen(views)) == list(pool)


@settings(max_examples=300, deadline=None)
@given(
    cards=st.lists(st.integers(0, NUM_KINDS - 1), max_size=12),
    needs=st.lists(st.sampled_from([3, 4]), min_size=1, max_size=3),
)
def test_outs_count_exactly_the_draws_that_raise_coverage(cards, needs):
    """``outs`` remembers, per hand, which kinds raise its coverage; that must be the count of
    every unseen card whose draw raises it (Beatrice and the specials included)."""
    hand = [min(h, c) for h, c in zip(counts_of(cards), COPIES, strict=True)]
    pool = np.asarray(COPIES) - np.asarray(hand)
    base, expected = coverage(hand, needs), 0.0
    for kind in range(NUM_KINDS):
        more = list(hand)
        more[kind] += 1
        if pool[kind] > 0 and coverage(more, needs) > base:
            expected += float(pool[kind])
    assert outs(list(hand), needs, pool) == expected


def test_unseen_leaves_out_the_discard_laid_sets_and_known_cards():
    _, views = _table(hand_of("Klaus"), next_known=hand_of("Klaus", "Violet"))
    views["discard"][:] = hand_of("Klaus", "Sunny")
    views["laid4"][2] = hand_of("Klaus", "Klaus", "Sunny", "Sunny")
    left = unseen(views)
    assert (left[1], left[0], left[2]) == (7 - 1 - 1 - 1 - 2, 6, 7 - 1 - 2)


def test_outs_agent_keeps_the_hand_with_more_outs():
    hand = hand_of("Violet", "Klaus", "Monty", "Monty")
    agent, views = _table(hand)
    heuristic = make_agent("heuristic", agent.info, seed=0)
    legal = _discards(agent, hand)
    # Both keep coverage 2; Violet+Klaus waits on 7 Sunny + 3 wilds + Beatrice, Monty+Monty on 9.
    assert heuristic._discard(views, hand, [3], legal) == agent.start["discard"] + 0
    assert agent._discard(views, hand, [3], legal) == agent.start["discard"] + parse_kind("Monty")


def test_outs_agent_does_not_feed_the_next_player_its_colour():
    hand = hand_of("Klaus", "Klaus", "Klaus", "Monty", "Stephano")
    agent, views = _table(hand)
    legal, base = _discards(agent, hand), agent.start["discard"]
    # Monty and Stephano tie (coverage 3 either way, no outs, same priority): the first goes.
    assert agent._discard(views, hand, [3], legal) == base + parse_kind("Monty")
    agent, views = _table(hand, next_known=hand_of("Josephine"))  # the next seat collects blue
    assert agent._discard(views, hand, [3], legal) == base + parse_kind("Stephano")


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_outs_agent_plays_whole_games_at_every_table(num_players):
    env = make("unfortunate_events_v0", num_players=num_players)
    info = env.describe()
    assert "heuristic_outs" in agent_kinds(info)
    agents = [make_agent("heuristic_outs", info, seed=s) for s in range(num_players)]
    play_game(env, agents, seed=1)
    assert env.game.is_over(env.game_state)


def test_outs_agent_is_only_for_this_game():
    with pytest.raises(ValueError, match="no heuristic_outs agent for seals_v0"):
        make_agent("heuristic_outs", make("seals_v0").describe())
