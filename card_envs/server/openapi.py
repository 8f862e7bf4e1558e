"""``GET /openapi.json``: the HTTP API described as an OpenAPI 3.1 document, built from the
registry (the games, their player counts and options) so it never names a game itself.
tests/test_server_fuzz.py sends requests generated from it."""

from __future__ import annotations

from functools import cache
from typing import Any

import card_envs
from card_envs.registry import env_names, player_counts
from card_envs.server.tables import HUMAN, MAX_SEED, games

JSON = "application/json"


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def answer(description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """A response: JSON of ``schema`` (default: an error)."""
    return {"description": description, "content": {JSON: {"schema": schema or ref("Error")}}}


def body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {JSON: {"schema": schema}}}


TABLE_ID = {"name": "table_id", "in": "path", "required": True, "schema": {"type": "string"}}
REFUSED = {
    "400": answer("a malformed or refused request, saying why"),
    "404": answer("no such table (unknown id, or it expired)"),
}


def schemas() -> dict[str, Any]:
    """The request and answer shapes."""
    kinds = sorted(
        {kind for game in games() for kinds in game["agents"].values() for kind in kinds}
    )
    most = max(max(player_counts(name)) for name in env_names())
    seat_state = {
        "type": "object",
        "required": ["game", "seat", "seats", "to_act", "legal", "view", "log", "over"],
        "properties": {
            "game": {"type": "string"},
            "seat": {"type": ["integer", "null"], "description": "null: a spectator's view"},
            "seats": {"type": "array", "items": {"type": "string"}},
            "to_act": {"type": ["integer", "null"]},
            "legal": {"type": "array", "items": ref("Move")},
            "view": ref("View"),
            "log": {"type": "array", "items": {"type": "object"}},
            "over": {"type": "boolean"},
            "rewards": {"type": ["object", "null"]},
            "result": {"type": ["object", "null"]},
        },
    }
    return {
        "Error": {
            "type": "object",
            "required": ["error"],
            "properties": {"error": {"type": "string", "description": "what was wrong"}},
        },
        "Move": {
            "type": "object",
            "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
        },
        "View": {
            "type": "object",
            "description": "card groups, scores (null: not seen), round (from 1) and the text",
            "properties": {
                "groups": {"type": "array", "items": {"type": "object"}},
                "scores": {"type": "array", "items": {"type": ["number", "null"]}},
                "round": {"type": "integer", "minimum": 1},
                "text": {"type": "string"},
            },
        },
        "NewTable": {
            "type": "object",
            "required": ["game", "seats"],
            "properties": {
                "game": {"type": "string", "enum": env_names()},
                "seats": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": most,
                    "items": {"type": "string", "enum": [HUMAN, *kinds]},
                    "description": "one per player: 'human' or an agent kind of the game",
                },
                "seed": {"type": ["integer", "null"], "minimum": 0, "maximum": MAX_SEED},
                "options": {
                    "type": "object",
                    "description": "the game's settable options (GET /api/games lists them)",
                },
            },
        },
        "Act": {
            "type": "object",
            "required": ["seat", "action"],
            "properties": {
                "seat": {"type": "integer", "minimum": 0},
                "action": {
                    "oneOf": [
                        {"type": "integer", "minimum": 0, "description": "an action id"},
                        {"type": "string", "description": "a move's name, as the terminal reads"},
                    ]
                },
            },
        },
        "SeatState": seat_state,
        "Record": {"type": "object", "description": "a card-envs.game/1 record (docs/records.md)"},
    }


@cache
def openapi_document() -> dict[str, Any]:
    """The whole document."""
    table = {"201": answer("the table is dealt", {"type": "object"}), **REFUSED}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "card-envs serve",
            "version": card_envs.__version__,
            "description": "Play the agents and replay records (docs/serve.md). Every refusal "
            "is a 4xx with {error} and changes nothing.",
        },
        "paths": {
            "/api/games": {
                "get": {
                    "summary": "each game: full name, player counts, options, agent kinds",
                    "responses": {"200": answer("the games", {"type": "array"})},
                }
            },
            "/api/tables": {
                "post": {
                    "summary": "deal a new table; agent seats play up to a person's turn",
                    "requestBody": body(ref("NewTable")),
                    "responses": {**table, "429": answer("too many tables in play")},
                }
            },
            "/api/tables/{table_id}": {
                "get": {
                    "summary": "a person's seat's state, or without seat a spectator's",
                    "parameters": [
                        TABLE_ID,
                        {"name": "seat", "in": "query", "schema": {"type": "integer"}},
                    ],
                    "responses": {
                        "200": answer("the state", ref("SeatState")),
                        "403": answer("an agent's seat"),
                        **REFUSED,
                    },
                }
            },
            "/api/tables/{table_id}/act": {
                "post": {
                    "summary": "a person's move, by id or name",
                    "parameters": [TABLE_ID],
                    "requestBody": body(ref("Act")),
                    "responses": {
                        "200": answer(
                            "the seat's state after the agents answered", ref("SeatState")
                        ),
                        "403": answer("an agent's seat"),
                        "409": answer("not this seat's turn, or the game is over"),
                        "422": answer("an illegal move, with the rules' reason"),
                        **REFUSED,
                    },
                }
            },
            "/api/tables/{table_id}/record": {
                "get": {
                    "summary": "the game's record (JSON Lines), once it is over",
                    "parameters": [TABLE_ID],
                    "responses": {
                        "200": {"description": "one JSON line"},
                        "409": answer("the game is not over"),
                        "404": REFUSED["404"],
                    },
                }
            },
            "/api/replay": {
                "post": {
                    "summary": "a record's frames: the table before each action and at the end",
                    "requestBody": body(ref("Record")),
                    "responses": {
                        "200": answer("the frames", {"type": "object"}),
                        "400": REFUSED["400"],
                        "413": answer("a body over the size limit"),
                    },
                }
            },
        },
        "components": {"schemas": schemas()},
    }
