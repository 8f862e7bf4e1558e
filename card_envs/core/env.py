"""The one AEC environment every game uses.

It owns what PettingZoo asks of an environment (agents, agent order, rewards, terminations,
dead steps, spaces, the observation/mask dict, rendering) and gives PettingZoo's wrapper
guarantees itself (order enforcement, bounds and type checks, clear errors) at a fraction of
their cost. A game supplies only a :class:`~card_envs.core.game.Game` and an
:class:`~card_envs.core.game.Encoding`.
"""

from __future__ import annotations

import inspect
import numbers
import warnings
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from card_envs.core.errors import IllegalActionError
from card_envs.core.game import Encoding, Game, check_option, win_rewards
from card_envs.core.spec import OBS_DTYPE, ObsSpec

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
    """Generic AEC environment over a game's rules and encoding."""

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
        self._rng: np.random.Generator | None = None
        self.game_state: Any = None
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

    # -- spaces and description ---------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

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
        options = options or {}
        unknown = set(options) - set(RESET_OPTIONS)
        if unknown:
            warnings.warn(
                f"reset() ignores unknown options {sorted(unknown)}; known: {RESET_OPTIONS}",
                stacklevel=2,
            )
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self.game_state = self.game.new_game(self._rng, options.get("deal"))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._scores = list(self.game.scores(self.game_state))
        self._skip_agent_selection = None
        self._settle()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._require_reset("observe")
        seat = self._seat[agent]
        acting = agent == self.agent_selection and not (
            self.terminations[agent] or self.truncations[agent]
        )
        return {
            "observation": self.encoding.observe(self.game_state, seat),
            "action_mask": (self._mask if acting else self._no_moves).copy(),
        }

    def step(self, action: Any) -> None:
        self._require_reset("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = self._checked(agent, action)
        self._cumulative_rewards[agent] = 0.0
        self.game.apply(self.game_state, action, self._rng)
        self._settle()
        if self.render_mode == "human":
            self.render()

    def _settle(self) -> None:
        """After a transition: rewards, terminations and who acts next, as the rules say."""
        game, state = self.game, self.game_state
        over, truncated = game.is_over(state), game.is_truncated(state)
        scores = game.scores(state)
        if self.reward_mode == "score":
            deltas = [new - old for new, old in zip(scores, self._scores, strict=True)]
        elif over:
            deltas = win_rewards(game.winners(state), game.num_players)
        else:
            deltas = None
        self._scores = list(scores)
        for agent, seat in self._seat.items():
            if agent in self.rewards:
                self.rewards[agent] = float(deltas[seat]) if deltas else 0.0
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
