"""What one seat is shown: cards drawn from its observation's named views, its scores and round,
and its text view (``Game.render_seat``). Built only from what that seat may know, so it is as
leak-free as the observation and the render (tests/test_server.py resamples hidden cards).

Each game has a small builder that turns the observation's hand and table planes into groups of
card labels, named as the game's own text does (``rules/text.py`` and ``rules/cards.py``).
Per-seat planes are seat-relative: row ``r`` is seat ``(seat + r) % players``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
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


def seat_name(relative: int, seat: int, players: int) -> str:
    """``you`` for the observer, else the absolute seat of a relative row."""
    return "you" if relative == 0 else f"player_{(seat + relative) % players}"


def counted(counts: np.ndarray, card: Callable[[int], Card]) -> list[Card]:
    """A card per copy: ``counts[k]`` copies of kind ``k``."""
    return [card(int(k)) for k in np.flatnonzero(counts) for _ in range(round(counts[k]))]


def per_seat(
    title: str, planes: np.ndarray, seat: int, cards: Callable[[np.ndarray], list[Card]]
) -> list[Group]:
    """One group per relative seat whose plane holds any card."""
    players = len(planes)
    return [
        {"title": f"{title}: {seat_name(r, seat, players)}", "cards": cards(planes[r])}
        for r in range(players)
        if planes[r].any()
    ]


def french(code: int) -> Card:
    return {"label": french_name(code), "colour": FRENCH_COLOURS[french_suit(code)]}


def french_cards(plane: np.ndarray) -> list[Card]:
    return [french(int(c)) for c in np.flatnonzero(plane)]


def seamless_groups(views: Views, seat: int) -> list[Group]:
    trump = SUIT_SYMBOLS[int(np.argmax(views["trump_suit"]))]
    return [
        {"title": "your hand", "cards": french_cards(views["hand"])},
        {"title": f"trump {trump}, revealed card", "cards": french_cards(views["trump_card"])},
        *per_seat("trick", views["trick"], seat, french_cards),
        *per_seat("row", views["rows"], seat, french_cards),
    ]


def seers(kind: int) -> Card:
    suited = kind < seers_cards.WILD
    colour = SEERS_COLOURS[kind // seers_cards.NUM_VALUES] if suited else "grey"
    return {"label": seers_cards.kind_name(kind), "colour": colour}


def seers_groups(views: Views, seat: int) -> list[Group]:
    return [
        {"title": "your hand", "cards": counted(views["hand"], seers)},
        *per_seat("trick", views["trick_cards"], seat, lambda plane: counted(plane, seers)),
    ]


def seals(face: int) -> Card:
    colour, symbol = divmod(face, seals_cards.NUM_SYMBOLS)
    label = seals_cards.COLOUR_LETTERS[colour] + seals_cards.SYMBOL_LABELS[symbol]
    return {"label": label, "colour": seals_cards.COLOURS[colour]}


def seals_groups(views: Views, seat: int) -> list[Group]:
    return [
        {"title": "face up", "cards": counted(views["row"].ravel(), seals)},
        {"title": "your hand", "cards": counted(views["hand"].ravel(), seals)},
    ]


def events(kind: int) -> Card:
    coloured = kind < events_cards.EYE
    colour = EVENTS_COLOURS[events_cards.colour_of(kind)] if coloured else "grey"
    return {"label": events_cards.KIND_NAMES[kind], "colour": colour}


def events_groups(views: Views, seat: int) -> list[Group]:
    return [
        {"title": "your hand", "cards": counted(views["hand"], events)},
        {"title": "discard top", "cards": counted(views["discard_top"], events)},
        *per_seat("4-set laid", views["laid4"], seat, lambda plane: counted(plane, events)),
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


def sequitur_groups(views: Views, seat: int) -> list[Group]:
    return [
        *per_seat("rack", views["racks"], seat, letters),
        {"title": "ball to place", "cards": letters([views["ball"]])},
        *per_seat("word", views["words"], seat, letters),
        {"title": "your secret goal", "cards": goal_cards(views["secret"])},
        {"title": "goals drawn", "cards": goal_cards(views["drawn"])},
        {"title": "public goals", "cards": goal_cards(views["public"])},
        {"title": "your action cards", "cards": action_cards(views["used"][0])},
    ]


# Each game's builder, its scores piece and its round piece (one-hot, or a count).
BUILDERS: dict[str, Callable[[Views, int], list[Group]]] = {
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


def seat_view(env: CardEnv, seat: int) -> dict[str, Any]:
    """Everything the page draws for ``seat``: card groups, scores, round and the text view."""
    views = env.describe().obs_spec.views(env.encoding.observe(env.game_state, seat))
    name = env.metadata["name"]
    groups = [group for group in BUILDERS[name](views, seat) if group["cards"]]
    return {
        "groups": groups,
        "scores": observed_scores(name, views, seat),
        "round": observed_round(name, views),
        "text": env.game.render_seat(env.game_state, seat),
    }


def table_view(env: CardEnv) -> dict[str, Any]:
    """The whole table (replays only: it shows every hand): the text and each seat's view."""
    return {
        "text": env.game.render(env.game_state),
        "seats": [seat_view(env, seat) for seat in range(len(env.possible_agents))],
    }
