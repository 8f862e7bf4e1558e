"""Load test of ``card-envs serve`` on loopback: many tables at once, then many finished ones.

    .venv/bin/python benchmarks/load_server.py                  # the figures in docs/serve.md
    .venv/bin/python benchmarks/load_server.py --tables 20 --finished 200   # a quick look

Starts the server (``card-envs serve``) on 127.0.0.1 only, then:

1. ``--tables`` tables at once (default 200), each a person in seat 0 and agents in the other
   three seats (Seals, Seamless over one round, Seers Catalog over one round, in turn): every
   person's move is a random legal one, sent by id or by name, after reading the seat's state,
   until the game ends. Latency of each ``GET`` and ``/act``: p50 and p99.
2. ``--finished`` tables of agents only (default 10,000; Seals, two random players), each
   played through when it is made, with the server's default cap and TTL.

Every table's record is downloaded and replayed (``card_envs.records.validate_record``: each
action legal, the rewards and scores the record states), and its final scores are compared with
what the API said at the end: a table whose state a concurrent request corrupted fails here.
The server's resident memory is read from /proc before, between and after. Bounded: every loop
has a count, and the whole run a deadline (``--deadline``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from card_envs.records import validate_record

HOST = "127.0.0.1"  # loopback only
GAMES = [
    ("seals_v0", {}, ["human", "heuristic", "heuristic", "heuristic"]),
    ("seamless_v0", {"max_rounds": 1}, ["human", "heuristic", "random", "heuristic"]),
    ("seers_catalog_v0", {"num_rounds": 1}, ["human", "heuristic", "heuristic", "heuristic"]),
]
FINISHED = ("seals_v0", {}, ["random", "random"])
MAX_MOVES = 400  # a person's moves in one table, far above these games'


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def rss_mb(pid: int) -> float:
    """The process's resident memory, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class Run:
    def __init__(self, client: httpx.AsyncClient, deadline: float):
        self.client, self.deadline = client, deadline
        self.gets: list[float] = []
        self.acts: list[float] = []
        self.checked = self.made = 0

    async def timed(self, into: list[float], method: str, url: str, **kwargs: Any) -> Any:
        started = time.perf_counter()
        response = await self.client.request(method, url, **kwargs)
        into.append(time.perf_counter() - started)
        if response.status_code >= 500:
            raise AssertionError(f"{method} {url}: {response.status_code} {response.text}")
        return response

    async def check_record(self, table: str, state: dict[str, Any]) -> None:
        """The record replays (every action legal, its totals right) and ends as the API said."""
        response = await self.client.get(f"/api/tables/{table}/record")
        record = json.loads(response.text)
        validate_record(record)
        assert record["scores"] == state["result"]["scores"], (table, record["scores"])
        assert record["rewards"] == state["rewards"], (table, record["rewards"])
        self.checked += 1

    async def person(self, index: int) -> None:
        """One table with a person in seat 0, played to its end."""
        game, options, seats = GAMES[index % len(GAMES)]
        rng = random.Random(index)
        body = {"game": game, "seats": seats, "seed": index, "options": options}
        response = await self.client.post("/api/tables", json=body)
        assert response.status_code == 201, response.text
        table = response.json()["table"]
        for _ in range(MAX_MOVES):
            state = (await self.timed(self.gets, "GET", f"/api/tables/{table}?seat=0")).json()
            if state["over"]:
                await self.check_record(table, state)
                return
            move = rng.choice(state["legal"])
            action = move["name"] if rng.random() < 0.5 else move["id"]
            answer = await self.timed(
                self.acts, "POST", f"/api/tables/{table}/act", json={"seat": 0, "action": action}
            )
            assert answer.status_code == 200, answer.text
        raise AssertionError(f"table {index}: not over after {MAX_MOVES} moves")

    async def finished(self, indices: range) -> None:
        """Tables of agents only, each checked when made; stops at the deadline."""
        game, options, seats = FINISHED
        for index in indices:
            if time.monotonic() > self.deadline:
                return
            body = {"game": game, "seats": seats, "seed": index, "options": options}
            response = await self.client.post("/api/tables", json=body)
            assert response.status_code == 201, response.text
            table = response.json()["table"]
            state = (await self.timed(self.gets, "GET", f"/api/tables/{table}")).json()
            await self.check_record(table, state)
            self.made += 1


def latency_row(name: str, values: list[float]) -> str:
    p50, p99 = percentile(values, 0.50) * 1e3, percentile(values, 0.99) * 1e3
    return f"| {name} | {len(values):,} | {p50:.1f} | {p99:.1f} | {max(values) * 1e3:.1f} |"


async def main(args: argparse.Namespace) -> None:
    port = free_port()
    command = [sys.executable, "-c", "import sys; from card_envs.cli import main; sys.exit(main())"]
    command += ["serve", "--host", HOST, "--port", str(port), "--max-tables", str(args.max_tables)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        async with httpx.AsyncClient(base_url=f"http://{HOST}:{port}", timeout=600) as client:
            for _ in range(200):
                try:
                    await client.get("/api/games")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
            print(f"server started: {rss_mb(server.pid):.0f} MB", flush=True)
            run = Run(client, time.monotonic() + args.deadline)
            started = time.perf_counter()
            await asyncio.gather(*(run.person(i) for i in range(args.tables)))
            print(
                f"{args.tables} tables at once: {time.perf_counter() - started:.1f} s, "
                f"{run.checked} records replayed, all consistent; server "
                f"{rss_mb(server.pid):.0f} MB",
                flush=True,
            )
            print("| request | count | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|")
            print(latency_row(f"GET /api/tables/{{id}}?seat=0 ({args.tables} at once)", run.gets))
            print(latency_row(f"POST /api/tables/{{id}}/act ({args.tables} at once)", run.acts))
            started = time.perf_counter()
            for goal in sorted({min(args.finished, n) for n in (1_000, 5_000, args.finished)}):
                done = run.made
                share = -(-(goal - done) // args.concurrency)
                await asyncio.gather(
                    *(
                        run.finished(range(done + k * share, min(goal, done + (k + 1) * share)))
                        for k in range(args.concurrency)
                    )
                )
                print(
                    f"{run.made:,} finished tables in {time.perf_counter() - started:.1f} s, "
                    f"{run.checked:,} records replayed in all, all consistent; server "
                    f"{rss_mb(server.pid):.0f} MB",
                    flush=True,
                )
                if run.made < goal:
                    print("the deadline passed", flush=True)
                    break
    finally:
        server.terminate()
        server.wait(timeout=30)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200, help="tables at once (200)")
    parser.add_argument("--finished", type=int, default=10_000, help="finished tables (10,000)")
    parser.add_argument("--concurrency", type=int, default=8, help="clients making them (8)")
    parser.add_argument(
        "--max-tables", type=int, default=256, help="the server's cap (256: above --tables)"
    )
    parser.add_argument("--deadline", type=float, default=3600, help="seconds at most (3600)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    asyncio.run(main(parse()))
