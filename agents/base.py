"""The one agent interface: random, heuristic and trained agents all act from an observation."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from card_envs.core.env import CardEnv, EnvInfo


class Agent(ABC):
    """Chooses a legal action from ``{"observation", "action_mask"}``.

    Built from [`EnvInfo`][] (spec, seats, action names), never from a
    game state, so an agent knows only what its seat may know.
    """

    name = "agent"
    # Whether ``act`` reads the pieces an encoding derives for networks: play loops hand an
    # agent that does not an observation without them (``CardEnv.observe(derived=False)``),
    # which skips most of ``sequitur_v1``'s cost. True unless an agent is known not to.
    reads_derived = True

    def __init__(self, info: EnvInfo, seed: int | None = None):
        self.info = info
        self.rng = np.random.default_rng(seed)

    @classmethod
    def supports(cls, info: EnvInfo) -> bool:
        """Whether this agent can play at the table ``info`` describes."""
        return True

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseed when ``seed`` is given."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, observation: dict[str, np.ndarray]) -> int:
        """A legal action id for this observation."""

    def act_at(self, env: CardEnv, observation: dict[str, np.ndarray]) -> int:
        """The action for ``env``'s acting seat, whose observation is ``observation``: what every
        play loop calls. Most agents need only the observation; a search agent overrides this to
        sample the hidden state consistently with the seat's information, never reading it
        directly ([`Game.resample_hidden`][card_envs.core.game.Game.resample_hidden])."""
        return self.act(observation)

    def action_values(self, observation: dict[str, np.ndarray]) -> np.ndarray | None:
        """What each action id is worth to this agent here, the best played (NaN for ids it does
        not rate), or None where it rates none: a teacher's values, which a network can fit as
        well as its moves (``card-envs train --clone-temperature``). Never draws from ``rng``,
        so asking changes no move."""
        return None

    def rated_act_at(
        self, env: CardEnv, observation: dict[str, np.ndarray]
    ) -> tuple[int, np.ndarray | None]:
        """``act_at``'s move and ``action_values``' ratings, from one look at the decision: a
        teacher's label and values for distillation. A search rates its moves only while it
        searches, so it overrides this rather than ``action_values``."""
        return self.act_at(env, observation), self.action_values(observation)

    def views(self, observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Named views of the observation vector (``views["hand"]`` ...)."""
        return self.info.obs_spec.views(observation["observation"])


class RandomAgent(Agent):
    """Uniform over the legal actions, from its own seeded generator."""

    name = "random"
    reads_derived = False  # the mask alone

    def act(self, observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[self.rng.integers(len(legal))])
