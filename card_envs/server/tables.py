"""Tables in play: seats of people and agents around one env, and the store that expires them.

A table runs the one play loop (:func:`card_envs.agents.match.decisions`) and plays its agent
seats itself until a person's seat is to act or the game ends. What a seat is sent is built
only from what it may know: its observation's views and its render (:mod:`.views`), its legal
moves when it is to act, and every other seat's move as that seat can tell it
(:func:`card_envs.tools.play.seen_move`). Bad requests raise :class:`TableError` before anything
changes, so a refused request leaves the table as it was.
"""

from __future__ import annotations

import inspect
import secrets
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from card_envs.agents import Agent, agent_kinds, make_agent
from card_envs.agents.match import decisions
from card_envs.core.env import REWARD_MODES, CardEnv
from card_envs.registry import env_module, env_names, make, player_counts
from card_envs.server.limits import MAX_TABLES, TTL_SECONDS
from card_envs.server.views import observed_round, observed_scores, seat_view
from card_envs.tools.arena import derived_seed
from card_envs.tools.play import seen_move

HUMAN = "human"
MAX_SEED = 2**63 - 1
Observation = dict[str, np.ndarray]


class TableError(Exception):
    """A refused request: ``status`` is the HTTP status, ``args[0]`` the message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def settable_options(name: str) -> dict[str, Any]:
    """The options a request may set, with their defaults: the game's constructor options but
    those naming files (Sequitur's word and goal lists take paths), plus ``reward_mode``."""
    game_class = env_module(name).raw_env.game_class
    parameters = inspect.signature(game_class.__init__).parameters.values()
    options = {
        p.name: p.default
        for p in parameters
        if p.name not in ("self", "num_players") and "Path" not in str(p.annotation)
    }
    return {**options, "reward_mode": REWARD_MODES[0]}


@cache
def games() -> list[dict[str, Any]]:
    """``GET /api/games``: each game's player counts, settable options and agent kinds."""
    listing = []
    for name in env_names():
        counts = player_counts(name)
        kinds = {str(n): agent_kinds(make(name, num_players=n).describe()) for n in counts}
        options = settable_options(name)
        listing.append(
            {
                "name": name,
                "players": list(counts),
                "default_players": env_module(name).raw_env.game_class.default_players,
                "options": {k: list(v) if isinstance(v, tuple) else v for k, v in options.items()},
                "agents": kinds,
            }
        )
    return listing


def whole_number(value: Any, what: str, low: int, high: int) -> int:
    """``value`` as an int in ``low..high`` (a JSON number without a fraction, not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise TableError(400, f"{what} must be a whole number in {low}..{high}; got {value!r}")
    return value


def field_of(body: Any, key: str, required: bool = True) -> Any:
    if not isinstance(body, Mapping):
        raise TableError(400, f"the body must be a JSON object; got {type(body).__name__}")
    if required and key not in body:
        raise TableError(400, f"missing field {key!r}")
    return body.get(key)


@dataclass
class Table:
    """One game: the env, who sits where, the actions so far and each person's log."""

    env: CardEnv
    seats: list[str]
    agents: dict[int, Agent]
    seed: int
    used: float
    actions: list[int] = field(default_factory=list)
    logs: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    rewards: dict[str, float] = field(default_factory=dict)
    pending: tuple[str, Observation] | None = None  # the person's decision awaited
    turns: Iterator[tuple[str, Observation]] = field(default_factory=lambda: iter(()))

    @property
    def humans(self) -> list[int]:
        return [s for s, kind in enumerate(self.seats) if kind == HUMAN]

    def start(self, deal: Any = None) -> None:
        """Deal (``deal`` as ``reset`` takes it) and play the agents up to a person's turn."""
        self.env.reset(seed=self.seed, options=None if deal is None else {"deal": deal})
        self.logs = {s: [] for s in self.humans}
        self.rewards = dict.fromkeys(self.env.possible_agents, 0.0)
        self.turns = decisions(self.env, self.rewards)
        self.advance()

    def advance(self) -> None:
        """Play agent seats until a person is to act (``pending``) or the game ends."""
        for agent, observation in self.turns:
            seat = self.env.possible_agents.index(agent)
            if seat not in self.agents:
                self.pending = (agent, observation)
                return
            self.step(seat, self.agents[seat].act_at(self.env, observation))
        self.pending = None

    def step(self, seat: int, action: int) -> None:
        """Play ``action`` for ``seat``, logging it for each person as they can tell it, and
        each round's end with the scores they see."""
        game, state, names = self.env.game, self.env.game_state, self.env.game.actions.names
        before = {s: self.seen(s) for s in self.humans}
        for s in self.humans:
            move = names[action] if s == seat else seen_move(game, state, s, action)
            self.logs[s].append({"seat": seat, "move": move})
        self.env.step(action)
        self.actions.append(action)
        for s, (round_before, _) in before.items():
            round_now, scores = self.seen(s)
            if round_now > round_before:
                self.logs[s].append({"round": round_before + 1, "scores": scores})

    def seen(self, seat: int) -> tuple[int, list[float]]:
        """The round and the scores ``seat``'s observation shows."""
        info = self.env.describe()
        views = info.obs_spec.views(self.env.encoding.observe(self.env.game_state, seat))
        return observed_round(info.name, views), observed_scores(info.name, views, seat)

    @property
    def over(self) -> bool:
        return self.pending is None

    def to_act(self) -> int | None:
        return None if self.pending is None else self.env.possible_agents.index(self.pending[0])

    def act(self, seat: int, action: int) -> None:
        """A person's move: refused (unchanged) unless it is ``seat``'s turn and legal."""
        self.check_seat(seat)
        if self.pending is None:
            raise TableError(409, "the game is over")
        if seat != self.to_act():
            raise TableError(409, f"not player_{seat}'s turn: player_{self.to_act()} is to act")
        mask = self.pending[1]["action_mask"]
        action = whole_number(action, "action", 0, len(mask) - 1)
        if not mask[action]:
            reason = self.env.game.illegal_reason(self.env.game_state, action)
            name = self.env.game.actions.names[action]
            raise TableError(422, f"{name} (id {action}) is not legal now: {reason}")
        self.step(seat, action)
        self.advance()

    def check_seat(self, seat: Any) -> int:
        """``seat`` as a person's seat at this table, or a refusal saying why not."""
        seat = whole_number(seat, "seat", 0, len(self.seats) - 1)
        if self.seats[seat] != HUMAN:
            raise TableError(403, f"seat {seat} is played by the {self.seats[seat]} agent")
        return seat

    def state_for(self, seat: int) -> dict[str, Any]:
        """``GET /api/tables/{id}?seat=k``: what seat ``k`` may know, and its moves if to act."""
        names = self.env.game.actions.names
        legal = []
        if self.pending is not None and self.to_act() == seat:
            legal = [
                {"id": int(a), "name": names[a]}
                for a in np.flatnonzero(self.pending[1]["action_mask"])
            ]
        return {
            "game": self.env.describe().name,
            "seat": seat,
            "seats": self.seats,
            "to_act": self.to_act(),
            "legal": legal,
            "view": seat_view(self.env, seat),
            "log": self.logs[seat],
            "over": self.over,
            "rewards": self.rewards if self.over else None,
            "result": self.result() if self.over else None,
        }

    def result(self) -> dict[str, Any]:
        """The end: final scores (public once the game is over), winners, or a truncation."""
        game, state = self.env.game, self.env.game_state
        finished = game.is_over(state)
        return {
            "scores": [float(s) for s in game.scores(state)],
            "winners": list(game.winners(state)) if finished else [],
            "truncated": not finished,
        }


def parse_seats(name: str, seats: Any, options: dict[str, Any]) -> list[str]:
    """The seats of a new table: ``human`` or an agent kind of this game, one per player."""
    counts = player_counts(name)
    if not isinstance(seats, list) or len(seats) not in counts:
        raise TableError(400, f"seats must be a list of {counts} entries for {name}; got {seats!r}")
    if options.get("num_players", len(seats)) != len(seats):
        raise TableError(400, f"options.num_players {options['num_players']!r} != len(seats)")
    return seats


def parse_options(name: str, options: Any) -> dict[str, Any]:
    """The options of a new table: only those :func:`settable_options` lists."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TableError(400, f"options must be an object; got {options!r}")
    allowed = [*settable_options(name), "num_players"]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TableError(400, f"options {unknown} cannot be set for {name}; allowed: {allowed}")
    return {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}


def new_table(body: Any, now: float) -> Table:
    """A table from ``POST /api/tables``'s body, dealt and played up to a person's turn."""
    name = field_of(body, "game")
    if name not in env_names():
        raise TableError(400, f"unknown game {name!r}; games: {env_names()}")
    options = parse_options(name, field_of(body, "options", required=False))
    seats = parse_seats(name, field_of(body, "seats"), options)
    seed = field_of(body, "seed", required=False)
    seed = secrets.randbelow(2**32) if seed is None else whole_number(seed, "seed", 0, MAX_SEED)
    try:
        env = make(name, **{**options, "num_players": len(seats)})
    except (ValueError, TypeError) as error:
        raise TableError(400, str(error)) from None
    info = env.describe()
    kinds = agent_kinds(info)
    wrong = [kind for kind in seats if kind != HUMAN and kind not in kinds]
    if wrong:
        raise TableError(400, f"unknown seat kinds {wrong}: use 'human' or one of {kinds}")
    try:
        agents = {
            s: make_agent(kind, info, derived_seed(seed, s))
            for s, kind in enumerate(seats)
            if kind != HUMAN
        }
    except ValueError as error:  # an agent that cannot play these options (a trained size)
        raise TableError(400, str(error)) from None
    return Table(env, list(seats), agents, seed, now)


class TableStore:
    """The tables in play by unguessable id; idle ones expire after ``ttl`` seconds of the
    ``clock``, and at most ``max_tables`` exist."""

    def __init__(
        self,
        ttl: float = TTL_SECONDS,
        max_tables: int = MAX_TABLES,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.ttl, self.max_tables, self.clock = ttl, max_tables, clock
        self.tables: dict[str, Table] = {}

    def expire(self) -> None:
        now = self.clock()
        for table_id in [i for i, t in self.tables.items() if now - t.used > self.ttl]:
            del self.tables[table_id]

    def create(self, body: Any, deal: Any = None) -> str:
        """A new table's id (``deal``: an injected deal, for tests and replays)."""
        self.expire()
        if len(self.tables) >= self.max_tables:
            raise TableError(429, f"{self.max_tables} tables are open: try again when one expires")
        table = new_table(body, self.clock())
        if deal is None:
            table.start()
        else:
            try:
                table.start(deal)
            except (ValueError, TypeError) as error:  # the deal's checks say what was wrong
                raise TableError(400, f"deal: {error}") from None
        table_id = secrets.token_urlsafe(16)
        self.tables[table_id] = table
        return table_id

    def get(self, table_id: str) -> Table:
        """The table, its idle clock restarted; 404 for an unknown or expired id."""
        self.expire()
        table = self.tables.get(table_id)
        if table is None:
            raise TableError(404, "no such table (unknown id, or it expired)")
        table.used = self.clock()
        return table
