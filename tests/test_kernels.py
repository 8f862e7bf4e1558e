"""``card_envs.core.kernels.status()``: every kernel is listed, and in CI every one is compiled."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import card_envs
from card_envs.core import kernels


def test_status_lists_every_kernel_found_in_the_source():
    root = Path(card_envs.__file__).parent
    sources = {
        ".".join(("card_envs", *p.relative_to(root).with_suffix("").parts))
        for p in root.rglob("*.pyx")
    }
    status = kernels.status()
    assert set(status) == sources
    assert len(status) >= 5
    assert all(isinstance(v, bool) for v in status.values())


def test_every_kernel_is_compiled_in_ci():
    if os.environ.get("CARD_ENVS_REQUIRE_COMPILED") != "1":
        pytest.skip("CARD_ENVS_REQUIRE_COMPILED is not set")
    assert all(kernels.status().values()), kernels.status()


def test_every_game_names_its_kernels_one_way():
    """A game's observation kernel is ``_encoding`` exporting ``Observer``, and its rules'
    kernels live in ``rules/``. Read from the stubs, so it holds where nothing is compiled."""
    root = Path(card_envs.__file__).parent
    for name in kernels.kernel_modules():
        parts = name.split(".")
        if not (root / parts[1] / "rules").is_dir():
            continue  # not a game's package
        assert parts[2:] == ["_encoding"] or (parts[2] == "rules" and len(parts) == 4), name
        if parts[-1] == "_encoding":
            stub = root.joinpath(*parts[1:]).with_suffix(".pyi").read_text()
            assert "\nclass Observer" in stub, f"{name} does not export Observer"
