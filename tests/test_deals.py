"""Injected deals and options are checked strictly and the same way in every game.

A deal that is not a dict is a ``TypeError``; an unknown key, a value of the wrong type (a bool,
a float or a string where an integer belongs) or out of range is a ``ValueError`` naming the key
and what is allowed, raised before the game draws from its generator. Options that size
allocations have an upper bound, and every option's wrong value is a ``ValueError``.
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import pickle
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from card_envs import env_names, make
from card_envs.core.game import ROUNDS_LIMIT, Game
from card_envs.seals.rules import SealsGame
from card_envs.seamless.rules import SeamlessGame
from card_envs.seers_catalog.rules import SeersCatalogGame
from card_envs.sequitur.rules import SequiturGame
from card_envs.unfortunate_events.rules import UnfortunateEventsGame


@dataclass
class DealCase:
    """A game, a valid deal for it, and where that deal keeps a seat, an integer and a list."""

    game: Callable[[], Game]
    valid: dict[str, Any]
    seat: str | None  # the key of a seat, if the deal has one
    seats: int
    number: tuple[Any, ...]  # path to an integer (card code or goal id) inside the deal
    listed: str  # a key whose value is a list of a fixed length
    duplicate: Callable[[dict[str, Any]], None]  # gives a card twice
    duplicate_message: str


def _set(deal: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    target = deal
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value


def _key(path: tuple[Any, ...]) -> str:
    return "deal" + "".join(f"[{step!r}]" for step in path)


def _seamless_duplicate(deal: dict[str, Any]) -> None:
    deal["hands"][1][0] = deal["hands"][0][1]


def _seers_duplicate(deal: dict[str, Any]) -> None:
    deal["hands"][1] = [1, 13]


def _seals_duplicate(deal: dict[str, Any]) -> None:
    deal["row"] = [0, 4]


def _ue_duplicate(deal: dict[str, Any]) -> None:
    deal["hands"][1] = [0] * 7  # with seat 0's seven: 14 copies of Violet, the deck has 7


def _sequitur_duplicate(deal: dict[str, Any]) -> None:
    deal["goals"]["red"] = [48, 48]


CASES = {
    "seamless": DealCase(
        SeamlessGame,
        {
            "hands": [[s * 13 + r for r in range(13)] for s in range(4)],
            "trump_card": 0,
            "dealer": 0,
        },
        "dealer",
        4,
        ("hands", 0, 3),
        "hands",
        _seamless_duplicate,
        "twice",
    ),
    "seers_catalog": DealCase(
        lambda: SeersCatalogGame(3),
        {"hands": [[0, 1], [12, 13], [24, 25]], "leader": 1},
        "leader",
        3,
        ("hands", 0, 1),
        "hands",
        _seers_duplicate,
        "twice",
    ),
    "seals": DealCase(
        lambda: SealsGame(2),
        {
            "hands": [[0, 1], [2]],
            "row": [3, 4],
            "pile": [5],
            "blasons": [0, 1],
            "counter": 4,
            "starter": 1,
        },
        "starter",
        2,
        ("hands", 0, 1),
        "blasons",
        _seals_duplicate,
        "twice",
    ),
    "unfortunate_events": DealCase(
        lambda: UnfortunateEventsGame(2),
        {"hands": [[0] * 7, [1] * 7], "discard": [2], "pile": [3], "dealer": 1},
        "dealer",
        2,
        ("hands", 0, 2),
        "hands",
        _ue_duplicate,
        "copies",
    ),
    "sequitur": DealCase(
        lambda: SequiturGame(2),
        {"racks": ["hwfor", "abcde"], "draws": "gde", "goals": {"red": [48]}},
        None,
        0,
        ("goals", "red", 0),
        "racks",
        _sequitur_duplicate,
        "twice",
    ),
}
GAMES = pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
SEATED = pytest.mark.parametrize(
    "case", [c for c in CASES.values() if c.seat], ids=[g for g, c in CASES.items() if c.seat]
)


def rejected(case: DealCase, deal: Any, error: type[Exception], *fragments: str) -> str:
    """Check the deal is refused with ``error`` naming every fragment, and that the game's
    generator is untouched (the whole deal is checked before anything is drawn)."""
    rng = np.random.default_rng(7)
    before = copy.deepcopy(rng.bit_generator.state)
    with pytest.raises(error) as caught:
        case.game().new_game(rng, deal)
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    assert rng.bit_generator.state == before, "a rejected deal drew from the generator"
    return message


def modified(case: DealCase, path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    deal = copy.deepcopy(case.valid)
    _set(deal, path, value)
    return deal


@GAMES
def test_the_valid_deal_is_accepted(case):
    case.game().new_game(np.random.default_rng(0), copy.deepcopy(case.valid))


@GAMES
@pytest.mark.parametrize("deal", ["hands", [1, 2], 5], ids=["str", "list", "int"])
def test_a_deal_that_is_not_a_dict_is_a_type_error(case, deal):
    message = rejected(case, deal, TypeError, "deal must be a dict", type(deal).__name__)
    assert all(repr(key) in message for key in case.valid), "the message lists the keys"


@GAMES
def test_an_unknown_key_is_refused_in_every_game(case):
    """Seamless and Seers Catalog used to ignore unknown keys (a typo went unnoticed)."""
    deal = {**copy.deepcopy(case.valid), "dealr": 0}
    message = rejected(case, deal, ValueError, "'dealr'", "allowed keys")
    assert all(repr(key) in message for key in case.valid)


@GAMES
@pytest.mark.parametrize(
    "value",
    [0.5, 2.0, True, "1", None, np.float64(1.0)],
    ids=["0.5", "2.0", "True", "str", "None", "np.float64"],
)
def test_an_integer_field_takes_no_float_bool_or_string(case, value):
    """Card code 0.5 used to become card 0, True card 1, "1" card 1 (or a bare AttributeError)."""
    rejected(case, modified(case, case.number, value), ValueError, _key(case.number), repr(value))


@SEATED
@pytest.mark.parametrize("value", [True, 1.0, 2.9, "1", -1, "seats"])
def test_a_seat_must_be_an_integer_seat(case, value):
    """Seals' starter took 7, -1 and 2.9; Unfortunate Events' dealer took "1"; a seat True
    passed everywhere; Seamless' dealer 1.0 failed with "list indices must be integers"."""
    value = case.seats if value == "seats" else value
    deal = modified(case, (case.seat,), value)
    key = f"deal[{case.seat!r}]"
    rejected(case, deal, ValueError, f"{key} must be a seat 0..{case.seats - 1}", repr(value))


@GAMES
def test_numpy_integers_are_accepted_and_deal_the_same_game(case):
    """Unfortunate Events refused a numpy int64 card kind as "not a card"."""

    def to_numpy(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: to_numpy(item) for key, item in value.items()}
        if isinstance(value, list):
            return [to_numpy(item) for item in value]
        return np.int64(value) if isinstance(value, int) else value

    plain = case.game().new_game(np.random.default_rng(3), copy.deepcopy(case.valid))
    numpy = case.game().new_game(np.random.default_rng(3), to_numpy(case.valid))
    assert pickle.dumps(numpy) == pickle.dumps(plain)


@GAMES
@pytest.mark.parametrize("value", [None, "abc", 3, {"a": 1}], ids=["None", "str", "int", "dict"])
def test_a_list_field_must_be_a_list(case, value):
    """None used to fail with "'NoneType' object is not iterable", a string was split into
    characters."""
    rejected(case, modified(case, (case.listed,), value), ValueError, f"deal[{case.listed!r}]")


@GAMES
def test_a_list_of_the_wrong_length_is_refused(case):
    deal = copy.deepcopy(case.valid)
    deal[case.listed] = deal[case.listed][:-1]
    rejected(case, deal, ValueError, f"deal[{case.listed!r}]", "must be")


@GAMES
def test_a_card_given_twice_is_refused(case):
    """Sequitur accepted goal ids [48, 48]: the red deck grew to 25 cards and play went on."""
    deal = copy.deepcopy(case.valid)
    case.duplicate(deal)
    rejected(case, deal, ValueError, "deal[", case.duplicate_message)


def test_out_of_range_values_name_the_key_and_the_range():
    seamless = CASES["seamless"]
    rejected(seamless, modified(seamless, ("trump_card",), 52), ValueError, "0..51")
    rejected(seamless, modified(seamless, ("hands", 2, 0), -1), ValueError, "deal['hands'][2][0]")
    seals = CASES["seals"]
    rejected(seals, modified(seals, ("blasons", 0), 1.7), ValueError, "deal['blasons'][0]", "0..4")
    rejected(seals, modified(seals, ("blasons", 1), 5), ValueError, "deal['blasons'][1]", "0..4")
    rejected(seals, modified(seals, ("counter",), 2.5), ValueError, "deal['counter']", "1..5")
    rejected(seals, modified(seals, ("counter",), 0), ValueError, "deal['counter']", "1..5")
    sequitur = CASES["sequitur"]
    rejected(sequitur, modified(sequitur, ("goals", "red", 0), 72), ValueError, "0..71")
    rejected(sequitur, modified(sequitur, ("goals", "red", 0), 0), ValueError, "red goal ids")


def test_names_where_a_game_uses_names():
    """Card names are strings from the game's set; anything else names the key and index."""
    ue = CASES["unfortunate_events"]
    hands = [["Violet"] * 6 + [4.5], ["Klaus"] * 7]
    rejected(ue, {"hands": hands}, ValueError, "deal['hands'][0][6]", "not a card", "Violet")
    rejected(ue, {"hands": [["Violet"] * 6 + ["Olaf"], ["Klaus"] * 7]}, ValueError, "'Olaf'")
    seals = CASES["seals"]
    rejected(seals, {"hands": ["R1 X7", ""]}, ValueError, "deal['hands'][0]", "'X7'")
    rejected(seals, {"row": ["R1", 2.5]}, ValueError, "deal['row'][1]", "0..56")
    seers = CASES["seers_catalog"]
    rejected(seers, {"hands": ["5P", "6G", "7Q"]}, ValueError, "deal['hands'][2]", "'7Q'")
    rejected(seers, {"hands": [["5P", None], ["6G"], ["7T"]]}, ValueError, "deal['hands'][0][1]")
    rejected(seers, {"hands": ["W W W W", "6G", "7T"]}, ValueError, "4 wilds", "has 3")
    rejected(seers, {"hands": ["13R", "6G", "7T"]}, ValueError, "deal['hands'][0]", "13R")
    sequitur = CASES["sequitur"]
    rejected(sequitur, {"racks": [list("hwfor"), "abcde"]}, ValueError, "deal['racks'][0]")
    rejected(sequitur, {"draws": ["g", "d"]}, ValueError, "deal['draws']", "a string")
    rejected(sequitur, {"draws": "qq"}, ValueError, "deal['draws']", "no 'q' ball")
    rejected(sequitur, {"goals": {"red": 48}}, ValueError, "deal['goals']['red']")
    rejected(sequitur, {"goals": {"blue": [0]}}, ValueError, "colours")
    rejected(sequitur, {"goals": None}, ValueError, "deal['goals']")


def test_missing_required_keys_are_named():
    rejected(
        CASES["seamless"], {"hands": CASES["seamless"].valid["hands"]}, ValueError, "'trump_card'"
    )
    rejected(CASES["seers_catalog"], {"leader": 0}, ValueError, "deal['hands'] is missing")
    rejected(CASES["unfortunate_events"], {"dealer": 0}, ValueError, "deal['hands'] is missing")


@pytest.mark.parametrize(
    ("name", "left_out", "event", "keys"),
    [
        ("seamless", (), "deal", ["hands", "trump_card"]),
        ("seers_catalog", (), "deal", ["hands"]),
        ("unfortunate_events", (), "deal", ["hands", "discard", "pile"]),
        ("sequitur", (), "goal_decks", ["goals"]),
        ("sequitur", ("goals",), "balls", ["racks", "draws"]),
    ],
)
def test_an_outcome_written_by_hand_and_scripted_too_is_refused(name, left_out, event, keys):
    """Four games refuse with one check (``core.chance.check_written_or_scripted``) a deal
    that gives an outcome twice: by hand and as the first outcome its script holds."""
    case = CASES[name]
    deal = {key: value for key, value in copy.deepcopy(case.valid).items() if key not in left_out}
    game = case.game()
    deal["chance"] = game.deal_record(game.new_game(np.random.default_rng(1)))["chance"]
    names = [f"deal[{key!r}]" for key in keys]
    rejected(case, deal, ValueError, f"deal['chance'][{event!r}] scripts", *names, "not both")


def _imported(module: ModuleType) -> set[str]:
    """The modules ``module``'s source imports names from."""
    tree = ast.parse(Path(str(module.__file__)).read_text())
    return {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)} - {None}


@pytest.mark.parametrize("name", CASES)
def test_every_game_checks_deals_in_rules_deal_and_redraws_in_rules_hidden(name):
    """The same shape in every game: ``rules/deal.py`` checks injected deals with the shared
    checks, ``rules/hidden.py`` holds what ``resample_hidden`` redraws with, and ``game.py``
    calls both instead of checking deals itself."""
    package = f"card_envs.{name}.rules"
    deal, game = (importlib.import_module(f"{package}.{module}") for module in ("deal", "game"))
    assert "card_envs.core.deal" in _imported(deal)
    assert "card_envs.core.deal" not in _imported(game)
    assert {f"{package}.deal", f"{package}.hidden"} <= _imported(game)


def test_unfortunate_events_needs_a_discard_when_the_deal_names_every_card():
    pile = [k for k, copies in enumerate([7] * 12 + [3] * 4 + [2] * 4 + [1]) for _ in range(copies)]
    hands = [pile[:7], pile[7:14]]
    rejected(
        CASES["unfortunate_events"],
        {"hands": hands, "pile": pile[14:]},
        ValueError,
        "deal['discard']",
    )


# -- options ----------------------------------------------------------------------------------

ROUND_OPTIONS = [
    ("seamless_v0", "max_rounds", ROUNDS_LIMIT),
    ("seers_catalog_v0", "num_rounds", ROUNDS_LIMIT),
    ("seals_v0", "tie_rounds", ROUNDS_LIMIT),
    ("unfortunate_events_v0", "max_rounds", ROUNDS_LIMIT),
    ("unfortunate_events_v0", "turn_cap", 10_000),
]


@pytest.mark.parametrize(("name", "option", "limit"), ROUND_OPTIONS)
def test_options_that_size_allocations_have_an_upper_bound(name, option, limit):
    """10**9 rounds raised MemoryError (10**7 built 580 MB observations); the limit works."""
    for value in (limit + 1, 10**9):
        with pytest.raises(ValueError, match=rf"{option} must be an integer .* at most {limit}"):
            make(name, **{option: value})
    env = make(name, **{option: limit})
    env.reset(seed=0)


@pytest.mark.parametrize("name", env_names())
@pytest.mark.parametrize("value", [4.0, True, "4", None, np.float32(4)], ids=str)
def test_num_players_must_be_an_integer_count(name, value):
    """4.0 was accepted by four games and a TypeError in Seers Catalog."""
    if value is None:  # None asks for the default count
        make(name, num_players=value)
        return
    with pytest.raises(ValueError, match=r"num_players=.* is not allowed; choose one of \["):
        make(name, num_players=value)


@pytest.mark.parametrize("name", env_names())
def test_num_players_takes_a_numpy_integer(name):
    env = make(name, num_players=np.int64(make(name).game.default_players))
    assert type(env.game.num_players) is int


@pytest.mark.parametrize("pool", [None, 5, "Crown", ["Go First", 3], {"Go First": 1}], ids=str)
def test_artifact_pool_of_the_wrong_type_is_a_value_error(pool):
    """None and 5 used to raise a bare TypeError ("not iterable")."""
    with pytest.raises(ValueError, match="artifact_pool must be a list of artifact names"):
        make("seers_catalog_v0", artifact_pool=pool)


# Values each option accepts among the probes below (every other probe is refused).
ACCEPTED = {
    ("seamless_v0", "target_score"): [10**9],  # a score target sizes nothing
    ("seamless_v1", "target_score"): [10**9],
    ("sequitur_v0", "dictionary"): [None],
    ("sequitur_v0", "goals"): [None],
    ("sequitur_v1", "dictionary"): [None],
    ("sequitur_v1", "goals"): [None],
}
PROBES = [None, 1.5, "x", True, 10**9, [1], -1]


def _option_cases() -> list[tuple[str, str]]:
    cases = []
    for name in env_names():
        game_class = make(name).game_class
        params = inspect.signature(game_class.__init__).parameters
        cases += [(name, option) for option in params if option != "self"]
    return cases


@pytest.mark.parametrize(("name", "option"), _option_cases())
def test_every_option_refuses_wrong_types_with_a_value_error(name, option):
    defaults = inspect.signature(make(name).game_class.__init__).parameters
    for value in PROBES:
        if value in ACCEPTED.get((name, option), []):
            make(name, **{option: value})
            continue
        if isinstance(defaults[option].default, bool) and isinstance(value, bool):
            continue  # True is a valid value of a bool option
        if option == "num_players" and value is None:
            continue  # None asks for the default count
        with pytest.raises(ValueError, match=re.escape(option)):
            make(name, **{option: value})
