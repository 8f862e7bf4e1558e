"""The core install stays small: the environments import no optional package, every import of one
goes through ``card_envs.core.extras.require``, and a missing extra is named in the error."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from card_envs.core.extras import EXTRAS, install_hint, require

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
OPTIONAL_DEPENDENCIES = PYPROJECT["project"]["optional-dependencies"]
SOURCES = ("card_envs", "agents", "training")

# Each optional import name and the distribution that provides it.
DISTRIBUTIONS = {
    "matplotlib": "matplotlib",
    "open_spiel": "open-spiel",
    "pyspiel": "open-spiel",
    "ray": "ray",
    "rlcard": "rlcard",
    "safetensors": "safetensors",
    "sb3_contrib": "sb3-contrib",
    "stable_baselines3": "stable-baselines3",
    "starlette": "starlette",
    "tensorboard": "tensorboard",
    "tensorboardX": "tensorboardx",
    "torch": "torch",
    "tqdm": "tqdm",
    "uvicorn": "uvicorn",
}

IMPORTED_BY_MAKING_EVERY_ENV = """
import json, sys
import card_envs
for name in card_envs.env_names():
    env = card_envs.make(name)
    env.reset(seed=0)
    env.step(int(env.last()[0]["action_mask"].argmax()))
print(json.dumps(sorted(name.split(".")[0] for name in sys.modules)))
"""


def distribution(requirement: str) -> str:
    """A requirement's distribution name, normalised as pip compares them."""
    return Requirement(requirement).name.lower().replace("_", "-")


def test_making_every_env_imports_no_optional_package():
    """In a fresh interpreter: ``import card_envs`` and one step of every env import none of the
    packages that extras bring (torch, Stable-Baselines3, Ray, Starlette ...)."""
    result = subprocess.run(
        [sys.executable, "-c", IMPORTED_BY_MAKING_EVERY_ENV],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = set(json.loads(result.stdout))
    assert imported & set(DISTRIBUTIONS) == set()


def require_blocks(tree: ast.AST) -> dict[int, str]:
    """The id of each import node inside a ``with require(extra):`` block, and the extra."""
    inside: dict[int, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.With):
            continue
        for item in node.items:
            call = item.context_expr
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "require":
                extra = call.args[0].value  # type: ignore[attr-defined]
                for child in ast.walk(node):
                    inside[id(child)] = extra
    return inside


def optional_imports() -> list[tuple[str, str, str | None]]:
    """Every import of an optional package in the package's sources: (file:line, the package's
    distribution, the extra of the ``require`` block around it or None)."""
    found = []
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text())
            inside = require_blocks(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top in DISTRIBUTIONS:
                        where = f"{path.relative_to(ROOT)}:{node.lineno}"
                        found.append((where, DISTRIBUTIONS[top], inside.get(id(node))))
    return found


def test_every_optional_import_names_an_extra_that_installs_it():
    """An optional package is imported only inside ``with require(extra)``, and that extra's
    requirements in pyproject.toml list the package, so the error tells the right command."""
    found = optional_imports()
    assert len(found) > 10  # the scan sees the training, serving and plotting imports
    for where, dist, extra in found:
        assert extra is not None, f"{where}: {dist} imported outside `with require(...)`"
        listed = {distribution(r) for r in OPTIONAL_DEPENDENCIES[extra]}
        assert dist in listed, f"{where}: the {extra} extra does not install {dist}"


def test_every_named_extra_is_declared():
    assert set(EXTRAS) <= set(OPTIONAL_DEPENDENCIES)
    assert install_hint("train") == 'pip install "card-envs[train]"'
    with pytest.raises(ValueError, match="unknown extra 'gpu'"):
        install_hint("gpu")


def test_require_keeps_the_error_type_and_cause(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` fail
    missing = pytest.raises(ModuleNotFoundError, match=r'pip install "card-envs\[train\]"')
    with missing as caught, require("train"):
        import torch  # noqa: F401
    assert caught.value.name == "torch"
    assert isinstance(caught.value.__cause__, ModuleNotFoundError)
    with pytest.raises(ImportError, match=r"card-envs\[plot\]") as caught, require("plot"):
        raise ImportError("cannot import name 'x'", name="matplotlib")
    assert type(caught.value) is ImportError
    with pytest.raises(ValueError, match="not an import"), require("plot"):
        raise ValueError("not an import")


# Each feature with its extra's package hidden, in a fresh interpreter: (extra, hidden, code).
FEATURES = [
    ("train", "safetensors", "make_agent('ppo', make('seamless_v0').describe())"),
    ("train", "torch", "import card_envs.training.train_ppo"),
    ("train", "sb3_contrib", "import card_envs.training.throughput"),
    ("serve", "starlette", "import card_envs.server.app"),
    ("serve", "uvicorn", "from card_envs.server.command import cmd_serve; cmd_serve(None)"),
    ("plot", "matplotlib", "from card_envs.tools.arena import write_plot; write_plot([], None)"),
    ("rllib", "ray", "import card_envs.agents.rllib_module"),
    ("bench", "rlcard", "from card_envs.tools.bench import rlcard_rules_speed as f; f('x', 0)"),
]


@pytest.mark.parametrize(("extra", "hidden", "code"), FEATURES, ids=[f[2][:40] for f in FEATURES])
def test_a_feature_without_its_extra_names_the_extra(extra, hidden, code):
    script = (
        f"import sys; sys.modules[{hidden!r}] = None\n"
        "from card_envs import make\nfrom card_envs.agents import make_agent\n" + code
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(("ModuleNotFoundError", "ImportError")), result.stderr[-2000:]
    assert f'pip install "card-envs[{extra}]"' in last
