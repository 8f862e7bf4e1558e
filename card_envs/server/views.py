"""What one seat is shown: cards drawn from its observation's named views, its scores and round,
and its text view (``Game.render_seat``). Built only from what that seat may know, so it is as
leak-free as the observation and the render (tests/test_server.py resamples hidden cards).
A spectator is shown what every seat is shown alike (:func:`public_view`); a replay's whole
table, every seat's cards once each (:func:`table_view`).

Each game has a small builder that turns the observation's hand and table planes into groups of
card labels, named as the game's own text does (``rules/text.py`` and ``rules/cards.py``).
Per-seat planes are seat-relative: row ``r`` is seat ``(seat + r) % players``. A group's cards
are put in the order its line of the text view lists them, so the two views agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from card_envs.core.cards import SUIT_SYMBOLS
from card_envs.core.cards import card_name as french_name
from card_envs.core.cards import suit_of as french_suit
from card_envs.core.env import CardEnv
from card_envs.seals.rules import cards as seals_cards
from card_envs.seers_catalog.rules import cards as seers_cards
from card_envs.sequitur.rules import cards as sequitur_cards
from card_envs.sequitur.rules.words import ALPHABET, BLANK
from card_envs.unfortunate_events.rules import cards as events_cards

Card = dict[str, str]  # {"label": shown text, "colour": a colour word the page styles}
Group = dict[str, Any]  # {"title": str, "cards": [Card, ...]}
Views = dict[str, np.ndarray]

FRENCH_COLOURS = ("black", "red", "red", "black")  # ♣ ♦ ♥ ♠
SEERS_COLOURS = ("plum", "green", "teal", "amber", "rose")  # suits P G T A R
EVENTS_COLOURS = ("green", "blue", "gold", "purple")


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


def french(code: int) -> Card:
    return {"label": french_name(code), "colour": FRENCH_COLOURS[french_suit(code)]}


def french_cards(plane: np.ndarray) -> list[Card]:
    return [french(int(c)) for c in np.flatnonzero(plane)]


def seamless_groups(views: Views, owner: Owner) -> list[Group]:
    """The trump is always shown: its revealed card while it lies there, else its suit."""
    suit = int(np.argmax(views["trump_suit"]))
    revealed = french_cards(views["trump_card"])
    trump = {"label": SUIT_SYMBOLS[suit], "colour": FRENCH_COLOURS[suit]}
    title = "trump, revealed card" if revealed else "trump (its card has been played)"
    return [
        {"title": owner.own("hand"), "cards": french_cards(views["hand"])},
        {"title": title, "cards": revealed or [trump]},
        *per_seat("trick", views["trick"], owner, french_cards),
        *per_seat("row", views["rows"], owner, french_cards),
    ]


def seers(kind: int) -> Card:
    suited = kind < seers_cards.WILD
    colour = SEERS_COLOURS[kind // seers_cards.NUM_VALUES] if suited else "grey"
    return {"label": seers_cards.kind_name(kind), "colour": colour}


def seers_groups(views: Views, owner: Owner) -> list[Group]:
    return [
        {"title": owner.own("hand"), "cards": counted(views["hand"], seers)},
        *per_seat("trick", views["trick_cards"], owner, lambda plane: counted(plane, seers)),
    ]


def seals(face: int) -> Card:
    colour, symbol = divmod(face, seals_cards.NUM_SYMBOLS)
    label = seals_cards.COLOUR_LETTERS[colour] + seals_cards.SYMBOL_LABELS[symbol]
    return {"label": label, "colour": seals_cards.COLOURS[colour]}


def seals_groups(views: Views, owner: Owner) -> list[Group]:
    return [
        {"title": "face up", "cards": counted(views["row"].ravel(), seals)},
        {"title": owner.own("hand"), "cards": counted(views["hand"].ravel(), seals)},
    ]


def events(kind: int) -> Card:
    coloured = kind < events_cards.EYE
    colour = EVENTS_COLOURS[events_cards.colour_of(kind)] if coloured else "grey"
    return {"label": events_cards.KIND_NAMES[kind], "colour": colour}


def events_groups(views: Views, owner: Owner) -> list[Group]:
    return [
        {"title": owner.own("hand"), "cards": counted(views["hand"], events)},
        {"title": "discard top", "cards": counted(views["discard_top"], events)},
        *per_seat("4-set laid", views["laid4"], owner, lambda plane: counted(plane, events)),
    ]


def letters(slots: Iterable[np.ndarray]) -> list[Card]:
    """A ball per filled slot: its letter, ``?`` for the blank."""
    shown = []
    for slot in slots:
        if slot.any():
            code = int(np.argmax(slot))
            shown.append(
                {"label": "?" if code == BLANK else ALPHABET[code].upper(), "colour": "ball"}
            )
    return shown


def goal_cards(plane: np.ndarray) -> list[Card]:
    """Goal cards by number, as the text view names them (``#57``)."""
    return [{"label": f"#{int(k)}", "colour": "grey"} for k in np.flatnonzero(plane)]


def action_cards(used: np.ndarray) -> list[Card]:
    """The action cards a seat has not played yet."""
    return [
        {"label": name, "colour": "grey"}
        for name, gone in zip(sequitur_cards.CARDS, used, strict=True)
        if not gone
    ]


def sequitur_groups(views: Views, owner: Owner) -> list[Group]:
    return [
        *per_seat("rack", views["racks"], owner, letters),
        {"title": owner.own("ball to place"), "cards": letters([views["ball"]])},
        *per_seat("word", views["words"], owner, letters),
        {"title": owner.own("secret goal"), "cards": goal_cards(views["secret"])},
        {"title": owner.own("goals drawn"), "cards": goal_cards(views["drawn"])},
        {"title": "public goals", "cards": goal_cards(views["public"])},
        {"title": owner.own("action cards"), "cards": action_cards(views["used"][0])},
    ]


# Each game's builder, its scores piece and its round piece (one-hot, or a count).
BUILDERS: dict[str, Callable[[Views, Owner], list[Group]]] = {
    "seamless_v0": seamless_groups,
    "seers_catalog_v0": seers_groups,
    "seals_v0": seals_groups,
    "unfortunate_events_v0": events_groups,
    "sequitur_v0": sequitur_groups,
    "sequitur_v1": sequitur_groups,
}
SCORES: dict[str, Callable[[Views], np.ndarray]] = {
    "seals_v0": lambda views: views["blasons"],
    "unfortunate_events_v0": lambda views: views["seats"][:, 3],  # Victory cards
}


# Games whose round piece counts the rounds finished; the others hold a one-hot round number.
ROUND_COUNTS = {"unfortunate_events_v0"}


def observed_round(name: str, views: Views) -> int:
    """The round the seat sees (0 for the first): a count of rounds finished, or the index of a
    one-hot piece (whose length is the number of rounds, 1 in a one-round game)."""
    piece = views["round"]
    return int(piece[0]) if name in ROUND_COUNTS else int(np.argmax(piece))


def observed_scores(name: str, views: Views, seat: int) -> list[float]:
    """The totals the seat sees, in absolute seat order."""
    relative = SCORES.get(name, lambda v: v["totals"])(views)
    players = len(relative)
    return [float(relative[(s - seat) % players]) for s in range(players)]


def seat_view(env: CardEnv, seat: int, absolute: bool = False) -> dict[str, Any]:
    """Everything the page draws for ``seat``: card groups, scores, round (from 1) and the text
    view; ``absolute``: groups titled by seat number, for views merged with others'."""
    views = env.describe().obs_spec.views(env.encoding.observe(env.game_state, seat))
    name = env.metadata["name"]
    text = env.game.render_seat(env.game_state, seat)
    owner = Owner(seat, len(env.possible_agents), absolute)
    groups = [
        {**group, "cards": in_text_order(group["cards"], text)}
        for group in BUILDERS[name](views, owner)
        if group["cards"]
    ]
    return {
        "groups": groups,
        "scores": observed_scores(name, views, seat),
        "round": observed_round(name, views) + 1,
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
