"""Collector workers (``--collect-workers``): the tables shared out between processes collect
exactly what in-process collectors with the workers' seeds and tables collect, snapshots
included, and a bad setting or a worker's failure is an error that names it. The same workers
count shares out the warm start's demonstrations and the evaluations, which stay the same bit
for bit."""

from __future__ import annotations

import copy
import functools
from dataclasses import astuple

import numpy as np
import pytest
import torch

from card_envs import make
from card_envs.agents import make_agent
from card_envs.agents.pool import in_processes
from card_envs.training.imitation import collect_demonstrations
from card_envs.training.runs import evaluate
from card_envs.training.selfplay import Rollout, SelfPlayCollector, SnapshotPool
from card_envs.training.selfplay_ppo import new_policy
from card_envs.training.selfplay_workers import CollectorWorkers, merge, split, worker_seeds

POOL = (4, 0.5, 0.33)  # size, snapshot share, heuristic share
KEYS = ("observations", "legal", "valid", "slots", "log_probs", "values", "rewards")
KEYS += ("advantages", "returns")


def assert_same(first: Rollout, second: Rollout) -> None:
    for key in KEYS:
        np.testing.assert_array_equal(getattr(first, key), getattr(second, key), err_msg=key)
    assert (first.env_steps, first.games) == (second.env_steps, second.games)


def trained(policy) -> None:
    """A change of the policy's weights in place, as an update makes."""
    with torch.no_grad():
        for parameter in policy.parameters():
            parameter.mul_(0.5)


def in_process(policy, tables: int, workers: int, seed: int) -> list[Rollout]:
    """Two rollouts of 300 decisions, the policy trained and added to the pool between, by
    one collector per worker share."""
    parts = []
    shares = zip(split(tables, workers), worker_seeds(seed, workers), strict=True)
    collectors = [
        SelfPlayCollector(
            "seamless_v0", SnapshotPool(*POOL), tables=share, seed=worker_seed, opponent="heuristic"
        )
        for share, worker_seed in shares
    ]
    samples = split(300, workers)
    parts.append(merge([c.collect(policy, n) for c, n in zip(collectors, samples, strict=True)]))
    trained(policy)
    for collector in collectors:
        collector.add_snapshot(policy)
    parts.append(merge([c.collect(policy, n) for c, n in zip(collectors, samples, strict=True)]))
    return parts


def test_workers_collect_what_in_process_collectors_with_their_seeds_collect():
    workers = CollectorWorkers("seamless_v0", POOL, 5, 2, seed=7, opponent="heuristic")
    try:
        policy = new_policy(workers.info, 16, 3e-4, 0)
        policy.set_training_mode(False)
        reference = copy.deepcopy(policy)
        before = workers.collect(policy, 300)  # the policy reaches the workers whole
        trained(policy)
        workers.add_snapshot(policy)  # then its weights alone, and a snapshot of them
        after = workers.collect(policy, 300)
    finally:
        workers.close()
    expected = in_process(reference, 5, 2, seed=7)
    assert_same(before, expected[0])
    assert_same(after, expected[1])
    assert after.games > 0


def test_merge_pads_legal_rows_to_the_widest():
    rows = [np.array([[1, 0], [2, 3]]), np.array([[4, 5, 6]])]
    valids = [np.array([[True, False], [True, True]]), np.array([[True, True, True]])]
    parts = [
        Rollout(
            observations=np.zeros((len(legal), 2), np.float32),
            legal=legal,
            valid=valid,
            slots=np.zeros(len(legal), np.int64),
            log_probs=np.zeros(len(legal), np.float32),
            values=np.ones(len(legal), np.float32),
            rewards=np.zeros(len(legal), np.float32),
            advantages=np.full(len(legal), 2.0, np.float32),
            returns=np.full(len(legal), 3.0, np.float32),
            env_steps=10,
            games=1,
        )
        for legal, valid in zip(rows, valids, strict=True)
    ]
    merged = merge(parts)
    np.testing.assert_array_equal(merged.legal, [[1, 0, 0], [2, 3, 0], [4, 5, 6]])
    np.testing.assert_array_equal(merged.valid.sum(axis=1), [1, 2, 3])
    assert (merged.env_steps, merged.games) == (20, 2)
    np.testing.assert_array_equal(merged.returns, [3.0, 3.0, 3.0])


def test_split_and_seeds():
    assert split(65, 2) == [33, 32] and split(4, 4) == [1, 1, 1, 1]
    assert worker_seeds(0, 2) == worker_seeds(0, 2) != worker_seeds(1, 2)
    assert len(set(worker_seeds(0, 3))) == 3


@pytest.mark.parametrize(
    ("pool", "tables", "workers", "message"),
    [
        (POOL, 4, 1, "collector workers must be at least 2"),
        (POOL, 1, 2, "at least as many tables"),
        ((4, 1.5, 0.0), 4, 2, "snapshot share must be in"),
    ],
)
def test_bad_settings_are_refused_before_any_process_starts(pool, tables, workers, message):
    with pytest.raises(ValueError, match=message):
        CollectorWorkers("seamless_v0", pool, tables, workers)


def test_a_workers_failure_is_raised_with_its_cause():
    with pytest.raises(RuntimeError, match=r"a collector worker failed(.|\n)*num_players"):
        CollectorWorkers("seamless_v0", POOL, 2, 2, num_players=9)
    workers = CollectorWorkers("seamless_v0", POOL, 2, 2)
    try:
        with pytest.raises(ValueError, match="a decision per worker"):
            workers.collect(None, 1)
    finally:
        workers.close()


@pytest.mark.parametrize("student", [None, functools.partial(make_agent, "random")])
def test_demonstrations_in_workers_are_the_rows_of_one_process(student):
    here = collect_demonstrations("seamless_v0", 4, 30, student, progress=False)
    shared = collect_demonstrations("seamless_v0", 4, 30, student, progress=False, workers=2)
    assert len(here.actions) > 30 * 40
    for mine, theirs in zip(astuple(here), astuple(shared), strict=True):
        np.testing.assert_array_equal(mine, theirs)


def test_an_evaluation_in_workers_is_the_same_share_bit_for_bit():
    policy = new_policy(make("seamless_v0").describe(), 16, 3e-4, 0)
    policy.set_training_mode(False)
    trained(policy)
    here = evaluate(policy, "seamless_v0", 4, "random", 33, 10_000)
    assert 0 < here < 1
    assert evaluate(policy, "seamless_v0", 4, "random", 33, 10_000, workers=2) == here


def test_in_processes_keeps_the_order_and_refuses_no_workers():
    assert list(in_processes(abs, range(-40, 0), 2)) == list(range(40, 0, -1))
    with pytest.raises(ValueError, match="workers must be at least 1, not 0"):
        list(in_processes(abs, [1], 0))
