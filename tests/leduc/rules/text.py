"""Leduc as text: the whole table, or what one seat may see."""

from __future__ import annotations

from collections.abc import Container

from leduc.rules.actions import ACTIONS
from leduc.rules.cards import NO_CARD, card_name
from leduc.rules.state import ROUNDS, LeducState


def table(state: LeducState, visible: Container[int], max_raises: int, ending: str) -> str:
    """The table, showing the private cards of the ``visible`` seats only; the last line is
    ``ending``: who is to act, or how the game ended."""
    public = card_name(state.public_card) if state.public_card != NO_CARD else "not dealt"
    stakes = ", ".join(f"player_{p} {chips}" for p, chips in enumerate(state.contributions))
    lines = [
        f"Leduc Hold'em, round {state.round + 1}/{ROUNDS}, pot {state.pot} ({stakes}), "
        f"raises {state.raises}/{max_raises}",
        f"public card: {public}",
    ]
    for number, actions in enumerate(state.history, start=1):
        moves = " ".join(ACTIONS.names[a] for a in actions)
        lines.append(f"betting round {number}: {moves or '-'}")
    for p, card in enumerate(state.hands):
        folded = " (folded)" if p == state.folded else ""
        lines.append(f"player_{p}: {card_name(card) if p in visible else 'hidden card'}{folded}")
    lines.append(ending)
    return "\n".join(lines)
