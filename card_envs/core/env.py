"""The one AEC environment every game uses.

It owns what PettingZoo asks of an environment (agents, agent order, rewards, terminations,
dead steps, spaces, the observation/mask dict, rendering) and gives PettingZoo's wrapper
guarantees itself (order enforcement, bounds and type checks, clear errors) at a fraction of
their cost. A game supplies only a [`Game`][] and an
[`Encoding`][].
"""

from __future__ import annotations

import copy
import inspect
import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils.env import AECIterable

from card_envs.core.errors import IllegalActionError
from card_envs.core.game import Encoding, Game, check_option, win_rewards
from card_envs.core.spec import OBS_DTYPE, ObsSpec, state_spec

REWARD_MODES = ("win", "score")
RESET_OPTIONS = ("deal",)


@dataclass(frozen=True)
class EnvInfo:
    """What an agent may know about an environment before play: never its state."""

    name: str
    num_players: int
    obs_spec: ObsSpec
    action_names: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def num_actions(self) -> int:
        return len(self.action_names)


class CardEnv(AECEnv, EzPickle):
    """Generic AEC environment over a game's rules and encoding.

    ``copy.deepcopy``, ``copy.copy`` (the same) and ``pickle`` keep everything (game state,
    generator, agents, rewards, the spaces' generators), so a copy made mid-game plays on
    exactly like the original.
    """

    game_class: ClassVar[type[Game]]
    encoding_class: ClassVar[type[Encoding]]
    metadata: ClassVar[dict[str, Any]] = {
        "name": "card_env",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int | None = None,
        render_mode: str | None = None,
        reward_mode: str = "win",
        **options: Any,
    ):
        if num_players is None:
            num_players = self.game_class.default_players
        EzPickle.__init__(self, num_players, render_mode, reward_mode, **options)
        super().__init__()
        check_option("render_mode", render_mode, [None, *self.metadata["render_modes"]])
        check_option("reward_mode", reward_mode, REWARD_MODES)
        self.render_mode = render_mode
        self.reward_mode = reward_mode
        self.options = dict(options)
        self._check_option_names(options)
        self.game = self.game_class(num_players, **options)
        self.encoding = self.encoding_class(self.game)
        self.possible_agents = [f"player_{i}" for i in range(self.game.num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        spec, num_actions = self.encoding.spec, self.game.actions.size
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(spec.low, spec.high, (spec.size,), OBS_DTYPE),
                    "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self.state_spec = state_spec(spec, self.possible_agents)
        self.state_space = spaces.Box(
            self.state_spec.low, self.state_spec.high, (self.state_spec.size,), OBS_DTYPE
        )
        self._rng: np.random.Generator | None = None
        self.game_state: Any = None
        self.agents: list[str] = []  # empty until reset(): nothing to iterate, nobody to act
        self._num_actions = num_actions
        self._mask = np.zeros(num_actions, np.int8)
        self._no_moves = np.zeros(num_actions, np.int8)

    def _check_option_names(self, options: dict[str, Any]) -> None:
        """A misspelt option is a ValueError naming it and the options there are."""
        known = [
            name
            for name in inspect.signature(self.game_class.__init__).parameters
            if name not in ("self", "num_players")
        ]
        unknown = sorted(set(options) - set(known))
        if unknown:
            allowed = ["num_players", "render_mode", "reward_mode", *known]
            raise ValueError(
                f"unknown option(s) {unknown} for {self.metadata['name']}; options: {allowed}"
            )

    # -- copies -------------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """The whole env, not EzPickle's constructor arguments alone: a copy made mid-game must
        continue the game, not be a fresh env that was never reset."""
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __copy__(self) -> CardEnv:
        """The same independent copy as ``copy.deepcopy``: a shallow copy would share the game
        state, so after the original stepped it would offer moves that are no longer legal."""
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> CardEnv:
        """A deep copy that shares only the rules object, which play never changes (its
        configuration and pure caches): copying Sequitur's dictionary would take 0.2 s."""
        clone = type(self).__new__(type(self))
        memo[id(self)] = clone
        memo[id(self.game)] = self.game
        clone.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return clone

    # -- spaces and description ---------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def action_space(self, agent: str) -> spaces.Discrete:
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def _unknown_agent(self, agent: Any) -> ValueError:
        return ValueError(f"unknown agent {agent!r}; the agents are {self.possible_agents}")

    def describe(self) -> EnvInfo:
        """The static facts an agent is built from (spec, seats, action names)."""
        return EnvInfo(
            name=self.metadata["name"],
            num_players=self.game.num_players,
            obs_spec=self.encoding.spec,
            action_names=self.game.actions.names,
            options=dict(self.options),
        )

    # -- the AEC cycle ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: dealt from ``seed`` (or from the generator as it stands when ``None``), or
        from ``options["deal"]``. Everything is checked and built before anything is replaced,
        so a reset that raises leaves the game in progress exactly as it was."""
        checked_options = self._checked_reset_options(options)
        if seed is None and self._rng is not None:
            rng, saved = self._rng, self._rng.bit_generator.state
        else:
            rng, saved = np.random.default_rng(self._checked_seed(seed)), None
        try:
            game_state = self.game.new_game(rng, checked_options.get("deal"))
        except BaseException:
            if saved is not None:  # the live generator: rewind what the failed deal drew
                rng.bit_generator.state = saved
            raise
        self._rng, self.game_state = rng, game_state
        if seed is not None:
            self._seed_spaces(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._scores = list(self.game.scores(self.game_state))
        self._paid = False  # whether the last transition paid a reward (rewards not all 0.0)
        self._skip_agent_selection = None
        self._settle()

    @staticmethod
    def _checked_reset_options(options: Any) -> Mapping[str, Any]:
        """``options`` as a mapping (``None`` is empty); unknown keys warn, a non-mapping raises."""
        if options is None:
            return {}
        if not isinstance(options, Mapping):
            raise TypeError(
                f"reset() options must be a dict such as {{'deal': ...}} or None, "
                f"got {type(options).__name__} {options!r}"
            )
        unknown = set(options) - set(RESET_OPTIONS)
        if unknown:
            warnings.warn(
                f"reset() ignores unknown options {sorted(map(str, unknown))}; "
                f"known: {RESET_OPTIONS}",
                stacklevel=3,
            )
        return options

    @staticmethod
    def _checked_seed(seed: Any) -> int | None:
        if seed is None:
            return None
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise TypeError(f"seed must be an integer >= 0 or None, got {type(seed).__name__}")
        if seed < 0:
            raise ValueError(f"seed must be an integer >= 0 or None, got {seed}")
        return int(seed)

    def _seed_spaces(self, seed: int) -> None:
        """Seed every agent's action and observation space from ``seed``, so sampling from them
        (``action_space(agent).sample(mask)``) repeats with the seed. The seeds come from a
        spawned child of the seed's sequence, independent of the generator that deals."""
        words = np.random.SeedSequence(seed, spawn_key=(0,)).generate_state(
            3 * len(self.possible_agents)
        )
        for i, agent in enumerate(self.possible_agents):
            self.action_spaces[agent].seed(int(words[3 * i]))
            self.observation_spaces[agent].seed(
                {"observation": int(words[3 * i + 1]), "action_mask": int(words[3 * i + 2])}
            )

    def observe(self, agent: str, derived: bool = True) -> dict[str, np.ndarray]:
        """PettingZoo's observation of ``agent``; ``derived=False`` leaves the pieces an encoding
        derives for networks at 0 ([`Encoding.observe_underived`][]),
        for play loops serving an agent that does not read them (``Agent.reads_derived``)."""
        if not self.agents:
            self._not_playing("observe")
        try:
            seat = self._seat[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None
        acting = agent == self.agent_selection and not (
            self.terminations[agent] or self.truncations[agent]
        )
        return {
            "observation": (
                self.encoding.observe(self.game_state, seat)
                if derived
                else self.encoding.observe_underived(self.game_state, seat)
            ),
            "action_mask": (self._mask if acting else self._no_moves).copy(),
        }

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self.agents:
            self._not_playing("last")
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        """The agents in acting order until every agent is done (none once the game is over)."""
        if self.game_state is None:
            raise RuntimeError("call reset() before agent_iter()")
        return super().agent_iter(max_iter)

    def state(self) -> np.ndarray:
        """The whole table for a centralised critic (MAPPO and the like): every seat's
        observation in seat order (``player_0`` first), then who is to act; layout in
        ``state_spec``. It shows every hand, so it is for centralised training only, never for
        a policy that acts. A fresh vector; nothing advances."""
        if self.game_state is None:
            raise RuntimeError("call reset() before state()")
        game, state, size = self.game, self.game_state, self.encoding.spec.size
        vector = np.zeros(self.state_spec.size, OBS_DTYPE)
        for seat in range(game.num_players):
            vector[seat * size : (seat + 1) * size] = self.encoding.observe(state, seat)
        if not (game.is_over(state) or game.is_truncated(state)):
            vector[game.num_players * size + game.current_player(state)] = 1
        return vector

    def deal_record(self) -> dict[str, Any]:
        """Every chance outcome of the game so far, as a deal: ``reset(options={"deal": ...})``
        with it and the same actions replays the game bit for bit, with any seed or none."""
        self._require_reset("deal_record")
        return self.game.deal_record(self.game_state)

    def step(self, action: Any) -> None:
        if not self.agents:
            self._not_playing("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if not (type(action) is int and 0 <= action < self._num_actions and self._mask[action]):
            action = self._checked(agent, action)  # converts, or raises what was wrong
        self._cumulative_rewards[agent] = 0.0
        assert self._rng is not None  # reset() made it, and self.agents is empty until then
        self.game.apply(self.game_state, action, self._rng)
        self._settle()
        if self.render_mode == "human":
            self.render()

    def _settle(self) -> None:
        """After a transition: rewards, terminations and who acts next, as the rules say."""
        game, state = self.game, self.game_state
        over, truncated = game.is_over(state), game.is_truncated(state)
        if self.reward_mode == "score":
            scores = list(game.scores(state))
            deltas = [new - old for new, old in zip(scores, self._scores, strict=True)]
            self._scores = scores
        elif over:
            deltas = win_rewards(game.winners(state), game.num_players)
        else:
            deltas = None
        if deltas or self._paid:  # else every reward is still 0.0 from the last transition
            rewards = self.rewards
            for agent, seat in self._seat.items():
                if agent in rewards:
                    rewards[agent] = float(deltas[seat]) if deltas else 0.0
            self._paid = bool(deltas)
        if over or truncated:
            done = self.terminations if over else self.truncations
            for agent in self.agents:
                done[agent] = True
            self._mask = self._no_moves
        else:
            self.agent_selection = self.possible_agents[game.current_player(state)]
            self._mask = game.legal_mask(state)
        if deltas:
            self._accumulate_rewards()

    def _checked(self, agent: str, action: Any) -> int:
        """The action as an int, or a clear error; the game is untouched on error."""
        if isinstance(action, np.ndarray) and action.ndim == 0:
            action = action.item()
        if action is None:
            raise TypeError(f"{agent} is still playing; step(None) is only for finished agents")
        if isinstance(action, bool) or not isinstance(action, numbers.Integral):
            raise TypeError(f"action must be an integer id, got {type(action).__name__} {action!r}")
        action = int(action)
        names = self.game.actions.names
        if not 0 <= action < len(names):
            raise ValueError(f"action {action} is out of range: ids are 0..{len(names) - 1}")
        if not self._mask[action]:
            reason = self.game.illegal_reason(self.game_state, action) or "not legal now"
            legal = ", ".join(f"{a} ({names[a]})" for a in np.flatnonzero(self._mask)[:20])
            raise IllegalActionError(
                f"{agent} cannot play {action} ({names[action]}): {reason}. Legal: {legal}"
            )
        return action

    def _require_reset(self, method: str) -> None:
        if self.game_state is None:
            raise RuntimeError(f"call reset() before {method}()")

    def _not_playing(self, method: str) -> None:
        """Raise why ``method`` cannot run when no agent is left: no game yet, or it is over."""
        self._require_reset(method)
        raise RuntimeError(
            f"{method}() after the game is over: every agent is done; call reset() to play again"
        )

    # -- rendering ----------------------------------------------------------------------------
    def render(self) -> str | None:
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode", stacklevel=2)
            return None
        self._require_reset("render")
        text = self.game.render(self.game_state)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Nothing to release: the environment holds no windows or processes."""
