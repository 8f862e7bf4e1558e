"""The action-id table: pass, build a meld card by card, play it as a finish, or use an artifact.

A meld is built with ``add`` actions in ascending kind order (so each meld has exactly one
action sequence) and played with one finish action that says how it counts. Rod, Gift and
Lens are single actions; Gift and Lens name a target seat relative to the actor.
"""

from __future__ import annotations

from card_envs.core.spec import ActionBlock, ActionSpec
from card_envs.seers_catalog.rules.cards import (
    MAX_VALUE,
    MIN_VALUE,
    NUM_SUITED,
    WILD,
    kind_name,
)
from card_envs.seers_catalog.rules.melds import (
    ARTIFACT_SINGLE,
    K_CAULDRON,
    K_CROWN,
    K_ECHO,
    K_GO_FIRST,
    K_HALF,
    K_PRISM,
    K_STONE,
    MATCH,
    MIN_RUN,
    RUN,
    Finish,
)

MELD_KINDS = (
    *range(NUM_SUITED),
    WILD,
    K_GO_FIRST,
    K_CROWN,
    K_CAULDRON,
    K_PRISM,
    K_HALF,
    K_ECHO,
    K_STONE,
)
PASS = 0
ADD_BASE = 1
VALUE_BASE = ADD_BASE + len(MELD_KINDS)
RUN_TOPS = range(MIN_VALUE + MIN_RUN - 1, MAX_VALUE + 1)
RUN_BASE = VALUE_BASE + (MAX_VALUE - MIN_VALUE + 1)
ARTIFACT_ID = RUN_BASE + len(RUN_TOPS)
ROD_ID = ARTIFACT_ID + 1
GIFT_BASE = ROD_ID + 1
ADD_ID = {kind: ADD_BASE + i for i, kind in enumerate(MELD_KINDS)}


def finish_id(finish: Finish) -> int:
    kind, value = finish
    if kind == MATCH:
        return VALUE_BASE + value - MIN_VALUE
    if kind == RUN:
        return RUN_BASE + value - RUN_TOPS[0]
    return ARTIFACT_ID


def id_finish(action: int) -> Finish:
    if action < RUN_BASE:
        return (MATCH, action - VALUE_BASE + MIN_VALUE)
    if action < ARTIFACT_ID:
        return (RUN, action - RUN_BASE + RUN_TOPS[0])
    return (ARTIFACT_SINGLE, 0)


def action_spec(num_players: int) -> ActionSpec:
    """The table for ``num_players`` seers (Gift and Lens have one id per other seer)."""
    others = num_players - 1
    lens_base = GIFT_BASE + others
    blocks = [
        ActionBlock(
            "pass", 1, "pass (out until the next trick), or hand on a lead you cannot make", "-"
        ),
        ActionBlock(
            "add",
            len(MELD_KINDS),
            "add a card to the meld being built (ascending kind order)",
            "ids 1-60: suited card code = id - 1 (suit*12 + value-2); 61: a wild; 62-68: Go "
            "First, Crown, Cauldron, Prism, Half Moon, Echo, Stepping Stone",
        ),
        ActionBlock(
            "play_value",
            MAX_VALUE - MIN_VALUE + 1,
            "play the built cards as a Single or Matching Set of this value",
            f"value = id - {VALUE_BASE} + 2",
        ),
        ActionBlock(
            "play_run",
            len(RUN_TOPS),
            "play the built cards as a Suited Run with this top card",
            f"top = id - {RUN_BASE} + 3",
        ),
        ActionBlock("play_artifact", 1, "play the built Go First or Crown as a Single", "-"),
        ActionBlock("rod", 1, "Rod of Reincarnation: take the trick's cards, lead next", "-"),
        ActionBlock(
            "gift",
            others,
            "Gift of Fate: end the trick, this seer leads next",
            f"seat = (me + id - {GIFT_BASE} + 1) % n",
        ),
        ActionBlock(
            "lens",
            others,
            "Lens: look at this seer's hand, then act again",
            f"seat = (me + id - {lens_base} + 1) % n",
        ),
    ]

    def name(action: int) -> str:
        if action == PASS:
            return "pass"
        if action < VALUE_BASE:
            kind = MELD_KINDS[action - ADD_BASE]
            return "add wild" if kind == WILD else f"add {kind_name(kind)}"
        if action < RUN_BASE:
            return f"play value {action - VALUE_BASE + MIN_VALUE}"
        if action < ARTIFACT_ID:
            return f"play run to {action - RUN_BASE + RUN_TOPS[0]}"
        if action == ARTIFACT_ID:
            return "play artifact single"
        if action == ROD_ID:
            return "use Rod"
        if action < lens_base:
            return f"Gift to seat +{action - GIFT_BASE + 1}"
        return f"Lens on seat +{action - lens_base + 1}"

    return ActionSpec(blocks, name)
