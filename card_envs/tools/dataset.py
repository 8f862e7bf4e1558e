"""``card-envs dataset``: game records to a data set of numpy arrays in one ``.npz`` file.

The arrays are :func:`card_envs.datasets.build_dataset`'s (one row per decision); the records
are read checked, so a malformed one stops the command with its file, line and field. The
output is never overwritten: an existing path is an error.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.datasets import build_dataset
from card_envs.records import RecordError, iter_records


def records_of(paths: Sequence[str | Path]) -> Iterator[dict[str, Any]]:
    """Every record of the files in turn, checked; a malformed one is a ValueError that names
    the file before the line and the field."""
    for path in paths:
        try:
            yield from iter_records(path)
        except RecordError as error:
            raise ValueError(f"{path}: {error}") from None


def export(paths: Sequence[str | Path], out: str | Path, gamma: float = 1.0) -> dict[str, Any]:
    """Write the data set of the records in ``paths`` to ``out`` (``.npz``, compressed);
    returns its arrays."""
    out = Path(out)
    if out.suffix != ".npz":
        raise ValueError(f"--out {out}: name the .npz file to write")
    if out.exists():
        raise ValueError(
            f"--out {out} exists: choose another path (a data set is never overwritten)"
        )
    data = build_dataset(records_of(paths), gamma)
    # numpy's stub also matches **arrays against savez_compressed's allow_pickle: bool
    np.savez_compressed(out, **data)  # type: ignore[arg-type]
    return data


def cmd_dataset(args: argparse.Namespace) -> int:
    data = export(args.records, args.out, args.gamma)
    games, rows = len(np.unique(data["game"])), len(data["action"])
    print(f"{args.out}: {rows:,} decisions of {games:,} games (gamma {args.gamma:g})")
    for name, array in data.items():
        print(f"  {name:<13} {array.dtype!s:<8} {array.shape}")
    return 0


DESCRIPTION = (
    "Turn game records (JSON Lines files, as --record writes them) into numpy arrays for "
    "behaviour cloning and offline RL: one row per decision, in one .npz file. See "
    "docs/records.md."
)


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs dataset``."""
    parser = subparsers.add_parser(
        "dataset", help="game records to numpy arrays (.npz)", description=DESCRIPTION
    )
    parser.add_argument("records", nargs="+", help="JSON Lines files of records of one game")
    parser.add_argument("--out", required=True, help="the .npz file to write (must not exist)")
    parser.add_argument(
        "--gamma", type=float, default=1.0, help="discount of return_to_go per decision (default 1)"
    )
    parser.set_defaults(func=cmd_dataset)
