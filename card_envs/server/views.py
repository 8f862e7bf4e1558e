"""What one seat is shown: cards drawn from its observation's named views by the game's view module
(its :class:`~card_envs.core.plugin.Plugin`'s ``view``, :mod:`card_envs.core.view`), its scores
and round, and its text view (``Game.render_seat``). Built only from what that seat may know, so
it is as leak-free as the observation and the render (tests/test_server.py resamples hidden
cards). A spectator is shown what every seat is shown alike (:func:`public_view`); a replay's
whole table, every seat's cards once each (:func:`table_view`). A game with no view module is
shown as text alone. A group's cards are put in the order its line of the text view lists them,
so the two views agree.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from functools import cache
from types import ModuleType
from typing import Any

from card_envs.core.env import CardEnv
from card_envs.core.view import Card, Group, Owner, Views
from card_envs.registry import plugin


@cache
def view_module(name: str) -> ModuleType | None:
    """The env's view module, or None when its plugin names none."""
    path = plugin(name).view
    return None if path is None else importlib.import_module(path)


def observed_scores(name: str, views: Views, seat: int) -> list[float]:
    """The totals the seat sees, in absolute seat order: the view module's ``scores(views)``,
    else the ``totals`` piece, else none."""
    module = view_module(name)
    scores = getattr(module, "scores", None)
    if scores is not None:
        relative = scores(views)
    elif "totals" in views:
        relative = views["totals"]
    else:
        return []
    players = len(relative)
    return [float(relative[(s - seat) % players]) for s in range(players)]


def card_groups(name: str, views: Views, owner: Owner) -> list[Group]:
    module = view_module(name)
    return [] if module is None else module.groups(views, owner)


def seat_view(env: CardEnv, seat: int, absolute: bool = False) -> dict[str, Any]:
    """Everything the page draws for ``seat``: card groups, scores, round (from 1) and the text
    view; ``absolute``: groups titled by seat number, for views merged with others'."""
    views = env.describe().obs_spec.views(env.encoding.observe(env.game_state, seat))
    name = env.metadata["name"]
    text = env.game.render_seat(env.game_state, seat)
    owner = Owner(seat, len(env.possible_agents), absolute)
    groups = [
        {**group, "cards": in_text_order(group["cards"], text)}
        for group in card_groups(name, views, owner)
        if group["cards"]
    ]
    return {
        "groups": groups,
        "scores": observed_scores(name, views, seat),
        "round": env.game.round_index(env.game_state) + 1,
        "text": text,
    }


def in_text_order(cards: list[Card], text: str) -> list[Card]:
    """``cards`` in the order the first line of ``text`` that names every one of them lists
    them (a label matched as a whole word, each copy further along); unchanged if none does."""
    for line in text.splitlines():
        order = label_positions([card["label"] for card in cards], line)
        if order is not None:
            return [card for _, card in sorted(zip(order, cards, strict=True), key=lambda p: p[0])]
    return cards


def label_positions(labels: Sequence[str], line: str) -> list[int] | None:
    """Where each label stands in ``line``, copies of one label at successive places (``2x
    Sunny`` counts once for both); None when a label is missing."""
    positions: list[int] = []
    after: dict[str, int] = {}
    for label in labels:
        pattern = r"(?<![\w♣♦♥♠])" + re.escape(label) + r"(?!\w)"
        found = re.search(pattern, line[after.get(label, 0) :])
        if found is None:
            found = re.search(pattern, line)  # a count such as "2x Sunny": the same place
            if found is None:
                return None
            positions.append(found.start())
            continue
        start = after.get(label, 0) + found.start()
        positions.append(start)
        after[label] = start + len(label)
    return positions


def table_view(env: CardEnv) -> dict[str, Any]:
    """The whole table (replays only: it shows every hand): the text, every seat's cards once
    (a group all seats see, such as face-up cards, once; of a group seats see differently, such
    as a rack whose new balls only its owner sees, the fullest), and each seat's own view."""
    seats = range(len(env.possible_agents))
    merged: dict[str, Group] = {}
    for seat in seats:
        for group in seat_view(env, seat, absolute=True)["groups"]:
            known = merged.get(group["title"])
            if known is None or len(group["cards"]) > len(known["cards"]):
                merged[group["title"]] = group
    return {
        "text": env.game.render(env.game_state),
        "groups": list(merged.values()),
        "seats": [seat_view(env, seat) for seat in seats],
    }


def group_key(group: Group) -> tuple[str, tuple[str, ...]]:
    return group["title"], tuple(card["label"] for card in group["cards"])


def public_view(env: CardEnv) -> dict[str, Any]:
    """What a spectator is shown: what every seat is shown alike. The card groups every seat's
    view holds the same, the scores all seats see (None where they differ), the round, and the
    text lines every seat reads alike (a line that differs shows the part they share, then
    ``…``)."""
    views = [seat_view(env, seat, absolute=True) for seat in range(len(env.possible_agents))]
    shared = set.intersection(*({group_key(g) for g in view["groups"]} for view in views))
    columns = zip(*(view["scores"] for view in views), strict=True)
    return {
        "groups": [g for g in views[0]["groups"] if group_key(g) in shared],
        "scores": [values[0] if len(set(values)) == 1 else None for values in columns],
        "round": min(view["round"] for view in views),
        "text": shared_text([env.game.render_seat(env.game_state, s) for s in range(len(views))]),
    }


def shared_text(texts: Sequence[str]) -> str:
    """The lines of ``texts`` read alike: each line where all agree, else the words they share
    at its start and ``…`` (every text is one seat's view, so only what all share is public)."""
    rows = [text.splitlines() for text in texts]
    lines = []
    for row in zip(*rows, strict=False):
        if len(set(row)) == 1:
            lines.append(row[0])
            continue
        common = []
        for words in zip(*(line.split(" ") for line in row), strict=False):
            if len(set(words)) > 1:
                break
            common.append(words[0])
        lines.append(" ".join(common).rstrip(" |") + " …")
    return "\n".join(lines)
