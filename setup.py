"""Compiled kernels: every ``card_envs/**/*.pyx`` is built with Cython at install time.

A kernel is the hot loop of a rule that already exists in plain Python beside it (the reference
the tests compare it with), compiled because the engine's speed is a feature (docs/benchmarks.md).
Everything else about the package is declared in pyproject.toml.
"""

from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup


def kernels() -> list[Extension]:
    """One extension per .pyx file, named by its path: card_envs/x/_y.pyx is card_envs.x._y."""
    sources = sorted(Path("card_envs").rglob("*.pyx"))
    return [Extension(".".join(p.with_suffix("").parts), [str(p)]) for p in sources]


setup(ext_modules=cythonize(kernels(), language_level=3))
