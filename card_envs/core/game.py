"""The contract between a game's rules, its encoding and the shared AEC environment.

A game is a plain-Python object (no Gymnasium or PettingZoo) whose state is a plain data
object: ``new_game`` builds one from a seeded generator (or an injected deal) and ``apply``
advances it by one action. The rules decide who acts next, so out-of-turn reactions and
seat-ordered simultaneous steps need no special case in the environment.
"""

from __future__ import annotations

import copy
import pickle
from abc import ABC, abstractmethod
from collections.abc import Collection, Sequence
from typing import Any, ClassVar, Generic, TypeVar, cast

import numpy as np

from card_envs.core.chance import ChanceLog
from card_envs.core.spec import OBS_DTYPE, ActionSpec, ObsSpec

State = TypeVar("State")


# The largest round count an option may ask for: rounds size observation pieces (one slot per
# round) and the step bound, so an unbounded value could exhaust memory before play begins.
ROUNDS_LIMIT = 1_000


def _same_kind(value: Any, allowed: Any) -> bool:
    """Whether ``value`` may equal ``allowed``: ``1 == True == 1.0`` in Python, but a bool only
    matches a bool and an integer only a Python or numpy integer (never a float or a bool)."""
    if isinstance(allowed, bool) or isinstance(value, bool):
        return isinstance(allowed, bool) and isinstance(value, bool)
    if isinstance(allowed, int):
        return isinstance(value, int | np.integer)
    return True


def check_option(name: str, value: Any, allowed: Collection[Any]) -> None:
    """Raise a ``ValueError`` naming the option and its allowed values unless ``value`` is one."""
    try:
        ok = any(_same_kind(value, a) and bool(value == a) for a in allowed)
    except (TypeError, ValueError):  # e.g. an array, whose == is elementwise
        ok = False
    if not ok:
        raise ValueError(f"{name}={value!r} is not allowed; choose one of {list(allowed)!r}")


def check_int_option(name: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as an ``int`` in ``[low, high]`` (a Python or numpy integer, not a bool or a
    float), or a ``ValueError`` naming the option and the range."""
    top = "" if high is None else f", at most {high}"
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer >= {low}{top}; got {value!r}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be an integer >= {low}{top}; got {value!r}")
    return int(value)


class Game(ABC, Generic[State]):
    """Rules of one game for a fixed configuration."""

    name: ClassVar[str]
    player_counts: ClassVar[tuple[int, ...]]
    default_players: ClassVar[int]

    def __init__(self, num_players: int):
        check_option("num_players", num_players, self.player_counts)
        self.num_players = int(num_players)

    # -- configuration facts ------------------------------------------------------------------
    @property
    @abstractmethod
    def actions(self) -> ActionSpec:
        """The action-id table."""

    @property
    @abstractmethod
    def max_steps(self) -> int:
        """An upper bound on the number of actions in one game."""

    # -- transitions --------------------------------------------------------------------------
    @abstractmethod
    def new_game(self, rng: np.random.Generator, deal: Any = None) -> State:
        """A fresh game, dealt from ``rng`` or from the injected ``deal``."""

    @abstractmethod
    def current_player(self, state: State) -> int:
        """The seat to act now (meaningless once the game is over)."""

    @abstractmethod
    def legal_actions(self, state: State) -> list[int]:
        """Generator of the legal action ids for the player to act, ascending."""

    def illegal_reason(self, state: State, action: int) -> str | None:
        """Why ``action`` is illegal now, or ``None`` if it is legal.

        The checks every game shares (the game is over, the id is out of range) are made here;
        the game's own rules are [`rule_violation`][], written independently of
        ``legal_actions`` (a detector, not a lookup), so the two can be tested against each
        other."""
        if self.is_over(state) or self.is_truncated(state):
            return "the game is over"
        if not 0 <= action < self.actions.size:
            return f"no such action (ids 0..{self.actions.size - 1})"
        block, index = self.actions.decode(action)
        return self.rule_violation(state, block, index)

    @abstractmethod
    def rule_violation(self, state: State, block: str, index: int) -> str | None:
        """Why the ``index``-th action of ``block`` breaks the rules now, or ``None``."""

    @abstractmethod
    def apply(self, state: State, action: int, rng: np.random.Generator) -> None:
        """Advance ``state`` in place by a legal ``action``."""

    @abstractmethod
    def is_over(self, state: State) -> bool:
        """True once the game has ended by its rules."""

    def is_truncated(self, state: State) -> bool:
        """True when a cap (not the rules) stopped the game."""
        return False

    @abstractmethod
    def scores(self, state: State) -> Sequence[float]:
        """Each seat's game score so far (the ``reward_mode="score"`` reward is its change)."""

    @abstractmethod
    def winners(self, state: State) -> list[int]:
        """The seats that won a finished game (several on a shared win)."""

    # -- helpers with defaults ----------------------------------------------------------------
    def legal_mask(self, state: State) -> np.ndarray:
        """``int8`` mask of length ``actions.size`` for the player to act. Set byte by byte in a
        ``bytearray`` that numpy then wraps without a copy: for a handful of legal ids that is
        about half the cost of zeroing an array and converting the id list to index it."""
        mask = bytearray(self.actions.size)
        for action in self.legal_actions(state):
            mask[action] = 1
        return np.frombuffer(mask, np.int8)

    def write_legal_mask(self, state: State, out: memoryview[Any]) -> None:
        """:meth:`legal_mask` in the ``actions.size`` bytes of ``out`` (a vector env's mask row).
        A game with a compiled mask writes it there without making an array; this copies."""
        out[:] = self.legal_mask(state).data

    def clone(self, state: State) -> State:
        """A copy sharing nothing mutable with ``state``. States are plain data, for which a
        pickle round trip builds what ``copy.deepcopy`` builds (shared references included) at
        a quarter to a half of its cost: every search iteration starts with one."""
        return pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))

    def clone_without_chance(self, state: State) -> State:
        """A copy of ``state`` whose chance log starts empty, what a determinisation starts
        from (the log shows the true deal, its script the future). The log is never copied:
        late in a game it is most of the state (half of a Catastrophic Card Game's copy)."""
        shallow = cast(Any, copy.copy(state))
        shallow.chance = ChanceLog()
        return self.clone(shallow)

    @abstractmethod
    def render(self, state: State) -> str:
        """The whole table as text (for ``render_mode="ansi"``; shows hidden cards)."""

    @abstractmethod
    def render_seat(self, state: State, seat: int) -> str:
        """The table as ``seat`` may see it (for human play): nothing hidden from that seat."""

    def check_invariants(self, state: State) -> None:
        """Raise ``AssertionError`` if the state breaks a conservation law of the game."""

    @abstractmethod
    def deal_record(self, state: State) -> dict[str, Any]:
        """Every chance outcome of the game so far as a deal (``{"chance": {event: [...]}}`` and
        any setup keys): ``new_game(rng, deal_record(state))`` followed by the same actions
        replays the game, whatever ``rng``."""

    # -- what the generic layers ask of a game, with defaults ---------------------------------
    # Whether scores move within a round (each claim scores at once) rather than only when a
    # round is scored: a search's playout to the round's horizon then watches the round index.
    scores_move_within_round: ClassVar[bool] = False

    def round_index(self, state: State) -> int:
        """The round being played, 0 for the first (a one-round game is always in round 0)."""
        return 0

    def projected_scores(self, state: State) -> list[float]:
        """Each seat's score if the round ended now: what a playout cut off mid-round values.
        By default the scores as they stand (a game whose round end moves them predictably,
        such as a cost per card held, says so here)."""
        return [float(score) for score in self.scores(state)]

    def resample_hidden(self, state: State, observer: int, rng: np.random.Generator) -> State:
        """A copy of ``state`` with what ``observer`` cannot see redrawn consistently."""
        raise NotImplementedError


class Encoding(ABC, Generic[State]):
    """Turns a state and an observer seat into the observation vector (seat-relative)."""

    def __init__(self, game: Game[State]):
        self.game = game
        self.spec = self.build_spec()
        self._scratch = self.spec.new()

    def __getstate__(self) -> dict[str, Any]:
        """Without the scratch buffer: copying it would turn its views into separate arrays,
        and a copied encoding would fill views that are not its buffer (all-zero observations)."""
        state = self.__dict__.copy()
        del state["_scratch"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._scratch = self.spec.new()

    @abstractmethod
    def build_spec(self) -> ObsSpec:
        """The observation pieces for this game's configuration."""

    @abstractmethod
    def encode(self, state: State, seat: int, views: dict[str, np.ndarray]) -> None:
        """Fill the zeroed ``views`` with what ``seat`` may know."""

    def observe(self, state: State, seat: int) -> np.ndarray:
        """A fresh vector, encoded in one reused scratch buffer (views are built once)."""
        buffer, views = self._scratch
        buffer.fill(0)
        self.encode(state, seat, views)
        return buffer.copy()

    def observe_underived(self, state: State, seat: int) -> np.ndarray:
        """[`observe`][] with the pieces derived from the rest for networks left at 0
        (``sequitur_v1``'s ``action_values``, which costs most of its observation): what a
        scripted agent that never reads them needs. Where nothing is derived, [`observe`][]."""
        return self.observe(state, seat)


class SparseEncoding(Encoding[State]):
    """An encoding for hot paths: list the non-zero entries by flat index and write them with
    one numpy call, instead of filling many small views (each index at most once)."""

    @abstractmethod
    def entries(self, state: State, seat: int) -> tuple[list[int], list[float]]:
        """Flat indices (``self.spec.offsets[piece] + i``) and values of the non-zero entries."""

    def observe(self, state: State, seat: int) -> np.ndarray:
        buffer = np.zeros(self.spec.size, OBS_DTYPE)
        index, value = self.entries(state, seat)
        buffer[index] = value
        return buffer

    def encode(self, state: State, seat: int, views: dict[str, np.ndarray]) -> None:
        _fill_views(self.spec, self.observe(state, seat), views)


class FlatEncoding(Encoding[State]):
    """An encoding for the hottest paths: ``write`` sets the non-zero entries of a fresh zeroed
    vector by flat index (``self.spec.offsets[piece] + i``) through a ``float32`` memoryview,
    about 30 ns a write, where a numpy item write costs 150 ns and an index list must first be
    converted. Write floats (``1.0``): a memoryview converts an int more slowly."""

    # True when ``write`` sets every entry of ``out``, zeros included, so ``out`` need not be
    # zeroed first. A large vector is best zeroed just before it is written, while it is in
    # cache: a vector env's one memset of all its rows is a second pass over memory.
    writes_every_entry: ClassVar[bool] = False

    @abstractmethod
    def write(self, state: State, seat: int, out: memoryview[float]) -> None:
        """Set what ``seat`` may know in ``out``, zeroed unless :attr:`writes_every_entry`
        (each entry at most once)."""

    def observe(self, state: State, seat: int) -> np.ndarray:
        buffer = (np.empty if self.writes_every_entry else np.zeros)(self.spec.size, OBS_DTYPE)
        self.write(state, seat, cast("memoryview[float]", buffer.data))  # format "f"
        return buffer

    def encode(self, state: State, seat: int, views: dict[str, np.ndarray]) -> None:
        _fill_views(self.spec, self.observe(state, seat), views)


def _fill_views(spec: ObsSpec, flat: np.ndarray, views: dict[str, np.ndarray]) -> None:
    """Copy a flat observation into the named ``views`` of another buffer."""
    for piece in spec.pieces:
        start = spec.offsets[piece.name]
        views[piece.name][...] = flat[start : start + piece.size].reshape(piece.shape)


def win_rewards(winners: Sequence[int], num_players: int) -> list[float]:
    """Zero-sum terminal rewards: winners share +1, losers share -1; all tied get 0."""
    rewards = [0.0] * num_players
    if 0 < len(winners) < num_players:
        losers = num_players - len(winners)
        rewards = [-1.0 / losers] * num_players
        for seat in winners:
            rewards[seat] = 1.0 / len(winners)
    return rewards
