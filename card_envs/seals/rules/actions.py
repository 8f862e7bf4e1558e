"""Seals action ids: take a colour or a symbol from the face-up row, reveal a series, stop."""

from __future__ import annotations

from dataclasses import replace

from card_envs.core.spec import ActionBlock, ActionSpec, block_layout
from card_envs.seals.rules.cards import COLOURS, NUM_COLOURS, NUM_SYMBOLS, SYMBOL_NAMES
from card_envs.seals.rules.series import NUM_SERIES, series_name

# The decode column names block starts as {placeholders}, filled in from the layout below.
_BLOCKS = (
    ActionBlock(
        "take_colour",
        NUM_COLOURS,
        "take every face-up card of this colour (red, yellow, green, blue, purple)",
        "colour = id - {take_colour}",
    ),
    ActionBlock(
        "take_symbol",
        NUM_SYMBOLS,
        "take every face-up card of this symbol (value 1-10, or coins)",
        "value = id - {value_base} (id {coins}: coins)",
    ),
    ActionBlock(
        "reveal",
        NUM_SERIES,
        "show this series from your hand (after taking)",
        "series = id - {reveal} (see the series table)",
    ),
    ActionBlock("stop", 1, "end the turn: win the round if a series is shown, else pass", "-"),
)
_START, _DECODED = block_layout(_BLOCKS)
ACTION_BLOCKS = tuple(
    replace(
        block,
        decode=block.decode.format(
            **_START, value_base=_START["take_symbol"] - 1, coins=_START["reveal"] - 1
        ),
    )
    for block in _BLOCKS
)


def action_name(action: int) -> str:
    """Readable name of an action id (``"take red"``, ``"take 7s"``, ``"reveal four coins"``)."""
    block, index = _DECODED[action]
    match block:
        case "take_colour":
            return f"take {COLOURS[index]}"
        case "take_symbol":
            return f"take {SYMBOL_NAMES[index]}s"
        case "reveal":
            return f"reveal {series_name(index)}"
    return "end turn"


ACTIONS = ActionSpec(ACTION_BLOCKS, action_name)
