"""Training settings shared by ``card-envs train`` (:mod:`card_envs.training.cli`), the
trainer (:mod:`card_envs.training.train_ppo`) and the other training scripts: the defaults, the
opponent kinds and what a game may set for itself. A module of its own so that the trainer never
imports the command line.
"""

from __future__ import annotations

from typing import Any

from card_envs.agents.plugins import declaration

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
    "width": 64,  # narrow: a wider network makes the update the bottleneck (docs/training.md)
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
    # Where the observation ends with a value per action, the learned weight of those values in
    # the logits starts here: at the values' scale, since PPO moves it little (docs/training.md,
    # the value weight).
    "value_weight": 30.0,
}


# The self-play settings a game's agents module may set for itself (its ``SELFPLAY``
# declaration), where a default above would make the update the bottleneck.
GAME_SETTABLE = ("width", "n_epochs", "batch_size", "rollout", "tables", "learning_rate")


def selfplay_defaults(game: str) -> dict[str, Any]:
    """The self-play defaults for ``game``: :data:`SELFPLAY_DEFAULTS` with what its agents
    module's ``SELFPLAY`` declares (only :data:`GAME_SETTABLE` keys)."""
    own = declaration(game, "SELFPLAY")
    unknown = sorted(set(own) - set(GAME_SETTABLE))
    if unknown:
        raise ValueError(
            f"{game}'s SELFPLAY declares {unknown}; a game may set {', '.join(GAME_SETTABLE)}"
        )
    return {**SELFPLAY_DEFAULTS, **own}
