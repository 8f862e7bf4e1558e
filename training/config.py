"""Training settings shared by ``card-envs train`` (:mod:`card_envs.training.cli`), the
trainers (:mod:`card_envs.training.train_ppo`, :mod:`card_envs.training.selfplay_ppo`) and the
other training scripts: :class:`PPOConfig` and :class:`SelfPlayConfig`, frozen and checked
when built, and what a game may set for itself. A module of its own, free of torch, so that the
trainers never import the command line and ``card-envs --help`` stays fast.

A config is changed with :func:`dataclasses.replace` (which checks the new one) and written
into a run's record by :meth:`PPOConfig.as_dict`: the keys are the field names, as the JSON of
every run and shipped checkpoint has them.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from functools import cache
from typing import Any, get_args, get_origin, get_type_hints

from card_envs.agents.checkpoint import advisor_kinds
from card_envs.agents.plugins import action_feature_map, declaration
from card_envs.core.env import REWARD_MODES, EnvInfo
from card_envs.registry import env_names, make, player_counts

SELF = "self"  # the opponent name for frozen snapshots of the learner
OPPONENTS = ("random", "heuristic", SELF)
RUN_FIELDS = ("env", "num_players")  # what a run trains for: no default, not a flag


@dataclass(frozen=True)
class PPOConfig:
    """``card-envs train GAME``: MaskablePPO against a pool of opponent seats, after cloning
    the heuristic or the advisor (:mod:`card_envs.training.train_ppo`). The fields after
    ``num_players`` are the command's flags with their defaults."""

    env: str
    num_players: int
    timesteps: int = 1_000_000
    opponents: tuple[str, ...] = ("heuristic", "heuristic", SELF)  # per seat and episode
    seed: int = 0
    margin_reward: float = 0.0  # weight of the score margin added to the win reward (0: win only)
    advice_logit: bool = False  # add the advice to the logits too (wide action spaces)
    max_minutes: float = 0.0  # stop early (then evaluate and save) after this long; 0: no limit
    advisor: str | None = "heuristic"  # its move is part of the observation; None: the game's
    clone_games: int = 500  # games cloned before PPO (0: start from scratch)
    clone_epochs: int = 5
    clone_smoothing: float = 0.15  # share of the target spread over the legal moves
    dagger_rounds: int = 1  # rounds of teacher labels on the clone's own games
    width: int = 256  # two hidden layers, actor and critic
    n_envs: int = 8
    subproc: bool = False  # one process per env copy instead of one process in all
    torch_threads: int = 1
    n_steps: int = 512
    batch_size: int = 1024
    n_epochs: int = 5
    learning_rate: float = 1e-4
    clip_range: float = 0.1
    ent_coef: float = 0.005
    target_kl: float = 0.02  # stop an update early past this KL; 0: never
    snapshot_every: int = 100_000
    eval_every: int = 100_000
    eval_games: int = 200

    def __post_init__(self) -> None:
        if isinstance(self.opponents, list):  # the command line's, or a JSON record's
            object.__setattr__(self, "opponents", tuple(self.opponents))
        check_fields(self)
        at_least(self, 0, "dagger_rounds", "clone_games")
        if not self.opponents or any(kind not in OPPONENTS for kind in self.opponents):
            raise ValueError(f"opponents={self.opponents!r}: one or more of {', '.join(OPPONENTS)}")
        kinds = advisor_kinds(env_info(self.env, self.num_players))
        if self.advisor is not None and self.advisor not in kinds:
            raise ValueError(
                f"advisor={self.advisor!r}: an advisor is one of {self.env}'s built-in agents "
                f"({', '.join(kinds)}) or none: a checkpoint records it by name"
            )

    @property
    def eval_workers(self) -> int:
        """Processes an evaluation plays in: this trainer's envs are busy in this one."""
        return 1

    def as_dict(self) -> dict[str, Any]:
        """The config as a run's record holds it (JSON types: lists, not tuples)."""
        return {
            key: list(value) if isinstance(value, tuple) else value
            for key, value in asdict(self).items()
        }


ALGORITHMS = ("ppo", "dmc")  # the self-play updates (training/selfplay_ppo.py, training/dmc.py)


@dataclass(frozen=True)
class SelfPlayConfig:
    """``card-envs train GAME --selfplay`` (:mod:`card_envs.training.selfplay_ppo`): every seat
    is the learner or a frozen snapshot of it; the network sees the observation alone. Sized so
    that training runs at a fifth of the engine's random-play speed or more (docs/training.md,
    Self-play); a game may set :data:`GAME_SETTABLE` for itself (:func:`default_config`)."""

    env: str
    num_players: int
    timesteps: int = 20_000_000  # env steps: every seat's decisions at every table
    seed: int = 0
    max_minutes: float = 0.0
    advisor: None = None  # self-play trains a network that acts on the observation alone
    tables: int = 64  # games stepped in lockstep; one forward pass per policy per tick
    collect_workers: int = 1  # processes the tables are shared out between (1: this one)
    rollout: int = 8192  # learner decisions per update
    width: int = 64  # narrow: a wider network makes the update the bottleneck (docs/training.md)
    torch_threads: int = 1
    batch_size: int = 2048
    n_epochs: int = 2
    learning_rate: float = 3e-4
    clip_range: float = 0.2
    ent_coef: float = 0.01
    target_kl: float = 0.0
    gae_lambda: float = 0.95
    reward_mode: str = "win"  # the env's rewards learned from; "score": points as they are won
    pool_size: int = 8  # frozen snapshots kept (the newest)
    snapshot_share: float = 0.5  # chance that a seat other than the learner's is a snapshot
    snapshot_every: int = 500_000  # env steps between snapshots
    opponent_kind: str = "heuristic"  # a built-in agent that may take the seats beside it
    opponent_share: float = 0.0  # chance that a seat other than the learner's is that agent
    warm_start: str | None = None  # a built-in agent cloned before self-play (None: scratch)
    clone_games: int = 1000  # with a warm start: games of that agent in every seat, cloned
    clone_epochs: int = 8
    clone_smoothing: float = 0.1
    # 0: clone the warm start's moves; above 0: where it rates its moves (Agent.rated_act_at),
    # the softmax of its values at this temperature (docs/training-results.md)
    clone_temperature: float = 0.0
    eval_every: int = 1_000_000
    eval_games: int = 200
    # Where the observation ends with a value per action, the learned weight of those values
    # in the logits starts here: at the values' scale, since PPO moves it little
    # (docs/training-results.md, the value weight).
    value_weight: float = 30.0
    # The value read from the whole table during training (training/central_critic.py); the
    # policy still acts on its observation alone.
    central_critic: bool = False
    critic_warmup: int = 0  # first cycles of a run in which only the value learns
    # Each action also scored from its own features, a fixed linear map of the observation the
    # game declares (ActionFeaturePolicy, docs/training.md).
    action_features: bool = False
    # "ppo", or "dmc": Deep Monte-Carlo, each move's value fitted to the return that followed it
    # (training/dmc.py); its logits are those values over q_temperature, the temperature it
    # explores at unless dmc_epsilon is set.
    algorithm: str = "ppo"
    q_temperature: float = 0.05
    # With DMC, 0 explores by the softmax at q_temperature; above 0, the learner plays its best
    # move, or with this chance a random legal one (DouZero's epsilon-greedy).
    dmc_epsilon: float = 0.0

    def __post_init__(self) -> None:
        if self.advisor is not None:
            raise ValueError(
                f"advisor={self.advisor!r}: self-play trains a network that sees the "
                "observation alone: no advisor"
            )
        check_fields(self)
        at_least(self, 0, "clone_games")
        at_least(self, 1, "pool_size", *(("clone_games",) if self.warm_start else ()))
        shares(self, "gae_lambda", "snapshot_share", "opponent_share", "dmc_epsilon")
        if self.reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode={self.reward_mode!r}: one of {', '.join(REWARD_MODES)}")
        if not 1 <= self.collect_workers <= self.tables:
            raise ValueError(
                f"collect_workers={self.collect_workers}: from 1 to the {self.tables} tables "
                "they share out"
            )
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm={self.algorithm!r}: one of {', '.join(ALGORITHMS)}")
        if not self.q_temperature > 0:
            raise ValueError(f"q_temperature={self.q_temperature!r}: more than 0")
        if self.algorithm == "dmc" and self.central_critic:
            raise ValueError(
                "algorithm='dmc' with central_critic: DMC's target is the return itself, "
                "with no critic to value it"
            )
        if self.central_critic and self.collect_workers > 1:
            raise ValueError(
                f"central_critic with collect_workers={self.collect_workers}: the central "
                "critic collects in the training process (collect_workers=1)"
            )
        if self.rollout < self.collect_workers:
            raise ValueError(
                f"rollout={self.rollout}: at least a decision per collector "
                f"({self.collect_workers})"
            )
        if self.action_features:  # the game declares a map, else a ValueError saying so
            action_feature_map(env_info(self.env, self.num_players))
        kinds = advisor_kinds(env_info(self.env, self.num_players))
        for name in ("warm_start", "opponent_kind"):
            if getattr(self, name) not in (None, *kinds):
                raise ValueError(
                    f"{name}={getattr(self, name)!r}: one of {self.env}'s built-in agents "
                    f"({', '.join(kinds)})"
                )

    @property
    def eval_workers(self) -> int:
        """Processes an evaluation plays in: the collectors' (they idle meanwhile)."""
        return self.collect_workers

    def as_dict(self) -> dict[str, Any]:
        """The config as a run's record holds it."""
        return asdict(self)


Config = PPOConfig | SelfPlayConfig
# Fields at least 1 wherever a config has them (0 games cloned: no cloning).
COUNTS = (
    "timesteps",
    "clone_epochs",
    "width",
    "n_envs",
    "torch_threads",
    "n_steps",
    "batch_size",
    "n_epochs",
    "snapshot_every",
    "eval_every",
    "eval_games",
    "tables",
    "rollout",
)
# Fields at least 0, more than 0, and shares in [0, 1].
AMOUNTS = (
    "seed",
    "margin_reward",
    "max_minutes",
    "ent_coef",
    "target_kl",
    "critic_warmup",
    "clone_temperature",
)
POSITIVE = ("learning_rate", "clip_range")
SHARES = ("clone_smoothing",)


def check_types(settings: Any) -> None:
    """Each field of a settings dataclass of its declared type, or a ``ValueError`` naming the
    first that is not."""
    for name, hint in get_type_hints(type(settings)).items():
        value = getattr(settings, name)
        if not is_of(value, hint):
            raise ValueError(f"{name}={value!r}: not of type {hint_name(hint)}")


def check_fields(config: Config) -> None:
    """Each field of its declared type, a registered env at a player count it supports, and
    the bounds the two configs share; a ``ValueError`` naming the first field that is not."""
    check_types(config)
    if config.env not in env_names():
        raise ValueError(f"env={config.env!r}: not a registered env ({', '.join(env_names())})")
    supported = player_counts(config.env)
    if config.num_players not in supported:
        raise ValueError(
            f"num_players={config.num_players}: {config.env} seats {', '.join(map(str, supported))}"
        )
    names = {field.name for field in fields(config)}
    at_least(config, 1, *(name for name in COUNTS if name in names))
    at_least(config, 0, *(name for name in AMOUNTS if name in names))
    shares(config, *(name for name in SHARES if name in names))
    for name in POSITIVE:
        if not getattr(config, name) > 0:
            raise ValueError(f"{name}={getattr(config, name)!r}: more than 0")


def at_least(config: Any, low: int, *names: str) -> None:
    for name in names:
        if not getattr(config, name) >= low:
            raise ValueError(f"{name}={getattr(config, name)!r}: at least {low}")


def shares(config: Any, *names: str) -> None:
    for name in names:
        if not 0.0 <= getattr(config, name) <= 1.0:
            raise ValueError(f"{name}={getattr(config, name)!r}: a share, from 0 to 1")


def is_of(value: Any, hint: Any) -> bool:
    """Whether ``value`` fits a field's type: an int is a float, a bool is no number, a float
    is finite, a tuple's items fit its item type."""
    if hint is type(None) or hint is None:
        return value is None
    if get_origin(hint) is tuple:
        item = get_args(hint)[0]
        return isinstance(value, tuple) and all(is_of(entry, item) for entry in value)
    if get_args(hint):  # a union
        return any(is_of(value, option) for option in get_args(hint))
    if hint is float:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return number and math.isfinite(value)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def hint_name(hint: Any) -> str:
    names = [getattr(option, "__name__", str(option)) for option in get_args(hint) or [hint]]
    return " or ".join(name.replace("NoneType", "None") for name in names)


@cache
def env_info(env: str, num_players: int) -> EnvInfo:
    """What a config's agent kinds are checked against (made once per table shape)."""
    return make(env, num_players=num_players).describe()


def defaults(config_class: type[Config]) -> dict[str, Any]:
    """The settings of ``config_class`` that have a default, with it: the command's flags."""
    return {
        field.name: field.default for field in fields(config_class) if field.name not in RUN_FIELDS
    }


# The self-play settings a game's agents module may set for itself (its ``SELFPLAY``
# declaration), where a default above would make the update the bottleneck.
GAME_SETTABLE = (
    "width",
    "n_epochs",
    "batch_size",
    "rollout",
    "tables",
    "learning_rate",
    "central_critic",
    "critic_warmup",
)


def selfplay_defaults(game: str) -> dict[str, Any]:
    """What ``game``'s agents module declares for its self-play (its ``SELFPLAY``: only
    :data:`GAME_SETTABLE` keys)."""
    own = declaration(game, "SELFPLAY")
    unknown = sorted(set(own) - set(GAME_SETTABLE))
    if unknown:
        raise ValueError(
            f"{game}'s SELFPLAY declares {unknown}; a game may set {', '.join(GAME_SETTABLE)}"
        )
    return own


def players_of(game: str, num_players: int | None = None) -> int:
    """``num_players``, or the game's default seat count."""
    return env_info(game, num_players).num_players if num_players is None else num_players


def default_config(game: str, num_players: int | None = None, **settings: Any) -> SelfPlayConfig:
    """Self-play's config for ``game`` (player count resolved): the defaults, what the game
    declares for itself, then ``settings``."""
    own = selfplay_defaults(game) | settings
    return SelfPlayConfig(env=game, num_players=players_of(game, num_players), **own)


def ppo_config(game: str, num_players: int | None = None, **settings: Any) -> PPOConfig:
    """The PPO trainer's config for ``game`` (player count resolved): the defaults, then
    ``settings``."""
    return PPOConfig(env=game, num_players=players_of(game, num_players), **settings)
