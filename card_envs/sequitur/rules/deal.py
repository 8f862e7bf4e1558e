"""An injected Sequitur deal (``new_game(rng, deal)``): checked, then laid on top of the bag and
the goal decks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from card_envs.core.deal import check_deal, check_int, check_list, check_once, check_str
from card_envs.sequitur.rules.cards import NUM_BALLS, START_BALLS, balls_of
from card_envs.sequitur.rules.decks import GoalDecks
from card_envs.sequitur.rules.goals import COLOURS

DEAL_KEYS = ("racks", "draws", "goals")
RACK_TEXT = f"strings of {START_BALLS} letters a-z or '?'"


@dataclass(frozen=True)
class InjectedBalls:
    """A checked deal's balls: whether it fixes the racks, and the balls it puts on top of the
    bag in drawing order (racks first, then draws), all of them in ``taken``."""

    racks: bool
    top: list[int]
    taken: set[int]


def checked_deal(
    deal: Any, num_players: int, decks: GoalDecks
) -> tuple[dict[int, list[int]], InjectedBalls | None]:
    """The deal's goal ids by colour index and its balls, or an error naming the key."""
    check_deal(deal, DEAL_KEYS)
    goals = _checked_goals(deal.get("goals", {}), decks)
    if "racks" not in deal and "draws" not in deal:
        return goals, None
    n = num_players
    racks = check_list(deal.get("racks", []), "deal['racks']", what=RACK_TEXT)
    if racks and len(racks) != n:
        raise ValueError(f"deal['racks'] must be {n} {RACK_TEXT}, got {len(racks)}")
    sources = [(f"deal['racks'][{seat}]", rack) for seat, rack in enumerate(racks)]
    for key, rack in sources:
        if not isinstance(rack, str) or len(rack) != START_BALLS:
            raise ValueError(f"deal['racks'] must be {n} {RACK_TEXT}; {key} is {rack!r:.60}")
    draws = check_str(deal.get("draws", ""), "deal['draws']", "a string of letters a-z or '?'")
    taken: set[int] = set()
    top: list[int] = []
    for key, letters in [*sources, ("deal['draws']", draws)]:
        try:
            top += balls_of(letters, taken)
        except ValueError as error:
            raise ValueError(f"{key}: {error}") from None
    if not racks and len(top) > NUM_BALLS - START_BALLS * n:
        raise ValueError(
            f"deal['draws'] holds {len(top)} balls, but only {NUM_BALLS - START_BALLS * n} "
            "are left to draw after the racks"
        )
    return goals, InjectedBalls(bool(racks), top, taken)


def _checked_goals(raw_goals: Any, decks: GoalDecks) -> dict[int, list[int]]:
    """``deal["goals"]``: per colour name, distinct goal ids of that colour."""
    if not isinstance(raw_goals, dict):
        raise ValueError(
            f"deal['goals'] must be a dict of colour name -> goal ids, colours {COLOURS}; "
            f"got {raw_goals!r:.60}"
        )
    goals = {}
    for name, raw in raw_goals.items():
        if name not in COLOURS:
            raise ValueError(f"deal['goals'] keys are colours {COLOURS}, not {name!r}")
        key, colour = f"deal['goals'][{name!r}]", COLOURS.index(name)
        valid = decks.ids_of[colour]
        ids = [
            check_int(goal, f"{key}[{i}]", 0, len(decks.goals) - 1, "a goal id")
            for i, goal in enumerate(check_list(raw, key, what=f"{name} goal ids"))
        ]
        foreign = [g for g in ids if g not in valid]
        if foreign:
            raise ValueError(
                f"{key} must be {name} goal ids ({len(valid)} cards: {valid[0]}..), "
                f"got {foreign[0]}, a {decks.goals[foreign[0]].colour} card"
            )
        check_once(ids, key, str, f"the {name} deck")
        goals[colour] = ids
    return goals


def injected_bag(bag: list[int], balls: InjectedBalls, num_players: int) -> list[int]:
    """The bag with the injected racks' and draws' balls on top, in drawing order."""
    rest = [b for b in bag if b not in balls.taken]
    if not balls.racks:  # the draws come after the randomly drawn racks
        cut = len(rest) - START_BALLS * num_players
        return rest[:cut] + list(reversed(balls.top)) + rest[cut:]
    return rest + list(reversed(balls.top))
