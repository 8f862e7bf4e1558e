"""Seals as text: the whole table, or what one seat may see."""

from __future__ import annotations

from collections.abc import Container, Sequence

from card_envs.seals.rules.cards import card_name
from card_envs.seals.rules.series import series_name
from card_envs.seals.rules.state import NO_ONE, REVEAL, ROUND_COUNTER, LastRound, SealsState


def table(state: SealsState, visible: Container[int], winners: Sequence[int]) -> str:
    """The table, showing the hands of the ``visible`` seats only; the last line names the
    ``winners`` once the game is over, else the seat to act."""
    kind = f"tie round {state.tie_round}" if state.tie_round else f"round {state.round + 1}"
    lines = [
        f"Seals {kind}, round counter {state.counter}/{ROUND_COUNTER}, "
        f"pile {len(state.pile)}, face up: " + (_names(state.row) or "-")
    ]
    for p in range(state.num_players):
        hand = _names(sorted(state.hands[p])) if p in visible else ""
        count = len(state.hands[p])
        size = f"{count} card{'s' * (count != 1)}" if state.active[p] else "out of this round"
        lines.append(f"player_{p} blasons {state.blasons[p]} | {size} | {hand}".rstrip(" |"))
    if state.last.winner != NO_ONE or state.round:
        lines.append(_last_round_text(state.last))
    if state.over:
        won = ", ".join(f"player_{p}" for p in winners)
        lines.append(f"game over: won by {won}")
    else:
        step = "reveal series or end turn" if state.phase == REVEAL else "take"
        shown = _series_text(state.revealed)
        lines.append(f"to act: player_{state.player} ({step})" + (shown and f"; shown {shown}"))
    return "\n".join(lines)


def _names(cards: list[int]) -> str:
    return " ".join(card_name(c) for c in cards)


def _series_text(revealed: tuple[int, ...] | list[int]) -> str:
    return ", ".join(
        f"{count} x {series_name(s)}" if count > 1 else series_name(s)
        for s, count in enumerate(revealed)
        if count
    )


def _last_round_text(last: LastRound) -> str:
    if last.winner == NO_ONE:
        return "last round: no winner (no face-up card left)"
    return f"last round: player_{last.winner} showed {_series_text(last.revealed)}, +{last.blasons}"
