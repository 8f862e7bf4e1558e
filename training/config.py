"""Training settings shared by ``card-envs train`` (:mod:`card_envs.training.cli`), the
trainer (:mod:`card_envs.training.train_ppo`) and the other training scripts: the defaults, the
opponent kinds and where a run writes. A module of its own so that the trainer never imports the
command line.
"""

from __future__ import annotations

from typing import Any

SELF = "self"  # the opponent name for frozen snapshots of the learner
OPPONENTS = ("random", "heuristic", SELF)

# Training settings: the CLI flags, their defaults and the JSON saved beside the model.
DEFAULTS: dict[str, Any] = {
    "timesteps": 1_000_000,
    "opponents": ["heuristic", "heuristic", SELF],  # drawn per seat and episode; repeats weigh
    "seed": 0,
    "margin_reward": 0.0,  # weight of the score margin added to the win reward (0: win only)
    "advice_logit": False,  # add the advice to the logits too (wide action spaces: Sequitur)
    "max_minutes": 0.0,  # stop early (then evaluate and save) after this long; 0: no limit
    "advisor": "heuristic",  # its move is part of the observation; "none": the game's alone
    "clone_games": 500,  # heuristic games cloned before PPO (0: start from scratch)
    "clone_epochs": 5,
    "clone_smoothing": 0.15,  # share of the target spread over the legal moves
    "dagger_rounds": 1,  # rounds of teacher labels on the clone's own games
    "width": 256,  # two hidden layers, actor and critic
    "n_envs": 8,
    "subproc": False,  # one process per env copy instead of one process in all
    "torch_threads": 1,
    "n_steps": 512,
    "batch_size": 1024,
    "n_epochs": 5,
    "learning_rate": 1e-4,
    "clip_range": 0.1,
    "ent_coef": 0.005,
    "target_kl": 0.02,  # stop an update early past this KL; 0: never
    "snapshot_every": 100_000,
    "eval_every": 100_000,
    "eval_games": 200,
}

# Self-play training (``card-envs train GAME --selfplay``, :mod:`card_envs.training.selfplay_ppo`):
# every seat is the learner or a frozen snapshot of it; the network sees the observation alone.
# Sized so that training runs at a fifth of the engine's random-play speed or more
# (docs/training.md, Self-play).
SELFPLAY_DEFAULTS: dict[str, Any] = {
    "timesteps": 20_000_000,  # env steps: every seat's decisions at every table
    "seed": 0,
    "max_minutes": 0.0,
    "advisor": None,  # self-play trains a network that acts on the observation alone
    "tables": 64,  # games stepped in lockstep; one forward pass per policy per tick
    "collect_workers": 1,  # processes the tables are shared out between (1: this one)
    "rollout": 8192,  # learner decisions per update
    "width": 64,  # Sequitur: 0.225 of the engine at 64, 0.187 at 128 (Seamless 0.296, 0.243)
    "torch_threads": 1,
    "batch_size": 2048,
    "n_epochs": 2,
    "learning_rate": 3e-4,
    "clip_range": 0.2,
    "ent_coef": 0.01,
    "target_kl": 0.0,
    "gae_lambda": 0.95,
    "reward_mode": "win",  # the env's rewards learned from; "score": points as they are won
    "pool_size": 8,  # frozen snapshots kept (the newest)
    "snapshot_share": 0.5,  # chance that a seat other than the learner's own is a snapshot
    "snapshot_every": 500_000,  # env steps between snapshots
    "opponent_kind": "heuristic",  # a built-in agent that may take the seats beside the learner
    "opponent_share": 0.0,  # chance that a seat other than the learner's own is that agent
    "warm_start": None,  # a built-in agent cloned before self-play (None: from scratch)
    "clone_games": 1000,  # with --warm-start: games of that agent in every seat, cloned
    "clone_epochs": 8,
    "clone_smoothing": 0.1,
    "eval_every": 1_000_000,
    "eval_games": 200,
    # Where the observation ends with a value per action (sequitur_v1): the learned weight of
    # those values in the logits starts here. Sequitur's shipped network, trained from 3, won
    # 0.310 / 0.330 / 0.346 / 0.357 / 0.354 / 0.344 of 4,000 games against three heuristics
    # with the weight set to 3.8 (where PPO had left it) / 8 / 15 / 30 / 60 / 150.
    "value_weight": 30.0,
}


# Per game, where a default above would make the update the bottleneck: Sequitur's network has
# 3,452 inputs and 2,210 outputs, and since its compiled kernels the engine runs 44-52k random
# steps/s; self-play ran 7.8k env steps/s at width 64 (0.17x), 10.1k at 32 (0.195-0.23x), 12.4k
# at 32 with one epoch per rollout (0.24x at 52k). Seamless's engine, the fastest (140-145k random
# steps/s on an idle machine), left its 64-wide self-play at 0.181x and 0.197x of it in two
# runs; at width 32 0.229x (one epoch at 64: 0.232x).
SELFPLAY_GAME_DEFAULTS: dict[str, dict[str, Any]] = {
    "seamless_v0": {"width": 32},
    "sequitur_v0": {"width": 32, "n_epochs": 1},
    "sequitur_v1": {"width": 32, "n_epochs": 1},
}


def selfplay_defaults(game: str) -> dict[str, Any]:
    """The self-play defaults for ``game``: :data:`SELFPLAY_DEFAULTS` with its own overrides."""
    return {**SELFPLAY_DEFAULTS, **SELFPLAY_GAME_DEFAULTS.get(game, {})}
