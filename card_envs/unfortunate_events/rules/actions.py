"""The action-id table: one block per decision (draw, lay, discard, target, burn, react,
victory). Ids are encoded and decoded through the :class:`ActionSpec`, never by hand."""

from __future__ import annotations

from card_envs.core.spec import ActionBlock, ActionSpec, block_layout
from card_envs.unfortunate_events.rules.cards import KIND_NAMES, NUM_KINDS, NUM_SETS, SETS

# Indices within the "draw" and "react" blocks.
DRAW_PILE, DRAW_DISCARD = 0, 1
CANCEL, ALLOW = 0, 1


def action_blocks(n: int) -> list[ActionBlock]:
    """The action-id blocks for ``n`` players, in id order."""
    return [
        ActionBlock("draw", 2, "draw from the pile / take the discard's top", "0 pile, 1 discard"),
        ActionBlock("lay", NUM_SETS, "lay this set (3-sets, then 4-sets)", "set = id - start"),
        ActionBlock("discard", NUM_KINDS, "discard (play) one card of a kind", "kind = id - start"),
        ActionBlock("target", n - 1, "target the player k seats to my left", "k = id - start + 1"),
        ActionBlock("burn", NUM_SETS, "burn the target's laid set of a type", "set = id - start"),
        ActionBlock("react", 2, "Lemony Snicket: cancel / allow the attack", "0 cancel, 1 allow"),
        ActionBlock(
            "victory", n, "Victory card: centre / steal from k seats left", "k = id - start"
        ),
    ]


def action_spec(n: int) -> ActionSpec:
    """The action-id table for ``n`` players."""
    blocks = action_blocks(n)
    _, decoded = block_layout(blocks)
    return ActionSpec(blocks, lambda a: action_name(*decoded[a]))


def action_name(block: str, local: int) -> str:
    """Readable name of the ``local``-th action of ``block``."""
    if block == "draw":
        return ("draw from the pile", "take the discard's top")[local]
    if block in ("lay", "burn"):
        return f"{block} {SETS[local].name}"
    if block == "discard":
        return f"discard {KIND_NAMES[local]}"
    if block == "target":
        return f"target the player {local + 1} to my left"
    if block == "react":
        return ("Snicket: cancel", "Snicket: allow")[local]
    return "Victory card from the centre" if local == 0 else f"steal a Victory card from +{local}"
