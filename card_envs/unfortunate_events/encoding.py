"""Catastrophic Card Game observation: what one seat may know, seat-relative (0 = observer).

Public: every laid set (each one, not just their cards), the whole discard pile (all of it was
seen face up), hand sizes, owed sets, Victory cards, the pending attack, the last attack of the
round (kind, attacker, target, set chosen to burn, whether Snicket cancelled it), and the cards
each hand is publicly known to hold.
Private: my hand, and each hand Olaf's Eye showed me this round, as it was then.
Never observed: other hands beyond what is public, and the pile's order or contents.

:meth:`UnfortunateEventsEncoding.observe_reference` is the reference; the compiled
``_encoding.pyx`` writes the same vector, and is used when it is importable and
``CARD_ENVS_PURE_PYTHON=1`` is not set (:data:`OBSERVER`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar, cast

import numpy as np

from card_envs.core.game import FlatEncoding
from card_envs.core.kernels import compiled
from card_envs.core.spec import OBS_DTYPE, ObsSpec, Piece
from card_envs.unfortunate_events.rules.cards import (
    ATTACKS,
    DECK_SIZE,
    KIND_NAMES,
    NUM_KINDS,
    NUM_SETS,
    SETS,
    SIZE_BASE,
    VICTORY_CARDS,
)
from card_envs.unfortunate_events.rules.game import UnfortunateEventsGame
from card_envs.unfortunate_events.rules.state import NONE, PHASE_NAMES, UnfortunateEventsState

if TYPE_CHECKING:
    from card_envs.unfortunate_events._encoding import Observer

OBSERVER: type[Observer] | None = compiled("card_envs.unfortunate_events._encoding", "Observer")

SEAT_FEATURES = (
    "cards in hand",
    "3-sets owed",
    "4-sets owed",
    "Victory cards",
    "1 if it is this seat's turn",
    "1 if this seat dealt",
    "1 if this seat is the target of the pending attack",
    "1 if Olaf's Eye showed me this hand this round",
    "sets on the table",
    "1 if this seat made the round's last attack",
    "1 if this seat was the target of the round's last attack",
)
MAX_COPIES = 7  # the most copies of one kind
NUM_SETS3 = SIZE_BASE[4]  # 3-set types come first in the set table
LAID_CACHE_LIMIT = 4096  # laid-set pieces kept by the reference before its cache is cleared


class UnfortunateEventsEncoding(FlatEncoding[UnfortunateEventsState]):
    game: UnfortunateEventsGame

    def __init__(self, game: UnfortunateEventsGame):
        super().__init__(game)
        # laid3 and laid4 in absolute seat order by the laid sets they show (the reference's).
        self._laid: dict[tuple[tuple[int, ...], ...], tuple[bytes, bytes]] = {}
        size, offsets = self.spec.size, self.spec.offsets
        self._observer = None if OBSERVER is None else OBSERVER(game.num_players, size, offsets)

    def build_spec(self) -> ObsSpec:
        n, k = self.game.num_players, NUM_KINDS
        kinds = "by kind (0-11 characters colour*3+i, 12-15 colour wilds, 16-20 specials)"
        return ObsSpec(
            [
                Piece("hand", (k,), f"my cards, counts {kinds}", high=MAX_COPIES),
                Piece("phase", (len(PHASE_NAMES),), "one-hot: " + ", ".join(PHASE_NAMES)),
                Piece(
                    "seats",
                    (n, len(SEAT_FEATURES)),
                    "per relative seat: " + "; ".join(SEAT_FEATURES),
                    high=DECK_SIZE,
                ),
                Piece(
                    "laid3",
                    (n, NUM_SETS3),
                    "3-sets each relative seat has on the table, counts by set type (lay ids' "
                    "order)",
                    high=MAX_COPIES,
                ),
                Piece(
                    "laid4",
                    (n, k),
                    "cards of the 4-set each relative seat has on the table (at most one; its "
                    "cards name its type)",
                    high=4,
                ),
                Piece(
                    "known",
                    (n, k),
                    "cards each relative seat is publicly known to hold (taken from the "
                    "discard, or asked for a Snicket), a lower bound",
                    high=MAX_COPIES,
                ),
                Piece(
                    "seen",
                    (n, k),
                    "each relative seat's hand as Olaf's Eye showed it to me (as of then)",
                    high=MAX_COPIES,
                ),
                Piece("discard_top", (k,), "one-hot kind of the discard's face-up top card"),
                Piece("discard", (k,), "cards in the discard pile by kind", high=MAX_COPIES),
                Piece(
                    "pending",
                    (len(ATTACKS),),
                    "one-hot attack being resolved: " + ", ".join(KIND_NAMES[a] for a in ATTACKS),
                ),
                Piece("burn_set", (k,), "cards of the set chosen to burn", high=4),
                Piece(
                    "last_attack",
                    (len(ATTACKS),),
                    "one-hot kind of the round's last resolved or cancelled attack (its "
                    "attacker and target are flagged in seats)",
                ),
                Piece(
                    "last_burn_set",
                    (k,),
                    "cards of the set that last attack chose to burn (if a Burning House)",
                    high=4,
                ),
                Piece("last_cancelled", (1,), "1 if Lemony Snicket cancelled that attack"),
                Piece("pile", (1,), "cards in the draw pile", high=DECK_SIZE),
                Piece("centre", (1,), "Victory cards in the centre", high=VICTORY_CARDS),
                Piece("turn", (1,), "turns finished this round", high=self.game.turn_cap),
                Piece("round", (1,), "rounds finished", high=self.game.max_rounds),
            ]
        )

    def write(self, state: UnfortunateEventsState, seat: int, out: memoryview[float]) -> None:
        """The compiled writer where it is in use, else the reference's vector copied in."""
        if self._observer is not None:
            self._observer.write(state, seat, out)
        else:
            out[:] = cast("memoryview[float]", self.observe_reference(state, seat).data)

    def observe_reference(self, state: UnfortunateEventsState, seat: int) -> np.ndarray:
        """The observation in Python, the compiled writer's spec and fallback. Every value is
        a small count: a ``bytearray`` builds the vector several times faster than filling ~18
        small views (only the turn and round counters can pass 255, with large caps, and then go
        in separately)."""
        small = self.small_bytes(state, seat)
        if state.turns < _BYTE and state.round < _BYTE:
            small += bytes((state.turns, state.round))
            return np.frombuffer(small, np.uint8).astype(OBS_DTYPE)
        buffer = np.empty(self.spec.size, OBS_DTYPE)
        buffer[:-2] = np.frombuffer(small, np.uint8)
        buffer[-2], buffer[-1] = state.turns, state.round
        return buffer

    def small_bytes(self, state: UnfortunateEventsState, seat: int) -> bytearray:
        """All pieces but ``turn`` and ``round`` (the only ones that can reach 256). The
        per-seat pieces are built in absolute seat order and rotated to the observer (row ``r``
        is seat ``seat + r``); ``laid3`` and ``laid4`` are kept by the laid sets they show. Lists
        convert to a ``bytearray`` three times faster than to ``bytes``."""
        n = self.game.num_players
        last = state.last_attack or _NO_ATTACK
        head: list[int] = list(state.hands[seat])
        head += _PHASE_ONE_HOT[state.phase]
        head += self._seats(state, seat, last)
        small = bytearray(head)
        laid3, laid4 = self._laid_pieces(state.laid)
        small += laid3[seat * NUM_SETS3 : (seat + n) * NUM_SETS3]
        small += laid4[seat * NUM_KINDS : (seat + n) * NUM_KINDS]
        known: list[int] = []
        for row in _rotated(state.known, seat):
            known += row
        small += bytearray(known)
        seen = state.seen[seat]
        if seen.count(None) == n:
            small += bytes(n * NUM_KINDS)
        else:
            for r in range(n):
                small += bytes(seen[(seat + r) % n] or _NO_CARDS)
        tail: list[int] = list(_DISCARD_TOP[state.discard[-1] if state.discard else NONE])
        tail += state.discard_counts
        tail += _ATTACK_ONE_HOT[state.pending]
        tail += _SET_CARDS[state.burn_set]
        tail += _ATTACK_ONE_HOT[last[0]]
        tail += _SET_CARDS[last[3]]
        tail += (int(last[4]), len(state.pile), state.centre)
        small += bytearray(tail)
        return small

    def _seats(
        self, state: UnfortunateEventsState, seat: int, last: tuple[int, int, int, int, bool]
    ) -> list[int]:
        """The ``seats`` piece: each column filled by a strided slice in absolute seat order,
        the flags set where they point, then rotated to the observer."""
        n, width = self.game.num_players, len(SEAT_FEATURES)
        block = [0] * (n * width)
        block[_HAND_SIZE::width] = map(sum, state.hands)
        block[_OWED3::width] = state.owed3
        block[_OWED4::width] = state.owed4
        block[_VICTORY::width] = state.victory
        block[_SETS_LAID::width] = map(len, state.laid)
        block[state.turn_player * width + _TURN] = 1
        block[state.dealer * width + _DEALER] = 1
        for column, p in ((_TARGET, state.target), (_ATTACKER, last[1]), (_ATTACKED, last[2])):
            if p != NONE:
                block[p * width + column] = 1
        seen = state.seen[seat]
        if seen.count(None) != n:
            for p, hand in enumerate(seen):
                if hand is not None:
                    block[p * width + _SEEN] = 1
        return _rotated(block, seat * width)

    def _laid_pieces(self, laid: list[list[int]]) -> tuple[bytes, bytes]:
        """``laid3`` and ``laid4`` in absolute seat order, twice over (so the rows by relative
        seat are one slice), kept by the laid sets: many states, and many tables played in turn,
        show the same few (few sets are laid in a round)."""
        key = tuple(map(tuple, laid))
        found = self._laid.get(key)
        if found is not None:
            return found
        if len(self._laid) >= LAID_CACHE_LIMIT:
            self._laid.clear()
        n = self.game.num_players
        laid3, laid4 = bytearray(n * NUM_SETS3), bytearray(n * NUM_KINDS)
        for p, sets in enumerate(laid):
            for set_id in sets:
                if set_id < NUM_SETS3:
                    laid3[p * NUM_SETS3 + set_id] += 1
                else:
                    laid4[p * NUM_KINDS : (p + 1) * NUM_KINDS] = _SET_CARDS[set_id]
        found = self._laid[key] = bytes(laid3 + laid3), bytes(laid4 + laid4)
        return found


_T = TypeVar("_T", list[int], list[list[int]])


def _rotated(values: _T, shift: int) -> _T:
    """Rows in absolute seat order as rows by relative seat: ``shift`` is the observer's seat
    times the row width (in ``values``' items)."""
    return values[shift:] + values[:shift]


# Columns of the ``seats`` piece, in ``SEAT_FEATURES`` order.
_HAND_SIZE, _OWED3, _OWED4, _VICTORY, _TURN, _DEALER, _TARGET, _SEEN = range(8)
_SETS_LAID, _ATTACKER, _ATTACKED = range(8, len(SEAT_FEATURES))
_NO_CARDS = (0,) * NUM_KINDS
_NO_ATTACK = (NONE, NONE, NONE, NONE, False)
_BYTE = 256


def _one_hot(index: int, size: int) -> list[int]:
    row = [0] * size
    if index != NONE:
        row[index] = 1
    return row


def _cards_of_set(set_id: int) -> tuple[int, ...]:
    """Count vector of the cards in one set."""
    row = [0] * NUM_KINDS
    for kind in SETS[set_id].cards:
        row[kind] += 1
    return tuple(row)


# Lookups by set id and by attack kind, NONE (-1) being the last entry: no set, no attack.
_SET_CARDS = (*(_cards_of_set(s) for s in range(NUM_SETS)), _NO_CARDS)
_PHASE_ONE_HOT = tuple(tuple(_one_hot(p, len(PHASE_NAMES))) for p in range(len(PHASE_NAMES)))
_DISCARD_TOP = {
    NONE: _NO_CARDS,
    **{kind: tuple(_one_hot(kind, NUM_KINDS)) for kind in range(NUM_KINDS)},
}
_ATTACK_ONE_HOT = {
    NONE: (0,) * len(ATTACKS),
    **{a: tuple(_one_hot(i, len(ATTACKS))) for i, a in enumerate(ATTACKS)},
}
