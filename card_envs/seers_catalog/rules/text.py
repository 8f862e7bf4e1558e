"""The table as text, for ``render`` (every hand) and ``render_seat`` (one seat's view)."""

from __future__ import annotations

from collections.abc import Sequence

from card_envs.seers_catalog.rules.cards import BONUS_LIMIT, card_name
from card_envs.seers_catalog.rules.melds import RUN, Key
from card_envs.seers_catalog.rules.state import SeersCatalogState


def render_table(
    state: SeersCatalogState, visible: Sequence[int], num_rounds: int, winners: list[int]
) -> str:
    """The table as text, showing the hands of the ``visible`` seats only (``num_rounds`` and
    ``winners`` come from the game, which this module does not import)."""
    lines = [f"Seers Catalog round {state.round + 1}/{num_rounds}"]
    for meld in state.table:
        lines.append(f"  player_{meld.seat}: {card_names(meld.cards)}  {describe(meld.key)}")
    lines.append(f"trick led by player_{state.leader}" + ("" if state.table else ": empty"))
    if state.artifacts_played:
        played = (f"player_{p} {card_name(c)}" for p, c in state.artifacts_played)
        lines.append(f"artifacts played this round: {', '.join(played)}")
    if state.lens_looks:
        looks = (f"player_{p} on player_{t}" for p, t in state.lens_looks)
        lines.append(f"Lens looks this round: {', '.join(looks)}")
    for p in range(len(state.hands)):
        hand = state.hands[p]
        if p in visible:
            shown = card_names(hand)
        else:
            seen = [c for c in hand if any(state.known[v][p] >> c & 1 for v in visible)]
            shown = f"{len(hand)} cards" + (f", known {card_names(seen)}" if seen else "")
        flags = (" passed" if state.passed[p] else "") + (
            " Bonus" if len(hand) <= BONUS_LIMIT else ""
        )
        lines.append(f"player_{p} total {state.totals[p]:4d}{flags} | {shown}")
    if state.over:
        lines.append(f"game over: winners {winners}")
    else:
        building = list(state.pending) if state.turn in visible else []
        lines.append(
            f"to act: player_{state.turn}"
            + (f", building {card_names(building)}" if building else "")
        )
    return "\n".join(lines)


def card_names(codes: Sequence[int]) -> str:
    return " ".join(card_name(c) for c in codes) or "-"


def describe(key: Key) -> str:
    """``(set of 3 x 7.5)``: a meld key as text."""
    kind, size, rank2 = key
    value = f"{rank2 // 2}" + (".5" if rank2 % 2 else "")
    if kind == RUN:
        return f"(run of {size} to {value})"
    return f"(single {value})" if size == 1 else f"(set of {size} x {value})"
