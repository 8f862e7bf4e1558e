"""Many tables of one game stepped together on the Game contract, with arrays in and out.

Each table is a game state, its generator and its action history; the outputs (observation of
the seat to act, mask, seat, rewards, ends) are rows of arrays made once. A table whose game ends
is dealt its next game in the same call. Game ``k`` (counting from 0) of table ``i`` is dealt
from ``np.random.default_rng(seed + i + k * num_envs)``: the deal an AEC env makes on
``reset(seed=seed + i + k * num_envs)``, so the first game of table ``i`` is the AEC env's after
``reset(seed=seed + i)``, and no two games of a run share a seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from card_envs.core.env import CardEnv, EnvInfo
from card_envs.core.errors import IllegalActionError
from card_envs.core.game import Encoding, FlatEncoding, Game, check_int_option, win_rewards
from card_envs.core.spec import OBS_DTYPE
from card_envs.records import record_game
from card_envs.registry import make

# How a step ended a table's game (the second item ``CardVectorEnv.apply`` returns).
PLAYING, TERMINATED, TRUNCATED = 0, 1, 2


class CardVectorEnv:
    """``num_envs`` tables of one registered environment (``card_envs.vector.make``).

    The arrays ``reset`` and ``step`` return are this object's buffers, rewritten in
    place by the next call: copy what you keep. Read them between calls as ``observations``
    (``(num_envs, D)`` float32), ``masks`` (``(num_envs, A)`` bool) and
    ``current_player`` (``(num_envs,)`` int64). docs/vector.md has the whole contract.
    """

    def __init__(self, env_id: str, num_envs: int, *, seed: int | None = None, **options: Any):
        # The AEC env checks the options exactly as card_envs.make does, and writes records.
        recorder: CardEnv = make(env_id, **options).unwrapped
        self._recorder = recorder
        self.env_id = env_id
        self.game: Game = recorder.game
        self.encoding: Encoding = recorder.encoding
        self.num_envs: int = check_int_option("num_envs", num_envs, 1)
        self.num_players: int = self.game.num_players
        self.num_actions: int = self.game.actions.size
        self.obs_size: int = self.encoding.spec.size
        self.score_mode: bool = recorder.reward_mode == "score"
        n, size = self.num_envs, self.obs_size
        self.observations = np.zeros((n, size), OBS_DTYPE)
        self.masks = np.zeros((n, self.num_actions), bool)
        self.current_player = np.zeros(n, np.int64)
        self.rewards = np.zeros((n, self.num_players), np.float32)
        self.terminated = np.zeros(n, bool)
        self.truncated = np.zeros(n, bool)
        self.ended = np.zeros(n, bool)
        self.final_scores = np.full((n, self.num_players), np.nan)
        self.final_winners = np.zeros((n, self.num_players), bool)
        self._obs = {"observation": self.observations, "action_mask": self.masks}
        self._info = {
            "current_player": self.current_player,
            "final_scores": self.final_scores,
            "_final_scores": self.ended,
            "final_winners": self.final_winners,
            "_final_winners": self.ended,
        }
        # each row's bytes, for Game.write_legal_mask: a compiled mask is written there, and any
        # other copies in through the memoryview, three times faster than numpy's row assignment
        self._mask_rows: list[Any] = [row.data for row in self.masks.view(np.int8)]
        self._rows = np.arange(n)
        # How an observation gets into its row (a float32 memoryview): a FlatEncoding writes
        # into the row, zeroed first unless it writes every entry (its observe is that write
        # into a fresh vector, or a faster way to the same vector); any other encoding's vector
        # is copied in.
        self._obs_rows: list[Any] = [row.data for row in self.observations]
        self._zero_row = cast("memoryview[float]", np.zeros(size, OBS_DTYPE).data)
        # each table's live game state, to read (render, a search agent), never to replace
        self.states: list[Any] = [None] * n
        self._rngs: list[Any] = [None] * n
        self._actions: list[list[int]] = [[] for _ in range(n)]
        self._scores: list[list[float]] = [[] for _ in range(n)]
        self._seeds: list[int] = [0] * n  # the seed each table's current game was dealt from
        self._games = [0] * n  # how many games each table has been dealt by the seed rule
        self._last: list[tuple[Any, list[int], int] | None] = [None] * n
        self.seed = self._base_seed(seed)

    # -- the public cycle ---------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal every table: game 0 of the seed rule from ``seed``; without one, each table's
        next game (the first ``reset`` of an env made without a seed draws a fresh seed)."""
        if seed is not None or not self.started:
            self.seed = self._base_seed(seed if seed is not None else self.seed)
            self._games = [0] * self.num_envs
        self._clear_step()
        for i in range(self.num_envs):
            self._deal(i, self._next_seed(i))
            self.observe_row(i)
        return self._obs, {"current_player": self.current_player}

    def step(
        self, actions: Any
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action per table, all checked before any table moves; a finished table is dealt
        its next game, whose first observation is in its row. The loop is ``apply`` and
        ``observe_row`` written out, with the rules' methods bound once a call."""
        checked = self.checked_actions(actions)
        self._clear_step()
        game, states, rngs, history = self.game, self.states, self._rngs, self._actions
        apply, is_over, is_truncated = game.apply, game.is_over, game.is_truncated
        current_player, write_mask = game.current_player, game.write_legal_mask
        masks, rewards, score_mode = self._mask_rows, self.rewards, self.score_mode
        rows, encoding = self._obs_rows, self.encoding
        write = encoding.write if isinstance(encoding, FlatEncoding) else None
        if isinstance(encoding, FlatEncoding) and not encoding.writes_every_entry:
            self.observations.fill(0)  # every row is written below: one memset zeroes them all
        observe = encoding.observe
        seats = []
        for i, action in enumerate(checked):
            state = states[i]
            apply(state, action, rngs[i])
            history[i].append(action)
            if score_mode:
                deltas = self._score_deltas(i, state)
                if deltas is not None:
                    rewards[i] = deltas
            if is_over(state) or is_truncated(state):
                self._end_step(i)
                state = states[i]
            seat = current_player(state)
            seats.append(seat)
            write_mask(state, masks[i])
            if write is not None:
                write(state, seat, rows[i])
            else:
                rows[i][:] = observe(state, seat)
        self.current_player[:] = seats
        return self._obs, rewards, self.terminated, self.truncated, self._info

    def reset_table(self, index: int, seed: int | None = None) -> None:
        """Deal table ``index`` a new game (its in-progress game is dropped): from ``seed`` if
        given (the seed rule's count is left alone), else the table's next game by the rule.
        Its rows show the new game; the step outputs are untouched."""
        i = self._table(index)
        self._deal(i, self._next_seed(i) if seed is None else self._checked_seed(seed))
        self.observe_row(i)

    def record(self, index: int, agents: Sequence[str] | None = None) -> dict[str, Any]:
        """The ``card-envs.game/1`` record (docs/records.md) of table ``index``'s last finished
        game, ``agents`` naming who played each seat (default ``"unknown"``)."""
        last = self._last[self._table(index)]
        if last is None:
            raise RuntimeError(f"table {index} has not finished a game yet")
        state, actions, seed = last
        seats = list(agents) if agents is not None else ["unknown"] * self.num_players
        recorder = self._recorder
        recorder.game_state = state
        try:
            return record_game(recorder, actions, seats, seed)
        finally:
            recorder.game_state = None

    @property
    def started(self) -> bool:
        """Whether ``reset`` has dealt the tables."""
        return self.states[0] is not None

    def describe(self) -> EnvInfo:
        """What an agent is built from (``card_envs.agents.make_agent(kind, info)``)."""
        return self._recorder.describe()

    # -- one table, for the loops built on this one -------------------------------------------
    def apply(self, i: int, action: int) -> tuple[list[float] | None, int]:
        """Play a legal ``action`` at table ``i``: every seat's reward for it (``None`` when
        all are 0) and how it ended the game (``PLAYING``, ``TERMINATED``, ``TRUNCATED``). An
        ended table is dealt its next game; ``last_game`` holds the ended one. The rows are
        left to ``observe_row``."""
        state = self.states[i]
        self.game.apply(state, action, self._rngs[i])
        self._actions[i].append(action)
        deltas = self._score_deltas(i, state) if self.score_mode else None
        end = self._end_of(state)
        if end != PLAYING:
            if end == TERMINATED and not self.score_mode:
                deltas = win_rewards(self.game.winners(state), self.num_players)
            self._next_game(i)
        return deltas, end

    def observe_row(self, i: int) -> int:
        """Table ``i``'s seat to act, its mask and its observation into row ``i``; the seat."""
        game, state = self.game, self.states[i]
        seat = game.current_player(state)
        self.current_player[i] = seat
        game.write_legal_mask(state, self._mask_rows[i])
        row, encoding = self._obs_rows[i], self.encoding
        if isinstance(encoding, FlatEncoding):
            if not encoding.writes_every_entry:
                row[:] = self._zero_row
            encoding.write(state, seat, row)
        else:
            row[:] = encoding.observe(state, seat)
        return seat

    def table_seed(self, i: int) -> int:
        """The seed table ``i``'s current game was dealt from."""
        return self._seeds[i]

    def last_game(self, i: int) -> Any:
        """The final state of table ``i``'s last finished game (``None`` before one ends)."""
        last = self._last[i]
        return None if last is None else last[0]

    def checked_actions(self, actions: Any) -> list[int]:
        """``actions`` as a list of ints, or the error of the first table whose action is not
        legal (``IllegalActionError`` naming the table, the seat and the rules' reason)."""
        if not self.started:
            raise RuntimeError("call reset() before step()")
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {array.shape}")
        if array.dtype.kind not in "iu":
            raise TypeError(f"actions must be integer ids, got dtype {array.dtype}")
        in_range = (array >= 0) & (array < self.num_actions)
        legal = in_range & self.masks[self._rows, np.where(in_range, array, 0)]
        if not legal.all():
            raise self._illegal(int(np.flatnonzero(~legal)[0]), int(array[~legal][0]))
        return array.tolist()

    # -- internals ----------------------------------------------------------------------------
    def _illegal(self, i: int, action: int) -> IllegalActionError:
        game, state = self.game, self.states[i]
        seat = int(self.current_player[i])
        reason = game.illegal_reason(state, action) or "not legal now"
        names = game.actions.names
        name = f" ({names[action]})" if 0 <= action < len(names) else ""
        return IllegalActionError(
            f"table {i}: player_{seat} cannot play {action}{name}: {reason}; no table moved"
        )

    def _score_deltas(self, i: int, state: Any) -> list[float] | None:
        """``reward_mode="score"``: each seat's score change since table ``i``'s last step."""
        scores, before = list(self.game.scores(state)), self._scores[i]
        if scores == before:
            return None
        self._scores[i] = scores
        return [float(new - old) for new, old in zip(scores, before, strict=True)]

    def _end_of(self, state: Any) -> int:
        if self.game.is_over(state):
            return TERMINATED
        return TRUNCATED if self.game.is_truncated(state) else PLAYING

    def _end_step(self, i: int) -> None:
        """In ``step``: table ``i``'s game has ended; its outcome into the outputs, then
        its next game."""
        game, final = self.game, self.states[i]
        end = self._end_of(final)
        self.ended[i] = True
        self.final_scores[i] = game.scores(final)
        if end == TERMINATED:
            self.terminated[i] = True
            winners = game.winners(final)
            self.final_winners[i, winners] = True
            if not self.score_mode:
                self.rewards[i] = win_rewards(winners, self.num_players)
        else:
            self.truncated[i] = True
        self._next_game(i)

    def _next_game(self, i: int) -> None:
        """Keep table ``i``'s ended game for ``record`` and deal its next one."""
        self._last[i] = (self.states[i], self._actions[i], self._seeds[i])
        self._deal(i, self._next_seed(i))

    def _deal(self, i: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        state = self.game.new_game(rng)
        self.states[i], self._rngs[i], self._seeds[i], self._actions[i] = state, rng, seed, []
        if self.score_mode:
            self._scores[i] = list(self.game.scores(state))

    def _next_seed(self, i: int) -> int:
        """The seed rule: game ``k`` of table ``i`` is dealt from ``seed + i + k * num_envs``."""
        k = self._games[i]
        self._games[i] = k + 1
        return self.seed + i + k * self.num_envs

    def _clear_step(self) -> None:
        self.rewards.fill(0)
        self.terminated.fill(False)
        self.truncated.fill(False)
        self.ended.fill(False)
        self.final_scores.fill(np.nan)
        self.final_winners.fill(False)

    def _table(self, index: Any) -> int:
        if isinstance(index, bool) or not isinstance(index, int | np.integer):
            raise TypeError(f"a table index is an integer, got {index!r}")
        if not 0 <= index < self.num_envs:
            raise IndexError(f"table {index} out of range: tables are 0..{self.num_envs - 1}")
        if not self.started:
            raise RuntimeError("call reset() before using a table")
        return int(index)

    @staticmethod
    def _checked_seed(seed: Any) -> int:
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"seed must be an integer >= 0 or None, got {seed!r}")
        return int(seed)

    @classmethod
    def _base_seed(cls, seed: int | None) -> int:
        """``seed`` checked, or a fresh one from the system's entropy."""
        if seed is None:
            return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
        return cls._checked_seed(seed)
