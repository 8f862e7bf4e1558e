"""The value networks that luck adjustment reads: one ships for every game that asks for it,
reads that game's observation, and a bad file is refused; fitting one never replaces the
shipped file unless asked to."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from card_envs import make
from card_envs.evaluation import fit
from card_envs.evaluation.run import LuckSettings
from card_envs.evaluation.values import Network, network_path, shipped_network
from card_envs.registry import env_names

NETWORK_GAMES = [name for name in env_names() if LuckSettings.of(name).value == "network"]


def test_the_games_that_declare_a_network_value_include_every_seamless_version():
    assert {"seals_v0", "seamless_v0", "seamless_v1", "seers_catalog_v0"} <= set(NETWORK_GAMES)


@pytest.mark.parametrize("name", NETWORK_GAMES)
def test_a_game_that_asks_for_a_network_value_ships_one_that_reads_its_observation(name):
    """A missing network stops `card-envs leaderboard --game all` at that game."""
    env = make(name).unwrapped
    env.reset(seed=0)
    network = shipped_network(name)
    assert network.scale.size == env.encoding.spec.size  # one seat's observation
    values = network(env, [env.game_state])
    assert values.shape == (1, env.game.num_players, 2)
    assert np.isclose(values[0, :, 0].sum(), 1.0)


def test_a_corrupt_or_missing_network_is_refused_naming_the_file(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip archive")
    with pytest.raises(ValueError, match=r"bad\.npz is corrupt"):
        Network.load(bad)
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, W0=np.array([object()], dtype=object))
    with pytest.raises(ValueError, match=r"pickled\.npz is corrupt or not plain arrays"):
        Network.load(pickled)
    with pytest.raises(ValueError, match=r"no value network at .*absent\.npz"):
        Network.load(tmp_path / "absent.npz")


def test_fitting_by_default_writes_under_runs_and_leaves_the_shipped_network(
    tmp_path, monkeypatch, capsys
):
    pytest.importorskip("torch")
    shipped = network_path("seals_v0")
    before = hashlib.sha256(shipped.read_bytes()).hexdigest()
    monkeypatch.chdir(tmp_path)
    assert fit.main(["seals_v0", "--games", "20", "--epochs", "1", "--sample", "0.2"]) == 0
    written = list(tmp_path.glob("runs/value-seals_v0-*/seals_v0.npz"))
    assert len(written) == 1 and written[0].with_suffix(".json").exists()
    assert Network.load(written[0]).scale.size == make("seals_v0").unwrapped.encoding.spec.size
    assert hashlib.sha256(shipped.read_bytes()).hexdigest() == before
    with pytest.raises(SystemExit):
        fit.main(["seals_v0", "--write", "--out", str(tmp_path / "x.npz")])
    assert "not both" in capsys.readouterr().err
