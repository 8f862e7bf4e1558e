"""``card-envs serve``: the browser table on a local web server (docs/serve.md)."""

from __future__ import annotations

import argparse
from typing import Any

from card_envs.core.extras import require
from card_envs.server.limits import MAX_TABLES, TTL_SECONDS

# Served on a loopback address, the app answers only requests addressed to this machine by name,
# so a web page elsewhere cannot reach it through a DNS name it rebinds to 127.0.0.1.
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
DESCRIPTION = (
    "Play the agents in the browser and watch recorded games: a local web app (the table, a "
    "replay viewer and a JSON API). It listens on 127.0.0.1 only unless --host says otherwise. "
    "See docs/serve.md."
)


def cmd_serve(args: argparse.Namespace) -> int:
    with require("serve"):  # imported here, so the other commands run without the extra
        import uvicorn

    from card_envs.server.app import create_app
    from card_envs.server.tables import TableStore

    store = TableStore(ttl=args.ttl, max_tables=args.max_tables)
    hosts = LOOPBACK_NAMES if args.host in LOOPBACK_NAMES else ("*",)
    print(f"card-envs serve: open http://{args.host}:{args.port}/ (Ctrl-C stops)")
    app = create_app(store, allowed_hosts=hosts)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs serve``."""
    parser = subparsers.add_parser(
        "serve", help="play and replay games in the browser", description=DESCRIPTION
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument("--port", type=int, default=8000, help="default 8000")
    parser.add_argument(
        "--ttl",
        type=float,
        default=TTL_SECONDS,
        help=f"seconds an idle table is kept (default {TTL_SECONDS:g})",
    )
    parser.add_argument(
        "--max-tables",
        type=int,
        default=MAX_TABLES,
        help=f"tables open at once (default {MAX_TABLES})",
    )
    parser.set_defaults(func=cmd_serve)
