"""Optional features and the pip extra that installs each.

The core install (``pip install card-envs``) brings only what the environments, the built-in
agents and the arena need. Training, the browser table, RLlib, plots and the benchmark references
import packages that an extra brings (``pyproject.toml``, ``docs/install.md``); each such import
runs inside :func:`require`, so a user without the extra is told which one to install instead of
reading a bare ``No module named 'torch'``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

# The extras an import may name, each with what it enables (the error message says it).
EXTRAS = {
    "train": "training and the trained agents",
    "serve": "the browser table, card-envs serve",
    "rllib": "training on Ray RLlib and its agents",
    "plot": "plots of arena results",
    "bench": "the benchmarks' reference libraries",
    "openspiel": "the games as OpenSpiel games, card_envs.openspiel",
    "torchrl": "the TorchRL recipe",
    "tianshou": "the Tianshou recipe",
}


def install_hint(extra: str) -> str:
    """The command that installs ``extra``, quoted so it runs in any shell."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}: one of {', '.join(EXTRAS)}")
    return f'pip install "card-envs[{extra}]"'


@contextmanager
def require(extra: str) -> Iterator[None]:
    """Imports inside this block come from ``extra``: one that fails raises the same error type
    with a message naming the extra and how to install it (the original error is its cause).

    ``with require("train"): import torch`` at the top of a module, or inside the function that
    needs it, so importing the rest of the package never needs the extra."""
    hint = install_hint(extra)
    try:
        yield
    except ImportError as error:
        kind = ModuleNotFoundError if isinstance(error, ModuleNotFoundError) else ImportError
        message = f"{error} (the {extra} extra: {EXTRAS[extra]}); install it with {hint}"
        raise kind(message, name=error.name, path=error.path) from error
