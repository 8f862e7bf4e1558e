"""Sequitur's chance events: every random outcome of a game, by name, with the checks of a
scripted outcome (``deal["chance"]``; see ``docs/sequitur.md``).

Outcomes are plain lists and ints, written the way a player would read them off the table:

- ``goal_decks`` (once, at the start): the red, yellow and green decks, each its goal ids top
  card first.
- ``balls`` (each round): the bag's 72 ball ids in drawing order (5 per seat into the racks, seat 0
  first, then each seat's 3 setup balls, then Extend and Exchange draws).
- ``exchange`` (each Exchange): how deep the returned ball goes into the bag, 0 its top (it is
  drawn straight back) up to the bag's size (its bottom).
- ``reshuffle`` (each time an empty goal deck is refilled from its discards): the new deck, top
  card first.
- ``claim_ties`` (each round): the seats in the order of the lot that breaks word-score ties.

A check before the game (``static``) takes the raw outcome and returns it as the rules use it;
an outcome that depends on the game so far is checked again when it is taken.
"""

from __future__ import annotations

from typing import Any

from card_envs.core.deal import (
    check_int,
    check_list,
    check_once,
    check_seat,
    show,
)
from card_envs.sequitur.rules.cards import NUM_BALLS, balls_of
from card_envs.sequitur.rules.goals import COLOURS, GoalCard

GOAL_DECKS, BALLS, EXCHANGE, RESHUFFLE, CLAIM_TIES = (
    "goal_decks",
    "balls",
    "exchange",
    "reshuffle",
    "claim_ties",
)
EVENTS = (GOAL_DECKS, BALLS, EXCHANGE, RESHUFFLE, CLAIM_TIES)
CHECKED_WHEN_TAKEN = (EXCHANGE, RESHUFFLE)  # the others are checked whole before the game
# No event is named like a state field ("bag"): an unpickled state interns its field names, so
# an event name equal to one would be shared with it in a state but not in its unpickled copy,
# and the two would pickle differently.


def key(event: str, index: int) -> str:
    """How messages name the ``index``-th scripted outcome of ``event``."""
    return f"deal['chance'][{event!r}][{index}]"


def goal_ids(raw: Any, where: str, goals: tuple[GoalCard, ...], colour: int | None) -> list[int]:
    """Distinct goal ids (of ``colour`` when given), or a ``ValueError`` naming ``where``."""
    name = "goal" if colour is None else COLOURS[colour]
    ids = [
        check_int(goal, f"{where}[{i}]", 0, len(goals) - 1, "a goal id")
        for i, goal in enumerate(check_list(raw, where, what=f"{name} goal ids"))
    ]
    if colour is not None:
        valid = [g for g, card in enumerate(goals) if card.colour_index == colour]
        foreign = [g for g in ids if g not in valid]
        if foreign:
            raise ValueError(
                f"{where} must be {name} goal ids ({len(valid)} cards: {valid[0]}..), "
                f"got {foreign[0]}, a {goals[foreign[0]].colour} card"
            )
    check_once(ids, where, str, f"the {name} deck" if colour is not None else "the game")
    return ids


def checked_goal_decks(raw: Any, index: int, goals: tuple[GoalCard, ...]) -> list[list[int]]:
    """A ``goal_decks`` outcome: each colour's whole deck, top card first."""
    where = key(GOAL_DECKS, index)
    decks = check_list(raw, where, len(COLOURS), f"decks ({', '.join(COLOURS)})")
    out = []
    for colour, deck in enumerate(decks):
        ids = goal_ids(deck, f"{where}[{colour}]", goals, colour)
        size = sum(card.colour_index == colour for card in goals)
        if len(ids) != size:
            raise ValueError(
                f"{where}[{colour}] must hold each of the {size} {COLOURS[colour]} goal ids once, "
                f"top card first; got {len(ids)}: {show(ids)}"
            )
        out.append(ids)
    return out


def checked_balls(raw: Any, index: int) -> list[int]:
    """A ``balls`` outcome: all 72 balls in drawing order, as ball ids or a string of letters
    ("?" the blank), which take the balls of each letter in id order."""
    where = key(BALLS, index)
    if isinstance(raw, str):
        if len(raw) != NUM_BALLS:
            raise ValueError(f"{where} must be {NUM_BALLS} letters (every ball), got {len(raw)}")
        try:
            return balls_of(raw)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
    balls = [
        check_int(ball, f"{where}[{i}]", 0, NUM_BALLS - 1, "a ball id")
        for i, ball in enumerate(check_list(raw, where, NUM_BALLS, "ball ids or letters"))
    ]
    check_once(balls, where, str, "the bag")
    return balls


def checked_claim_ties(raw: Any, index: int, num_players: int) -> list[int]:
    """A ``claim_ties`` outcome: every seat once, the first winning ties against the rest."""
    where = key(CLAIM_TIES, index)
    seats = check_list(raw, where, num_players, "seats")
    seats = [check_seat(seat, f"{where}[{i}]", num_players) for i, seat in enumerate(seats)]
    check_once(seats, where, str, "the table")
    return seats


def checked_depth(raw: Any, index: int) -> int:
    """An ``exchange`` outcome before the game: a depth no bag can exceed."""
    return check_int(raw, key(EXCHANGE, index), 0, NUM_BALLS, "a depth in the bag")


def check_depth(depth: int, index: int, bag_size: int) -> int:
    """An ``exchange`` outcome when it is taken: the bag then holds ``bag_size`` balls."""
    return check_int(
        depth, key(EXCHANGE, index), 0, bag_size, "a depth in the bag (0: on top, drawn back)"
    )


def check_reshuffle(order: list[int], index: int, pool: list[int], colour: str) -> list[int]:
    """A ``reshuffle`` outcome when it is taken: the ``pool`` being reshuffled, top card first."""
    if sorted(order) != sorted(pool):
        raise ValueError(
            f"{key(RESHUFFLE, index)} must be the {len(pool)} {colour} discards reshuffled into "
            f"the empty {colour} deck, {sorted(pool)} in any order (top card first); "
            f"got {show(order)}"
        )
    return order
