"""benchmarks/decision_swap.py: an agent with one group of its decisions made by another, on the
arena's own games."""

from __future__ import annotations

import pytest
from helpers import load_script

from card_envs import make
from card_envs.agents import make_agent
from card_envs.tools.arena import Lineup, make_tasks, play

swap = load_script("decision_swap")

ALL_SEALS_BLOCKS = tuple(block.name for block in make("seals_v0").game.actions.blocks)


def tables(agent: str, deals: int = 3) -> list[tuple]:
    lineup = Lineup.cell(agent, "heuristic", 4)
    tasks = make_tasks("seals_v0", 4, lineup, range(deals), seed=11)
    return [(task, lineup.tables[i % 4].index(0)) for i, task in enumerate(tasks)]


def share(task, seat: int) -> float:
    winners = play(task).winners
    return (seat in winners) / len(winners)


def test_no_swap_is_the_arenas_game():
    for task, seat in tables("random"):
        assert swap.play_swapped("heuristic", None, (task, seat)) == share(task, seat)


def test_every_decision_swapped_plays_as_the_other_agent_in_that_seat():
    """Random with all its decisions made by the heuristic is the arena's heuristic there."""
    every = swap.swapped_ids(make("seals_v0"), ALL_SEALS_BLOCKS)
    swapped = [swap.play_swapped("heuristic", every, t) for t in tables("random")]
    assert swapped == [share(task, seat) for task, seat in tables("heuristic")]
    assert swapped != [share(task, seat) for task, seat in tables("random")]


def test_a_group_swaps_only_the_decisions_whose_first_legal_move_is_in_it():
    env = make("seals_v0")
    env.reset(seed=3)
    first, other = (
        make_agent("random", env.describe(), 0),
        make_agent("heuristic", env.describe(), 0),
    )
    ids = swap.swapped_ids(env, ("take_colour",))
    agent = swap.Swapped(first, other, ids)
    seen = 0
    for _ in range(40):
        observation = env.observe(env.agent_selection)
        legal = observation["action_mask"].nonzero()[0]
        expected = other if ids[legal[0]] else first
        assert agent.chooser(observation) is expected
        seen += expected is other
        env.step(int(legal[0]))
        if not env.agents:
            break
    assert seen > 0


def test_the_rows_share_the_deals_and_a_swap_to_the_same_kind_gains_nothing():
    rows = swap.measure(
        "seals_v0", "heuristic", "heuristic", "heuristic", [ALL_SEALS_BLOCKS], 2, 5, 1
    )
    assert [row.games for row in rows] == [8, 8]
    assert rows[1].deal_wins == rows[0].deal_wins and rows[1].gain == 0.0


def test_an_unknown_block_is_named():
    with pytest.raises(ValueError, match="no action block"):
        swap.swapped_ids(make("seals_v0"), ("spell",))
