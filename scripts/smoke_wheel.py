"""Smoke test of an installed card-envs: the wheel in a fresh virtual environment, core only.

``scripts/test_wheel.py`` copies this file to a folder outside the source tree and runs it with
the environment's Python, once with the newest dependencies the ranges allow and once with each
direct dependency at its lower bound. Plain Python, no pytest: the core install has none. It
checks what a user of the core gets: every env passes PettingZoo's ``api_test``, a seeded game
replays bit for bit, every kernel is compiled, the heuristic beats random in a short arena,
training without its extra names the extra, and nothing imports torch or the other extras'
packages. Prints one line per check, then ``N passed, N failed``; exits 1 on any failure.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import subprocess
import sys
import tempfile
import traceback
import warnings
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import numpy as np
from pettingzoo.test import api_test

import card_envs
from card_envs.agents import make_agent
from card_envs.core import kernels

# The packages that only extras bring: the core must import none of them.
OPTIONAL = (
    "torch",
    "stable_baselines3",
    "sb3_contrib",
    "ray",
    "starlette",
    "uvicorn",
    "matplotlib",
)
MIN_KERNELS = 5
API_CYCLES = 200
ARENA_EPISODES = 5
# sequitur_v1 is sequitur_v0's game with each action's value searched into the observation, slow
# by design (docs/sequitur_v1.md): its heuristic plays sequitur_v0's games.
ARENA_GAMES = [name for name in card_envs.env_names() if name != "sequitur_v1"]


def installed_here() -> None:
    """card_envs comes from this environment's site-packages, not a source tree."""
    path = Path(card_envs.__file__).resolve()
    assert "site-packages" in path.parts, f"card_envs imported from {path}"
    assert card_envs.__version__ == version("card-envs"), card_envs.__version__


def kernels_compiled() -> None:
    status = kernels.status()
    assert len(status) >= MIN_KERNELS, status
    missing = [name for name, compiled in status.items() if not compiled]
    assert not missing, f"kernels not compiled: {missing}"


def api(name: str) -> None:
    """PettingZoo's checks, without its progress lines and its warnings about choices this
    library documents (a dict observation with a mask; reset's options hold only a deal)."""
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        api_test(card_envs.make(name), num_cycles=API_CYCLES)


def play(name: str, seed: int, deal: dict | None = None) -> tuple[str, dict]:
    """A digest of every observation, mask and reward of one game of seeded random moves, and
    the game's chance as a deal."""
    env = card_envs.make(name)
    env.reset(seed=seed, options=None if deal is None else {"deal": deal})
    digest = hashlib.sha256()
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        digest.update(observation["observation"].tobytes() + observation["action_mask"].tobytes())
        digest.update(np.float64(reward).tobytes())
        mask = observation["action_mask"]
        env.step(None if termination or truncation else env.action_space(agent).sample(mask))
    return digest.hexdigest(), env.deal_record()


def replays(name: str) -> None:
    """The same seed plays the same game; its deal record replays it under another seed."""
    first, deal = play(name, seed=7)
    again, _ = play(name, seed=7)
    assert first == again, "a seeded game did not repeat"
    from_deal, _ = play(name, seed=7, deal=deal)
    assert from_deal == first, "the deal record did not replay the game"


def heuristic_beats_random() -> None:
    """``card-envs arena`` on each game, a heuristic and a random entry in the pool."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "arena.json"
        for name in ARENA_GAMES:
            command = [str(Path(sys.executable).with_name("card-envs")), "arena", "--game", name]
            command += ["--agents", "heuristic", "random", "--episodes", str(ARENA_EPISODES)]
            command += ["--workers", "1", "--json", str(out)]
            run = subprocess.run(command, capture_output=True, text=True)
            assert run.returncode == 0, run.stderr[-2000:]
            share = {
                agent["name"]: agent["win_rate"] for agent in json.loads(out.read_text())["agents"]
            }
            assert share["heuristic"] > share["random"], (name, share)


def training_names_its_extra() -> None:
    """A shipped network needs the train extra, which the core install lacks: the error says so."""
    info = card_envs.make("seamless_v0").describe()
    try:
        make_agent("ppo", info)
    except ImportError as error:
        assert 'pip install "card-envs[train]"' in str(error), error
    else:
        raise AssertionError("a trained agent loaded without the train extra")


def no_optional_imports() -> None:
    imported = [name for name in OPTIONAL if name in sys.modules]
    assert not imported, f"imported: {imported}"


def main() -> int:
    checks: list[tuple[str, Callable[[], None]]] = [
        ("installed from the wheel", installed_here),
        ("kernels compiled", kernels_compiled),
    ]
    for name in card_envs.env_names():
        checks.append((f"{name}: api_test", lambda name=name: api(name)))
        checks.append((f"{name}: seeded replay", lambda name=name: replays(name)))
    checks += [
        ("heuristic beats random in the arena", heuristic_beats_random),
        ("training without its extra names it", training_names_its_extra),
        ("no torch, SB3, Ray, Starlette or matplotlib imported", no_optional_imports),
    ]
    failed = 0
    for label, check in checks:
        try:
            check()
            print(f"ok    {label}")
        except Exception:
            failed += 1
            print(f"FAIL  {label}\n{traceback.format_exc()}")
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
