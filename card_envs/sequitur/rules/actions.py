"""Sequitur's action ids: the blocks of the :class:`ActionSpec`, their names, and which blocks
answer each decision."""

from __future__ import annotations

from card_envs.core.spec import ActionBlock, ActionSpec, block_layout
from card_envs.sequitur.rules.cards import MAX_RACK, SOLO_DRAW
from card_envs.sequitur.rules.goals import COLOURS
from card_envs.sequitur.rules.spelling import SPELL_KEYS
from card_envs.sequitur.rules.state import (
    BLANK_LETTER,
    CARD,
    CLAIM_GOAL,
    COLOUR,
    KEEP,
    PLACE,
    Q_MODE,
    SPELL_KEEP,
)
from card_envs.sequitur.rules.words import ALPHABET, MAX_SLOTS, Q_TEXT

INSIDE_SPOTS = MAX_RACK - 2  # inside positions 1..MAX_RACK-2
BLOCKS = (
    ActionBlock(
        "colour",
        len(COLOURS),
        "secret goal: draw from this deck",
        "colour = id (red, yellow, green)",
    ),
    ActionBlock(
        "keep",
        SOLO_DRAW,
        "keep this drawn goal card (secret, or public face down)",
        "card k = id - start",
    ),
    ActionBlock("discard", 1, "discard the drawn goal card", "-"),
    ActionBlock(
        "place",
        2,
        "place the drawn ball on this end of the rack",
        "end = id - start (0 left, 1 right)",
    ),
    ActionBlock(
        "pass",
        1,
        "play no Sequitur card this action step (with claim_pass: claim nothing more this round)",
        "-",
    ),
    ActionBlock(
        "move_inside",
        2 * INSIDE_SPOTS,
        "Move Inside: the ball on end e goes to inside position p (final slot index)",
        "e, p-1 = divmod(id - start, 8)",
    ),
    ActionBlock(
        "move_outside",
        2 * INSIDE_SPOTS,
        "Move Outside: the inside ball at slot i goes to end e",
        "i-1, e = divmod(id - start, 2)",
    ),
    ActionBlock("swap", MAX_RACK - 1, "Swap: the balls at slots i and i+1", "i = id - start"),
    ActionBlock(
        "exchange",
        MAX_RACK,
        "Exchange: return the ball at slot i, draw one into its place",
        "i = id - start",
    ),
    ActionBlock("extend", 1, "Extend: draw a ball, then place it on an end", "-"),
    ActionBlock(
        "spell",
        SPELL_KEYS,
        "spell the kept rack slots, read left-to-right (d=0) or right-to-left (d=1)",
        "d, slot bits = divmod(id - start, 1024)",
    ),
    ActionBlock("spell_nothing", 1, "no word can be spelled: spell nothing this round", "-"),
    ActionBlock(
        "blank", 26, "the blank ball in the word names this letter", "letter = id - start (a=0)"
    ),
    ActionBlock(
        "q_mode", 2, "the Q ball reads Q (7 points) or Qu (2 letters, 0 points)", "0 Q, 1 Qu"
    ),
)

CARD_BLOCKS = ("pass", "move_inside", "move_outside", "swap", "exchange", "extend")
DECISION_BLOCKS = {
    COLOUR: ("colour",),
    KEEP: ("keep", "discard"),
    PLACE: ("place",),
    CARD: CARD_BLOCKS,
    SPELL_KEEP: ("spell", "spell_nothing"),
    BLANK_LETTER: ("blank",),
    Q_MODE: ("q_mode",),
    CLAIM_GOAL: ("claim",),
}


def sequitur_actions(num_goals: int) -> ActionSpec:
    """The action ids for a goal deck of ``num_goals`` cards (the last block claims one)."""
    blocks = [
        *BLOCKS,
        ActionBlock("claim", num_goals, "claim this public goal", "goal id = id - start"),
    ]
    _, decoded = block_layout(blocks)  # the names are made before the spec exists
    return ActionSpec(blocks, lambda action: action_name(*decoded[action]))


def decision_blocks(claim_pass: bool) -> dict[int, tuple[str, ...]]:
    """The blocks that answer each decision (with ``claim_pass``, a claim turn may pass)."""
    blocks = dict(DECISION_BLOCKS)
    if claim_pass:
        blocks[CLAIM_GOAL] = ("claim", "pass")
    return blocks


def action_name(block: str, k: int) -> str:
    """Readable, unique name of the ``k``-th action of ``block``."""
    if block == "colour":
        return f"secret goal {COLOURS[k]}"
    if block == "keep":
        return f"keep drawn goal {k}"
    if block == "place":
        return f"place {('left', 'right')[k]}"
    if block == "blank":
        return f"blank = {ALPHABET[k].upper()}"
    if block == "q_mode":
        return f"Q as {Q_TEXT[k].capitalize()}"
    if block == "move_inside":
        end, position = divmod(k, INSIDE_SPOTS)
        return f"move inside: {('left', 'right')[end]} ball to slot {position + 1}"
    if block == "move_outside":
        slot, end = divmod(k, 2)
        return f"move outside: slot {slot + 1} to the {('left', 'right')[end]}"
    if block in ("swap", "exchange"):
        return f"{block} slot {k}" + (f"-{k + 1}" if block == "swap" else "")
    if block == "spell":
        direction, bits = divmod(k, 1 << MAX_SLOTS)
        slots = ",".join(str(i) for i in range(MAX_SLOTS) if bits >> i & 1) or "none"
        return f"spell slots {slots} {('left-to-right', 'right-to-left')[direction]}"
    if block == "claim":
        return f"claim goal #{k}"
    return block.replace("_", " ")
