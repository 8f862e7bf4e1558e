"""Self-play collection on several cores: ``card-envs train GAME --selfplay --collect-workers N``.

One :class:`~card_envs.training.selfplay.SelfPlayCollector` runs in each of ``N`` processes over
its share of the tables, with its own snapshot pool; the learner's weights reach every process
before each collection, and each snapshot is added to every pool. Each process collects its
share of the rollout's decisions and computes their advantages over its own seats'
trajectories (no trajectory spans two processes), so a merged rollout means what one
collector's means: the same credit, the same GAE, the same pool. It is exactly the
concatenation of what in-process collectors with the workers' seeds and tables would return
(``tests/test_selfplay_workers.py``). Deterministic for a seed and a worker count; another
count deals other games.

The update stays in the training process, between collections: the cores collect, then one
updates. Weights and rollouts travel as pickled bytes (by value: a tensor is never shared).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import pickle
import traceback
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from card_envs.core.extras import require
from card_envs.registry import registrations, restore
from card_envs.training.selfplay import Policy, Rollout, SelfPlayCollector, SnapshotPool

with require("train"):
    import torch


def worker_seeds(seed: int, workers: int) -> list[int]:
    """One collector seed per worker, spawned from ``seed``."""
    return [
        int(child.generate_state(1)[0]) for child in np.random.SeedSequence(seed).spawn(workers)
    ]


def split(total: int, parts: int) -> list[int]:
    """``total`` in ``parts`` shares as even as integers allow, the larger first."""
    return [total // parts + (part < total % parts) for part in range(parts)]


def merge(rollouts: list[Rollout]) -> Rollout:
    """The rollouts' decisions in one, worker after worker (each keeps its own advantages)."""
    widest = max(rollout.legal.shape[1] for rollout in rollouts)
    legal, valid = (
        np.concatenate([_widened(getattr(rollout, key), widest) for rollout in rollouts])
        for key in ("legal", "valid")
    )
    joined = {
        key: np.concatenate([getattr(rollout, key) for rollout in rollouts])
        for key in ("observations", "slots", "log_probs", "values", "rewards", "advantages")
    }
    return Rollout(
        legal=legal,
        valid=valid,
        returns=joined["advantages"] + joined["values"],
        env_steps=sum(rollout.env_steps for rollout in rollouts),
        games=sum(rollout.games for rollout in rollouts),
        **joined,
    )


def _widened(padded: np.ndarray, width: int) -> np.ndarray:
    """A ``legal_index``-layout array padded on the right to ``width`` (id 0, or False)."""
    return np.pad(padded, ((0, 0), (0, width - padded.shape[1])))


class CollectorWorkers:
    """``workers`` processes, each a :class:`SelfPlayCollector` over its share of ``tables``
    (seeded by :func:`worker_seeds`) with a :class:`SnapshotPool` of ``pool_settings`` (size,
    snapshot share, opponent share). :meth:`collect` and :meth:`add_snapshot` are the
    in-process collector's; :meth:`close` ends the processes."""

    def __init__(
        self,
        env_name: str,
        pool_settings: tuple[int, float, float],
        tables: int,
        workers: int,
        seed: int = 0,
        **collector_options: Any,
    ):
        if workers < 2:
            raise ValueError(f"collector workers must be at least 2, not {workers}")
        if tables < workers:
            raise ValueError(
                f"{workers} collector workers need at least as many tables, not {tables}"
            )
        SnapshotPool(*pool_settings)  # its errors here, before any process starts
        context = multiprocessing.get_context("spawn")  # never fork a process holding torch
        self._pipes: list[Connection] = []
        self._processes = []
        shares = zip(split(tables, workers), worker_seeds(seed, workers), strict=True)
        for share, worker_seed in shares:
            ours, theirs = context.Pipe()
            options = {"tables": share, "seed": worker_seed, **collector_options}
            process = context.Process(
                target=_serve,
                args=(theirs, env_name, pool_settings, options, registrations()),
                daemon=True,
            )
            process.start()
            theirs.close()
            self._pipes.append(ours)
            self._processes.append(process)
        try:
            self.info = self._answers()[0]
        except RuntimeError:  # one worker could not start: end the others too
            self.close()
            raise
        self._sent: Policy | None = None  # the policy object the workers hold a copy of

    def collect(self, policy: Policy, samples: int) -> Rollout:
        """``samples`` learner decisions, shared out between the workers (see the module)."""
        if samples < len(self._pipes):
            raise ValueError(f"a rollout needs a decision per worker, not {samples}")
        self._sync(policy)
        for pipe, share in zip(self._pipes, split(samples, len(self._pipes)), strict=True):
            pipe.send(("collect", share))
        return merge(self._answers())

    def add_snapshot(self, policy: Policy) -> None:
        """A frozen copy of ``policy`` into every worker's pool."""
        self._sync(policy)
        self._broadcast(("snapshot",))
        self._answers()

    def close(self) -> None:
        for pipe in self._pipes:
            with contextlib.suppress(OSError):  # that worker has ended already
                pipe.send(("close",))
            pipe.close()
        for process in self._processes:
            process.join(timeout=10)
        self._pipes, self._processes = [], []

    def _sync(self, policy: Policy) -> None:
        """The workers' copy of ``policy``: whole the first time, its weights after."""
        if self._sent is not None and policy is self._sent:
            self._broadcast(("weights", pickle.dumps(policy.state_dict())))
        else:
            self._broadcast(("policy", pickle.dumps(policy)))
            self._sent = policy
        self._answers()

    def _broadcast(self, message: tuple) -> None:
        for pipe in self._pipes:
            pipe.send(message)

    def _answers(self) -> list[Any]:
        """Every worker's reply, in worker order; a worker's error is raised here."""
        replies = []
        for pipe, process in zip(self._pipes, self._processes, strict=True):
            try:
                replies.append(pipe.recv())
            except EOFError:
                process.join(timeout=10)
                raise RuntimeError(
                    f"a collector worker ended without answering (exit code {process.exitcode}); "
                    "a script that trains with collector workers needs the "
                    "`if __name__ == '__main__':` guard"
                ) from None
        for kind, body in replies:
            if kind == "error":
                raise RuntimeError(f"a collector worker failed:\n{body}")
        return [body for _, body in replies]


def _serve(
    pipe: Connection, env_name: str, pool_settings: tuple, options: dict, registered: dict
) -> None:
    """A worker's loop: build the collector, then answer messages until told to close."""
    torch.set_num_threads(1)
    try:
        restore(registered)
        collector = SelfPlayCollector(env_name, SnapshotPool(*pool_settings), **options)
    except Exception:  # reported to the training process, which raises it
        pipe.send(("error", traceback.format_exc()))
        return
    pipe.send(("ok", collector.info))
    policy: Policy | None = None
    while True:
        message = pipe.recv()
        if message[0] == "close":
            return
        try:
            policy, reply = _answer(collector, policy, message)
        except Exception:  # as above
            pipe.send(("error", traceback.format_exc()))
            continue
        pipe.send(("ok", reply))


def _answer(
    collector: SelfPlayCollector, policy: Policy | None, message: tuple
) -> tuple[Policy | None, Any]:
    """One message's effect on the worker's policy copy, and the reply."""
    kind = message[0]
    if kind == "policy":
        return pickle.loads(message[1]), None
    assert policy is not None, "the training process sends the policy before anything else"
    if kind == "weights":
        policy.load_state_dict(pickle.loads(message[1]))
        return policy, None
    if kind == "snapshot":
        collector.pool.add(policy)
        return policy, None
    if kind == "collect":
        return policy, collector.collect(policy, message[1])
    raise ValueError(f"unknown message {kind!r}")
