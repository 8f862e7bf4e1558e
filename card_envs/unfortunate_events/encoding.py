"""Catastrophic Card Game observation: what one seat may know, seat-relative (0 = observer).

Public: every laid set (each one, not just their cards), the whole discard pile (all of it was
seen face up), hand sizes, owed sets, Victory cards, the pending attack, the last attack of the
round (kind, attacker, target, set chosen to burn, whether Snicket cancelled it), and the cards
each hand is publicly known to hold.
Private: my hand, and each hand Olaf's Eye showed me this round, as it was then.
Never observed: other hands beyond what is public, and the pile's order or contents.
"""

from __future__ import annotations

import numpy as np

from card_envs.core.game import Encoding
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


class UnfortunateEventsEncoding(Encoding[UnfortunateEventsState]):
    game: UnfortunateEventsGame

    def __init__(self, game: UnfortunateEventsGame):
        super().__init__(game)
        n = game.num_players
        # Relative row r of an observation by ``seat`` is absolute seat ``_orders[seat][r]``.
        self._orders = [[(seat + r) % n for r in range(n)] for seat in range(n)]

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

    def encode(
        self, state: UnfortunateEventsState, seat: int, views: dict[str, np.ndarray]
    ) -> None:
        values, offset = self.values(state, seat), 0
        for piece in self.spec.pieces:
            views[piece.name].reshape(-1)[:] = values[offset : offset + piece.size]
            offset += piece.size

    def observe(self, state: UnfortunateEventsState, seat: int) -> np.ndarray:
        """Every value is a small count: ``bytes`` build the vector several times faster than
        filling ~18 small views (only the turn and round counters can pass 255, with large
        caps, and then go in separately)."""
        small = self.small_bytes(state, seat)
        if state.turns < _BYTE and state.round < _BYTE:
            small += bytes((state.turns, state.round))
            return np.frombuffer(small, np.uint8).astype(OBS_DTYPE)
        buffer = np.empty(self.spec.size, OBS_DTYPE)
        buffer[:-2] = np.frombuffer(small, np.uint8)
        buffer[-2], buffer[-1] = state.turns, state.round
        return buffer

    def values(self, state: UnfortunateEventsState, seat: int) -> list[int]:
        """The observation as a flat list, piece by piece in spec order."""
        return [*self.small_bytes(state, seat), state.turns, state.round]

    def small_bytes(self, state: UnfortunateEventsState, seat: int) -> bytes:
        """All pieces but ``turn`` and ``round`` (the only ones that can reach 256); the
        mostly-zero ``laid3`` is a zeroed ``bytearray`` with the laid sets counted in."""
        order = self._orders[seat]
        out: list[int] = list(state.hands[seat])
        phase = [0] * len(PHASE_NAMES)
        phase[state.phase] = 1
        out += phase
        seen = state.seen[seat]
        last = state.last_attack or _NO_ATTACK
        for p in order:
            out += (
                sum(state.hands[p]),
                state.owed3[p],
                state.owed4[p],
                state.victory[p],
                p == state.turn_player,
                p == state.dealer,
                p == state.target,
                seen[p] is not None,
                len(state.laid[p]),
                p == last[1],
                p == last[2],
            )
        laid3 = bytearray(len(order) * NUM_SETS3)
        tail: list[int] = []
        for r, p in enumerate(order):
            four = _NO_CARDS
            for set_id in state.laid[p]:
                if set_id < NUM_SETS3:
                    laid3[r * NUM_SETS3 + set_id] += 1
                else:
                    four = _SET_CARDS[set_id]
            tail += four
        for p in order:
            tail += state.known[p]
        for p in order:
            tail += seen[p] or _NO_CARDS
        tail += _one_hot(state.discard[-1] if state.discard else NONE, NUM_KINDS)
        tail += state.discard_counts
        tail += _ATTACK_ONE_HOT[state.pending]
        tail += _SET_CARDS[state.burn_set]
        tail += _ATTACK_ONE_HOT[last[0]]
        tail += _SET_CARDS[last[3]]
        tail += (last[4], len(state.pile), state.centre)
        return bytes(out) + laid3 + bytes(tail)


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
_ATTACK_ONE_HOT = {
    NONE: (0,) * len(ATTACKS),
    **{a: tuple(_one_hot(i, len(ATTACKS))) for i, a in enumerate(ATTACKS)},
}
