"""The Seals heuristic with a learned afterstate value, and the script that fits the value."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs import make
from card_envs.agents import agent_kinds, make_agent
from card_envs.agents.match import play_game
from card_envs.agents.seals import HeuristicAgent
from card_envs.agents.seals_value import (
    WEIGHTS,
    AfterstateValue,
    ValueHeuristicAgent,
    take_features,
)
from card_envs.training.seals_value import collect, fit, save


def zero_value(width: int = 8) -> AfterstateValue:
    sizes = [44, width, width, 1]
    return AfterstateValue(
        [a for i in range(3) for a in (np.zeros(sizes[i : i + 2]), np.zeros(sizes[i + 1]))]
    )


def test_take_features_describe_the_hand_after_the_take():
    env = make("seals_v0")
    deal = {"hands": ["R6 Y6", "", "", ""], "row": "G6 B6 P9 Rc", "starter": 0}
    env.reset(seed=0, options={"deal": deal})
    info = env.describe()
    views = info.obs_spec.views(env.observe(env.agent_selection)["observation"])
    take_sixes = env.game.actions.ids["take 6s"]
    features = take_features(views, take_sixes)
    assert features.shape == (44,)
    assert features[5] * 4 == 4  # four 6s in hand after the take
    assert features[11 + 5] == 0 and features[11 + 8] * 4 == 1  # the 9 and the coin stay up


def test_the_value_decides_takes():
    """A value that hates cards left face up makes every take the one that leaves the fewest."""
    row_left = ((np.arange(44) >= 11) & (np.arange(44) < 22)).astype(float)[:, None]
    hates_leftovers = AfterstateValue(
        [row_left, np.zeros(1), np.ones((1, 1)), np.zeros(1), -10 * np.ones((1, 1)), np.zeros(1)]
    )
    env = make("seals_v0")
    info = env.describe()
    agent, plain = ValueHeuristicAgent(info, 0, hates_leftovers), HeuristicAgent(info, 0)
    differ = 0
    for seed in range(3):
        env.reset(seed=seed)
        for _name in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            views = info.obs_spec.views(observation["observation"])
            action = agent.act(observation)
            if not views["revealing"][0]:
                legal = np.flatnonzero(observation["action_mask"])
                left = [take_features(views, int(a))[11:22].sum() for a in legal]
                assert take_features(views, action)[11:22].sum() == min(left)
                differ += action != plain.act(observation)
            env.step(action)
    assert differ > 0


def test_with_a_zero_value_it_plays_exactly_as_the_heuristic():
    env = make("seals_v0")
    info = env.describe()
    for seed in range(3):
        plain = play_game(env, [HeuristicAgent(info, s) for s in range(4)], seed=seed)
        valued = [ValueHeuristicAgent(info, s, zero_value()) for s in range(4)]
        assert play_game(env, valued, seed=seed) == plain
    with pytest.raises(ValueError, match="takes 44 features; a 3-player table"):
        ValueHeuristicAgent(make("seals_v0", num_players=3).describe(), 0, zero_value())


def test_value_changes_takes_and_moves_stay_legal(tmp_path):
    x, y = collect(games=3, seed=1, epsilon=0.2)
    assert x.shape[1] == 44 and len(x) == len(y) and np.isfinite(y).all()
    weights, report = fit(x, y, width=8, epochs=1, seed=0)
    save(weights, report, tmp_path / "value.npz")
    value = AfterstateValue.load(tmp_path / "value.npz")
    assert value(x[:5]).shape == (5,)
    env = make("seals_v0")
    info = env.describe()
    agents = [ValueHeuristicAgent(info, s, value) for s in range(4)]
    result = play_game(env, agents, seed=4)  # the env raises on an illegal move
    assert result.winners


def test_value_weights_errors_are_clear(tmp_path):
    with pytest.raises(ValueError, match="not found"):
        AfterstateValue.load(tmp_path / "missing.npz")
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(b"not an npz")
    with pytest.raises(ValueError, match="corrupt"):
        AfterstateValue.load(corrupt)
    with pytest.raises(ValueError, match="no heuristic_value agent"):
        make_agent("heuristic_value", make("seamless_v0").describe())


@pytest.mark.skipif(not WEIGHTS.exists(), reason="no shipped afterstate value")
def test_shipped_value_agent_is_a_built_in_kind():
    info = make("seals_v0").describe()
    assert "heuristic_value" in agent_kinds(info)
    assert "heuristic_value" not in agent_kinds(make("seals_v0", num_players=3).describe())
    agent = make_agent("heuristic_value", info, seed=0)
    env = make("seals_v0")
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert observation["action_mask"][agent.act(observation)] == 1


def test_pickled_value_weights_are_refused(tmp_path):
    """An object array in the npz could only be unpickled, which can run code: it is refused and
    its payload never runs."""
    import os

    marker = tmp_path / "payload_ran"

    class Payload:
        def __reduce__(self):
            return os.mkdir, (str(marker),)

    arrays = {f"{kind}{i}": np.zeros((2, 2)) for i in range(3) for kind in "Wb"}
    arrays["W0"] = np.array([Payload()], dtype=object)
    np.savez(tmp_path / "pickled.npz", **arrays)
    with pytest.raises(ValueError, match="pickled objects are refused"):
        AfterstateValue.load(tmp_path / "pickled.npz")
    assert not marker.exists()


def test_fitting_writes_a_run_folder_unless_out_names_a_file():
    """The shipped weights change only when --out names them."""
    from datetime import datetime
    from pathlib import Path

    from card_envs.training.seals_value import output_path

    now = datetime(2026, 11, 30, 9, 5, 7)
    run = Path("runs/seals_v0_value-20261130-090507")
    assert output_path(None, now) == run / "seals_v0_value.npz"
    assert output_path(Path("mine.npz"), now) == Path("mine.npz")
