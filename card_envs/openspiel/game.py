"""A registered env as an OpenSpiel Python game: game, state and observer.

The state holds the engine's state (the game's rules object plays it) and the transition being
resolved: after a player action, or before the first deal, the transition is probed on a copy
with the chance choices taken so far ([`ChoiceRng`][card_envs.openspiel.chance.ChoiceRng]).
While the probe asks for a choice it does not have, the state is a chance node with that
choice's outcomes; once the probe completes, its result is the new engine state. So every random
event (a deal, a mid-game reshuffle, a drawn lot) is a sequence of OpenSpiel chance actions.
"""

from __future__ import annotations

import hashlib
import inspect
import pickle
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from card_envs.core.extras import require

with require("openspiel"):
    import pyspiel


from card_envs import registry
from card_envs.core.env import REWARD_MODES, CardEnv
from card_envs.core.game import win_rewards
from card_envs.core.options import Option, declared_options, game_title
from card_envs.openspiel.chance import MAX_CHANCE_OUTCOMES, ChoiceRng, NeedChance

PREFIX = "card_envs_"
# A list option (``many``) is one string parameter, its values joined by this.
LIST_SEPARATOR = ","
# Seed words drawn from OpenSpiel's sampler for the generator a resampling uses.
SEED_WORDS = 4

_START = -1  # the pending transition of a state not dealt yet: the game's first deal


def short_name(env_id: str) -> str:
    """OpenSpiel's name for an env: ``card_envs_<env_id>``."""
    return PREFIX + env_id


def _parameter_default(option: Option, default: Any) -> Any:
    """The option's default as an OpenSpiel parameter (an int, float, bool or str)."""
    if option.path:
        return ""  # the bundled file
    if option.many:
        return LIST_SEPARATOR.join(map(str, default))
    return default


def parameter_specification(env_id: str) -> dict[str, Any]:
    """The env's options as OpenSpiel game parameters, with their defaults: ``num_players``,
    ``reward_mode`` and each option the game declares (a list as one comma-separated string,
    a file path as a string where ``""`` is the bundled file)."""
    game_class = registry.env_module(env_id).raw_env.game_class
    defaults = inspect.signature(game_class).parameters
    spec: dict[str, Any] = {
        "num_players": game_class.default_players,
        "reward_mode": REWARD_MODES[0],
    }
    for option in declared_options(game_class):
        spec[option.name] = _parameter_default(option, defaults[option.name].default)
    return spec


def env_options(env_id: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """The env's constructor options from OpenSpiel parameters (the inverse of the spec;
    OpenSpiel refuses a parameter the spec does not name)."""
    game_class = registry.env_module(env_id).raw_env.game_class
    by_name = {option.name: option for option in declared_options(game_class)}
    options = dict(parameters)
    for name, value in parameters.items():
        option = by_name.get(name)
        if option is not None and option.path:
            options[name] = value or None
        elif option is not None and option.many:
            options[name] = tuple(v.strip() for v in str(value).split(LIST_SEPARATOR) if v.strip())
    return options


def game_type(env_id: str, reward_mode: str = "win") -> pyspiel.GameType:
    """The env's ``pyspiel.GameType``: sequential, explicit chance, imperfect information; in
    ``"win"`` mode zero-sum with terminal rewards, in ``"score"`` mode general-sum with a reward
    at each scoring transition, as the env pays them."""
    game_class = registry.env_module(env_id).raw_env.game_class
    win = reward_mode == "win"
    kind = pyspiel.GameType
    return pyspiel.GameType(
        short_name=short_name(env_id),
        long_name=f"card-envs {game_title(game_class)} ({env_id})",
        dynamics=kind.Dynamics.SEQUENTIAL,
        chance_mode=kind.ChanceMode.EXPLICIT_STOCHASTIC,
        information=kind.Information.IMPERFECT_INFORMATION,
        utility=kind.Utility.ZERO_SUM if win else kind.Utility.GENERAL_SUM,
        reward_model=kind.RewardModel.TERMINAL if win else kind.RewardModel.REWARDS,
        max_num_players=max(game_class.player_counts),
        min_num_players=min(game_class.player_counts),
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(env_id),
    )


class CardGame(pyspiel.Game):
    """One registered env, for one configuration (its options are the game's parameters);
    :func:`game_class` makes the subclass of each env, which OpenSpiel's registry keeps."""

    env_id: str

    def __init__(self, params: Mapping[str, Any] | None = None):
        params = dict(params or {})
        env_id = self.env_id
        options = env_options(env_id, params)
        env: CardEnv = registry.env_module(env_id).raw_env(**options)
        self.table = Table(env)
        rules = env.game
        super().__init__(
            game_type(env_id, env.reward_mode),
            pyspiel.GameInfo(
                num_distinct_actions=rules.actions.size,
                max_chance_outcomes=MAX_CHANCE_OUTCOMES,
                num_players=rules.num_players,
                min_utility=self.table.utility_bounds[0],
                max_utility=self.table.utility_bounds[1],
                utility_sum=0.0 if env.reward_mode == "win" else None,
                max_game_length=rules.max_steps,
            ),
            params,
        )

    def new_initial_state(self) -> CardState:
        """A game not dealt yet: a chance node, whose chance actions deal it."""
        return CardState(self)

    def state_at(self, engine: Any, moves: Sequence[Sequence[int]] | None = None) -> CardState:
        """A state at the rules' state ``engine`` (between transitions; a copy is taken), each
        player's own moves so far being ``moves[player]`` (they key its information state):
        how a game played elsewhere, such as in the AEC env, hands a position to OpenSpiel.
        Its ``history()`` and ``returns()`` start there."""
        return CardState(self, self.table.rules.clone(engine), moves)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> CardObserver:
        """The observer of ``iig_obs_type`` (default: the observation, imperfect recall)."""
        if params:
            raise ValueError(f"observer parameters are not supported; got {dict(params)}")
        iig_obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        return CardObserver(self.table, iig_obs_type)


def game_class(env_id: str) -> type[CardGame]:
    """The game class OpenSpiel builds ``env_id``'s games with. A class, as OpenSpiel's own Python
    games register, not a closure: OpenSpiel's registry releases its factories after Python has
    shut down, which would crash freeing a closure (a class is never freed there)."""
    return type(f"CardGame_{env_id}", (CardGame,), {"env_id": env_id})


class Table:
    """What every state of one game shares and never changes: the env's rules and encoding.
    A copy of a state shares it (``copy.deepcopy`` returns it as it is)."""

    def __init__(self, env: CardEnv):
        self.rules = env.game
        self.encoding = env.encoding
        self.reward_mode = env.reward_mode
        self.num_players = env.game.num_players
        self.action_names = env.game.actions.names
        self.utility_bounds = self._utility_bounds(env)

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self

    def _utility_bounds(self, env: CardEnv) -> tuple[float, float]:
        """The returns' bounds: -1..1 in ``"win"`` mode; in ``"score"`` mode the env's bounds on
        one reward times the most transitions a game has (each pays at most once)."""
        if self.reward_mode == "win":
            return -1.0, 1.0
        low, high = env.metadata["score_reward_range"]
        steps = env.game.max_steps
        return min(0.0, low) * steps, max(0.0, high) * steps


class CardState(pyspiel.State):
    """One position of the game, between transitions or inside one (a chance node)."""

    def __init__(
        self, game: CardGame, engine: Any = None, moves: Sequence[Sequence[int]] | None = None
    ):
        super().__init__(game)
        self._table = game.table
        self._engine: Any = engine  # the rules' state; None until the first deal completes
        self._pending = _START if engine is None else None  # the transition being resolved
        self._choices: list[int] = []  # its chance choices so far
        self._chance: list[float] = []  # the next chance action's probabilities
        self._then: list[int] = []  # the sizes of the uniform chance actions sure to follow
        self._moves = [list(own) for own in moves or [[]] * self._table.num_players]
        self._scores: list[float] = []
        self._returns = [0.0] * self._table.num_players
        self._rewards = [0.0] * self._table.num_players
        if engine is None:
            self._resolve()
        elif self._table.reward_mode == "score":
            self._scores = [float(score) for score in self._table.rules.scores(engine)]

    # -- what the engine says ------------------------------------------------------------------
    def engine_state(self) -> Any:
        """The rules' state (``None`` before the first deal completes): ``deal_record``,
        ``render`` and the agents read it."""
        return self._engine

    def _over(self) -> bool:
        rules, engine = self._table.rules, self._engine
        return engine is not None and (rules.is_over(engine) or rules.is_truncated(engine))

    def current_player(self) -> int:
        if self._pending is not None:
            return int(pyspiel.PlayerId.CHANCE)
        if self._over():
            return int(pyspiel.PlayerId.TERMINAL)
        return self._table.rules.current_player(self._engine)

    def _legal_actions(self, player: int) -> list[int]:
        return self._table.rules.legal_actions(self._engine)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(enumerate(self._chance))

    def is_terminal(self) -> bool:
        return self._pending is None and self._over()

    def returns(self) -> list[float]:
        return list(self._returns)

    def rewards(self) -> list[float]:
        return list(self._rewards)

    # -- transitions ---------------------------------------------------------------------------
    def _apply_action(self, action: int) -> None:
        if self._pending is None:
            self._moves[self.current_player()].append(int(action))
            self._pending = int(action)
        else:
            self._choices.append(int(action))
            if self._then:  # the next choice of a permutation under way: no probe needed
                size = self._then.pop(0)
                self._chance = [1.0 / size] * size
                return
        self._resolve()

    def _resolve(self) -> None:
        """Probe the pending transition with the choices so far: a chance node if it needs
        another, else its result becomes the engine state and pays its rewards. The engine
        state is changed in place and restored from a snapshot when the probe stops: states
        are plain data, which the Game contract copies by pickling (Game.clone)."""
        rules, pending = self._table.rules, self._pending
        assert pending is not None, "no transition to resolve"
        # The generator the rules get: their samples draw only what ChoiceRng offers.
        rng = cast(np.random.Generator, ChoiceRng(self._choices))
        first = pending == _START
        snapshot = None if first else pickle.dumps(self._engine, pickle.HIGHEST_PROTOCOL)
        try:
            if first:
                engine = rules.new_game(rng)
            else:
                engine = self._engine
                rules.apply(engine, pending, rng)
        except NeedChance as need:
            self._restore(snapshot)
            self._chance, self._then = need.probabilities, need.then
            self._rewards = [0.0] * self._table.num_players
            return
        except BaseException:
            self._restore(snapshot)
            raise
        self._engine, self._pending, self._choices, self._chance = engine, None, [], []
        self._pay(first)

    def _restore(self, snapshot: bytes | None) -> None:
        if snapshot is not None:
            self._engine = pickle.loads(snapshot)

    def _pay(self, first: bool) -> None:
        """The env's rewards for the transition just completed (none for the first deal)."""
        rules, engine, n = self._table.rules, self._engine, self._table.num_players
        rewards = [0.0] * n
        if self._table.reward_mode == "score":
            scores = [float(s) for s in rules.scores(engine)]
            if not first:
                rewards = [new - old for new, old in zip(scores, self._scores, strict=True)]
            self._scores = scores
        elif rules.is_over(engine):
            rewards = win_rewards(rules.winners(engine), n)
        self._rewards = rewards
        self._returns = [total + r for total, r in zip(self._returns, rewards, strict=True)]

    # -- text ----------------------------------------------------------------------------------
    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance outcome {action}"
        return self._table.action_names[action]

    def __str__(self) -> str:
        if self._engine is None:
            return f"dealing (chance choices so far: {len(self._choices)})"
        return self._table.rules.render(self._engine)

    # -- imperfect information -----------------------------------------------------------------
    def information_key(self, player: int) -> str:
        """What ``player`` knows, as a string: its observation (a digest of the tensor's bytes)
        and its own moves. States ``player`` cannot tell apart give the same string."""
        observation = self.observation_vector(player)
        digest = hashlib.blake2b(observation.tobytes(), digest_size=16).hexdigest()
        moves = " ".join(map(str, self._moves[player]))
        return f"p{player} observation {digest} moves [{moves}]"

    def observation_vector(self, player: int) -> np.ndarray:
        """The env's observation of ``player`` (zeros before the first deal)."""
        encoding = self._table.encoding
        if self._engine is None:
            return np.zeros(encoding.spec.size, np.float32)
        return encoding.observe(self._engine, player)

    def resample_from_infostate(self, player_id: int, sampler: Any) -> CardState:
        """A copy with what ``player_id`` cannot see redrawn (``Game.resample_hidden``) from a
        numpy generator seeded by OpenSpiel's ``sampler`` (a callable giving floats in
        ``[0, 1)``). Only between transitions: inside one, the pending action may be another
        player's hidden choice."""
        if self._pending is not None:
            raise ValueError("resample_from_infostate at a chance node: resample between moves")
        words = [int(float(sampler()) * 2**32) % 2**32 for _ in range(SEED_WORDS)]
        rng = np.random.default_rng(words)
        copy = self.clone()
        copy._engine = self._table.rules.resample_hidden(self._engine, player_id, rng)
        return copy


class CardObserver:
    """OpenSpiel's observer for these games (private information of the observing player, with
    public information): the tensor is the env's observation followed by the action mask (all
    zero unless the player acts), its pieces named as in the env's spec; the string is the table
    as the player sees it, or with perfect recall the information-state string."""

    def __init__(self, table: Table, iig_obs_type: Any):
        if (
            iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
            or not iig_obs_type.public_info
        ):
            raise ValueError(
                "card-envs observers show one player's view: private_info=SINGLE_PLAYER, "
                "public_info=True"
            )
        self._table = table
        self._recall = bool(iig_obs_type.perfect_recall)
        spec, num_actions = table.encoding.spec, len(table.action_names)
        self.tensor = np.zeros(spec.size + num_actions, np.float32)
        self.dict = {
            **spec.views(self.tensor[: spec.size]),
            "action_mask": self.tensor[spec.size :],
        }

    def set_from(self, state: CardState, player: int) -> None:
        size = self._table.encoding.spec.size
        self.tensor[:size] = state.observation_vector(player)
        self.tensor[size:] = 0
        if state.current_player() == player:
            self.tensor[size:] = self._table.rules.legal_mask(state.engine_state())

    def string_from(self, state: CardState, player: int) -> str:
        if self._recall:
            return state.information_key(player)
        engine = state.engine_state()
        if engine is None:
            return str(state)
        return self._table.rules.render_seat(engine, player)
