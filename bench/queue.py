"""Quick match under load: thousands of sockets join the 四国 queue at once. Run by hand.

Usage::

    .venv/bin/python -m bench.queue                          # 4,000 players, one node
    .venv/bin/python -m bench.queue --players 400            # a smaller run
    .venv/bin/python -m bench.queue --nodes 2 --redis redis://127.0.0.1:6379/9 \\
        --database postgresql+asyncpg://postgres@127.0.0.1/junqi_queue

(as a module: run as a script, its own name would hide the standard library's ``queue``)

The server is started the production way (``python -m server.cli serve``, as ``bench/load.py``
does, with its helpers), on a fresh SQLite file (or ``--database``: a PostgreSQL database the
harness creates and drops), with one 四国 room and the rate limits raised; accounts sharing an
address may meet (every client is on loopback). ``--players`` guests sign in and open a socket
each (spread over the nodes), then all send ``queue`` at once. Each client notes when it sent
``queue`` and when ``matched`` came; a table's time is from the fourth of its players' joins to
the last of their ``matched`` (the game has started by then: the players are seated ready and
it starts at once). Printed: how many were matched, at how many tables, p50, p99 and max of
that time, the time until every player was matched, and the server's CPU over the run (each
node's, in CPU seconds and as a share of one core). Its Redis keys (``quick:*``) are left in
the Redis database given: use one of nobody else's.
"""

from __future__ import annotations

import sys

if __name__ == "__main__" and not __package__:
    sys.exit("run it as a module: .venv/bin/python -m bench.queue")

import argparse
import asyncio
import json
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import uvloop
from websockets.asyncio.client import connect

from bench.load import Node, postgres_database, server_env, start_node, stop_node


async def sign_in(bases: list[str], count: int) -> list[str]:
    limit = asyncio.Semaphore(16)
    async with httpx.AsyncClient(timeout=60, trust_env=False) as http:

        async def one(i: int) -> str:
            async with limit:
                for _ in range(20):  # SQLite may answer "database is locked" under load
                    reply = await http.post(f"{bases[i % len(bases)]}/api/auth/guest")
                    if reply.status_code == 201:
                        return str(reply.json()["token"])
                    await asyncio.sleep(0.2)
                raise RuntimeError(f"sign-in: {reply.status_code}")

        return await asyncio.gather(*(one(i) for i in range(count)))


class Client:
    def __init__(self, base: str, token: str) -> None:
        self.base, self.token = base, token
        self.ws: Any = None
        self.joined = 0.0
        self.matched = 0.0
        self.table: str | None = None
        self.error: str | None = None  # an error's code, or "lost" (told ``unqueued``)

    async def connect(self) -> None:
        url = self.base.replace("http", "ws", 1) + "/ws"
        self.ws = await connect(url, max_size=None, open_timeout=60)
        await self.ws.send(json.dumps({"type": "auth", "token": self.token}))
        while json.loads(await self.ws.recv())["type"] != "welcome":
            pass

    async def queue(self, done: asyncio.Event) -> None:
        self.joined = time.monotonic()
        await self.ws.send(json.dumps({"type": "queue", "variant": "siguo", "id": 1}))
        async for raw in self.ws:
            if '"matched"' in raw and json.loads(raw)["type"] == "matched":
                self.matched = time.monotonic()
                self.table = json.loads(raw)["table"]
                break
            if '"error"' in raw or '"unqueued"' in raw:
                message = json.loads(raw)
                self.error = message.get("code") or message.get("why")
                break
        done.set()


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(bases: list[str], nodes: list[Node], players: int, seconds: float) -> dict[str, Any]:
    tokens = await sign_in(bases, players)
    clients = [Client(bases[i % len(bases)], token) for i, token in enumerate(tokens)]
    limit = asyncio.Semaphore(64)

    async def connect_one(c: Client) -> None:
        async with limit:
            await c.connect()

    await asyncio.gather(*(connect_one(c) for c in clients))
    cpu = [sum(n.ps.cpu_times()[:2]) for n in nodes]
    start = time.monotonic()
    events = [asyncio.Event() for _ in clients]
    tasks = [asyncio.create_task(c.queue(e)) for c, e in zip(clients, events, strict=True)]
    done, pending = await asyncio.wait(tasks, timeout=seconds)
    failed = Counter(type(t.exception()).__name__ for t in done if t.exception() is not None)
    wall = time.monotonic() - start
    used = [sum(n.ps.cpu_times()[:2]) - before for n, before in zip(nodes, cpu, strict=True)]
    for task in pending:
        task.cancel()
    tables: dict[str, list[Client]] = {}
    for c in clients:
        if c.table is not None:
            tables.setdefault(c.table, []).append(c)
    times = [max(c.matched for c in cs) - max(c.joined for c in cs) for cs in tables.values()]
    for c in clients:
        await c.ws.close()
    return {
        "matched": sum(c.table is not None for c in clients),
        "errors": Counter(c.error for c in clients if c.error) + failed,
        "tables": len(tables),
        "full": sum(len(cs) == 4 for cs in tables.values()),
        "p50": quantile(times, 0.5) if times else None,
        "p99": quantile(times, 0.99) if times else None,
        "max": max(times) if times else None,
        "all": max((c.matched for c in clients if c.table), default=start) - start,
        "wall": wall,
        "cpu": used,
    }


def ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4000)
    parser.add_argument("--nodes", type=int, default=1)
    parser.add_argument("--redis", default=None, help="JUNQI_REDIS_URL (needed for --nodes 2)")
    parser.add_argument("--database", default=None, help="a PostgreSQL URL (for --nodes 2)")
    parser.add_argument("--seconds", type=float, default=300.0, help="the most to wait")
    parser.add_argument("--logs", type=Path, default=None, help="keep the nodes' logs here")
    args = parser.parse_args()
    if args.nodes > 1 and not (args.redis and args.database):
        raise SystemExit("several nodes share PostgreSQL (--database) and Redis (--redis)")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        database = args.database or f"sqlite+aiosqlite:///{workdir / 'queue.db'}"
        if args.database:
            postgres_database(args.database, create=True)
        env = {
            **server_env(args, database),
            "JUNQI_BOT_WORKERS": "1",
            # connecting thousands takes a while on a busy machine: none is closed as silent
            "JUNQI_HEARTBEAT_SECONDS": "600",
        }
        nodes: list[Node] = []
        try:
            for index in range(args.nodes):
                nodes.append(start_node(index, env, None, workdir, None))
            bases = [n.base for n in nodes]
            found = uvloop.run(run(bases, nodes, args.players, args.seconds))
        finally:
            for node in nodes:
                stop_node(node)
                if args.logs:
                    args.logs.mkdir(parents=True, exist_ok=True)
                    shutil.copy(node.log, args.logs / node.log.name)
            if args.database:
                postgres_database(args.database, create=False)
    print(f"players {args.players} on {args.nodes} node(s): matched {found['matched']}")
    if found["errors"]:
        print(f"refused or lost: {dict(found['errors'])}")
    print(f"tables {found['tables']} (of four: {found['full']})")
    print(f"fourth join -> table started: p50 {ms(found['p50'])}, p99 {ms(found['p99'])}, ")
    print(f"  max {ms(found['max'])}; all matched after {found['all']:.1f} s")
    for index, used in enumerate(found["cpu"]):
        print(f"node {index} CPU: {used:.1f} s ({used / found['wall'] * 100:.0f}% of a core)")


if __name__ == "__main__":
    main()
