"""A MkDocs hook: the package laid out as it installs, for the API reference to read.

``pyproject.toml`` installs the repository's ``agents/`` and ``training/`` folders as
``card_envs.agents`` and ``card_envs.training`` (``package-dir``). Griffe, which reads the
sources for mkdocstrings, looks for a submodule inside its parent's folder, so it cannot follow
that mapping. This hook links the three folders into ``build/api-src/card_envs/``, which the
python handler's ``paths`` in ``mkdocs.yml`` names (the same links ``make lint`` gives mypy).
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREE = ROOT / "build" / "api-src" / "card_envs"
MAPPED = {"agents": ROOT / "agents", "training": ROOT / "training"}


def on_startup(command: str, dirty: bool) -> None:
    """Rebuild the link tree before mkdocstrings reads its ``paths`` (at ``on_config``)."""
    shutil.rmtree(TREE, ignore_errors=True)
    TREE.mkdir(parents=True)
    sources = {path.name: path for path in (ROOT / "card_envs").iterdir()} | MAPPED
    for name, source in sources.items():
        if name != "__pycache__":
            (TREE / name).symlink_to(source)
