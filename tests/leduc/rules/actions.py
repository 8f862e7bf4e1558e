"""Leduc action ids: fold, call (a check when no bet is to be called) and raise. The ids are
OpenSpiel's ``leduc_poker`` actions (0, 1, 2)."""

from __future__ import annotations

from card_envs.core.spec import ActionBlock, ActionSpec

ACTION_BLOCKS = (
    ActionBlock("fold", 1, "give up the pot (only facing a bet)", "id 0"),
    ActionBlock("call", 1, "match the bet, or check when there is none", "id 1"),
    ActionBlock("raise", 1, "bet the round's raise size over the bet to call", "id 2"),
)
NAMES = tuple(block.name for block in ACTION_BLOCKS)

ACTIONS = ActionSpec(ACTION_BLOCKS, NAMES.__getitem__)
FOLD, CALL, RAISE = (ACTIONS.encode(name) for name in NAMES)
