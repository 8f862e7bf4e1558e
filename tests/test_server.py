"""The browser table's server (card-envs serve) through its HTTP API: whole games, records and
replays, what a seat is sent (nothing it may not know), refusals (a 4xx with an error, the table
unchanged, never a 500) and expiry."""

from __future__ import annotations

import copy
import gc
import json
import pickle
import tracemalloc
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")

with warnings.catch_warnings():  # Starlette 1.7 suggests httpx2; it supports and we pin httpx
    warnings.filterwarnings("ignore", "Using `httpx`")
    from starlette.testclient import TestClient

from card_envs.records import validate_record
from card_envs.registry import make
from card_envs.server.app import MAX_BODY, create_app
from card_envs.server.command import LOOPBACK_NAMES, add_parser
from card_envs.server.tables import TableError, TableStore, games
from card_envs.server.views import seat_view

# Short games: one per env, a person in seat 0 and agents elsewhere.
SHORT = {
    "seamless_v0": ({"max_rounds": 1}, ["human", "heuristic", "random", "heuristic"]),
    "seamless_v1": ({"max_rounds": 1}, ["human", "heuristic", "random", "heuristic"]),
    "seers_catalog_v0": ({"num_rounds": 1}, ["human", "heuristic"]),
    "seals_v0": ({}, ["human", "heuristic"]),
    "unfortunate_events_v0": ({}, ["human", "heuristic_outs"]),
    "sequitur_v0": ({}, ["human"]),
    "sequitur_v1": ({}, ["human"]),
}


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(TableStore()))


def new_table(client: TestClient, game: str, seats: list[str], seed=0, options=None) -> str:
    body = {"game": game, "seats": seats, "seed": seed, "options": options or {}}
    response = client.post("/api/tables", json=body)
    assert response.status_code == 201, response.text
    return response.json()["table"]


def play_out(client: TestClient, table: str, seat: int, rng: np.random.Generator) -> dict:
    """Random legal moves for ``seat`` until the game ends; the last state."""
    state = client.get(f"/api/tables/{table}?seat={seat}").json()
    while not state["over"]:
        assert state["to_act"] == seat and state["legal"]
        move = state["legal"][rng.integers(len(state["legal"]))]["id"]
        response = client.post(f"/api/tables/{table}/act", json={"seat": seat, "action": move})
        assert response.status_code == 200, response.text
        state = response.json()
    return state


def test_games_list_every_env_its_agents_and_no_option_that_names_a_file(client):
    listing = {game["name"]: game for game in client.get("/api/games").json()}
    assert sorted(listing) == sorted(SHORT)
    sequitur = listing["sequitur_v0"]
    assert "dictionary" not in sequitur["options"] and "goals" not in sequitur["options"]
    assert sequitur["options"]["claim_pass"]["default"] is False
    assert sequitur["options"]["claim_pass"]["kind"] == "boolean"
    assert listing["seamless_v0"]["agents"]["4"] == ["random", "heuristic", "ppo", "ppo_advised"]
    assert listing["seals_v0"]["players"] == [2, 3, 4]
    seals = listing["seals_v0"]
    assert seals["title"] == "Seals" and "num_players" not in seals["options"]
    assert seals["options"]["tie_rounds"] == {
        "kind": "integer",
        "default": 3,
        "description": seals["options"]["tie_rounds"]["description"],
        "min": 0,
        "max": 1000,
    }
    assert seals["options"]["empty_pile"]["choices"] == ["play_out", "end_round"]
    pool = listing["seers_catalog_v0"]["options"]["artifact_pool"]
    assert pool["kind"] == "choices" and "Go First" in pool["default"]


@pytest.mark.parametrize("game", sorted(SHORT))
def test_a_whole_game_then_its_record_and_replay(client, game):
    options, seats = SHORT[game]
    table = new_table(client, game, seats, seed=5, options=options)
    assert client.get(f"/api/tables/{table}/record").status_code == 409
    state = play_out(client, table, 0, np.random.default_rng(5))
    assert state["result"]["scores"] and state["rewards"].keys() == {
        f"player_{s}" for s in range(len(seats))
    }
    assert {"seat", "move"} <= state["log"][0].keys()
    response = client.get(f"/api/tables/{table}/record")
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    record = json.loads(response.text)
    validate_record(record)
    assert record["agents"] == seats and record["seed"] == 5
    frames = client.post("/api/replay", json=record).json()["frames"]
    assert len(frames) == len(record["actions"]) + 1
    assert frames[-1]["move"] is None and frames[0]["move"] is not None
    assert len(frames[0]["seats"]) == len(seats)
    assert frames[-1]["seats"][0]["text"] == state["view"]["text"]


def test_agents_play_up_to_the_person_and_name_their_moves(client):
    table = new_table(client, "seamless_v0", ["heuristic", "human", "random", "heuristic"])
    state = client.get(f"/api/tables/{table}?seat=1").json()
    assert state["to_act"] == 1 and state["legal"]
    assert all({"id", "name"} == move.keys() for move in state["legal"])
    hand = next(g for g in state["view"]["groups"] if g["title"] == "your hand")
    assert len(hand["cards"]) == 13 and {c["colour"] for c in hand["cards"]} <= {"red", "black"}
    for card in hand["cards"]:
        assert card["colour"] == ("red" if card["label"][-1] in "♥♦" else "black")


def test_a_table_of_agents_is_played_through_on_creation(client):
    table = new_table(client, "seals_v0", ["random", "heuristic"], seed=2)
    assert client.get(f"/api/tables/{table}/record").status_code == 200


def test_people_at_one_screen_take_turns(client):
    table = new_table(client, "seals_v0", ["human", "human"], seed=1)
    state = client.get(f"/api/tables/{table}?seat=0").json()
    assert state["to_act"] == 0
    other = client.get(f"/api/tables/{table}?seat=1").json()
    assert other["legal"] == [] and other["to_act"] == 0


def test_round_ends_are_logged_with_the_scores_the_seat_sees(client):
    table = new_table(client, "seamless_v0", ["human", "random", "random", "random"], seed=3)
    state = client.get(f"/api/tables/{table}?seat=0").json()
    rng = np.random.default_rng(0)
    while not any("round" in entry for entry in state["log"]):
        move = state["legal"][rng.integers(len(state["legal"]))]["id"]
        state = client.post(f"/api/tables/{table}/act", json={"seat": 0, "action": move}).json()
    entry = next(entry for entry in state["log"] if "round" in entry)
    assert entry["round"] == 1 and len(entry["scores"]) == 4 and sum(entry["scores"]) > 0
    assert state["view"]["round"] == 2  # the page's round numbers: round 2 follows round 1


@pytest.mark.parametrize(
    ("game", "options"),
    [("seers_catalog_v0", {"num_rounds": 1}), ("seamless_v0", {"max_rounds": 1})],
)
def test_a_one_round_game_shows_its_first_round_and_logs_its_end(client, game, options):
    """Rounds count from 1, as the page shows them (a one-hot piece of length 1 is round 1),
    and the last round's end is logged too, with the final scores."""
    seats = ["human"] + ["random"] * (3 if game == "seamless_v0" else 1)
    table = new_table(client, game, seats, seed=4, options=options)
    assert client.get(f"/api/tables/{table}?seat=0").json()["view"]["round"] == 1
    state = play_out(client, table, 0, np.random.default_rng(4))
    ends = [entry for entry in state["log"] if "round" in entry]
    assert [entry["round"] for entry in ends] == [1]
    assert ends[0]["scores"] == state["result"]["scores"]
    spectator = client.get(f"/api/tables/{table}").json()
    assert spectator["log"][-1] == ends[0]


def after_bar(line: str) -> list[str]:
    """The cards after a line's last ``| `` (``-`` or a count of cards: none)."""
    tail = line.rsplit("| ", 1)[1].split()
    return [] if tail == ["-"] or "cards" in tail else tail


def events_hand(line: str) -> list[str]:
    """``hand: Violet, 2x Sunny`` as one name per card."""
    cards = []
    for item in line.split("hand: ", 1)[1].split(", "):
        copies, _, name = item.partition("x ")
        cards += [name] * int(copies) if copies.isdigit() else [item]
    return [] if cards == ["-"] else cards


# Seat 0's own cards as its text view lists them: (the group's title, the line's parser).
TEXT_HAND = {
    "seamless_v0": ("your hand", after_bar),
    "seers_catalog_v0": ("your hand", after_bar),
    "seals_v0": ("your hand", after_bar),
    "unfortunate_events_v0": ("your hand", events_hand),
    "sequitur_v0": ("rack: you", lambda line: line.split("rack ")[1].split(" |")[0].split()),
}


@pytest.mark.parametrize("game", sorted(TEXT_HAND))
@pytest.mark.parametrize("cut", [0, 9, 40])
def test_the_cards_drawn_are_the_ones_the_text_view_lists(game, cut):
    """The view builder reads the observation's planes right: seat 0's cards, as labelled
    chips, are the cards its ``render_seat`` line names (Sequitur's balls without points)."""
    env = make(game)
    env.reset(seed=cut)
    rng = np.random.default_rng(cut)
    for _ in range(cut):
        if env.agents:
            env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    view = seat_view(env, 0)
    title, parse = TEXT_HAND[game]
    line = next(line for line in view["text"].splitlines() if line.startswith("player_0 "))
    drawn = next((g["cards"] for g in view["groups"] if g["title"] == title), [])
    listed = parse(line)
    if game == "sequitur_v0":
        listed = [ball.rstrip("0123456789") for ball in listed if ball != "-"]
    assert sorted(card["label"] for card in drawn) == sorted(listed)


# -- nothing a seat may not know -----------------------------------------------------------------
def swap(values: list, i: int, j: int) -> None:
    values[i], values[j] = values[j], values[i]


def hide_seamless(deal: dict) -> None:
    """Swap the highest cards of seats 2 and 3 (seat 0 sees neither hand)."""
    hands = deal["chance"]["deal"][0][0]
    hands[2][-1], hands[3][-1] = hands[3][-1], hands[2][-1]
    hands[2].sort(), hands[3].sort()


def hide_seers(deal: dict) -> None:
    hands = deal["chance"]["deal"][0]
    hands[1][-1], hands[2][-1] = hands[2][-1], hands[1][-1]
    hands[1].sort(), hands[2].sort()


def hide_seals(deal: dict) -> None:
    """Swap the bottom two cards of the pile."""
    swap(deal["chance"]["shuffle"][0], -1, -2)


def hide_events(deal: dict) -> None:
    """Swap a card of seat 1's hand with a different one deep in the pile."""
    hands, _, pile = deal["chance"]["deal"][0]
    j = next(j for j in range(len(pile) - 1, 0, -1) if pile[j] not in hands[1])
    hands[1][0], pile[j] = pile[j], hands[1][0]
    hands[1].sort()


def hide_sequitur(deal: dict) -> None:
    """Swap the last two balls in the bag and the last two cards of a goal deck."""
    swap(deal["chance"]["balls"][0], -1, -2)
    swap(deal["chance"]["goal_decks"][0][0], -1, -2)


HIDDEN = {
    "seamless_v0": (4, hide_seamless),
    "seers_catalog_v0": (3, hide_seers),
    "seals_v0": (2, hide_seals),
    "unfortunate_events_v0": (2, hide_events),
    "sequitur_v0": (2, hide_sequitur),
}


@pytest.mark.parametrize("game", sorted(HIDDEN))
def test_a_seat_is_sent_the_same_whatever_it_cannot_see(game):
    """Two deals that differ only in what seat 0 cannot see: every move played the same way
    at both tables, seat 0 is sent the same JSON at each (and the tables do differ)."""
    players, hide = HIDDEN[game]
    env = make(game, num_players=players)
    env.reset(seed=11)
    deal = env.deal_record()
    other = copy.deepcopy(deal)
    hide(other)
    assert other != deal
    store = TableStore()
    client = TestClient(create_app(store))
    body = {"game": game, "seats": ["human"] * players, "seed": 11}
    ids = [store.create(body, deal=d) for d in (deal, other)]
    states = [pickle.dumps(store.tables[i].env.game_state) for i in ids]
    assert states[0] != states[1]
    moves = 0
    for _ in range(12):
        seen = [client.get(f"/api/tables/{i}?seat=0").json() for i in ids]
        assert seen[0] == seen[1]
        watched = [client.get(f"/api/tables/{i}").json() for i in ids]
        assert watched[0] == watched[1]  # a spectator, who sees less than any seat
        if seen[0]["over"]:
            break
        acting = seen[0]["to_act"]
        legal = [
            {move["id"] for move in client.get(f"/api/tables/{i}?seat={acting}").json()["legal"]}
            for i in ids
        ]
        both = sorted(legal[0] & legal[1])
        if not both:
            break
        for i in ids:
            response = client.post(f"/api/tables/{i}/act", json={"seat": acting, "action": both[0]})
            assert response.status_code == 200
        moves += 1
    assert moves >= 8  # the same moves were legal at both tables for a while


# -- refusals ------------------------------------------------------------------------------------
GOOD = {"game": "seals_v0", "seats": ["human", "random"], "seed": 1}
SOLO = {"game": "sequitur_v0", "seats": ["human"]}
BAD_TABLES = [
    ({**GOOD, "game": "chess_v0"}, "unknown game"),
    ({**GOOD, "game": None}, "unknown game"),
    ({k: v for k, v in GOOD.items() if k != "seats"}, "missing field 'seats'"),
    ({**GOOD, "seats": ["human"]}, "seats must be a list of 2, 3 or 4 entries for seals_v0"),
    ({**GOOD, "seats": "human,random"}, "seats must be a list"),
    ({**GOOD, "seats": ["human", "/etc/passwd"]}, "unknown seat kinds"),
    ({**GOOD, "seats": ["human", "os:system"]}, "unknown seat kinds"),
    ({**GOOD, "seats": ["human", 3]}, "unknown seat kinds"),
    ({**GOOD, "seed": -1}, "seed must be"),
    ({**GOOD, "seed": 1.5}, "seed must be"),
    ({**GOOD, "seed": True}, "seed must be"),
    ({**GOOD, "seed": "1"}, "seed must be"),
    ({**GOOD, "options": {"no_such": 1}}, "cannot be set"),
    ({**GOOD, "options": []}, "options must be an object"),
    ({**GOOD, "options": {"tie_rounds": 10**9}}, "tie_rounds"),
    ({**GOOD, "options": {"empty_pile": "burn"}}, "empty_pile"),
    ({**GOOD, "options": {"num_players": 3}}, "num_players is the number of seats (2 here)"),
    ({**GOOD, "options": {"render_mode": "human"}}, "cannot be set"),
    (
        {"game": "sequitur_v0", "seats": ["human"], "options": {"dictionary": "/etc/passwd"}},
        "cannot be set",
    ),
    ({"game": "seers_catalog_v0", "seats": ["human", "ppo"]}, "unknown seat kinds"),
    ([1, 2], "must be a JSON object"),
    ("table", "must be a JSON object"),
]


@pytest.mark.parametrize(("body", "message"), BAD_TABLES)
def test_bad_tables_are_refused_with_the_reason(client, body, message):
    response = client.post("/api/tables", json=body)
    assert response.status_code == 400, response.text
    assert message in response.json()["error"]


@pytest.mark.parametrize(
    "content",
    [b"{", b"", b"\xff\xfe", b"nan nan", b'{"game": "seals_v0", "seats": [}', b"[" * 10**5],
)
def test_malformed_json_is_refused(client, content):
    response = client.post("/api/tables", content=content)
    assert response.status_code == 400 and "not JSON" in response.json()["error"]
    assert client.post("/api/replay", content=content).status_code == 400


def test_an_oversized_body_is_refused(client):
    response = client.post("/api/tables", content=b" " * (MAX_BODY + 1))
    assert response.status_code == 413 and "error" in response.json()


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("?seat=", 400),
        ("?seat=x", 400),
        ("?seat=-1", 400),
        ("?seat=2", 400),
        ("?seat=1", 403),
        ("?seat=99999999999999999999", 400),
        ("?seat=%C2%B2", 400),  # a superscript two: str.isdigit says yes, int() says no
    ],
)
def test_wrong_seats_are_refused(client, query, status):
    table = new_table(client, "seals_v0", ["human", "heuristic"])
    response = client.get(f"/api/tables/{table}{query}")
    assert response.status_code == status and "error" in response.json()


BAD_MOVES = [
    ({"seat": 1, "action": 0}, 403),  # an agent's seat
    ({"seat": 5, "action": 0}, 400),
    ({"seat": "0", "action": 0}, 400),
    ({"seat": 0}, 400),
    ({"action": 0}, 400),
    ({"seat": 0, "action": -1}, 400),
    ({"seat": 0, "action": 31}, 400),
    ({"seat": 0, "action": 1.0}, 400),
    ({"seat": 0, "action": True}, 400),
    ({"seat": 0, "action": "no such move"}, 400),
    ({"seat": 0, "action": "3"}, 400),  # an id goes as a number
    ({"seat": 0, "action": "reveal straight 1-10"}, 422),  # a move, not legal now
    ({"seat": 0, "action": "take"}, 400),  # ambiguous
    ({"seat": 0, "action": None}, 400),
    ({"seat": 0, "action": 30}, 422),  # end turn, before taking
    ([0, 0], 400),
]


@pytest.mark.parametrize(("body", "status"), BAD_MOVES)
def test_bad_moves_are_refused_and_change_nothing(client, body, status):
    table = new_table(client, "seals_v0", ["human", "heuristic"], seed=4)
    before = client.get(f"/api/tables/{table}?seat=0").json()
    response = client.post(f"/api/tables/{table}/act", json=body)
    assert response.status_code == status, response.text
    assert response.json()["error"]
    assert client.get(f"/api/tables/{table}?seat=0").json() == before


def test_illegal_moves_say_why():
    client = TestClient(create_app(TableStore()))
    table = new_table(client, "seals_v0", ["human", "heuristic"], seed=4)
    error = client.post(f"/api/tables/{table}/act", json={"seat": 0, "action": 30}).json()["error"]
    assert error.startswith("end turn (id 30) is not legal now")


def test_moving_out_of_turn_or_after_the_end_is_refused(client):
    table = new_table(client, "seals_v0", ["human", "human"], seed=1)
    response = client.post(f"/api/tables/{table}/act", json={"seat": 1, "action": 0})
    assert response.status_code == 409 and "player_0 is to act" in response.json()["error"]
    play = new_table(client, "seals_v0", ["human", "random"], seed=1)
    play_out(client, play, 0, np.random.default_rng(1))
    response = client.post(f"/api/tables/{play}/act", json={"seat": 0, "action": 0})
    assert response.status_code == 409 and response.json()["error"] == "the game is over"


@pytest.mark.parametrize(
    "path",
    ["/api/tables/nope?seat=0", "/api/tables/nope/record", "/api/nothing", "/api/tables/%00"],
)
def test_unknown_ids_and_paths_are_404s(client, path):
    response = client.get(path)
    assert response.status_code == 404 and "error" in response.json()


def test_unknown_ids_cannot_be_played_and_wrong_methods_are_refused(client):
    response = client.post("/api/tables/nope/act", json={"seat": 0, "action": 0})
    assert response.status_code == 404 and "error" in response.json()
    assert client.delete("/api/games").status_code == 405
    response = client.get("/api/replay")
    assert response.status_code in (404, 405) and "error" in response.json()


def finished_record(client: TestClient) -> dict:
    table = new_table(client, "seals_v0", ["random", "random"], seed=6)
    return json.loads(client.get(f"/api/tables/{table}/record").text)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(actions=[*r["actions"][:-1], 999]), "field 'actions'"),
        (lambda r: r.update(scores=[1, 2]), "field 'scores'"),
        (lambda r: r.pop("deal"), "field 'deal'"),
        (
            lambda r: r.update(env="sequitur_v0", options={"dictionary": "/etc/hosts"}),
            "cannot be set",
        ),
        (lambda r: r.update(options=[]), "'options' object"),
        (lambda r: r.update(env=7), "field 'env'"),
    ],
)
def test_bad_records_are_refused_by_the_replay(client, change, message):
    record = finished_record(client)
    change(record)
    response = client.post("/api/replay", json=record)
    assert response.status_code == 400 and message in response.json()["error"]


def test_ids_are_unguessable_and_the_server_binds_to_this_machine():
    store = TableStore()
    ids = {store.create(GOOD) for _ in range(20)}
    assert len(ids) == 20 and all(len(i) >= 22 for i in ids)  # 16 random bytes each
    import argparse

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    args = parser.parse_args(["serve"])
    assert args.host == "127.0.0.1"


def test_on_a_loopback_address_only_requests_to_this_machine_are_answered():
    """``card-envs serve`` on 127.0.0.1 refuses other Host names (DNS rebinding)."""
    client = TestClient(create_app(TableStore(), allowed_hosts=LOOPBACK_NAMES))
    assert client.get("/api/games", headers={"host": "127.0.0.1:8000"}).status_code == 200
    assert client.get("/api/games", headers={"host": "localhost:8000"}).status_code == 200
    assert client.get("/api/games", headers={"host": "rebound.example:8000"}).status_code == 400


def test_idle_tables_expire_and_their_number_is_bounded():
    clock = Clock()
    store = TableStore(ttl=100, max_tables=2, clock=clock)
    client = TestClient(create_app(store))
    first = store.create(GOOD)
    clock.now = 60
    second = store.create(GOOD)
    response = client.post("/api/tables", json=GOOD)
    assert response.status_code == 429 and "2 tables are in play" in response.json()["error"]
    clock.now = 150  # first idle 150 s: gone; second idle 90 s: kept, and touched now
    assert client.get(f"/api/tables/{first}?seat=0").status_code == 404
    assert client.get(f"/api/tables/{second}?seat=0").status_code == 200
    clock.now = 240
    assert client.get(f"/api/tables/{second}?seat=0").status_code == 200
    third = store.create(GOOD)
    assert set(store.tables) == {second, third}
    with pytest.raises(TableError, match="2 tables are in play"):
        store.create(GOOD)


def test_a_bad_deal_is_refused_and_no_table_is_made():
    store = TableStore()
    with pytest.raises(TableError, match="deal"):
        store.create(GOOD, deal={"chance": {"shuffle": [[0, 0]]}})
    assert store.tables == {}


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "app.js" in page.text
    assert client.get("/app.js").status_code == 200
    assert client.get("/style.css").status_code == 200
    assert len(games()) == len(SHORT)


# -- spectators, move names, the table cap ------------------------------------------------------
def test_a_table_of_agents_can_be_watched_without_a_seat(client):
    table = new_table(client, "seals_v0", ["heuristic", "random"], seed=2)
    assert client.get(f"/api/tables/{table}?seat=0").status_code == 403
    state = client.get(f"/api/tables/{table}").json()
    seat = new_table(client, "seals_v0", ["human", "random"], seed=2)
    assert state.keys() == client.get(f"/api/tables/{seat}?seat=0").json().keys()
    assert state["seat"] is None and state["legal"] == [] and state["over"]
    record = json.loads(client.get(f"/api/tables/{table}/record").text)
    moves = [entry for entry in state["log"] if "move" in entry]
    assert len(moves) == len(record["actions"])
    assert state["result"]["winners"] and state["view"]["round"] >= 1
    hands = [g for g in state["view"]["groups"] if "hand" in g["title"]]
    assert hands == []  # no seat's own hand: what every seat sees alike
    assert all(" | " in line or "…" not in line for line in state["view"]["text"].splitlines())


def test_a_spectator_sees_each_move_as_the_table_saw_it():
    """A secret Sequitur placement reaches spectators as the seats that did not make it see it."""
    store = TableStore()
    client = TestClient(create_app(store))
    table = store.create({"game": "sequitur_v0", "seats": ["random", "random"], "seed": 3})
    log = client.get(f"/api/tables/{table}").json()["log"]
    assert any("(you cannot tell which)" in entry.get("move", "") for entry in log)
    assert any("(you cannot tell which)" not in entry.get("move", "") for entry in log)


def test_a_move_can_be_sent_by_its_name(client):
    table = new_table(client, "seals_v0", ["human", "heuristic"], seed=4)
    state = client.get(f"/api/tables/{table}?seat=0").json()
    move = state["legal"][0]
    response = client.post(f"/api/tables/{table}/act", json={"seat": 0, "action": move["name"]})
    assert response.status_code == 200, response.text
    assert response.json()["log"][0] == {"seat": 0, "move": move["name"]}


def test_options_may_repeat_the_player_count(client):
    body = {**GOOD, "options": {"num_players": 2}}
    assert client.post("/api/tables", json=body).status_code == 201


def test_at_the_cap_the_least_recently_used_finished_table_makes_room():
    clock = Clock()
    store = TableStore(ttl=100, max_tables=2, clock=clock)
    agents = {"game": "seals_v0", "seats": ["random", "random"], "seed": 1}
    first = store.create(agents)
    clock.now = 1
    second = store.create(agents)
    clock.now = 2
    store.get(first)  # asked about: second is now the least recently used
    third = store.create(agents)
    assert set(store.tables) == {first, third} and second not in store.tables
    people = TableStore(max_tables=2)
    for _ in range(2):
        people.create(GOOD)
    with pytest.raises(TableError, match="2 tables are in play"):
        people.create(GOOD)


def table_memory(store: TableStore, tables: int, body: dict) -> int:
    """Bytes held (tracemalloc) after ``tables`` more finished tables."""
    for seed in range(tables):
        store.create({**body, "seed": seed})
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def test_the_cap_and_the_ttl_keep_memory_bounded():
    """Forty more finished tables past the cap (4) add far less memory than keeping them would
    (a quarter of it: caches warm up), and past the TTL every table's memory is freed."""
    clock = Clock()
    store = TableStore(ttl=30, max_tables=4, clock=clock)
    body = {"game": "seals_v0", "seats": ["random", "random"]}
    tracemalloc.start()
    try:
        full = table_memory(store, 24, body)
        later = table_memory(store, 40, body)
        clock.now = 31  # every table idle past the TTL: the next request drops them all
        store.expire()
        gc.collect()
        empty = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    per_table = (later - empty) / 4  # the cap's four tables were held at ``later``
    assert len(store.tables) == 0 and per_table > 0
    assert later - full < 40 * per_table / 4, (full, later, per_table)


@pytest.mark.parametrize("game", ["seamless_v0", "sequitur_v0"])
def test_the_replays_whole_table_shows_each_hand_by_its_seat_once(client, game):
    seats = ["random"] * 4
    options = {"max_rounds": 1} if game == "seamless_v0" else {}
    table = new_table(client, game, seats, seed=3, options=options)
    record = json.loads(client.get(f"/api/tables/{table}/record").text)
    frames = client.post("/api/replay", json=record).json()["frames"]
    titles = [group["title"] for group in frames[1]["groups"]]
    assert len(titles) == len(set(titles)) and not any(t.startswith("your") for t in titles)
    owned = {t.split("'s ")[0] for t in titles if "'s " in t}
    assert owned == {f"player_{s}" for s in range(4)}
    assert frames[-1]["ending"].startswith("finished, won by player_")
