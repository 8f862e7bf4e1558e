"""The HTTP API against requests generated from its own OpenAPI document (``/openapi.json``):
bodies drawn from each operation's schema, sometimes bent out of it (a value of another type,
a missing field, random JSON). Over thousands of requests no answer is a 5xx, and a refused
request (4xx) leaves every table exactly as it was."""

from __future__ import annotations

import json
import os
import warnings
from typing import Any
from urllib.parse import quote

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():  # Starlette 1.7 suggests httpx2; it supports and we pin httpx
    warnings.filterwarnings("ignore", "Using `httpx`")
    from starlette.testclient import TestClient

from card_envs.server.app import create_app
from card_envs.server.tables import TableStore

STORE = TableStore(max_tables=12)
CLIENT = TestClient(create_app(STORE), raise_server_exceptions=True)
DOCUMENT = CLIENT.get("/openapi.json").json()
SCHEMAS = DOCUMENT["components"]["schemas"]
# Generated requests per test (each of the three reads sends three): CARD_ENVS_FUZZ_REQUESTS
# raises it (docs/serve.md gives a run of thousands).
REQUESTS = int(os.environ.get("CARD_ENVS_FUZZ_REQUESTS", "300"))
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of ``schema`` (the subset the document uses), sometimes any JSON instead."""
    return st.one_of(conforming(schema), conforming(schema), conforming(schema), JSON_VALUES)


def conforming(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    if "$ref" in schema:
        return conforming(SCHEMAS[schema["$ref"].rsplit("/", 1)[1]])
    if "oneOf" in schema:
        return st.one_of(*(conforming(option) for option in schema["oneOf"]))
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kinds = schema.get("type", "object")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return st.one_of(*(of_type(kind, schema) for kind in kinds))


def of_type(kind: str, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        near = st.integers(min_value=low or 0, max_value=min(high or 10, 10))
        return st.one_of(near, st.integers(min_value=low, max_value=high))
    if kind == "string":
        return st.text(max_size=20)
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "number":
        return st.floats(allow_nan=False, allow_infinity=False)
    if kind == "array":
        items = conforming(schema.get("items", {}))
        return st.lists(
            items, min_size=schema.get("minItems", 0), max_size=schema.get("maxItems", 6)
        )
    properties = schema.get("properties", {})
    if not properties:
        return st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=3)
    required = set(schema.get("required", []))
    fields = {name: conforming(sub) for name, sub in properties.items()}
    return st.fixed_dictionaries(
        {k: v for k, v in fields.items() if k in required},
        optional={k: v for k, v in fields.items() if k not in required},
    )


def body_schema(path: str) -> dict[str, Any]:
    content = DOCUMENT["paths"][path]["post"]["requestBody"]["content"]
    return content["application/json"]["schema"]


def snapshot() -> str:
    """Every table as the API can tell it: its moves, logs, turn and result."""
    tables = {
        table_id: (
            table.actions,
            table.logs,
            table.public,
            table.to_act(),
            table.over,
            table.rewards,
        )
        for table_id, table in STORE.tables.items()
    }
    return json.dumps(tables, sort_keys=True, default=str)


def check(response: Any, before: str) -> None:
    assert response.status_code < 500, response.text
    if 400 <= response.status_code < 500:
        assert "error" in response.json()
        assert snapshot() == before, f"a refused request changed a table: {response.text}"


def table_ids() -> st.SearchStrategy[str]:
    known = st.sampled_from(sorted(STORE.tables)) if STORE.tables else st.nothing()
    return st.one_of(known, known, st.text(max_size=24).map(lambda text: quote(text, safe="")))


def seed_tables() -> None:
    """A few tables with a person to act, so that moves have somewhere to go."""
    for game, seats in [
        ("seals_v0", ["human", "heuristic"]),
        ("seamless_v0", ["human", "random", "heuristic", "random"]),
        ("unfortunate_events_v0", ["human", "human"]),
    ]:
        STORE.create({"game": game, "seats": seats, "seed": 1})


FUZZ = settings(
    max_examples=REQUESTS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)


@FUZZ
@given(body=from_schema(body_schema("/api/tables")))
def test_new_tables_from_the_schema(body):
    before = snapshot()
    check(CLIENT.post("/api/tables", json=body), before)


@FUZZ
@given(data=st.data())
def test_moves_from_the_schema(data):
    if not any(not table.over for table in STORE.tables.values()):
        seed_tables()
    table = data.draw(table_ids())
    body = data.draw(from_schema(body_schema("/api/tables/{table_id}/act")))
    before = snapshot()
    check(CLIENT.post(f"/api/tables/{table}/act", json=body), before)


@FUZZ
@given(data=st.data())
def test_reads_and_replays_from_the_schema(data):
    if not STORE.tables:
        seed_tables()
    table = data.draw(table_ids())
    seat = data.draw(st.one_of(st.none(), st.integers(-2, 6).map(str), st.text(max_size=5)))
    before = snapshot()
    check(
        CLIENT.get(f"/api/tables/{table}", params=None if seat is None else {"seat": seat}), before
    )
    check(CLIENT.get(f"/api/tables/{table}/record"), before)
    record = data.draw(from_schema(body_schema("/api/replay")))
    check(CLIENT.post("/api/replay", json=record), before)


def test_the_document_describes_every_route():
    assert DOCUMENT["openapi"].startswith("3.1")
    assert set(DOCUMENT["paths"]) == {
        "/api/games",
        "/api/tables",
        "/api/tables/{table_id}",
        "/api/tables/{table_id}/act",
        "/api/tables/{table_id}/record",
        "/api/replay",
    }
    seats = SCHEMAS["NewTable"]["properties"]["seats"]["items"]["enum"]
    assert "human" in seats and "heuristic" in seats
