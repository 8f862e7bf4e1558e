"""The action-id table: pass, build a meld card by card, play it as a finish, or use an artifact.

A meld is built with ``add`` actions in ascending kind order (so each meld has exactly one
action sequence) and played with one finish action that says how it counts. Rod, Gift and
Lens are single actions; Gift and Lens name a target seat relative to the actor.
"""

from __future__ import annotations

from itertools import accumulate

from card_envs.core.spec import ActionBlock, ActionSpec, block_layout
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
ADD_INDEX = {kind: i for i, kind in enumerate(MELD_KINDS)}  # kind -> index in "add"
RUN_TOPS = range(MIN_VALUE + MIN_RUN - 1, MAX_VALUE + 1)


def finish_action(finish: Finish) -> tuple[str, int]:
    """The ``(block, index)`` of the action that plays the built cards as ``finish``."""
    kind, value = finish
    if kind == MATCH:
        return "play_value", value - MIN_VALUE
    if kind == RUN:
        return "play_run", value - RUN_TOPS[0]
    return "play_artifact", 0


def action_finish(block: str, index: int) -> Finish:
    """The finish played by the ``index``-th action of a ``play_*`` block."""
    if block == "play_value":
        return (MATCH, index + MIN_VALUE)
    if block == "play_run":
        return (RUN, index + RUN_TOPS[0])
    return (ARTIFACT_SINGLE, 0)


def action_blocks(num_players: int) -> list[ActionBlock]:
    """The blocks for ``num_players`` seers (Gift and Lens have one id per other seer)."""
    others = num_players - 1
    sizes = {"pass": 1, "add": len(MELD_KINDS), "play_value": MAX_VALUE - MIN_VALUE + 1}
    sizes |= {"play_run": len(RUN_TOPS), "play_artifact": 1, "rod": 1, "gift": others}
    start = dict(zip(sizes, accumulate(sizes.values(), initial=0), strict=False))
    return [
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
            f"value = id - {start['play_value']} + 2",
        ),
        ActionBlock(
            "play_run",
            len(RUN_TOPS),
            "play the built cards as a Suited Run with this top card",
            f"top = id - {start['play_run']} + 3",
        ),
        ActionBlock("play_artifact", 1, "play the built Go First or Crown as a Single", "-"),
        ActionBlock("rod", 1, "Rod of Reincarnation: take the trick's cards, lead next", "-"),
        ActionBlock(
            "gift",
            others,
            "Gift of Fate: end the trick, this seer leads next",
            f"seat = (me + id - {start['gift']} + 1) % n",
        ),
        ActionBlock(
            "lens",
            others,
            "Lens: look at this seer's hand, then act again",
            f"seat = (me + id - {start['gift'] + others} + 1) % n",
        ),
    ]


def action_name(block: str, index: int) -> str:
    """Readable name of the ``index``-th action of ``block``."""
    match block:
        case "pass":
            return "pass"
        case "add":
            kind = MELD_KINDS[index]
            return "add wild" if kind == WILD else f"add {kind_name(kind)}"
        case "play_value":
            return f"play value {index + MIN_VALUE}"
        case "play_run":
            return f"play run to {index + RUN_TOPS[0]}"
        case "play_artifact":
            return "play artifact single"
        case "rod":
            return "use Rod"
        case "gift":
            return f"Gift to seat +{index + 1}"
        case _:
            return f"Lens on seat +{index + 1}"


def action_spec(num_players: int) -> ActionSpec:
    """The action-id table for ``num_players`` seers."""
    blocks = action_blocks(num_players)
    _, decoded = block_layout(blocks)
    return ActionSpec(blocks, lambda a: action_name(*decoded[a]))
