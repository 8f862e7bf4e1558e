"""Tables in play: seats of people and agents around one env, and the store that expires them.

A table runs the one play loop (:func:`card_envs.agents.match.decisions`) and plays its agent
seats itself until a person's seat is to act or the game ends. What a seat is sent is built
only from what it may know: its observation's views and its render (:mod:`.views`), its legal
moves when it is to act, and every other seat's move as that seat can tell it
(:func:`card_envs.agents.match.seen_move`). A spectator is sent what every seat sees alike, and
every move as the table saw it (:func:`card_envs.agents.match.public_move`). Bad requests raise
:class:`TableError` before anything changes, so a refused request leaves the table as it was.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Any

import numpy as np

from card_envs.agents import Agent, agent_kinds, make_agent
from card_envs.agents.match import decisions, derived_seed, public_move, seen_move
from card_envs.core.env import CardEnv
from card_envs.core.options import game_title, option_table
from card_envs.registry import env_module, env_names, make, player_counts
from card_envs.server.limits import MAX_TABLES, TTL_SECONDS
from card_envs.server.views import observed_scores, public_view, seat_view
from card_envs.tools.play import action_blocks, parse_move

HUMAN = "human"
MAX_SEED = 2**63 - 1
Observation = dict[str, np.ndarray]


class TableError(Exception):
    """A refused request: ``status`` is the HTTP status, ``args[0]`` the message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def settable_options(name: str) -> dict[str, dict[str, Any]]:
    """The options a request may set, as the game declares them (kind, default, description,
    choices or range): all but those naming files, plus ``reward_mode``; the player count is
    the number of seats."""
    return option_table(env_module(name).raw_env.game_class, settable_only=True)


def games() -> list[dict[str, Any]]:
    """``GET /api/games``: each game's full name, player counts, settable options and agent
    kinds, for the envs registered now (a game registered later is listed too)."""
    return [game_entry(name) for name in env_names()]


@cache
def game_entry(name: str) -> dict[str, Any]:
    """One game's listing (built once: it makes an env per player count)."""
    counts = player_counts(name)
    kinds = {str(n): agent_kinds(make(name, num_players=n).describe()) for n in counts}
    game_class = env_module(name).raw_env.game_class
    return {
        "name": name,
        "title": game_title(game_class),
        "players": list(counts),
        "default_players": game_class.default_players,
        "options": settable_options(name),
        "agents": kinds,
    }


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
    public: list[dict[str, Any]] = field(default_factory=list)  # the spectator's log
    seen_rounds: list[tuple[int, list[float | None]]] = field(default_factory=list)
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
        self.public = []
        self.seen_rounds = self.rounds()
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
        """Play ``action`` for ``seat``, logging it for each person as they can tell it and for
        spectators as the table saw it, and each round's end (the last one's too) with the
        scores each sees."""
        game, state, names = self.env.game, self.env.game_state, self.env.game.actions.names
        before = self.seen_rounds
        for s in self.humans:
            move = names[action] if s == seat else seen_move(game, state, s, action)
            self.logs[s].append({"seat": seat, "move": move})
        self.public.append({"seat": seat, "move": public_move(game, state, action)})
        self.env.step(action)
        self.actions.append(action)
        ended = game.is_over(self.env.game_state)
        now = self.seen_rounds = self.rounds()
        for log, (round_before, _), (round_now, scores) in zip(
            self.all_logs(), before, now, strict=True
        ):
            if round_now > round_before or ended:
                log.append({"round": round_before + 1, "scores": scores})

    def all_logs(self) -> list[list[dict[str, Any]]]:
        """Each person's log, then the spectators'."""
        return [*(self.logs[s] for s in self.humans), self.public]

    def rounds(self) -> list[tuple[int, list[float | None]]]:
        """The round (from 0) and the scores each person's observation shows, then what every
        seat's shows alike (a score they differ on: None)."""
        seen = [self.seen(s) for s in range(len(self.seats))]
        columns = zip(*(scores for _, scores in seen), strict=True)
        shared = [values[0] if len(set(values)) == 1 else None for values in columns]
        return [*(seen[s] for s in self.humans), (min(r for r, _ in seen), shared)]

    def seen(self, seat: int) -> tuple[int, list[float | None]]:
        """The round and the scores ``seat``'s observation shows."""
        info = self.env.describe()
        views = info.obs_spec.views(self.env.encoding.observe(self.env.game_state, seat))
        scores: list[float | None] = list(observed_scores(info.name, views, seat))
        return self.env.game.round_index(self.env.game_state), scores

    @property
    def over(self) -> bool:
        return self.pending is None

    def to_act(self) -> int | None:
        return None if self.pending is None else self.env.possible_agents.index(self.pending[0])

    def act(self, seat: int, action: Any) -> None:
        """A person's move, by id or by name: refused (unchanged) unless it is ``seat``'s turn
        and legal."""
        self.check_seat(seat)
        if self.pending is None:
            raise TableError(409, "the game is over")
        if seat != self.to_act():
            raise TableError(409, f"not player_{seat}'s turn: player_{self.to_act()} is to act")
        action = self.by_name(action) if isinstance(action, str) else action
        mask = self.pending[1]["action_mask"]
        action = whole_number(action, "action", 0, len(mask) - 1)
        if not mask[action]:
            reason = self.env.game.illegal_reason(self.env.game_state, action)
            name = self.env.game.actions.names[action]
            raise TableError(422, f"{name} (id {action}) is not legal now: {reason}")
        self.step(seat, action)
        self.advance()

    def by_name(self, text: str) -> int:
        """The legal move ``text`` names, as ``card-envs play`` reads a typed move (a name, the
        docs' block word, an unambiguous beginning); a number must be sent as a JSON number."""
        if text.strip().lstrip("+-").isdecimal():
            raise TableError(400, f"action {text!r}: send an id as a JSON number, or a move's name")
        game, state = self.env.game, self.env.game_state
        legal = [int(a) for a in np.flatnonzero(self.pending[1]["action_mask"])]  # type: ignore[index]
        reason = partial(game.illegal_reason, state)
        picked = parse_move(text, legal, game.actions.names, reason, action_blocks(game.actions))
        if isinstance(picked, str):
            raise TableError(422 if "is not legal now" in picked else 400, f"action: {picked}")
        return picked

    def spectator_state(self) -> dict[str, Any]:
        """``GET /api/tables/{id}``: what every seat sees alike, and every move as the table
        saw it; the keys of a seat's state, ``seat`` None and no legal moves."""
        return {
            "game": self.env.describe().name,
            "seat": None,
            "seats": self.seats,
            "to_act": self.to_act(),
            "legal": [],
            "view": public_view(self.env),
            "log": self.public,
            "over": self.over,
            "rewards": self.rewards if self.over else None,
            "result": self.result() if self.over else None,
        }

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
    """The seats of a new table: ``human`` or an agent kind of this game, one per player (the
    player count is the number of seats; ``options.num_players``, if sent, must agree)."""
    counts = [str(n) for n in player_counts(name)]
    allowed = counts[0] if len(counts) == 1 else ", ".join(counts[:-1]) + " or " + counts[-1]
    if not isinstance(seats, list) or str(len(seats)) not in counts:
        raise TableError(
            400,
            f"seats must be a list of {allowed} entries for {name} ('human' or an agent kind "
            f"for each player); got {seats!r}",
        )
    if options.get("num_players", len(seats)) != len(seats):
        raise TableError(
            400,
            f"options.num_players is the number of seats ({len(seats)} here): leave it out; got "
            f"{options['num_players']!r}",
        )
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

    def make_room(self) -> None:
        """At the cap, drop the finished table asked about least recently (its record goes with
        it); refused (429) when every table is still being played."""
        if len(self.tables) < self.max_tables:
            return
        finished = [(t.used, i) for i, t in self.tables.items() if t.over]
        if not finished:
            raise TableError(
                429, f"{self.max_tables} tables are in play: try again when one ends or expires"
            )
        del self.tables[min(finished)[1]]

    def create(self, body: Any, deal: Any = None) -> str:
        """A new table's id (``deal``: an injected deal, for tests and replays). The table is
        checked and dealt before room is made for it, so a refused one drops no other."""
        self.expire()
        if len(self.tables) >= self.max_tables and all(not t.over for t in self.tables.values()):
            raise TableError(
                429, f"{self.max_tables} tables are in play: try again when one ends or expires"
            )
        table = new_table(body, self.clock())
        if deal is None:
            table.start()
        else:
            try:
                table.start(deal)
            except (ValueError, TypeError) as error:  # the deal's checks say what was wrong
                raise TableError(400, f"deal: {error}") from None
        self.make_room()
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
