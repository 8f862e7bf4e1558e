"""Checkpoints that cannot run code: the safe format (safetensors + JSON), its checks and errors,
Stable-Baselines3 zips and RLlib exports only when trusted, and the shipped agents playing move
for move as they did from their zips."""

from __future__ import annotations

import base64
import hashlib
import json
import pickle
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

import cloudpickle
import torch
from sb3_contrib import MaskablePPO

from card_envs import make
from card_envs.agents import make_agent, shipped_checkpoint
from card_envs.agents.checkpoint import (
    HASH_KEY,
    PickleCheckpointWarning,
    UncheckedCheckpointWarning,
    convert_checkpoint,
    load_policy,
    metadata_path,
    tensors_digest,
)
from card_envs.agents.match import play_game
from card_envs.agents.policy import PolicyAgent, clear_best, greedy_action, load_policy_agent
from card_envs.registry import env_names
from card_envs.training.single_agent import OpponentPool, SingleAgentEnv

# sha256 prefixes of the shipped agents' play, recorded from their SB3 zips (the loader before
# the safe format) and unchanged since: `games` are moves of seeded games against heuristics
# (they move when a game's rules or heuristics change); `inputs` are greedy actions on seeded
# synthetic inputs (they move only when the network or its loading does).
SHIPPED_PLAY = {
    "seals_v0": {
        "game": "2b33a3b7a8c23ae3",
        "games": "9b5c8a848859cade",
        "inputs": "0543b27f89c52dab",
    },
    "seamless_v0": {
        "game": "4e5fe19905e76e9e",
        "games": "957ee6962a73345a",
        "inputs": "d891074cef7a0da6",
    },
    "seers_catalog_v0": {
        "game": "af2960d1c48b1e3f",
        "games": "bc535a33fdd8f92c",
        "inputs": "ce32fa21da00a5b1",
    },
    "sequitur_v0": {
        "game": "70e15ea53e6bd8b4",
        "games": "a8bfaef1a13e0ca8",
        "inputs": "4f736d945af5604b",
    },
    "unfortunate_events_v0": {
        "game": "f662bacd5d134632",
        "games": "564c8b12489d8c64",
        "inputs": "2e45ec3553b83b46",
    },
}


# The same for the shipped networks alone (kind "ppo"), recorded from their safetensors on
# 2026-12-01, after they shipped: a refactor of the encoding, the loader or the heuristics they
# meet must keep them.
SHIPPED_PPO_PLAY = {
    "seals_v0": {  # scores each take by what it leaves, then two rounds of distill (issue 50)
        "game": "3760b62edfe5da79",
        "games": "901660147672a6cf",
        "inputs": "98510c16512e8c54",
    },
    "seamless_v0": {  # scores each play by what it risks and beats (issue 50)
        "game": "461e944b6d3047a9",
        "games": "5f7bf26d9ffd4973",
        "inputs": "fbf21eca3a6b4ac5",
    },
    "seers_catalog_v0": {
        "game": "5e99eb31fca9f9c6",
        "games": "4f745256980d8746",
        "inputs": "6bd5bf4ed1da5f27",
    },
    "sequitur_v1": {  # the network of 2026-12-06 resumed for 40 more minutes (issue 50)
        "game": "47ba4f72989459e7",
        "games": "de2314c51b46312d",
        "inputs": "4f76aac8c4e3488a",
    },
    "unfortunate_events_v0": {  # scores each draw and discard by what it leaves (issue 50)
        "game": "9375c8e83004ad8d",
        "games": "978b5e55f60283d8",
        "inputs": "8bf756d15176304b",
    },
}


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """Inference on one observation gains nothing from threads and, on a busy machine, loses
    much (10x measured on two cores shared with other runs)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def moves_hash(name: str, kind: str, games: int, trust: bool = False) -> str:
    """The moves of ``games`` seeded games, ``kind`` in a rotating seat, heuristics elsewhere."""
    env = make(name)
    info = env.describe()
    digest = hashlib.sha256()
    for game in range(games):
        seat = game % info.num_players
        agents = [
            make_agent(kind if s == seat else "heuristic", info, game * 31 + s, trust=trust)
            for s in range(info.num_players)
        ]
        moves: list[int] = []
        play_game(
            env, agents, seed=game, on_move=lambda _agent, action, moves=moves: moves.append(action)
        )
        digest.update(json.dumps([game, moves]).encode())
    return digest.hexdigest()[:16]


def inputs_hash(policy, count: int = 64) -> str:
    """Greedy actions of ``policy`` on seeded random inputs under seeded random masks."""
    rng = np.random.default_rng(0)
    size, actions = policy.observation_space.shape[0], policy.action_space.n
    digest = hashlib.sha256()
    for _ in range(count):
        vector = rng.random(size, dtype=np.float32)
        mask = rng.random(actions) < 0.3
        mask[rng.integers(actions)] = True
        action, _ = policy.predict(vector, action_masks=mask, deterministic=True)
        digest.update(int(action).to_bytes(4, "little"))
    return digest.hexdigest()[:16]


PINNED_PLAY = {"ppo_advised": SHIPPED_PLAY, "ppo": SHIPPED_PPO_PLAY}
PINNED = [(kind, name) for kind, table in PINNED_PLAY.items() for name in sorted(table)]


@pytest.mark.parametrize(("kind", "name"), PINNED)
def test_shipped_agent_plays_as_it_shipped(kind, name):
    info = make(name).describe()
    policy, _ = load_policy(shipped_checkpoint(name, kind), info)
    assert inputs_hash(policy) == PINNED_PLAY[kind][name]["inputs"]
    assert moves_hash(name, kind, 1) == PINNED_PLAY[kind][name]["game"]


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "name"), PINNED)
def test_shipped_agent_plays_eight_games_as_it_shipped(kind, name):
    assert moves_hash(name, kind, 8) == PINNED_PLAY[kind][name]["games"]


@pytest.mark.parametrize(("kind", "name"), PINNED)
def test_the_agents_greedy_move_is_predicts(kind, name):
    """PolicyAgent skips predict's per-call costs; its move must stay predict's on inputs no
    game would give (all zeros, large values, masks with few or many legal moves), from a
    policy left in training mode as a trainer leaves it."""
    info = make(name).describe()
    policy, _ = load_policy(shipped_checkpoint(name, kind), info)
    agent = PolicyAgent(policy, info)
    rng = np.random.default_rng(1)
    size, actions = policy.observation_space.shape[0], policy.action_space.n
    for _ in range(48):
        vector = rng.random(size, dtype=np.float32) * rng.choice([0.0, 1.0, 50.0])
        mask = rng.random(actions) < rng.choice([0.05, 0.5])
        mask[rng.integers(actions)] = True
        policy.set_training_mode(True)
        expected, _ = policy.predict(vector, action_masks=mask, deterministic=True)
        policy.set_training_mode(True)
        assert agent.greedy(vector, mask) == int(expected)
        assert not policy.training


def test_the_greedy_shortcut_breaks_near_ties_as_maskable_categorical_does():
    """Logits whose best two legal entries are equal, 1-63 float32 ulps or 1e-6 to 1e-3 of
    the scale apart, at scales from 1 to 1e4: the move is MaskableCategorical's mode every
    time, both the shortcut and the full arithmetic are taken, and a margin 100 times smaller
    fails here."""
    from sb3_contrib.common.maskable.distributions import MaskableCategorical

    rng = np.random.default_rng(3)
    shortcut = full = 0
    for _ in range(3000):
        actions = int(rng.choice([2, 9, 104, 544]))
        scale = float(rng.choice([1.0, 30.0, 1e4]))
        logits = (rng.standard_normal(actions) * scale).astype(np.float32)
        mask = rng.random(actions) < 0.5
        mask[rng.choice(actions, 2, replace=False)] = True
        first, second = rng.choice(np.flatnonzero(mask), 2, replace=False)
        logits[first] = np.abs(logits).max() * rng.choice([0.0, 1.0, -1.0]) + 1.0
        ulps = np.spacing(np.float32(np.abs(logits).max())) * rng.integers(0, 64)
        gap = rng.choice([ulps, float(rng.choice([1e-6, 1e-5, 1e-4, 1e-3])) * scale])
        logits[second] = np.float32(logits[first] - gap)
        row = torch.as_tensor(logits).reshape(1, -1)
        expected = MaskableCategorical(logits=row, masks=torch.as_tensor(mask)[None]).mode
        assert greedy_action(row, mask) == int(expected[0])
        if clear_best(logits, mask) is None:
            full += 1
        else:
            shortcut += 1
    assert shortcut > 300 and full > 300


def test_an_object_with_only_predict_still_plays():
    info = make("seals_v0").describe()

    class Fixed:
        def predict(self, vector, action_masks, deterministic):
            assert deterministic
            return np.array(int(np.flatnonzero(action_masks)[-1])), None

    mask = np.zeros(info.num_actions, bool)
    mask[[2, 5]] = True
    assert PolicyAgent(Fixed(), info).greedy(np.zeros(info.obs_spec.size, np.float32), mask) == 5


def test_every_shipped_network_alone_has_its_play_pinned():
    shipped = {name for name in env_names() if shipped_checkpoint(name, "ppo").exists()}
    assert shipped == set(SHIPPED_PPO_PLAY)


def tiny_zip(path: Path, name: str = "seals_v0", advised: bool = False) -> Path:
    """An untrained MaskablePPO zip (a JSON beside it when ``advised``, naming the advisor)."""
    from card_envs.agents.advised_policy import AdvisedPolicy

    advisor = "heuristic" if advised else None
    env = SingleAgentEnv(name, OpponentPool(["random"]), 2, advisor=advisor)
    policy = AdvisedPolicy if advised else "MlpPolicy"
    model = MaskablePPO(
        policy,
        env,
        n_steps=64,
        batch_size=64,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [16, 16]},
    )
    model.save(path)
    if advised:
        meta = {"env": name, "num_players": 2, "config": {"advisor": advisor}}
        metadata_path(path).write_text(json.dumps(meta))
    return path


@pytest.mark.parametrize(("name", "advised"), [("seals_v0", False), ("sequitur_v0", True)])
def test_converted_zip_plays_exactly_as_the_zip(tmp_path, name, advised):
    source = tiny_zip(tmp_path / "model.zip", name, advised)
    info = make(name, num_players=2).describe()
    with pytest.warns(PickleCheckpointWarning, match="can run any code"):
        zipped = load_policy_agent(source, info, seed=1, trust=True)
        advisor = "heuristic" if advised else None
        convert_checkpoint(source, tmp_path / "safe.safetensors", info, advisor, trust=True)
    safe = make_agent(str(tmp_path / "safe.safetensors"), info, seed=1)
    assert type(safe.policy).__name__ == type(zipped.policy).__name__
    assert inputs_hash(safe.policy) == inputs_hash(zipped.policy)
    env = make(name, num_players=2)
    env.reset(seed=3)
    for _ in range(6):
        observation = env.observe(env.agent_selection)
        assert safe.act(observation) == zipped.act(observation)
        env.step(safe.act(observation))


def plant_payload(checkpoint: Path, marker: Path) -> None:
    """Rewrite the zip's pickled observation space as a payload that creates ``marker``."""
    import os

    class Payload:
        def __reduce__(self):
            return os.mkdir, (str(marker),)

    with zipfile.ZipFile(checkpoint) as archive:
        members = {item: archive.read(item) for item in archive.namelist()}
    data = json.loads(members["data"])
    data["observation_space"][":serialized:"] = base64.b64encode(
        cloudpickle.dumps(Payload())
    ).decode()
    members["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(checkpoint, "w") as archive:
        for item, content in members.items():
            archive.writestr(item, content)


def test_a_zip_runs_no_code_unless_trusted(tmp_path):
    """The threat is real (a trusted zip's payload runs); without trust nothing is unpickled,
    for this game or another, and the error says how to opt in or convert."""
    checkpoint, marker = tiny_zip(tmp_path / "evil.zip"), tmp_path / "payload_ran"
    plant_payload(checkpoint, marker)
    seals = make("seals_v0", num_players=2).describe()
    for info in (seals, make("seamless_v0").describe()):
        with pytest.raises(ValueError, match=r"unpickles it.*trust=True.*export-checkpoint"):
            make_agent(str(checkpoint), info)
    assert not marker.exists()
    metadata_path(checkpoint).write_text(json.dumps({"env": "seals_v0", "num_players": 2}))
    with pytest.raises(
        ValueError, match="trained for seals_v0 with 2 players, not seals_v0 with 4"
    ):
        make_agent(str(checkpoint), make("seals_v0").describe(), trust=True)
    assert not marker.exists()  # the JSON is checked before anything is unpickled
    with pytest.warns(PickleCheckpointWarning), pytest.raises(ValueError, match="corrupt"):
        make_agent(str(checkpoint), seals, trust=True)
    assert marker.exists()


@pytest.fixture
def unpickling(monkeypatch) -> list[str]:
    """Records every call of the unpickling functions SB3 and torch use (they still work)."""
    calls: list[str] = []

    def spy(owner, attribute: str) -> None:
        original = getattr(owner, attribute)

        def recorded(*args, **kwargs):
            calls.append(f"{owner.__name__}.{attribute}")
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, attribute, recorded)

    for owner, attribute in [(pickle, "loads"), (pickle, "load"), (cloudpickle, "loads")]:
        spy(owner, attribute)
    spy(torch, "load")
    return calls


def test_the_safe_format_unpickles_nothing(tmp_path, unpickling):
    info = make("seamless_v0").describe()
    agent = make_agent("ppo_advised", info, seed=0)
    env = make("seamless_v0")
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert observation["action_mask"][agent.act(observation)] == 1
    assert unpickling == []
    with pytest.warns(PickleCheckpointWarning):  # the spies do see the zip's unpickling
        load_policy_agent(
            tiny_zip(tmp_path / "m.zip"), make("seals_v0", num_players=2).describe(), trust=True
        )
    assert "cloudpickle.loads" in unpickling


@pytest.fixture
def safe_copy(tmp_path) -> Path:
    """The shipped Seamless agent, copied to be damaged."""
    source = shipped_checkpoint("seamless_v0", "ppo_advised")
    copy = tmp_path / "agent.safetensors"
    copy.write_bytes(source.read_bytes())
    metadata_path(copy).write_text(metadata_path(source).read_text())
    return copy


def edit_json(path: Path, **changes) -> None:
    meta = json.loads(metadata_path(path).read_text())
    for key, value in changes.items():
        target = (
            meta["policy"]
            if key in ("class", "advisor", "net_arch", "activation", "observation_size")
            else meta
        )
        target[key] = value
    metadata_path(path).write_text(json.dumps(meta))


def test_the_game_is_checked_before_the_tensors_are_read(safe_copy):
    safe_copy.write_bytes(b"never read")
    with pytest.raises(ValueError, match=r"trained for seamless_v0 with 4 players, not seals_v0"):
        make_agent(str(safe_copy), make("seals_v0").describe())
    edit_json(safe_copy, num_players=3)
    with pytest.raises(
        ValueError, match="trained for seamless_v0 with 3 players, not seamless_v0 with 4"
    ):
        make_agent(str(safe_copy), make("seamless_v0").describe())


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p: p.write_bytes(b"not tensors"), "is damaged: not a safetensors file"),
        (lambda p: p.write_bytes(p.read_bytes()[:1000]), "is damaged: not a safetensors file"),
        (lambda p: metadata_path(p).unlink(), "has no agent.json beside it"),
        (lambda p: metadata_path(p).write_text("{not json"), "metadata .* is corrupt"),
        (lambda p: metadata_path(p).write_text("[1, 2]"), "metadata .* is corrupt"),
        (lambda p: edit_json(p, format="sb3"), "format is 'sb3'"),
        (lambda p: edit_json(p, format_version=2), "format_version is 2; this reads 1"),
        (lambda p: edit_json(p, num_players="4"), "num_players a positive integer"),
        (lambda p: edit_json(p, **{"class": "os.system"}), "policy.class 'os.system' is not"),
        (lambda p: edit_json(p, activation="eval"), "policy.activation 'eval' is not"),
        (lambda p: edit_json(p, net_arch="256"), "policy.net_arch must be"),
        (lambda p: edit_json(p, advisor="os:system"), "names the advisor 'os:system'"),
        (lambda p: edit_json(p, advisor="/tmp/other.zip"), "names the advisor '/tmp/other.zip'"),
        (lambda p: edit_json(p, advisor=None), "expects observations of 711 and 104 actions"),
        (lambda p: edit_json(p, net_arch=[128, 128]), "does not hold the network its JSON"),
        (lambda p: edit_json(p, **{"class": "AdvisedPolicy"}), "does not hold the network"),
    ],
)
def test_a_damaged_safe_checkpoint_is_a_clear_error(safe_copy, damage, message):
    damage(safe_copy)
    with pytest.raises(ValueError, match=message) as error:
        make_agent(str(safe_copy), make("seamless_v0").describe())
    assert "agent." in str(error.value)  # names the file


def flip_a_tensor_byte(path: Path) -> None:
    """One byte near the end (inside the last tensor's data): the header stays valid."""
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))


def test_flipped_tensor_bytes_are_caught_by_the_recorded_hash(safe_copy):
    flip_a_tensor_byte(safe_copy)
    with pytest.raises(
        ValueError, match=r"is damaged: its SHA-256 is [0-9a-f]{64}, but agent\.json"
    ):
        make_agent(str(safe_copy), make("seamless_v0").describe())


def test_a_checkpoint_without_a_hash_loads_with_a_warning(safe_copy):
    meta = json.loads(metadata_path(safe_copy).read_text())
    del meta[HASH_KEY]
    metadata_path(safe_copy).write_text(json.dumps(meta))
    with pytest.warns(UncheckedCheckpointWarning, match="records no tensors_sha256"):
        agent = make_agent(str(safe_copy), make("seamless_v0").describe())
    assert agent is not None
    edit_json(safe_copy, **{HASH_KEY: "abc"})
    with pytest.raises(ValueError, match=r"tensors_sha256 must be .* 64 hex digits"):
        make_agent(str(safe_copy), make("seamless_v0").describe())


def test_every_shipped_checkpoint_records_its_tensors_hash():
    found = sorted(Path(shipped_checkpoint("seamless_v0", "ppo").parent).glob("*.safetensors"))
    assert len(found) >= 9
    for tensors in found:
        meta = json.loads(metadata_path(tensors).read_text())
        assert meta[HASH_KEY] == tensors_digest(tensors), tensors.name


def test_checkpoint_paths_say_what_they_take(tmp_path):
    info = make("seamless_v0").describe()
    (tmp_path / "model.pt").write_bytes(b"")
    with pytest.raises(ValueError, match=r"expected a \.safetensors file .* or a Stable"):
        make_agent(str(tmp_path / "model.pt"), info)
    with pytest.raises(FileNotFoundError, match="no checkpoint at"):
        make_agent(str(tmp_path / "missing.safetensors"), info)


def test_export_checkpoint_command_needs_trust_and_the_game(tmp_path, capsys):
    from card_envs.cli import main

    source, out = tiny_zip(tmp_path / "m.zip"), tmp_path / "m.safetensors"
    assert main(["export-checkpoint", str(source), str(out)]) == 2
    assert "--trust-checkpoint" in capsys.readouterr().err and not out.exists()
    assert main(["export-checkpoint", str(source), str(out), "--trust-checkpoint"]) == 2
    assert "give --game" in capsys.readouterr().err
    flags = ["--trust-checkpoint", "--game", "seals_v0", "--players", "2"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PickleCheckpointWarning)
        assert main(["export-checkpoint", str(source), str(out), *flags]) == 0
    meta = json.loads(metadata_path(out).read_text())
    assert (meta["format"], meta["env"], meta["num_players"]) == (
        "card-envs-policy",
        "seals_v0",
        2,
    )
    assert meta["policy"] == {
        "class": "MaskableActorCriticPolicy",
        "observation_size": 145,
        "num_actions": 31,
        "net_arch": [16, 16],
        "activation": "tanh",
        "advisor": None,
    }
    assert make_agent(str(out), make("seals_v0", num_players=2).describe()).policy


def test_an_rllib_export_loads_only_when_trusted(tmp_path):
    """RLModule.from_checkpoint unpickles: refused without trust, before Ray is needed."""
    from card_envs.agents.rllib import META_FILE, load_rllib_agent

    meta = {
        "env": "seamless_v0",
        "num_players": 4,
        "modules": {"shared": "m"},
        "default_module": "shared",
    }
    (tmp_path / META_FILE).write_text(json.dumps(meta))
    info = make("seamless_v0").describe()
    with pytest.raises(ValueError, match="is an RLlib export: loading it unpickles it"):
        make_agent(str(tmp_path), info)
    with pytest.raises(ValueError, match="trained for seamless_v0 with 4 players, not seals_v0"):
        load_rllib_agent(tmp_path, make("seals_v0").describe())


def test_a_shipped_ppo_acts_on_the_observation_alone():
    """Kind "ppo" is a network alone: no heuristic's move among its inputs (those ship as
    "ppo_advised"); it plays whole games against the heuristics with legal moves only."""
    shipped = [name for name in env_names() if shipped_checkpoint(name, "ppo").exists()]
    assert "seers_catalog_v0" in shipped
    for name in shipped:
        meta = json.loads(metadata_path(shipped_checkpoint(name, "ppo")).read_text())
        assert meta["policy"]["advisor"] is None, name
        info = make(name).describe()
        assert make_agent("ppo", info, 0).advisor is None, name
        moves_hash(name, "ppo", 1)  # an illegal move would raise
