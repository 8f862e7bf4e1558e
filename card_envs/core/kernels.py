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
import os
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
