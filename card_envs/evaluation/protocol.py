"""The evaluation protocol (``eval-v1``): which deals, seatings and agent seeds an evaluation
plays, published with the library in ``card_envs/evaluation/data/eval-v1.json``.

Deal ``k`` of the set is the seed ``deal_seed(k)``: ``reset(seed=...)`` deals it and every
later chance outcome comes from the deal's own streams
([`deal_streamed`][card_envs.evaluation.streams.deal_streamed]), so the same deal plays the
same cards at every table wherever the rules let it. An agent under test plays each deal once
in each seat, alone against the field; the agents' seeds derive from the deal and the seating.
The same agent evaluated twice gives the same numbers.

The file holds, per game and player count, a fingerprint of the set: the records of its first
deals played by random agents. A change to a game's rules that changes them fails
``tests/test_evaluation.py``, and the set must then be published anew under the next version
(``eval-v2``); so must any change to the seeds or seatings.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from card_envs.agents import make_agent
from card_envs.agents.match import decisions
from card_envs.evaluation.streams import deal_streamed
from card_envs.registry import env_names, make, player_counts

DATA = Path(__file__).resolve().parent / "data"
FORMAT = "card-envs.protocol/1"
CURRENT = "eval-v1"
FINGERPRINT_DEALS = 3  # deals played by random agents into a game's fingerprint


@dataclass(frozen=True)
class Protocol:
    """A published evaluation set: its name, root seed, how many deals it holds and each
    game's fingerprints by player count."""

    name: str
    seed: int
    deals: int
    fingerprints: dict[str, dict[str, str]]

    def deal_seed(self, deal: int) -> int:
        """The seed of deal ``deal`` (0-based), the same in every game."""
        if not 0 <= deal < self.deals:
            raise ValueError(f"{self.name} holds deals 0..{self.deals - 1}; asked for {deal}")
        return derived_seed(self.seed, deal)

    def agent_seeds(self, deal: int, seating: int, num_players: int) -> tuple[int, ...]:
        """The seed of the agent in each seat at table ``seating`` of deal ``deal``."""
        return tuple(derived_seed(self.seed, deal, seating, seat) for seat in range(num_players))

    def fingerprint(self, env_name: str, num_players: int) -> str | None:
        """The published fingerprint of the set for this game and count, if any."""
        return self.fingerprints.get(env_name, {}).get(str(num_players))


def derived_seed(*keys: int) -> int:
    """A 32-bit seed drawn from ``keys`` by ``numpy.random.SeedSequence``."""
    return int(np.random.SeedSequence(list(keys)).generate_state(1)[0])


@functools.cache
def load_protocol(name: str = CURRENT) -> Protocol:
    """The published protocol ``name`` (``eval-v1``)."""
    path = DATA / f"{name}.json"
    if not path.exists():
        known = sorted(p.stem for p in DATA.glob("eval-v*.json"))
        raise ValueError(f"unknown protocol {name!r}: published {known}")
    data = json.loads(path.read_text())
    if data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a {FORMAT} file")
    return Protocol(data["name"], int(data["seed"]), int(data["deals"]), data["envs"])


def seatings(num_players: int) -> list[tuple[int, ...]]:
    """The tables of one deal: the agent under test (0) in each seat in turn, the field (1)
    in the others."""
    lineup = (0,) + (1,) * (num_players - 1)
    return [lineup[-shift:] + lineup[:-shift] if shift else lineup for shift in range(num_players)]


def fingerprint(protocol: Protocol, env_name: str, num_players: int) -> str:
    """The SHA-256 of the records of the set's first deals played by random agents: deal,
    every chance outcome and every move."""
    env = make(env_name, num_players=num_players)
    info = env.describe()
    games: list[dict[str, Any]] = []
    for deal in range(FINGERPRINT_DEALS):
        seeds = protocol.agent_seeds(deal, 0, num_players)
        agents = [make_agent("random", info, seed) for seed in seeds]
        deal_streamed(env, protocol.deal_seed(deal))
        actions = []
        for name, observation in decisions(env, observe=lambda a: env.observe(a, derived=False)):
            actions.append(agents[env.possible_agents.index(name)].act(observation))
            env.step(actions[-1])
        games.append({"deal": env.deal_record(), "actions": actions})
    text = json.dumps(games, sort_keys=True, default=_plain)
    return hashlib.sha256(text.encode()).hexdigest()


def published(name: str, seed: int, deals: int) -> dict[str, Any]:
    """The file of a protocol: its seeds and every registered game's fingerprints."""
    protocol = Protocol(name, seed, deals, {})
    envs = {
        env_name: {str(n): fingerprint(protocol, env_name, n) for n in player_counts(env_name)}
        for env_name in env_names()
    }
    return {"format": FORMAT, "name": name, "seed": seed, "deals": deals, "envs": envs}


def _plain(value: Any) -> Any:
    """numpy scalars and arrays in a record, as JSON numbers and lists."""
    return value.tolist() if hasattr(value, "tolist") else str(value)
