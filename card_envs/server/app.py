"""The HTTP side of ``card-envs serve``: the JSON API the page uses (scripts can too) and the page.

``GET /api/games``; ``POST /api/tables`` ``{"game", "seats", "seed", "options"}`` -> ``{"table"}``;
``GET /api/tables/{id}?seat=k`` (a seat's view) or without ``seat`` (a spectator's);
``POST /api/tables/{id}/act`` ``{"seat", "action"}`` (an id or a move's name);
``GET /api/tables/{id}/record`` (at the game's end); ``POST /api/replay`` with a record;
``GET /openapi.json``, this API described (:mod:`.openapi`). Every refusal is a 4xx with
``{"error": message}`` and changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from functools import wraps
from importlib.resources import files
from typing import Any

from card_envs.core.extras import require
from card_envs.records import RecordError, record_game, replay, steps, validate_record
from card_envs.registry import env_names
from card_envs.server.openapi import openapi_document
from card_envs.server.tables import TableError, TableStore, games, parse_options
from card_envs.server.views import table_view
from card_envs.tools.replay import ending

with require("serve"):
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

MAX_BODY = 4_000_000  # bytes: a record of the longest game fits many times over
Handler = Callable[[Request], Awaitable[Response]]


def refusals(handler: Handler) -> Handler:
    """A :class:`TableError` becomes its status with ``{"error": message}``."""

    @wraps(handler)
    async def guarded(request: Request) -> Response:
        try:
            return await handler(request)
        except TableError as error:
            return JSONResponse({"error": str(error)}, status_code=error.status)

    return guarded


async def json_body(request: Request) -> Any:
    """The request's JSON, refused when too large or not JSON."""
    declared = request.headers.get("content-length", "0")
    if not declared.isdecimal() or int(declared) > MAX_BODY:
        raise TableError(413, f"the body must be at most {MAX_BODY} bytes")
    body = await request.body()
    if len(body) > MAX_BODY:
        raise TableError(413, f"the body must be at most {MAX_BODY} bytes")
    try:
        return json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
        raise TableError(400, f"the body is not JSON (or nested too deep): {error}") from None


def record_frames(record: Any) -> list[dict[str, Any]]:
    """A checked record as the replay viewer steps it: the table before each action, then
    at the end. Its options are checked as a new table's are (none may name a file)."""
    if not isinstance(record, dict) or not isinstance(record.get("options"), dict):
        raise TableError(400, "a record is an object with an 'options' object")
    if record.get("env") in env_names():  # an unknown one is validate_record's to name
        parse_options(record["env"], record["options"])
    try:
        validate_record(record)
    except RecordError as error:
        raise TableError(400, str(error)) from None
    frames = []
    for step in steps(record):
        frame = {"index": step.index, "seat": step.seat, "move": step.action_name}
        frames.append({**frame, **table_view(step.env)})
    env = replay(record)
    end = {"index": len(frames), "seat": None, "move": None, "ending": ending(env)}
    return [*frames, {**end, **table_view(env)}]


async def http_error(request: Request, error: Exception) -> Response:
    """Starlette's own refusals (no such route, wrong method) in the API's shape too."""
    assert isinstance(error, HTTPException)
    return JSONResponse({"error": error.detail}, status_code=error.status_code)


def create_app(store: TableStore | None = None, allowed_hosts: Sequence[str] = ("*",)) -> Starlette:
    """The app over ``store`` (a fresh one by default; tests inject one with a clock),
    answering only requests whose Host header is one of ``allowed_hosts``."""
    tables = store if store is not None else TableStore()

    async def list_games(request: Request) -> Response:
        return JSONResponse(games())

    async def describe(request: Request) -> Response:
        return JSONResponse(openapi_document())

    @refusals
    async def create_table(request: Request) -> Response:
        return JSONResponse({"table": tables.create(await json_body(request))}, status_code=201)

    @refusals
    async def show_table(request: Request) -> Response:
        table = tables.get(request.path_params["table_id"])
        seat = request.query_params.get("seat")
        if seat is None:
            return JSONResponse(table.spectator_state())
        if not seat.isdecimal():
            raise TableError(400, f"?seat= must be a seat number; got {seat!r}")
        return JSONResponse(table.state_for(table.check_seat(int(seat))))

    @refusals
    async def act(request: Request) -> Response:
        table = tables.get(request.path_params["table_id"])
        body = await json_body(request)
        if not isinstance(body, dict) or "seat" not in body or "action" not in body:
            raise TableError(400, 'the body must be {"seat": k, "action": id or name}')
        table.act(body["seat"], body["action"])
        return JSONResponse(table.state_for(body["seat"]))

    @refusals
    async def download(request: Request) -> Response:
        table = tables.get(request.path_params["table_id"])
        if not table.over:
            raise TableError(409, "the record is ready when the game is over")
        record = record_game(table.env, table.actions, table.seats, table.seed)
        name = f"{record['env']}-{table.seed}.jsonl"
        return Response(
            json.dumps(record, separators=(",", ":")) + "\n",
            media_type="application/x-ndjson",
            headers={"content-disposition": f'attachment; filename="{name}"'},
        )

    @refusals
    async def replay_record(request: Request) -> Response:
        return JSONResponse({"frames": record_frames(await json_body(request))})

    static = StaticFiles(directory=str(files("card_envs.server") / "static"), html=True)
    routes = [
        Route("/api/games", list_games),
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/tables/{table_id}", show_table),
        Route("/api/tables/{table_id}/act", act, methods=["POST"]),
        Route("/api/tables/{table_id}/record", download),
        Route("/api/replay", replay_record, methods=["POST"]),
        Route("/openapi.json", describe),
        Mount("/", static),
    ]
    hosts = Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))
    return Starlette(
        routes=routes, middleware=[hosts], exception_handlers={HTTPException: http_error}
    )
