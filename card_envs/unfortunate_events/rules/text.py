"""The table as text, for ``render`` (every hand) and ``render_seat`` (one seat's view)."""

from __future__ import annotations

from collections.abc import Collection

from card_envs.unfortunate_events.rules.cards import KIND_NAMES, SETS
from card_envs.unfortunate_events.rules.state import NONE, PHASE_NAMES, UnfortunateEventsState


def cards_text(counts: list[int]) -> str:
    """``"2x Klaus, Beatrice"`` for a count vector, or ``"-"``."""
    parts = [(f"{n}x " if n > 1 else "") + KIND_NAMES[k] for k, n in enumerate(counts) if n > 0]
    return ", ".join(parts) or "-"


def render_table(
    state: UnfortunateEventsState, visible: Collection[int], turn_cap: int, winners: list[int]
) -> str:
    """The table showing the hands of the ``visible`` seats, and what Olaf's Eye showed them
    (``turn_cap`` and ``winners`` come from the game, which this module does not import)."""
    top = KIND_NAMES[state.discard[-1]] if state.discard else "-"
    turn = min(state.turns + 1, turn_cap)
    lines = [
        f"Catastrophic Card Game round {state.round + 1}, turn {turn}/{turn_cap}"
        f", dealer player_{state.dealer}, Victory cards in the centre: "
        f"{state.centre}",
        f"pile: {len(state.pile)} cards | discard: {len(state.discard)} cards, top {top}",
    ]
    for p in range(len(state.hands)):
        laid = " | ".join(SETS[s].name for s in state.laid[p]) or "-"
        if p in visible:
            hand = cards_text(state.hands[p])
        else:
            hand = f"{sum(state.hands[p])} cards (known: {cards_text(state.known[p])})"
        lines.append(
            f"player_{p} Victory {state.victory[p]} | owes {state.owed3[p]}x3 "
            f"{state.owed4[p]}x4 | laid: {laid} | hand: {hand}"
        )
        for q, seen in enumerate(state.seen[p]):
            if seen is not None and p in visible:
                lines.append(f"  player_{p} saw player_{q}'s hand: {cards_text(seen)}")
    lines.append(_status(state, winners))
    return "\n".join(lines)


def _status(state: UnfortunateEventsState, winners: list[int]) -> str:
    if state.over:
        return "game over: winners " + ", ".join(f"player_{p}" for p in winners)
    if state.truncated:
        return "truncated: " + ("no card left to draw" if state.stalled else "turn or round cap")
    text = f"to act: player_{state.actor} ({PHASE_NAMES[state.phase]})"
    if state.pending != NONE:
        text += f"; player_{state.turn_player} plays {KIND_NAMES[state.pending]}"
        if state.target != NONE:
            text += f" on player_{state.target}"
        if state.burn_set != NONE:
            text += f" burning {SETS[state.burn_set].name}"
    return text
