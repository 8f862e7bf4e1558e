"""What both search agents share: the budget and its options, the decision from the env, the
rollout and the value of a position."""

from __future__ import annotations

import random
import time
from abc import abstractmethod
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from card_envs.agents.base import Agent
from card_envs.agents.plugins import declaration
from card_envs.agents.search.values import horizon_mark, values
from card_envs.core.env import CardEnv, EnvInfo
from card_envs.core.game import Encoding, Game

HORIZONS = ("game", "round")
ROLLOUTS = ("random", "heuristic")
OPPONENTS = ("search", "heuristic")
TEXT_OPTIONS = ("horizon", "rollout", "lean", "opponents")


@dataclass(frozen=True)
class Budget:
    """How much a search may do per decision: ``iterations`` (determinised playouts), and at
    most ``seconds`` if given (a time cap makes play depend on the machine's speed).

    A playout runs to the end of the game (``horizon="game"``) or of the round (``"round"``,
    see :func:`~card_envs.agents.search.values.horizon_mark`), at most ``depth`` moves (0: no
    cap); where it stops is valued by :func:`~card_envs.agents.search.values.values`, with
    weight ``gain`` on the points won since the decision (then the round is the decision's:
    a move that ends it ends the playout at once). Its moves are uniformly random
    (``rollout="random"``) or the game's heuristic's for every seat (``"heuristic"``).
    ``prior`` adds that share of the search's weight to the move of the agent ``lean`` names
    (the heuristic, or a stronger one the game has), so the search overrules it only when it
    clearly prefers another. ``c`` is the UCT exploration constant and ``opponents`` who plays
    the other seats' moves in the tree: UCB (``"search"``) or the heuristic (``"heuristic"``:
    the tree holds only the seat's own moves, the opponents modelled as that heuristic);
    IS-MCTS only."""

    iterations: int = 200
    seconds: float | None = None
    horizon: str = "game"
    depth: int = 0
    rollout: str = "random"
    prior: float = 0.0
    c: float = 0.7
    gain: float = 0.0
    lean: str = "heuristic"
    opponents: str = "search"

    def __post_init__(self) -> None:
        if self.iterations < 1:
            raise ValueError(f"iterations must be >= 1, got {self.iterations}")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError(f"seconds must be > 0, got {self.seconds}")
        if self.horizon not in HORIZONS:
            raise ValueError(f"horizon must be one of {', '.join(HORIZONS)}, got {self.horizon!r}")
        if self.rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {self.rollout!r}")
        if self.depth < 0:
            raise ValueError(f"depth must be >= 0 (0: play to the end), got {self.depth}")
        if self.prior < 0:
            raise ValueError(f"prior must be >= 0, got {self.prior}")
        if self.c < 0:
            raise ValueError(f"c must be >= 0, got {self.c}")
        if self.opponents not in OPPONENTS:
            raise ValueError(
                f"opponents must be one of {', '.join(OPPONENTS)}, got {self.opponents!r}"
            )
        if not 0 <= self.gain <= 1:
            raise ValueError(f"gain must be in [0, 1], got {self.gain}")

    @property
    def needs_heuristic(self) -> bool:
        """Whether the search consults the game's heuristic (rollouts or the prior)."""
        return self.rollout == "heuristic" or self.prior > 0 or self.opponents == "heuristic"


def parse_budget(text: str, default: Budget) -> Budget:
    """``"iterations=800,seconds=0.5"`` over ``default``; a ValueError names a bad option."""
    if not text:
        return default
    types = {field.name: field.type for field in fields(Budget)}
    changes: dict[str, Any] = {}
    for item in text.split(","):
        name, sep, value = item.partition("=")
        if not sep or name not in types:
            raise ValueError(
                f"search option {item!r} must be name=value with name one of "
                f"{', '.join(types)}, e.g. 'ismcts:iterations=800'"
            )
        if name in TEXT_OPTIONS:
            changes[name] = value
            continue
        try:
            changes[name] = int(value) if name in ("iterations", "depth") else float(value)
        except ValueError:
            raise ValueError(f"search option {name} must be a number, got {value!r}") from None
    return replace(default, **changes)


class SearchAgent(Agent):
    """An agent that searches determinisations of the hidden state: it reads the env's game
    and state only through ``game.resample_hidden(state, seat, rng)``, so it knows no more than
    its seat, and plays the game's copies with ``clone``, ``legal_actions`` and ``apply``."""

    name = "search"

    def __init__(
        self,
        info: EnvInfo,
        seed: int | None = None,
        budget: Budget | None = None,
        rollout_agent: Agent | None = None,
        prior_agent: Agent | None = None,
    ):
        super().__init__(info, seed)
        self.budget = budget or self.default_budget(info)
        if self.budget.needs_heuristic and rollout_agent is None:
            raise ValueError(
                "rollout='heuristic' or a prior needs the game's heuristic as rollout_agent; "
                "make_agent('ismcts:rollout=heuristic', info, seed) passes it"
            )
        self.rollout_agent = rollout_agent
        self.prior_agent = prior_agent or rollout_agent
        self._encoding: Encoding | None = None
        self._root_scores: list[float] = []
        self._root_mark: list[float] = []
        self._seat = -1
        self._seed_rollouts()

    @classmethod
    def default_budget(cls, info: EnvInfo) -> Budget:
        """The budget when none is given: the ``SEARCH_BUDGET`` the game's agents module
        declares (``Budget`` keywords), else ``Budget()``."""
        return Budget(**declaration(info.name, "SEARCH_BUDGET"))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            self._seed_rollouts()

    def _seed_rollouts(self) -> None:
        """The rollouts' own generator and rollout agent, seeded from the agent's generator."""
        self.playout_rng = random.Random(int(self.rng.integers(2**63)))
        if self.rollout_agent is not None:
            self.rollout_agent.reset(int(self.rng.integers(2**63)))
        if self.prior_agent is not self.rollout_agent and self.prior_agent is not None:
            self.prior_agent.reset(int(self.rng.integers(2**63)))

    def act(self, observation: dict[str, np.ndarray]) -> int:
        raise TypeError(
            f"a {self.name} agent searches the game, so it acts through act_at(env, "
            "observation) (as every play loop calls it), not act(observation) alone"
        )

    def act_at(self, env: CardEnv, observation: dict[str, np.ndarray]) -> int:
        return _most_weighted(self.policy(env))

    def rated_act_at(
        self, env: CardEnv, observation: dict[str, np.ndarray]
    ) -> tuple[int, np.ndarray]:
        """The move ``act_at`` plays and, as each legal move's value, the log of its share of
        the search (minus infinity for a move never tried; NaN off the legal moves): the softmax
        of these values at temperature 1 is the search's distribution."""
        policy = self.policy(env)
        values = np.full(self.info.num_actions, np.nan, np.float32)
        with np.errstate(divide="ignore"):
            values[list(policy)] = np.log(np.fromiter(policy.values(), np.float64))
        return _most_weighted(policy), values

    def policy(self, env: CardEnv) -> dict[int, float]:
        """The search's distribution over the acting seat's legal action ids at this decision
        (visit or vote shares, summing to 1): what the agent plays from and what a student can
        be distilled towards."""
        game, state = env.unwrapped.game, env.unwrapped.game_state
        encoding = self._encoding = env.unwrapped.encoding
        legal = game.legal_actions(state)
        if not legal:
            raise RuntimeError("no decision to make: the game is over; call reset()")
        if len(legal) == 1:
            return {legal[0]: 1.0}
        seat = self._seat = game.current_player(state)
        self._root_scores = [float(s) for s in game.scores(state)]
        self._root_mark = horizon_mark(game, state)
        counts = self.search(game, state, seat, legal)
        if self.budget.prior and self.prior_agent is not None:
            seen = {
                "observation": encoding.observe(state, seat),
                "action_mask": game.legal_mask(state),
            }
            guess = self.prior_agent.act(seen)  # the seat's own observation
            counts = self.lean(counts, guess)
        total = sum(counts.values())
        return {action: counts.get(action, 0) / total for action in legal}

    def lean(self, counts: dict[int, float], guess: int) -> dict[int, float]:
        """``counts`` leaning towards the heuristic's move ``guess``: it gets ``prior`` times
        the search's total weight on top of its own."""
        counts[guess] = counts.get(guess, 0) + self.budget.prior * sum(counts.values())
        return counts

    @abstractmethod
    def search(self, game: Game, state: Any, seat: int, legal: list[int]) -> dict[int, float]:
        """Weights over ``legal`` (visits or votes) from searching ``state`` as ``seat``."""

    def out_of_time(self, iteration: int, start: float) -> bool:
        """Whether the budget is spent after ``iteration`` playouts begun at ``start``."""
        if iteration >= self.budget.iterations:
            return True
        seconds = self.budget.seconds
        return seconds is not None and time.perf_counter() - start >= seconds

    def guided(self, game: Game, state: Any) -> int:
        """The rollout heuristic's move in ``state``, from the acting seat's observation there;
        the searching seat's own moves are the ``lean`` agent's (the policy the search improves
        on is the one it leans on)."""
        if self.rollout_agent is None or self._encoding is None:
            raise RuntimeError("a guided move needs the heuristic and a decision in progress")
        seat = game.current_player(state)
        seen = {
            "observation": self._encoding.observe(state, seat),
            "action_mask": game.legal_mask(state),
        }
        agent = self.rollout_agent
        if seat == self._seat and self.prior_agent is not None:
            agent = self.prior_agent
        return agent.act(seen)

    def playout(
        self, game: Game, state: Any, chance: np.random.Generator | None = None
    ) -> list[float]:
        """Random legal moves from ``state`` (changed in place) to the budget's horizon, at most
        ``budget.depth`` of them, chance drawn from ``chance`` (default: the agent's generator);
        then each seat's value in [0, 1]."""
        rng, chance = self.playout_rng, self.rng if chance is None else chance
        depth = self.budget.depth or game.max_steps
        gain = self.budget.gain
        start = None
        if self.budget.horizon == "round":
            start = self._root_mark if gain else horizon_mark(game, state)
        guide = self.rollout_agent if self.budget.rollout == "heuristic" else None
        for _ in range(depth):
            if game.is_over(state) or game.is_truncated(state):
                break
            if start is not None and horizon_mark(game, state) != start:
                break
            if guide is not None:
                game.apply(state, self.guided(game, state), chance)
            else:
                legal = game.legal_actions(state)
                game.apply(state, legal[int(rng.random() * len(legal))], chance)
        return values(game, state, self._root_scores, gain)


def _most_weighted(policy: dict[int, float]) -> int:
    """The action with the most weight, the lowest id among equals."""
    return max(policy, key=lambda action: (policy[action], -action))
