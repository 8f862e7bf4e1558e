"""Seamless action ids: play a card from the hand, or claim a card of the won trick."""

from __future__ import annotations

from card_envs.core.spec import ActionBlock, ActionSpec, block_layout
from card_envs.seamless.rules.cards import DECK_SIZE, card_name

ACTION_BLOCKS = (
    ActionBlock("play", DECK_SIZE, "play this card from your hand", "card = id"),
    ActionBlock("claim", DECK_SIZE, "claim this card of the won trick", f"card = id - {DECK_SIZE}"),
)
# The layout, for naming ids while ACTIONS is being built.
_DECODED = block_layout(ACTION_BLOCKS)[1]


def action_name(action: int) -> str:
    """Readable name of an action id (``"play 10♥"``, ``"claim Q♠"``)."""
    block, card = _DECODED[action]
    return f"{block} {card_name(card)}"


ACTIONS = ActionSpec(ACTION_BLOCKS, action_name)
