"""Deep Monte-Carlo on batched self-play (DouZero): ``card-envs train GAME --selfplay
--algorithm dmc``.

The network's logits are its action values over a temperature: ``Q(s, a) = temperature *
logit(s, a)``. Each update regresses the value of the action taken towards the Monte-Carlo
return that followed it: every reward of its seat to the game's end (the collector's
``whole_games``). Collecting samples the softmax of the logits, Boltzmann exploration at that
temperature, or with ``dmc_epsilon`` plays the largest logit and by that chance a random legal
move; the saved network plays its largest logit, the action of largest value, as every ``ppo``
agent does. So a DMC network is the same kind of file
as a PPO one, loaded, evaluated and resumed the same way, and either can start the other.

Why: the target is the return itself, with no policy gradient, so a large set of legal moves
costs nothing more than a small one, and the value of each move is learnt for itself.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from card_envs.core.extras import require
from card_envs.training.selfplay import (
    Policy,
    Rollout,
    legal_entropy,
    legal_logits,
    masked_log_softmax,
    minibatches,
    values,
)

with require("train"):
    import torch
    import torch.nn.functional as F

# The rollout's fields a minibatch of the update reads.
DMC_FIELDS = ("observations", "legal", "valid", "slots", "returns")


class UpdateSettings(Protocol):
    """What the update reads of the trainer's settings (PPO's ``PPOSettings`` has them)."""

    @property
    def batch_size(self) -> int: ...
    @property
    def n_epochs(self) -> int: ...
    @property
    def vf_coef(self) -> float: ...
    @property
    def max_grad_norm(self) -> float: ...


def dmc_update(
    policy: Policy,
    rollout: Rollout,
    settings: UpdateSettings,
    rng: np.random.Generator,
    temperature: float,
) -> dict[str, float]:
    """``n_epochs`` passes over ``rollout`` in shuffled minibatches (``batch_size``, shuffled
    by ``rng``): the squared error of the taken action's value against its return, plus
    ``vf_coef`` times the value head's against the same returns (a baseline to read, never a
    target). The gradient is clipped to ``max_grad_norm``. Returns the means of the losses,
    the values' mean and the softmax's entropy."""
    policy.set_training_mode(True)
    data = {key: getattr(rollout, key) for key in DMC_FIELDS}
    logs: dict[str, list[float]] = {}
    for batch in minibatches(data, settings.n_epochs, settings.batch_size, rng):
        _minibatch_step(policy, batch, settings, temperature, logs)
    policy.set_training_mode(False)
    stats = {key: float(np.mean(row)) for key, row in logs.items()}
    stats["explained_variance"] = explained_q_variance(rollout, policy, temperature)
    return stats


def _minibatch_step(
    policy: Policy,
    batch: dict[str, torch.Tensor],
    settings: UpdateSettings,
    temperature: float,
    logs: dict[str, list[float]],
) -> None:
    width = int(batch["valid"].sum(dim=1).max())  # trim the padding this minibatch does not use
    legal, valid = batch["legal"][:, :width], batch["valid"][:, :width]
    observations, returns = batch["observations"], batch["returns"]
    logits = legal_logits(policy, observations, legal)
    taken = temperature * logits.gather(1, batch["slots"][:, None]).squeeze(1)
    q_loss = F.mse_loss(taken, returns)
    value_loss = F.mse_loss(values(policy, observations), returns)
    policy.optimizer.zero_grad()
    (q_loss + settings.vf_coef * value_loss).backward()
    torch.nn.utils.clip_grad_norm_(policy.parameters(), settings.max_grad_norm)
    policy.optimizer.step()
    with torch.no_grad():
        entropy = legal_entropy(masked_log_softmax(logits, valid), valid).mean()
    for key, value in (
        ("q_loss", q_loss.item()),
        ("value_loss", value_loss.item()),
        ("q_mean", taken.detach().mean().item()),
        ("entropy", float(entropy)),
    ):
        logs.setdefault(key, []).append(value)


def explained_q_variance(rollout: Rollout, policy: Policy, temperature: float) -> float:
    """How much of the returns' variance the updated values of the actions taken explain
    (1 - Var(return - Q) / Var(return); nan when the returns do not vary)."""
    variance = float(np.var(rollout.returns))
    if variance == 0:
        return float("nan")
    with torch.no_grad():
        observations = torch.from_numpy(rollout.observations)
        logits = legal_logits(policy, observations, torch.from_numpy(rollout.legal))
        slots = torch.from_numpy(rollout.slots)[:, None]
        taken = (temperature * logits.gather(1, slots).squeeze(1)).numpy()
    return 1 - float(np.var(rollout.returns - taken)) / variance
