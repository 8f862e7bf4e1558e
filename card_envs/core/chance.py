"""Chance as data: every random outcome of a game, drawn from a generator or from a script.

The rules ask for each chance event by name (``chance.take(rng, "round", sample, check)``);
``sample(rng)`` draws the outcome as plain data (lists and ints, the way a deal is written), and
``check(outcome)`` validates one given by a script. Unscripted, the outcome is sampled; scripted,
the next outcome of that name is taken from the script. Either way it is logged, so after a game
``log`` holds every chance outcome of the whole game in the format a deal injects it
(``deal["chance"]``), and replaying that deal reproduces the game whatever the generator.

A [`ChanceLog`][] lives in the game state, so copies and pickles of a state carry it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

Outcome = TypeVar("Outcome")


@dataclass
class ChanceLog:
    """The outcomes still scripted (by event name, in order) and those that happened."""

    script: dict[str, list[Any]] = field(default_factory=dict)
    log: dict[str, list[Any]] = field(default_factory=dict)

    def take(
        self,
        rng: np.random.Generator,
        event: str,
        sample: Callable[[np.random.Generator], Outcome],
        check: Callable[[Any], Outcome],
    ) -> Outcome:
        """The next outcome of ``event``: the script's (checked) while it lasts, then sampled."""
        scripted = self.script.get(event)
        outcome = check(scripted.pop(0)) if scripted else sample(rng)
        self.log.setdefault(event, []).append(outcome)
        return outcome

    def record(self) -> dict[str, list[Any]]:
        """Every outcome so far by event name: the ``deal["chance"]`` that replays them."""
        return {event: list(outcomes) for event, outcomes in self.log.items()}


def chance_script(deal: Mapping[str, Any] | None, events: Sequence[str]) -> dict[str, list[Any]]:
    """The script in ``deal["chance"]`` (``{event: [outcome, ...]}``), its event names checked
    against the game's ``events``; outcomes are checked by the game when they are taken."""
    if deal is None or "chance" not in deal:
        return {}
    chance = deal["chance"]
    if not isinstance(chance, Mapping):
        raise ValueError(
            f"deal['chance'] must be a dict of event name -> list of outcomes, "
            f"got {type(chance).__name__}"
        )
    unknown = sorted(map(str, set(chance) - set(events)))
    if unknown:
        raise ValueError(f"deal['chance'] has unknown events {unknown}; events: {list(events)}")
    script: dict[str, list[Any]] = {}
    for event, outcomes in chance.items():
        if not isinstance(outcomes, list | tuple):
            raise ValueError(
                f"deal['chance'][{event!r}] must be a list of outcomes, "
                f"got {type(outcomes).__name__}"
            )
        script[event] = list(outcomes)
    return script


def check_written_or_scripted(
    script: Mapping[str, Sequence[Any]], event: str, what: str, keys: Sequence[str]
) -> None:
    """A ``ValueError`` when a deal gives ``what`` twice: by hand, in its ``keys`` (those that
    write it; none when the deal does not), and as the first outcome of the script's ``event``.
    Each alone is a deal; both would leave a replay two versions of one outcome."""
    if not keys or not script.get(event):
        return
    named = [f"deal[{key!r}]" for key in keys]
    by_hand = " and ".join([", ".join(named[:-1]), named[-1]] if len(named) > 1 else named)
    gives = "gives" if len(named) == 1 else "give"
    raise ValueError(
        f"deal['chance'][{event!r}] scripts {what}, which {by_hand} already {gives}: write "
        f"{what} either in {by_hand} or as the first outcome of deal['chance'][{event!r}], "
        "not both"
    )
