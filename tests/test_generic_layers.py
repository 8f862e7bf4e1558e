"""The generic layers know no game by name (issue 45): what a generic module needs from a game
is a method of the Game contract or a declaration in the game's own folders, found through the
registry. Checked by reading each generic module's code and string constants (docstrings and
comments may name games, as examples) for the env ids and the game packages, in any case."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from card_envs import env_names
from card_envs.registry import env_module

ROOT = Path(__file__).resolve().parents[1]
GENERIC = [
    "card_envs/core",
    "card_envs/evaluation",
    "card_envs/tools",
    "card_envs/server",
    "card_envs/vector",
    "card_envs/openspiel",
    "card_envs/cli.py",
    "card_envs/registry.py",
    "card_envs/records.py",
    "card_envs/datasets.py",
    "agents/search",
    "agents/match.py",
    "agents/builtin.py",
    "agents/base.py",
    "training",
]


def game_words() -> set[str]:
    """The six env ids and the five game packages, lower-case."""
    packages = {
        env_module(name).raw_env.game_class.__module__.split(".")[1] for name in env_names()
    }
    return {name.lower() for name in env_names()} | packages


def generic_modules() -> list[Path]:
    """The generic modules, but those named after their game (``training/seals_value.py``)."""
    words = game_words()
    files = []
    for entry in GENERIC:
        path = ROOT / entry
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.exists() else []
    return [f for f in files if not any(word in f.stem.lower() for word in words)]


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of a module and its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                found.add(id(value))
    return found


def names_and_strings(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Every identifier and string constant of the code, docstrings left out."""
    skip = docstrings(tree)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield line, node.value
        elif isinstance(node, ast.Name):
            yield line, node.id
        elif isinstance(node, ast.Attribute):
            yield line, node.attr
        elif isinstance(node, ast.alias):
            yield line, node.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield line, node.module
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield line, node.name
        elif isinstance(node, ast.arg):
            yield line, node.arg


def test_the_scan_sees_names_in_code_and_strings_but_not_in_docstrings():
    code = '"""About seals_v0."""\nx = "Sequitur"  # seamless\nimport card_envs.seals\n'
    found = [text for _, text in names_and_strings(ast.parse(code))]
    assert "Sequitur" in found and "card_envs.seals" in found
    assert not any("seals_v0" in text or "seamless" in text for text in found)


@pytest.mark.parametrize("path", generic_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_generic_module_names_no_game(path):
    words = game_words()
    tree = ast.parse(path.read_text(), str(path))
    hits = [
        f"line {line}: {text!r:.80}"
        for line, text in names_and_strings(tree)
        if any(word in text.lower() for word in words)
    ]
    assert not hits, f"{path.relative_to(ROOT)} names a game:\n" + "\n".join(hits)
