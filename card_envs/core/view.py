"""What a game's browser view is made of, for ``card_envs/<game>/view.py`` (the view module a
game's :class:`~card_envs.core.plugin.Plugin` names) and the server that draws it.

A view module turns one seat's observation views (``obs_spec.views(vector)``, named pieces,
seat-relative) into groups of card labels: ``groups(views, owner) -> list[Group]``. It may also
give ``scores(views)``, the seat-relative totals the seat sees (default: its ``totals`` piece).
Built from the observation alone, a view is as leak-free as the observation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

Card = dict[str, str]  # {"label": shown text, "colour": a colour word the page styles}
Group = dict[str, Any]  # {"title": str, "cards": [Card, ...]}
Views = dict[str, np.ndarray]


@dataclass(frozen=True)
class Owner:
    """Names the seats of one seat's view: to the seat itself (``you``, ``your hand``), or
    ``absolute`` (``player_2``, ``player_2's hand``) when views of several seats are merged."""

    seat: int
    players: int
    absolute: bool = False

    def of(self, relative: int) -> str:
        """The seat of a relative row."""
        if relative == 0 and not self.absolute:
            return "you"
        return f"player_{(self.seat + relative) % self.players}"

    def own(self, what: str) -> str:
        """Something of the observer's own: ``your hand``, ``player_0's hand``."""
        return f"player_{self.seat}'s {what}" if self.absolute else f"your {what}"


def counted(counts: np.ndarray, card: Callable[[int], Card]) -> list[Card]:
    """A card per copy: ``counts[k]`` copies of kind ``k``."""
    return [card(int(k)) for k in np.flatnonzero(counts) for _ in range(round(counts[k]))]


def per_seat(
    title: str, planes: np.ndarray, owner: Owner, cards: Callable[[np.ndarray], list[Card]]
) -> list[Group]:
    """One group per relative seat whose plane holds any card."""
    return [
        {"title": f"{title}: {owner.of(r)}", "cards": cards(planes[r])}
        for r in range(len(planes))
        if planes[r].any()
    ]
