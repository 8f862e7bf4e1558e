"""An injected Sequitur deal (``new_game(rng, deal)``): checked whole, then laid on top of the bag
and the goal decks; ``deal["chance"]`` scripts the game's chance events (``events``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from card_envs.core.chance import chance_script, check_written_or_scripted
from card_envs.core.deal import check_deal, check_list, check_str
from card_envs.sequitur.rules import events
from card_envs.sequitur.rules.cards import NUM_BALLS, START_BALLS, balls_of
from card_envs.sequitur.rules.decks import GoalDecks
from card_envs.sequitur.rules.goals import COLOURS
from card_envs.sequitur.rules.state import NUM_ROUNDS

DEAL_KEYS = ("racks", "draws", "goals", "chance")
RACK_TEXT = f"strings of {START_BALLS} letters a-z or '?'"


@dataclass(frozen=True)
class InjectedBalls:
    """A checked deal's balls: whether it fixes the racks, and the balls it puts on top of the
    bag in drawing order (racks first, then draws), all of them in ``taken``."""

    racks: bool
    top: list[int]
    taken: set[int]


@dataclass(frozen=True)
class CheckedDeal:
    """A whole deal, checked: the goal ids it stacks by colour index, its round-1 balls, and
    the chance script with every outcome checked as far as it can be before the game."""

    goals: dict[int, list[int]]
    balls: InjectedBalls | None
    script: dict[str, list[Any]]


def checked_deal(deal: Any, num_players: int, decks: GoalDecks) -> CheckedDeal:
    """The whole deal checked, or an error naming the key (and the outcome) that is wrong."""
    check_deal(deal, DEAL_KEYS)
    goals = _checked_goals(deal.get("goals", {}), decks)
    balls = _checked_balls(deal, num_players)
    script = _checked_script(deal, num_players, decks)
    check_written_or_scripted(
        script, events.GOAL_DECKS, "the goal decks", ["goals"] if goals else []
    )
    bag_keys = [key for key in ("racks", "draws") if len(deal.get(key, ()))]
    check_written_or_scripted(script, events.BALLS, "round 1's bag", bag_keys)
    return CheckedDeal(goals, balls, script)


def _checked_script(deal: Any, num_players: int, decks: GoalDecks) -> dict[str, list[Any]]:
    """``deal["chance"]``, every outcome checked except what depends on the game so far (an
    Exchange's depth against the bag's size, a reshuffle against the discards)."""
    script = chance_script(deal, events.EVENTS)
    limits = {events.GOAL_DECKS: 1, events.BALLS: NUM_ROUNDS, events.CLAIM_TIES: NUM_ROUNDS}
    for event, outcomes in script.items():
        limit = limits.get(event)
        if limit is not None and len(outcomes) > limit:
            raise ValueError(
                f"deal['chance'][{event!r}] holds {len(outcomes)} outcomes, but a game has at "
                f"most {limit}"
            )
    checks = {
        events.GOAL_DECKS: lambda raw, i: events.checked_goal_decks(raw, i, decks.goals),
        events.BALLS: events.checked_balls,
        events.EXCHANGE: events.checked_depth,
        events.RESHUFFLE: lambda raw, i: events.goal_ids(
            raw, events.key(events.RESHUFFLE, i), decks.goals, None
        ),
        events.CLAIM_TIES: lambda raw, i: events.checked_claim_ties(raw, i, num_players),
    }
    return {
        event: [checks[event](raw, i) for i, raw in enumerate(outcomes)]
        for event, outcomes in script.items()
    }


def _checked_balls(deal: Any, num_players: int) -> InjectedBalls | None:
    """``deal["racks"]`` and ``deal["draws"]`` as the balls they put on top of round 1's bag."""
    if "racks" not in deal and "draws" not in deal:
        return None
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
    return InjectedBalls(bool(racks), top, taken)


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
        colour = COLOURS.index(name)
        goals[colour] = events.goal_ids(raw, f"deal['goals'][{name!r}]", decks.goals, colour)
    return goals


def injected_bag(bag: list[int], balls: InjectedBalls, num_players: int) -> list[int]:
    """The bag with the injected racks' and draws' balls on top, in drawing order."""
    rest = [b for b in bag if b not in balls.taken]
    if not balls.racks:  # the draws come after the randomly drawn racks
        cut = len(rest) - START_BALLS * num_players
        return rest[:cut] + list(reversed(balls.top)) + rest[cut:]
    return rest + list(reversed(balls.top))
