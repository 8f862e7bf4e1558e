"""Seamless as text: the whole table, or what one seat may see."""

from __future__ import annotations

from collections.abc import Container

from card_envs.core.cards import SUIT_SYMBOLS
from card_envs.seamless.rules.cards import EMPTY, NUM_RANKS, TRICKS_PER_ROUND, card_name
from card_envs.seamless.rules.state import SeamlessState


def table(
    state: SeamlessState, visible: Container[int], max_rounds: int, winner: int, to_act: int
) -> str:
    """The table, showing the hands of the ``visible`` seats only; the last line names the
    ``winner`` once the game is over, else the seat ``to_act``."""
    suit = SUIT_SYMBOLS[state.trump]
    trump_card = card_name(state.trump_card) if state.trump_card != EMPTY else "played"
    lines = [
        f"Seamless round {state.round + 1}/{max_rounds}, "
        f"trick {min(state.trick_number + 1, TRICKS_PER_ROUND)}"
        f", dealer player_{state.dealer}, trump {suit} (revealed {trump_card})",
        "trick: "
        + (" ".join(card_name(c) for c in state.trick) or "-")
        + f" (led by player_{state.leader})",
    ]
    for p, hand in enumerate(state.hands):
        row = " ".join(
            card_name(s * NUM_RANKS + r) for r, s in enumerate(state.rows[p]) if s != EMPTY
        )
        shown = " ".join(card_name(c) for c in hand) if p in visible else f"{len(hand)} cards"
        lines.append(f"player_{p} total {state.totals[p]:3d} | row: {row or '-'} | {shown}")
    if state.over:
        lines.append(f"game over: winner player_{winner}")
    else:
        lines.append(f"to act: player_{to_act}")
    return "\n".join(lines)
