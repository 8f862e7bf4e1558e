"""Install a built wheel alone into two fresh virtual environments and smoke-test each.

``make test-wheel`` builds the wheel (once per change of the sources) and runs this. One
environment takes the newest dependencies the wheel's ranges allow; the other pins every direct
dependency to its declared lower bound (a constraints file made from the wheel's own
``Requires-Dist``), which proves the lower bounds true. Each runs ``scripts/smoke_wheel.py`` from
a folder outside the source tree, so only the installed package can be imported. The two run side
by side (installing is mostly waiting on downloads). Exits 1 if either fails.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
SMOKE = Path(__file__).resolve().with_name("smoke_wheel.py")


def missing_from_wheel(wheel: Path) -> list[str]:
    """The package's tracked files (modules, stubs, checkpoints, word lists, the page) that the
    wheel lacks, at the paths they install to, and each kernel whose compiled module it lacks."""
    folders = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    tracked = run(["git", "ls-files", *folders["package-dir"].values()], cwd=ROOT).split()
    installed = [
        package.replace(".", "/") + path[len(folder) :]
        for package, folder in folders["package-dir"].items()
        for path in tracked
        if path.startswith(folder + "/")
    ]
    names = zipfile.ZipFile(wheel).namelist()
    missing = sorted(set(installed) - set(names))
    compiled = {name.split(".")[0] for name in names if name.endswith(".so")}
    kernels = {path.removesuffix(".pyx") for path in installed if path.endswith(".pyx")}
    return missing + sorted(f"{kernel}.*.so" for kernel in kernels - compiled)


def core_requirements(wheel: Path) -> list[Requirement]:
    """The wheel's ``Requires-Dist`` without extras: what ``pip install card-envs`` brings."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        lines = archive.read(name).decode().splitlines()
    found = [
        Requirement(line.split(":", 1)[1]) for line in lines if line.startswith("Requires-Dist:")
    ]
    return [r for r in found if r.marker is None]


def lowest_constraints(wheel: Path) -> str:
    """Each direct dependency pinned to its lower bound: ``numpy>=2.1`` becomes ``numpy==2.1``."""
    pins = []
    for requirement in core_requirements(wheel):
        lower = [s.version for s in requirement.specifier if s.operator == ">="]
        if len(lower) != 1:
            raise ValueError(f"{requirement}: a core dependency needs one lower bound (>=)")
        pins.append(f"{requirement.name}=={lower[0]}")
    return "\n".join(pins) + "\n"


def run(command: list[str | Path], cwd: Path | None = None) -> str:
    """Run ``command``; its output, or a RuntimeError holding the end of it."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def smoke(wheel: Path, kind: str, folder: Path) -> tuple[bool, str]:
    """Make a venv in ``folder``, install the wheel (``kind``: newest or lowest) and run the smoke
    suite there. Returns whether it passed and a report."""
    started = time.perf_counter()
    venv = folder / "venv"
    run([sys.executable, "-m", "venv", venv])
    python = venv / "bin" / "python"
    install = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel]
    if kind == "lowest":
        constraints = folder / "lowest.txt"
        constraints.write_text(lowest_constraints(wheel))
        install += ["--constraint", constraints]
    try:
        run(install)
    except RuntimeError as error:
        return False, f"{kind}: install failed\n{error}"
    installed = time.perf_counter() - started
    versions = run([python, "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"])
    direct = {r.name.lower() for r in core_requirements(wheel)}
    pins = [line for line in versions.split() if line.split("==")[0].lower() in direct]
    shutil.copy(SMOKE, folder / SMOKE.name)
    done = subprocess.run([python, SMOKE.name], cwd=folder, capture_output=True, text=True)
    took = time.perf_counter() - started - installed
    head = f"{kind}: {', '.join(pins)} (installed in {installed:.0f} s, smoke {took:.0f} s)"
    return done.returncode == 0, f"{head}\n{done.stdout}{done.stderr}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path, help="the built card_envs-*.whl")
    parser.add_argument(
        "--kinds", nargs="+", default=["newest", "lowest"], choices=["newest", "lowest"]
    )
    args = parser.parse_args(argv)
    wheel = args.wheel.resolve()
    missing = missing_from_wheel(wheel)
    print(f"wheel contents: {'missing ' + ', '.join(missing) if missing else 'every file'}")
    with tempfile.TemporaryDirectory(prefix="card-envs-wheel-") as scratch:
        folders = [Path(scratch) / kind for kind in args.kinds]
        for folder in folders:
            folder.mkdir()
        with ThreadPoolExecutor(len(folders)) as pool:
            results = list(pool.map(lambda k, f: smoke(wheel, k, f), args.kinds, folders))
    for _, report in results:
        print(report)
    failed = sum(not ok for ok, _ in results) + bool(missing)
    print(f"smoke: {len(results) + 1 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
