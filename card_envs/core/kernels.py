"""The one switch between the compiled kernels and their Python references.

setup.py compiles every ``.pyx`` file at install (Seamless's observation, legal mask and moves,
Seers Catalog's meld generator and observation writer, Sequitur's word search and observation),
each beside the plain-Python reference that is its spec and its fallback where the extension is
not built. ``CARD_ENVS_PURE_PYTHON=1`` in the environment when card_envs is first imported makes
every game use the references alone (to check them, or to step through the rules in Python); it
is read once.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

PURE_PYTHON = os.environ.get("CARD_ENVS_PURE_PYTHON", "") == "1"


def compiled(module: str, name: str) -> Any:
    """``name`` from the compiled kernel ``module``, or ``None`` where the reference must serve:
    the extension is not built here (no compiler at install) or ``PURE_PYTHON`` is set."""
    if PURE_PYTHON:
        return None
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError:
        return None


def kernel_modules() -> list[str]:
    """The dotted names of every kernel of the package, found by their type stubs (each
    ``_name.pyx`` has a ``_name.pyi`` beside it, and the stubs ship in the wheel)."""
    root = Path(__file__).resolve().parent.parent
    return sorted(
        ".".join(("card_envs", *path.relative_to(root).with_suffix("").parts))
        for path in root.rglob("_*.pyi")
    )


def status() -> dict[str, bool]:
    """Each kernel module's name and whether its compiled extension is in use here: built at
    install and not switched off by ``CARD_ENVS_PURE_PYTHON=1``."""
    return {name: not PURE_PYTHON and _is_extension(name) for name in kernel_modules()}


def _is_extension(name: str) -> bool:
    spec = importlib.util.find_spec(name)
    origin = spec.origin if spec is not None else None
    return origin is not None and origin.endswith(tuple(EXTENSION_SUFFIXES))
