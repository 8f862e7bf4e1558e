"""One learning seat per table, the other seats played inside the env by built-in agents: a
Gymnasium 1.x ``VectorEnv`` over ``CardVectorEnv``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from card_envs.agents import Agent, make_agent
from card_envs.core.errors import IllegalActionError
from card_envs.core.spec import OBS_DTYPE
from card_envs.vector.engine import PLAYING, TERMINATED, CardVectorEnv

ROTATE = "rotate"


class TableView:
    """What ``Agent.act_at(env, observation)`` reads of an env, for one table: a search agent
    samples the hidden cards from ``game_state`` consistently with its seat's information."""

    def __init__(self, tables: CardVectorEnv, index: int):
        self.game, self.encoding = tables.game, tables.encoding
        self._tables, self._index = tables, index

    @property
    def game_state(self) -> Any:
        return self._tables.states[self._index]

    @property
    def unwrapped(self) -> TableView:
        return self


class SingleAgentVectorEnv(VectorEnv):
    """``num_envs`` tables, each with one learner seat; every other seat is a built-in agent
    (``card_envs.agents.make_agent``) acting inside ``step``, one table at a time
    through ``act_at`` (the Agent interface has no batch method).

    ``step`` plays the learner's action, then the others until the learner is to act again or
    the game ends; an ended table is dealt its next game in the same call (same-step
    autoreset), and its learner's final observation is ``info["final_obs"]``. Rewards are the
    learner's alone, every transition's since its last decision; a reward paid before its
    first decision of a game comes with that first step. A game that ends before the learner
    acts is dropped and the next one dealt. docs/vector.md has the whole contract.
    """

    # gymnasium declares metadata an instance attribute, though it is read from the class
    metadata: ClassVar[dict[str, Any]] = {  # type: ignore[misc]
        "autoreset_mode": AutoresetMode.SAME_STEP
    }

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        *,
        opponents: str | Sequence[str] = "heuristic",
        seat: str | int = ROTATE,
        seed: int | None = None,
        **options: Any,
    ):
        self.tables = CardVectorEnv(env_id, num_envs, seed=seed, **options)
        self.env_info = self.tables.describe()
        n = self.num_players = self.env_info.num_players
        self.kinds = self._checked_kinds(opponents, n)
        if seat != ROTATE and (isinstance(seat, bool) or seat not in range(n)):
            raise ValueError(f"seat must be {ROTATE!r} or 0..{n - 1}, not {seat!r}")
        self.seat_rule = seat
        self.num_envs = self.tables.num_envs
        spec = self.env_info.obs_spec
        self.single_observation_space = spaces.Box(spec.low, spec.high, (spec.size,), OBS_DTYPE)
        self.single_action_space = spaces.Discrete(self.env_info.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        # Agents per table, by relative seat (1 = the learner's left ...), made once.
        self._agents = [
            [make_agent(kind, self.env_info) for kind in self.kinds] for _ in range(self.num_envs)
        ]
        # what act_at reads of an env, duck-typed
        self._views: list[Any] = [TableView(self.tables, i) for i in range(self.num_envs)]
        self._by_seat: list[list[Agent | None]] = [[None] * n for _ in range(self.num_envs)]
        self._games = [0] * self.num_envs  # games started per table, for the seat rotation
        self._early = [0.0] * self.num_envs  # rewards paid before the learner's first decision
        self._last_seat = [0] * self.num_envs  # the learner's seat in each table's last ended game
        self._buffers()

    def _buffers(self) -> None:
        n, tables = self.num_envs, self.tables
        self.seats = np.zeros(n, np.int64)
        self.rewards = np.zeros(n, np.float32)
        self.terminated = np.zeros(n, bool)
        self.truncated = np.zeros(n, bool)
        self.ended = np.zeros(n, bool)
        self.final_obs = np.zeros((n, tables.obs_size), OBS_DTYPE)
        self.final_scores = np.full((n, self.num_players), np.nan)
        self.final_winners = np.zeros((n, self.num_players), bool)
        self.final_seats = np.zeros(n, np.int64)
        self._info: dict[str, np.ndarray] = {"seat": self.seats}
        finals: dict[str, np.ndarray] = {
            "final_obs": self.final_obs,
            "final_scores": self.final_scores,
            "final_winners": self.final_winners,
            "final_seat": self.final_seats,
        }
        for name, array in finals.items():
            self._info[name], self._info["_" + name] = array, self.ended

    @staticmethod
    def _checked_kinds(opponents: str | Sequence[str], num_players: int) -> list[str]:
        """One kind for every other seat, or a kind per relative seat (1 = the learner's
        left)."""
        if isinstance(opponents, str):
            return [opponents] * (num_players - 1)
        kinds = list(opponents)
        if len(kinds) != num_players - 1 or not all(isinstance(k, str) for k in kinds):
            raise ValueError(
                f"opponents must be one agent kind or {num_players - 1} kinds (one per other "
                f"seat, from the learner's left), got {opponents!r}"
            )
        return kinds

    # -- Gymnasium's VectorEnv ----------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal every table (the seed rule of ``CardVectorEnv``) and play the other seats
        up to the learner's first decision. ``options`` is not used."""
        super().reset(seed=seed)
        first = not self.tables.started
        self.tables.reset(seed)
        if seed is not None or first:
            self._games = [0] * self.num_envs
        self.rewards.fill(0)
        self._clear_ends()
        for i in range(self.num_envs):
            self._early[i] = self._open(i)
            self.tables.observe_row(i)
        return self.tables.observations, {"seat": self.seats}

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner's action at every table (all checked first: an illegal one raises
        ``IllegalActionError`` and no table moves), then the other seats."""
        checked = self.tables.checked_actions(actions)
        self._clear_ends()
        tables, rewards, early = self.tables, self.rewards, self._early
        for i, action in enumerate(checked):
            seat = int(self.seats[i])
            deltas, end = tables.apply(i, action)
            reward = early[i] + (deltas[seat] if deltas else 0.0)
            early[i] = 0.0
            if end == PLAYING:
                more, end = self._play_others(i)
                reward += more
            if end != PLAYING:
                self._end(i, seat, end)
                early[i] = self._open(i)
            rewards[i] = reward
            tables.observe_row(i)
        return tables.observations, rewards, self.terminated, self.truncated, self._info

    def action_masks(self) -> np.ndarray:
        """``(num_envs, A)`` bool: each table's legal actions for its learner (a buffer that
        the next step rewrites)."""
        return self.tables.masks

    def record(self, index: int) -> dict[str, Any]:
        """The record (docs/records.md) of table ``index``'s last finished game, its seats
        named ``"learner"`` and by their agents' kinds."""
        if self.tables.last_game(index) is None:
            raise RuntimeError(f"table {index} has not finished a game yet")
        seat = self._last_seat[index]
        names = [""] * self.num_players
        names[seat] = "learner"
        for relative, kind in enumerate(self.kinds, start=1):
            names[(seat + relative) % self.num_players] = kind
        return self.tables.record(index, names)

    # -- one table ----------------------------------------------------------------------------
    def _open(self, i: int) -> float:
        """Start table ``i``'s new game (the learner's seat, the others' agents reseeded) and
        play up to the learner's first decision: the learner's reward on the way. A game that
        ends first is dropped for the next one."""
        while True:
            self._start(i)
            reward, end = self._play_others(i)
            if end == PLAYING:
                return reward
            self._last_seat[i] = int(self.seats[i])

    def _start(self, i: int) -> None:
        n, game = self.num_players, self._games[i]
        self._games[i] = game + 1
        seat = (i + game) % n if self.seat_rule == ROTATE else int(self.seat_rule)
        self.seats[i] = seat
        by_seat, seed = self._by_seat[i], self.tables.table_seed(i)
        by_seat[seat] = None
        for relative, agent in enumerate(self._agents[i], start=1):
            agent.reset(seed * n + relative)  # every game of a run has its own seed
            by_seat[(seat + relative) % n] = agent

    def _play_others(self, i: int) -> tuple[float, int]:
        """The other seats' moves at table ``i`` until the learner is to act or the game ends:
        the learner's reward from them and how the game ended (``PLAYING`` if it did not)."""
        tables, seat, reward = self.tables, int(self.seats[i]), 0.0
        by_seat, current_player = self._by_seat[i], tables.game.current_player
        while True:
            acting = current_player(tables.states[i])
            agent = by_seat[acting]
            if agent is None:
                return reward, PLAYING
            deltas, end = tables.apply(i, self._agent_action(i, acting, agent))
            if deltas:
                reward += deltas[seat]
            if end != PLAYING:
                return reward, end

    def _agent_action(self, i: int, seat: int, agent: Agent) -> int:
        """``agent``'s move for ``seat`` from a fresh observation and mask, as the AEC loop
        hands them; a move the mask forbids is an error naming the agent."""
        tables = self.tables
        state, encoding = tables.states[i], tables.encoding
        seen = {
            "observation": encoding.observe(state, seat)
            if agent.reads_derived
            else encoding.observe_underived(state, seat),
            "action_mask": tables.game.legal_mask(state),
        }
        action = int(agent.act_at(self._views[i], seen))
        if not (0 <= action < tables.num_actions and seen["action_mask"][action]):
            reason = tables.game.illegal_reason(state, action)
            raise IllegalActionError(
                f"table {i}: the {agent.name} agent in seat {seat} chose {action}: {reason}"
            )
        return action

    def _end(self, i: int, seat: int, end: int) -> None:
        """Report table ``i``'s ended game: the learner's final observation and the outcome."""
        game, final = self.tables.game, self.tables.last_game(i)
        (self.terminated if end == TERMINATED else self.truncated)[i] = True
        self.ended[i] = True
        self.final_obs[i] = self.tables.encoding.observe(final, seat)
        self.final_scores[i] = game.scores(final)
        if game.is_over(final):
            self.final_winners[i, game.winners(final)] = True
        self.final_seats[i] = self._last_seat[i] = seat

    def _clear_ends(self) -> None:
        for array in (self.terminated, self.truncated, self.ended, self.final_winners):
            array.fill(False)
        self.final_scores.fill(np.nan)
