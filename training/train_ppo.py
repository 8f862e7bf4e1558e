"""``card-envs train GAME``: MaskablePPO against a pool of heuristic, random and self-play seats.

    card-envs train seals_v0 --timesteps 1000000 --clone-games 1000

The run clones the heuristic first (``--clone-games``, see :mod:`card_envs.training.imitation`),
then trains by PPO against ``--opponents``, where ``self`` adds frozen snapshots of the learner
every ``--snapshot-every`` steps. Every ``--eval-every`` steps it measures the win share against
random and against heuristic seats on fixed held-out deals, logs both to TensorBoard and saves a
Stable-Baselines3 zip (optimizer included, for ``--resume``) in the run's own folder
``--logdir/<game>-<time>/``. The policy that did best against the heuristic is written in the safe
format (:mod:`card_envs.agents.checkpoint`) to ``--out`` (default: in the run folder, never the
shipped ``agents/checkpoints/``), with the JSON of its network, config and evaluations and a PNG of
the learning curve beside it. ``--resume`` continues from a ``.safetensors`` (a fresh optimizer) or
from a run folder's zip (its optimizer; unpickled, so only with ``--trust-checkpoint``).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import gymnasium

from card_envs import make
from card_envs.agents.advised_policy import AdvisedPolicy
from card_envs.agents.checkpoint import (
    check_checkpoint_path,
    check_out,
    load_policy,
    load_sb3_zip,
    read_metadata,
)
from card_envs.agents.policy import PolicyAgent
from card_envs.core.extras import require
from card_envs.training.config import SELF, PPOConfig
from card_envs.training.imitation import clone_as_configured, collect_demonstrations, merge
from card_envs.training.runs import EVAL_SEEDS, evaluations, save_trained
from card_envs.training.single_agent import OpponentPool, SingleAgentEnv

with require("train"):
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.utils import FloatSchedule
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv
    from tqdm import tqdm


class TrainingMonitor(BaseCallback):
    """Progress bar, self-play snapshots, periodic held-out evaluation and checkpoints."""

    model: MaskablePPO  # the model that train() builds, not any BaseAlgorithm
    bar: tqdm  # made with the rest by _on_training_start, before any step

    def __init__(self, config: PPOConfig, run_dir: Path, history: list[dict]):
        super().__init__()
        self.config, self.run_dir, self.history = config, run_dir, history
        # win share against the heuristic, timesteps, the policy's weights then
        self.best: tuple[float, int, dict[str, torch.Tensor]] | None = None

    def _on_training_start(self) -> None:
        done = self.num_timesteps
        self.bar = tqdm(total=self.config.timesteps, initial=done, unit="step", desc="training")
        self.next_snapshot = done + self.config.snapshot_every
        self.next_eval = done + self.config.eval_every
        minutes = self.config.max_minutes
        self.deadline = time.monotonic() + 60 * minutes if minutes else None

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        if SELF in self.config.opponents and self.num_timesteps >= self.next_snapshot:
            self.next_snapshot += self.config.snapshot_every
            frozen = copy.deepcopy(self.model.policy)
            self.training_env.env_method("add_policy_snapshot", frozen)
        if self.num_timesteps >= self.next_eval:
            self.next_eval += self.config.eval_every
            self.evaluate_and_save()
        return self.deadline is None or time.monotonic() < self.deadline

    def _on_training_end(self) -> None:
        if not self.history or self.history[-1]["timesteps"] != self.num_timesteps:
            self.evaluate_and_save()
        self.bar.close()

    def evaluate_and_save(self) -> None:
        row = {"timesteps": self.num_timesteps, **evaluations(self.model, self.config)}
        self.history.append(row)
        for opponent in EVAL_SEEDS:
            self.logger.record(f"eval/win_share_vs_{opponent}", row[f"vs_{opponent}"])
        self.logger.dump(self.num_timesteps)
        self.model.save(self.run_dir / f"step_{self.num_timesteps}.zip")
        if self.best is None or row["vs_heuristic"] >= self.best[0]:
            weights = {k: v.detach().clone() for k, v in self.model.policy.state_dict().items()}
            self.best = (row["vs_heuristic"], self.num_timesteps, weights)
        self.bar.write(f"{row}")


def make_vec_env(config: PPOConfig) -> VecEnv:
    """``n_envs`` learner seats, each with its own opponent pool (snapshots reach each copy)."""
    kinds = [kind for kind in config.opponents if kind != SELF]

    def one() -> SingleAgentEnv:
        torch.set_num_threads(1)
        pool = OpponentPool(kinds or ["random"])
        return SingleAgentEnv(
            config.env,
            pool,
            config.num_players,
            advisor=config.advisor,
            margin_reward=config.margin_reward,
        )

    factories: list[Callable[[], gymnasium.Env]] = [one] * config.n_envs
    vec = SubprocVecEnv(factories, "forkserver") if config.subproc else DummyVecEnv(factories)
    vec.seed(config.seed)
    return vec


def new_model(vec_env: VecEnv, config: PPOConfig, logdir: Path) -> MaskablePPO:
    width = config.width
    return MaskablePPO(
        AdvisedPolicy if config.advice_logit else "MlpPolicy",
        vec_env,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        learning_rate=config.learning_rate,
        clip_range=config.clip_range,
        gamma=1.0,
        ent_coef=config.ent_coef,
        target_kl=config.target_kl or None,
        policy_kwargs={"net_arch": [width, width]},
        tensorboard_log=str(logdir),
        seed=config.seed,
        device="cpu",
        verbose=0,
    )


def retune(model: MaskablePPO, config: PPOConfig) -> PPOConfig:
    """Give a resumed model this run's optimisation settings (a checkpoint stores its own), and
    return the config that trained it, to save beside the result: the rollout length and the
    network are the checkpoint's."""
    model.learning_rate = config.learning_rate
    model._setup_lr_schedule()
    model.clip_range = FloatSchedule(config.clip_range)
    model.ent_coef = config.ent_coef
    model.target_kl = config.target_kl or None
    model.batch_size, model.n_epochs = config.batch_size, config.n_epochs
    arch = model.policy.net_arch
    return replace(
        config,
        width=(arch["pi"] if isinstance(arch, dict) else arch)[0],
        n_steps=model.n_steps,
        advice_logit=isinstance(model.policy, AdvisedPolicy),
    )


def warm_start(model: MaskablePPO, config: PPOConfig) -> dict[str, Any]:
    """Clone the advisor, or the heuristic without one (``clone_games`` games), then
    ``dagger_rounds`` of DAgger: the clone plays a seat, the teacher labels the positions it
    reaches, the clone refits on all rows."""
    if not config.clone_games:
        return {}
    env, players, games = config.env, config.num_players, config.clone_games
    advised = config.advisor is not None
    teacher = config.advisor or "heuristic"  # with an advisor, its moves are the labels
    demos = collect_demonstrations(env, players, games, teacher=teacher, advised=advised)
    rounds = []
    for round_ in range(config.dagger_rounds + 1):
        if round_:

            def student(info, seed):
                return PolicyAgent(model, info, seed, config.advisor)

            seed = 2_000_000 + round_ * games
            more = collect_demonstrations(env, players, games, student, teacher, seed, advised)
            demos = merge(demos, more)
        fit = clone_as_configured(model.policy, demos, config)
        rounds.append({"rows": len(demos.actions), **fit, **evaluations(model, config)})
        tqdm.write(f"cloning round {round_}: {rounds[-1]}")
    return {"rounds": rounds}


def train(
    config: PPOConfig,
    out: Path,
    run_dir: Path,
    resume: Path | None = None,
    *,
    trust: bool = False,
) -> dict[str, Any]:
    """Run one training job in ``run_dir`` (step zips, TensorBoard logs) and write ``out`` (the
    best evaluated policy, a ``.safetensors``), its JSON and PNG. Returns the JSON."""
    check_out(out)
    if resume is not None:
        check_checkpoint_path(resume, trust)  # before any work: a zip needs trust
    torch.set_num_threads(config.torch_threads)
    run_dir.mkdir(parents=True, exist_ok=True)
    vec_env = make_vec_env(config)
    history: list[dict] = []
    started = time.perf_counter()
    if resume is None:
        model = new_model(vec_env, config, run_dir)
        cloned = warm_start(model, config)
    else:
        model, previous, config = resume_model(resume, vec_env, config, run_dir, trust)
        history, cloned = previous.get("evaluations", []), previous.get("cloning", {})
    if model.num_timesteps >= config.timesteps:
        vec_env.close()
        raise ValueError(
            f"--timesteps {config.timesteps} is not past the {model.num_timesteps} steps "
            f"{resume} was trained for"
        )
    monitor = TrainingMonitor(config, run_dir, history)
    model.learn(
        config.timesteps - model.num_timesteps,
        callback=monitor,
        tb_log_name=f"{config.env}_ppo",
        reset_num_timesteps=resume is None,
    )
    vec_env.close()
    assert monitor.best is not None  # _on_training_end evaluates the last step at least
    _, best_timesteps, weights = monitor.best
    model.policy.load_state_dict(weights)
    return save_trained(
        model.policy, out, config, config.advisor, best_timesteps, started, cloned, history
    )


def resume_model(
    path: Path, vec_env: VecEnv, config: PPOConfig, run_dir: Path, trust: bool
) -> tuple[MaskablePPO, dict[str, Any], PPOConfig]:
    """The model to continue, the JSON beside ``path`` and the run's config. A run folder's
    zip brings its optimizer state (unpickled: ``trust`` only); a ``.safetensors`` brings its
    weights into a new model with a fresh optimizer, at the step count it was saved at. Either
    way the network, the advisor and ``n_steps`` are the checkpoint's, and the config says so."""
    if path.suffix == ".zip":
        model = load_sb3_zip(path, trust=trust, env=vec_env, tensorboard_log=str(run_dir))
        return model, read_metadata(path), retune(model, config)
    info = make(config.env, num_players=config.num_players).describe()
    policy, meta = load_policy(path, info)
    network = meta["policy"]
    if network["advisor"] != config.advisor:
        raise ValueError(
            f"{path} was trained with the advisor {network['advisor']!r}: resume it with "
            f"--advisor {network['advisor'] or 'none'}"
        )
    arch = network["net_arch"]
    config = replace(
        config,
        width=(arch["pi"] if isinstance(arch, dict) else arch)[0],
        advice_logit=network["class"] == "AdvisedPolicy",
        n_steps=meta.get("config", {}).get("n_steps", config.n_steps),
    )
    model = new_model(vec_env, config, run_dir)
    model.policy.load_state_dict(policy.state_dict())
    model.num_timesteps = meta.get("best_timesteps", 0)
    return model, meta, config
