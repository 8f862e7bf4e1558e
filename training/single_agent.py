"""A Gymnasium view of one seat of a card env, for Stable-Baselines3's MaskablePPO.

The other seats are played inside ``step`` by opponents drawn from an :class:`OpponentPool`
(random, heuristic and frozen snapshots of the learner: self-play). The reward is the learning
seat's own (PettingZoo's tutorial once trained on the opponent's, PettingZoo #1147).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

import gymnasium
import numpy as np

from card_envs import make
from card_envs.agents import Agent, make_agent
from card_envs.agents.policy import PolicyAgent, with_advice
from card_envs.core.env import EnvInfo

AgentFactory = Callable[[EnvInfo, int], Agent]


class OpponentPool:
    """Opponent factories drawn uniformly per seat and episode; snapshots are added over time."""

    def __init__(self, kinds: list[str], max_snapshots: int = 5):
        if not kinds:
            raise ValueError("opponents must name at least one agent kind")
        self.factories: list[AgentFactory] = [partial(make_agent, kind) for kind in kinds]
        self.snapshots: list[AgentFactory] = []
        self.max_snapshots = max_snapshots

    def add_snapshot(self, factory: AgentFactory) -> None:
        """Keep the newest ``max_snapshots`` frozen learners as extra opponents."""
        self.snapshots = [*self.snapshots, factory][-self.max_snapshots :]

    def add_policy_snapshot(self, policy, advisor: str | None = None) -> None:
        """A frozen copy of the learner's policy (a MaskablePPO policy) as an opponent."""
        frozen = FrozenPolicy(policy)
        self.add_snapshot(lambda info, seed: PolicyAgent(frozen, info, seed, advisor))

    def draw(self, info: EnvInfo, rng: np.random.Generator) -> Agent:
        choices = self.factories + self.snapshots
        factory = choices[int(rng.integers(len(choices)))]
        return factory(info, int(rng.integers(2**31)))


class FrozenPolicy:
    """A policy snapshot with the ``predict`` that :class:`PolicyAgent` calls."""

    def __init__(self, policy):
        self.policy = policy
        policy.set_training_mode(False)

    def predict(self, observation, action_masks, deterministic=True):
        return self.policy.predict(
            observation, deterministic=deterministic, action_masks=action_masks
        )


class SingleAgentEnv(gymnasium.Env):
    """One learning seat against pool opponents, with ``action_masks()`` for MaskablePPO.

    ``seat`` is ``"random"`` (drawn per episode from the env's seeded generator), ``"rotate"``
    (0, 1, 2 ... episode by episode) or a fixed seat number. An in-range action the mask forbids
    ends the episode as a loss (reward ``illegal_reward``, ``info["illegal_action"]``), the
    convention of PettingZoo's TerminateIllegalWrapper, so that Gymnasium's and SB3's
    ``check_env`` (which sample unmasked actions) can drive it; ``illegal="raise"`` raises the
    env's IllegalActionError instead. MaskablePPO never samples a masked action.

    ``margin_reward`` > 0 adds that weight times each change of the learner's score margin (its
    score minus the others' mean, from the game's ``scores``) to the reward, so an episode's
    shaping adds up to the weight times the final margin: a denser signal than the win alone
    (every round's points count), for games decided over several rounds.
    """

    # gymnasium declares metadata an instance attribute, though it is read from the class
    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}  # type: ignore[misc]

    def __init__(
        self,
        env_name: str,
        pool: OpponentPool,
        num_players: int | None = None,
        seat: str | int = "random",
        illegal: str = "lose",
        illegal_reward: float = -1.0,
        advisor: str | None = None,
        margin_reward: float = 0.0,
        **env_options: Any,
    ):
        if illegal not in ("lose", "raise"):
            raise ValueError(f"illegal must be 'lose' or 'raise', not {illegal!r}")
        if margin_reward < 0:
            raise ValueError(f"margin_reward must be >= 0, not {margin_reward!r}")
        self.illegal, self.illegal_reward = illegal, illegal_reward
        self.margin_reward, self._margin = margin_reward, 0.0
        self.env = make(env_name, num_players=num_players, **env_options)
        self.info = self.env.describe()
        if seat not in ("random", "rotate") and seat not in range(self.info.num_players):
            raise ValueError(
                f"seat must be 'random', 'rotate' or 0..{self.info.num_players - 1}, not {seat!r}"
            )
        self.seat = seat
        self.episodes = 0
        self.pool = pool
        space = self.env.observation_space(self.env.possible_agents[0])["observation"]
        self.advisor_kind = advisor
        self.advisor: Agent | None = None
        if advisor is not None:  # the advisor's move is appended to the observation
            low = np.concatenate([space.low, np.zeros(self.info.num_actions, np.float32)])
            high = np.concatenate([space.high, np.ones(self.info.num_actions, np.float32)])
            space = gymnasium.spaces.Box(low, high, dtype=np.float32)
        self.observation_space = space
        self.action_space = self.env.action_space(self.env.possible_agents[0])
        self.learner = self.env.possible_agents[0]
        self.opponents: dict[str, Agent] = {}
        self._obs: dict[str, np.ndarray] = {}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        self.learner = self.env.possible_agents[self._next_seat(rng)]
        self.episodes += 1
        self.opponents = {
            agent: self.pool.draw(self.info, rng)
            for agent in self.env.possible_agents
            if agent != self.learner
        }
        if self.advisor_kind is not None:
            self.advisor = make_agent(self.advisor_kind, self.info, int(rng.integers(2**31)))
        self.env.reset(seed=int(rng.integers(2**31)))
        self._margin = self._score_margin()
        _, done, _ = self._advance()
        if done:  # the game ended before the learner acted: start another
            return self.reset()
        return self._obs["observation"], {}

    def step(self, action: int):
        if (
            self.illegal == "lose"
            and self.action_space.contains(action)
            and not self._obs["action_mask"][action]
        ):
            return (
                self._obs["observation"].copy(),  # callers may keep the previous one
                self.illegal_reward,
                True,
                False,
                {"illegal_action": True},
            )
        self.env.step(int(action))
        reward, terminated, truncated = self._advance(self.env.rewards.get(self.learner, 0.0))
        if self.margin_reward:
            margin, self._margin = self._margin, self._score_margin()
            reward += self.margin_reward * (self._margin - margin)
        return self._obs["observation"], reward, terminated, truncated, {}

    def _score_margin(self) -> float:
        if not self.margin_reward:
            return 0.0
        scores = self.env.game.scores(self.env.game_state)
        mine, others = scores[self.env.possible_agents.index(self.learner)], len(scores) - 1
        return mine - (sum(scores) - mine) / others if others else float(mine)

    def add_policy_snapshot(self, policy) -> None:
        """Self-play: called on every vectorised copy (``VecEnv.env_method``) by the trainer."""
        self.pool.add_policy_snapshot(policy, self.advisor_kind)

    def _next_seat(self, rng: np.random.Generator) -> int:
        if self.seat == "random":
            return int(rng.integers(self.info.num_players))
        if self.seat == "rotate":
            return self.episodes % self.info.num_players
        return int(self.seat)

    def _advised(self, seen: dict[str, np.ndarray], acting: bool = True) -> dict:
        """Append the advisor's move (none once the game is over) when there is an advisor."""
        if self.advisor is None:
            return seen
        advice = self.advisor.act(seen) if acting else None
        vector = with_advice(seen["observation"], advice, self.info.num_actions)
        return {"observation": vector, "action_mask": seen["action_mask"]}

    def action_masks(self) -> np.ndarray:
        return self._obs["action_mask"].astype(bool)

    def _advance(self, reward: float = 0.0) -> tuple[float, bool, bool]:
        """Let opponents act until the learner must act or the game ends."""
        env = self.env
        while True:
            if env.terminations[self.learner] or env.truncations[self.learner]:
                self._obs = self._advised(env.observe(self.learner), acting=False)
                return reward, env.terminations[self.learner], env.truncations[self.learner]
            if env.agent_selection == self.learner:
                self._obs = self._advised(env.observe(self.learner))
                return reward, False, False
            agent = env.agent_selection
            env.step(self.opponents[agent].act_at(env, env.observe(agent)))
            reward += env.rewards.get(self.learner, 0.0)
