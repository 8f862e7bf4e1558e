"""PPO on batched self-play (:mod:`card_envs.training.selfplay`): ``card-envs train GAME
--selfplay``.

The update is MaskablePPO's (sb3-contrib's ``MaskablePPO.train``): the same policy class and
Adam optimizer, the same clipped surrogate, value and entropy losses, per-minibatch advantage
normalisation, gradient-norm clipping and KL early stop; ``tests/test_selfplay.py`` checks that
one step of each leaves the same weights. It is written out here because
MaskablePPO's own ``train`` evaluates the distribution over the whole action table, while a
position has a few legal moves of a table that may hold thousands: the softmax here runs over
the legal moves alone, equal in value (a masked move has no probability either way) and several
times faster (docs/training.md, Self-play, the update).

The network acts on the observation alone (no advisor). Deterministic for a seed.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from card_envs import make
from card_envs.agents.action_feature_policy import ActionFeaturePolicy
from card_envs.agents.advised_policy import AdvisedPolicy
from card_envs.agents.checkpoint import check_out, load_policy
from card_envs.agents.plugins import action_feature_map
from card_envs.core.env import EnvInfo
from card_envs.core.extras import require
from card_envs.training.central_critic import CentralCritic
from card_envs.training.config import SelfPlayConfig, env_info
from card_envs.training.dmc import dmc_update
from card_envs.training.imitation import check_rated, clone_as_configured, collect_demonstrations
from card_envs.training.runs import (
    ScalarLog,
    evaluations,
    json_line,
    kept_evaluation,
    kept_path,
    save_trained,
)
from card_envs.training.selfplay import (
    Policy,
    Rollout,
    SelfPlayCollector,
    SnapshotPool,
    legal_entropy,
    legal_log_probs,
    minibatches,
    values,
)
from card_envs.training.selfplay_workers import CollectorWorkers

with require("train"):
    import torch
    import torch.nn.functional as F
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

# Observation pieces that hold one value per action id: where one ends the vector, the policy
# adds it to its logits.
PER_ACTION_PIECES = ("action_values",)
# The rollout's fields a minibatch of the update reads.
MINIBATCH_FIELDS = ("observations", "legal", "valid", "slots", "log_probs", "advantages", "returns")


@dataclass(frozen=True)
class PPOSettings:
    """MaskablePPO's update settings (its names and, for the last three, its defaults)."""

    batch_size: int
    n_epochs: int
    clip_range: float
    ent_coef: float
    target_kl: float | None = None
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5


def new_policy(
    info: EnvInfo,
    width: int,
    learning_rate: float,
    seed: int,
    value_weight: float = SelfPlayConfig.value_weight,
    action_features: bool = False,
) -> Policy:
    """MaskablePPO's MLP policy (two hidden layers of ``width``, actor and critic) for ``info``'s
    game, initialised from ``seed``; the kind :func:`save_policy` writes and agents load. Where
    the observation ends with a value per action id (``sequitur_v1``'s ``action_values``), the
    policy adds those values, times a learned weight starting at ``value_weight``, to its
    logits (:class:`AdvisedPolicy`). With ``action_features``, each action is also scored from
    the features the game's ``action_feature_map`` gives it (:class:`ActionFeaturePolicy`)."""
    torch.manual_seed(seed)
    space = gymnasium.spaces.Box(-np.inf, np.inf, (info.obs_spec.size,), np.float32)
    if action_features:
        return feature_policy(info, space, width, learning_rate)
    per_action = any(piece.name in PER_ACTION_PIECES for piece in info.obs_spec.pieces[-1:])
    extra: dict[str, Any] = {"advice_weight": value_weight} if per_action else {}
    return (AdvisedPolicy if per_action else MaskableActorCriticPolicy)(
        space,
        gymnasium.spaces.Discrete(info.num_actions),
        lambda _: learning_rate,
        net_arch=[width, width],
        **extra,
    )


def feature_policy(
    info: EnvInfo, space: gymnasium.spaces.Box, width: int, learning_rate: float
) -> ActionFeaturePolicy:
    """An :class:`ActionFeaturePolicy` holding the game's feature map."""
    feature_map, levels = action_feature_map(info)
    policy = ActionFeaturePolicy(
        space,
        gymnasium.spaces.Discrete(info.num_actions),
        lambda _: learning_rate,
        net_arch=[width, width],
        features=feature_map.shape[1],
        levels=levels,
    )
    policy.set_feature_map(feature_map)
    return policy


def ppo_update(
    policy: Policy,
    rollout: Rollout,
    settings: PPOSettings,
    rng: np.random.Generator,
    critic: CentralCritic | None = None,
    value_only: bool = False,
) -> dict[str, float]:
    """``n_epochs`` passes of MaskablePPO's loss over ``rollout`` in shuffled minibatches
    (shuffled by ``rng``); returns the means MaskablePPO logs. With a ``critic``, the value
    loss is its own, on the rollout's table rows. ``value_only``: only the value loss steps,
    the policy's moves stay as they are (a fresh critic's warm-up)."""
    policy.set_training_mode(True)
    fields = MINIBATCH_FIELDS if critic is None else (*MINIBATCH_FIELDS, "states")
    data = {key: getattr(rollout, key) for key in fields}
    logs: dict[str, list[float]] = {}
    for batch in minibatches(data, settings.n_epochs, settings.batch_size, rng):
        if _minibatch_step(policy, batch, settings, logs, critic, value_only):
            break
    policy.set_training_mode(False)
    stats = {key: float(np.mean(row)) for key, row in logs.items()}
    stats["explained_variance"] = explained_variance(rollout.values, rollout.returns)
    return stats


def _minibatch_step(
    policy: Policy,
    batch: dict[str, torch.Tensor],
    settings: PPOSettings,
    logs: dict,
    critic: CentralCritic | None = None,
    value_only: bool = False,
) -> bool:
    """One minibatch of MaskablePPO's loss and step; True when the KL stops the update."""
    width = int(batch["valid"].sum(dim=1).max())  # trim the padding this minibatch does not use
    legal, valid = batch["legal"][:, :width], batch["valid"][:, :width]
    log_probs = legal_log_probs(policy, batch["observations"], legal, valid)
    log_prob = log_probs.gather(1, batch["slots"][:, None]).squeeze(1)
    entropy = legal_entropy(log_probs, valid)
    advantages = batch["advantages"]
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    ratio = torch.exp(log_prob - batch["log_probs"])
    clipped = torch.clamp(ratio, 1 - settings.clip_range, 1 + settings.clip_range)
    policy_loss = -torch.min(advantages * ratio, advantages * clipped).mean()
    predicted = values(policy, batch["observations"]) if critic is None else critic(batch["states"])
    value_loss = F.mse_loss(batch["returns"], predicted)
    entropy_loss = -entropy.mean()
    loss = policy_loss + settings.ent_coef * entropy_loss + settings.vf_coef * value_loss
    if value_only:
        loss = settings.vf_coef * value_loss
    with torch.no_grad():
        log_ratio = log_prob - batch["log_probs"]
        approx_kl = float(torch.mean(torch.exp(log_ratio) - 1 - log_ratio))
    for key, value in (
        ("policy_loss", policy_loss.item()),
        ("value_loss", value_loss.item()),
        ("entropy", -entropy_loss.item()),
        ("approx_kl", approx_kl),
        ("clip_fraction", float(((ratio - 1).abs() > settings.clip_range).float().mean())),
    ):
        logs.setdefault(key, []).append(value)
    if settings.target_kl is not None and approx_kl > 1.5 * settings.target_kl:
        return True
    stepped = [] if critic is None else [critic]
    if critic is None or not value_only:
        stepped.insert(0, policy)
    for network in stepped:
        network.optimizer.zero_grad()
    loss.backward()
    for network in stepped:  # each clipped on its own, as if trained apart
        torch.nn.utils.clip_grad_norm_(network.parameters(), settings.max_grad_norm)
        network.optimizer.step()
    return False


def explained_variance(predicted: np.ndarray, target: np.ndarray) -> float:
    """1 - Var(target - predicted) / Var(target), as Stable-Baselines3 logs it (nan when the
    target does not vary)."""
    variance = float(np.var(target))
    return float("nan") if variance == 0 else 1 - float(np.var(target - predicted)) / variance


class SelfPlayTrainer:
    """The learner, its snapshot pool and the tables; :meth:`cycle` collects one rollout and
    updates on it."""

    def __init__(self, config: SelfPlayConfig):
        torch.set_num_threads(config.torch_threads)
        self.config = config
        self.critic = new_critic(config) if config.central_critic else None
        self.collector = new_collector(config, self.critic)
        self.info = self.collector.info
        self.policy = new_policy(
            self.info,
            config.width,
            config.learning_rate,
            config.seed,
            config.value_weight,
            config.action_features,
        )
        self.policy.set_training_mode(False)
        self.settings = PPOSettings(
            batch_size=config.batch_size,
            n_epochs=config.n_epochs,
            clip_range=config.clip_range,
            ent_coef=config.ent_coef,
            target_kl=config.target_kl or None,
        )
        self.rng = np.random.default_rng(config.seed)  # minibatch order
        self.env_steps = self.samples = self.cycles = 0
        self.next_snapshot = config.snapshot_every

    def start_at(self, weights: dict[str, torch.Tensor], env_steps: int) -> None:
        """Continue from ``weights`` (a fresh optimizer) as if ``env_steps`` were done."""
        ours, theirs = set(self.policy.state_dict()), set(weights)
        if ours != theirs:  # e.g. the per-action skip weight of sequitur_v1's policy
            raise ValueError(
                f"the checkpoint's network is not the one self-play trains for "
                f"{self.config.env}: it lacks {sorted(ours - theirs) or 'nothing'} and has "
                f"{sorted(theirs - ours) or 'nothing'} more"
            )
        try:
            self.policy.load_state_dict(weights)
        except RuntimeError as error:
            width = self.config.width
            raise ValueError(f"the checkpoint is not a {width}-wide MLP: {error}") from None
        self.env_steps = env_steps
        self.next_snapshot = env_steps + self.config.snapshot_every

    def cycle(self) -> dict[str, float]:
        """Collect ``rollout`` learner decisions, update (PPO's or DMC's), and add a snapshot to
        the pool every ``snapshot_every`` env steps. Returns the update's statistics and the
        counts."""
        config = self.config
        rollout = self.collector.collect(self.policy, config.rollout)
        if config.algorithm == "dmc":
            stats = dmc_update(self.policy, rollout, self.settings, self.rng, config.q_temperature)
        else:
            value_only = self.cycles < config.critic_warmup
            stats = ppo_update(
                self.policy, rollout, self.settings, self.rng, self.critic, value_only
            )
        self.cycles += 1
        self.env_steps += rollout.env_steps
        self.samples += len(rollout.slots)
        while self.env_steps >= self.next_snapshot:
            self.next_snapshot += self.config.snapshot_every
            self.collector.add_snapshot(self.policy)
        return {
            **stats,
            "env_steps": rollout.env_steps,
            "samples": len(rollout.slots),
            "games": rollout.games,
        }


def new_critic(config: SelfPlayConfig) -> CentralCritic:
    """A fresh central critic of ``config``'s width over its game's whole table."""
    info = env_info(config.env, config.num_players)
    size = info.obs_spec.size * info.num_players
    return CentralCritic(size, config.width, config.learning_rate, config.seed)


def new_collector(
    config: SelfPlayConfig, critic: CentralCritic | None = None
) -> SelfPlayCollector | CollectorWorkers:
    """The trainer's tables: in this process (where a ``critic`` values the learner's
    decisions), or shared out between ``collect_workers`` processes
    (:mod:`card_envs.training.selfplay_workers`)."""
    share = config.opponent_share
    pool = (config.pool_size, config.snapshot_share, share)
    options: dict[str, Any] = {
        "num_players": config.num_players,
        "gae_lambda": config.gae_lambda,
        "whole_games": config.algorithm == "dmc",  # DMC's target: each move's whole return
        "epsilon": config.dmc_epsilon if config.algorithm == "dmc" and config.dmc_epsilon else None,
        "opponent": config.opponent_kind if share else None,
        "reward_mode": config.reward_mode,
    }
    if config.collect_workers > 1:
        return CollectorWorkers(
            config.env,
            pool,
            config.tables,
            config.collect_workers,
            config.seed,
            **options,
        )
    if critic is not None:
        options["critic"] = critic
    return SelfPlayCollector(
        config.env, SnapshotPool(*pool), config.tables, seed=config.seed, **options
    )


Best = tuple[float, int, dict[str, torch.Tensor]]  # win share vs the heuristic, env steps, weights


def train_selfplay(
    config: SelfPlayConfig, out: Path, run_dir: Path, resume: Path | None = None
) -> dict[str, Any]:
    """Train by self-play until ``timesteps`` env steps (every seat's decisions) or
    ``max_minutes``, evaluating every ``eval_every`` steps against random and heuristic seats;
    write the policy that did best against the heuristic to ``out`` with its JSON and PNG.
    Each network evaluated is kept in ``run_dir`` too (``step_<env steps>.safetensors``), so
    that a run can be judged again on more deals than its evaluations played, or resumed.
    The network starts from scratch, from a clone of ``warm_start``'s moves, or from the
    ``.safetensors`` ``resume`` names (its record carried on)."""
    check_out(out)
    started = time.perf_counter()
    run_dir.mkdir(parents=True, exist_ok=True)
    start: Best | None = None
    if resume is not None:
        trainer, cloning, history, start = resumed(config, resume)
    else:
        trainer, cloning, history = SelfPlayTrainer(config), {}, []
    extra = {} if resume is None else {"resumed_from": str(resume)}

    def save(path: Path, steps: int, evaluated: list[dict[str, Any]]) -> dict[str, Any]:
        return save_run(trainer, path, steps, started, cloning, evaluated, extra)

    def keep(steps: int, evaluated: list[dict[str, Any]]) -> None:
        save(kept_path(run_dir, steps), steps, evaluated)

    try:  # the collector's workers end however the run does
        if resume is None and config.warm_start:
            cloning, start = warm_start(trainer, run_dir / "clone.safetensors")
        history, best = run_cycles(trainer, run_dir / "progress.jsonl", history, start, keep)
    finally:
        trainer.collector.close()
    trainer.policy.load_state_dict(best[2])
    return save(out, best[1], history)


def save_run(
    trainer: SelfPlayTrainer,
    path: Path,
    steps: int,
    started: float,
    cloning: dict[str, Any],
    history: list[dict[str, Any]],
    extra: dict[str, Any],
) -> dict[str, Any]:
    """Save the trainer's network as it is to ``path``, with the run's record: the network of
    ``steps`` env steps, the evaluations up to it."""
    return save_trained(
        trainer.policy,
        path,
        trainer.config,
        None,
        steps,
        started,
        cloning,
        history,
        learner_samples=trainer.samples,
        **extra,
    )


def warm_start(trainer: SelfPlayTrainer, out: Path) -> tuple[dict[str, Any], Best]:
    """Clone ``warm_start``'s moves (``clone_games`` games of it in every seat) into the
    learner and evaluate the clone: the start of RL, and the best so far. The clone is saved
    to ``out`` too, so that other RL settings can start from it (``--resume``) without
    cloning again. The collectors idle until RL starts, so with ``collect_workers`` the
    demonstrations and the clone's evaluations take that many processes and the fit that many
    torch threads."""

    config, started = trainer.config, time.perf_counter()
    assert config.warm_start is not None  # train_selfplay warm-starts only from an agent
    demos = collect_demonstrations(
        config.env,
        config.num_players,
        config.clone_games,
        teacher=config.warm_start,
        workers=config.collect_workers,  # the collectors idle meanwhile
        rated=config.clone_temperature > 0,
    )
    check_rated(
        demos,
        config.clone_temperature,
        config.warm_start,
        f"--clone-temperature {config.clone_temperature}",
    )
    fit = clone_as_configured(trainer.policy, demos, config, threads=config.collect_workers)
    row = {"rows": len(demos.actions), **fit, **evaluations(trainer.policy, config)}
    print(json_line({"cloned": config.warm_start, **row}), end="", flush=True)
    cloning = {"rounds": [row]}
    save_trained(trainer.policy, out, config, None, 0, started, cloning, [])
    return cloning, (row["vs_heuristic"], 0, snapshot_weights(trainer.policy))


def resumed(
    config: SelfPlayConfig, path: Path
) -> tuple[SelfPlayTrainer, dict[str, Any], list[dict[str, Any]], Best]:
    """A trainer continuing the pure network at ``path`` from the step it was saved at (the
    network's width and kind are the checkpoint's; the optimizer is fresh), with the
    checkpoint's cloning record and evaluations up to that step, its evaluation there the best
    so far."""
    policy, meta = load_policy(path, make(config.env, num_players=config.num_players).describe())
    network = meta["policy"]
    if network["advisor"] is not None:
        raise ValueError(
            f"{path} was trained with the advisor {network['advisor']!r}: not a "
            "network that sees the observation alone"
        )
    arch = network["net_arch"]
    config = replace(
        config,
        width=(arch["pi"] if isinstance(arch, dict) else arch)[0],
        action_features=network["class"] == "ActionFeaturePolicy",
    )
    steps = int(meta.get("best_timesteps", 0))
    if steps >= config.timesteps:  # before the trainer builds its tables
        raise ValueError(
            f"--timesteps {config.timesteps} is not past the {steps} steps {path} was trained for"
        )
    trainer = SelfPlayTrainer(config)
    trainer.start_at(policy.state_dict(), steps)
    history = [row for row in meta.get("evaluations", []) if row["timesteps"] <= steps]
    kept = kept_evaluation(meta)
    share = -1.0 if kept is None else kept["vs_heuristic"]  # no record: any evaluation beats it
    weights = snapshot_weights(trainer.policy)
    return trainer, meta.get("cloning", {}), history, (share, steps, weights)


def snapshot_weights(policy: Policy) -> dict[str, torch.Tensor]:
    """A copy of the policy's weights that its further training leaves alone."""
    return {k: v.detach().clone() for k, v in policy.state_dict().items()}


def run_cycles(
    trainer: SelfPlayTrainer,
    progress: Path,
    history: list[dict[str, Any]],
    best: Best | None = None,
    keep: Callable[[int, list[dict[str, Any]]], None] | None = None,
) -> tuple[list[dict[str, Any]], Best]:
    """Cycles until ``timesteps`` or ``max_minutes``, each logged to ``progress`` (a JSON line,
    with the cycle's env steps per second) and, with the evaluations, to TensorBoard beside it;
    the evaluations (added to ``history``), and the best against the heuristic (starting from
    ``best``, the warm start's or the resumed checkpoint's). ``keep(steps, history)`` is called
    after each evaluation, the network as evaluated."""
    config = trainer.config
    minutes = config.max_minutes
    deadline = time.perf_counter() + 60 * minutes if minutes else None
    history = list(history)
    next_eval, finished = trainer.env_steps + config.eval_every, False
    board = ScalarLog(progress.parent)
    with progress.open("w", buffering=1) as log, contextlib.closing(board):  # tail -f, too
        while not finished:
            started = time.perf_counter()
            row = trainer.cycle()
            row["env_steps_per_s"] = row["env_steps"] / (time.perf_counter() - started)
            log.write(json_line({"timesteps": trainer.env_steps, **row}))
            board.write(trainer.env_steps, row)
            finished = trainer.env_steps >= config.timesteps or (
                deadline is not None and time.perf_counter() >= deadline
            )
            if trainer.env_steps < next_eval and not finished:
                continue
            next_eval += config.eval_every
            scores = evaluations(trainer.policy, config)
            board.write(trainer.env_steps, scores)
            history.append({"timesteps": trainer.env_steps, **scores})
            print(json_line(history[-1]), end="", flush=True)
            if keep is not None:
                keep(trainer.env_steps, history)
            if best is None or scores["vs_heuristic"] >= best[0]:
                best = (scores["vs_heuristic"], trainer.env_steps, snapshot_weights(trainer.policy))
    assert best is not None  # the last cycle evaluates
    return history, best
