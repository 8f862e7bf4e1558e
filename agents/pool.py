"""The one process pool for playing games on several cores (``Workers``, ``in_processes``): the
arena's tables, ``match.win_share``'s games, demonstrations and the benchmarks' tables all go
through it.

Workers come from a fork server, not a fork of this process: a trained agent's torch thread
pool, once started here, deadlocks in a forked child. Each worker starts on one thread and with
the envs registered here. One worker is this process alone, with torch on one thread meanwhile
as in a worker, so a game plays the same whatever the count.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.pool import Pool
from typing import Any, TypeVar

from card_envs.registry import registrations, restore

Item = TypeVar("Item")
Result = TypeVar("Result")


class Workers:
    """``count`` processes (this process alone for one) that map a function over items, results
    in order. The processes start at the first :meth:`imap` and serve every later one until the
    pool is closed (``with Workers(n) as workers:``), so a run of many batches starts them once.
    """

    def __init__(self, count: int):
        if count < 1:
            raise ValueError(f"workers must be at least 1, not {count}")
        self.count = count
        self.pool: Pool | None = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the processes (their work in progress is dropped)."""
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
            self.pool = None

    def imap(self, function: Callable[[Item], Result], items: Iterable[Item]) -> Iterator[Result]:
        """``function`` over ``items``, results in order (``function`` and the items must pickle
        for more than one worker). Items go out one at a time, so no worker idles at the end."""
        if self.count == 1:
            return _in_this_process(function, items)
        if self.pool is None:
            context = multiprocessing.get_context("forkserver")
            self.pool = context.Pool(
                self.count, initializer=_start_worker, initargs=(registrations(),)
            )
        return self.pool.imap(function, items)


def in_processes(
    function: Callable[[Item], Result], items: Iterable[Item], workers: int = 1
) -> Iterator[Result]:
    """``function`` over ``items``, results in order, on a pool of ``workers`` kept for this call
    alone."""
    with Workers(workers) as pool:
        yield from pool.imap(function, items)


def _in_this_process(function: Callable[[Item], Result], items: Iterable[Item]) -> Iterator[Result]:
    """``function`` over ``items`` here, torch on one thread meanwhile as in a worker: a trained
    agent's forward pass is tiny, and on a busy machine torch's threads only contend. Torch may
    first be imported by an item (a trained agent loaded), so it is looked for before each."""
    saved: int | None = None
    try:
        for item in items:
            torch = sys.modules.get("torch")
            if torch is not None and saved is None:
                saved = torch.get_num_threads()
                torch.set_num_threads(1)
            yield function(item)
    finally:
        if saved is not None:
            sys.modules["torch"].set_num_threads(saved)


def _start_worker(registered: dict[str, Any]) -> None:
    """Runs first in each worker process: one thread (before any import of torch or numpy's
    BLAS can start more), and the envs registered in the parent (:func:`registrations`)."""
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    restore(registered)
