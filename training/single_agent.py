"""A Gymnasium view of one seat of a card env, for Stable-Baselines3's MaskablePPO.

The other seats are played inside ``step`` by opponents drawn from an :class:`OpponentPool`
(random, heuristic and frozen snapshots of the learner: self-play). The reward is the learning
seat's own (PettingZoo's tutorial once trained on the opponent's, PettingZoo #1147).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np

from agents import Agent, make_agent
from card_envs import make
from card_envs.core.env import EnvInfo

AgentFactory = Callable[[EnvInfo, int], Agent]


class OpponentPool:
    """Opponent factories drawn uniformly per seat and episode; snapshots are added over time."""

    def __init__(self, kinds: list[str], max_snapshots: int = 5):
        if not kinds:
            raise ValueError("opponents must name at least one agent kind")
        self.factories: list[AgentFactory] = [
            lambda info, seed, kind=kind: make_agent(kind, info, seed) for kind in kinds
        ]
        self.snapshots: list[AgentFactory] = []
        self.max_snapshots = max_snapshots

    def add_snapshot(self, factory: AgentFactory) -> None:
        """Keep the newest ``max_snapshots`` frozen learners as extra opponents."""
        self.snapshots = [*self.snapshots, factory][-self.max_snapshots :]

    def draw(self, info: EnvInfo, rng: np.random.Generator) -> Agent:
        choices = self.factories + self.snapshots
        factory = choices[int(rng.integers(len(choices)))]
        return factory(info, int(rng.integers(2**31)))


class SingleAgentEnv(gymnasium.Env):
    """One learning seat (drawn per episode) against pool opponents, with ``action_masks()``."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        env_name: str,
        pool: OpponentPool,
        num_players: int | None = None,
        **env_options: Any,
    ):
        self.env = make(env_name, num_players=num_players, **env_options)
        self.info = self.env.describe()
        self.pool = pool
        space = self.env.observation_space(self.env.possible_agents[0])
        self.observation_space = space["observation"]
        self.action_space = self.env.action_space(self.env.possible_agents[0])
        self.learner = self.env.possible_agents[0]
        self.opponents: dict[str, Agent] = {}
        self._obs: dict[str, np.ndarray] = {}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        self.learner = self.env.possible_agents[int(rng.integers(self.info.num_players))]
        self.opponents = {
            agent: self.pool.draw(self.info, rng)
            for agent in self.env.possible_agents
            if agent != self.learner
        }
        self.env.reset(seed=int(rng.integers(2**31)))
        _, done, _ = self._advance()
        if done:  # the game ended before the learner acted: start another
            return self.reset()
        return self._obs["observation"], {}

    def step(self, action: int):
        self.env.step(int(action))
        reward, terminated, truncated = self._advance(self.env.rewards.get(self.learner, 0.0))
        return self._obs["observation"], reward, terminated, truncated, {}

    def action_masks(self) -> np.ndarray:
        return self._obs["action_mask"].astype(bool)

    def _advance(self, reward: float = 0.0) -> tuple[float, bool, bool]:
        """Let opponents act until the learner must act or the game ends."""
        env = self.env
        while True:
            if env.terminations[self.learner] or env.truncations[self.learner]:
                self._obs = env.observe(self.learner)
                return reward, env.terminations[self.learner], env.truncations[self.learner]
            if env.agent_selection == self.learner:
                self._obs = env.observe(self.learner)
                return reward, False, False
            agent = env.agent_selection
            env.step(self.opponents[agent].act(env.observe(agent)))
            reward += env.rewards.get(self.learner, 0.0)
