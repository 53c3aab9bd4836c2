"""Clients that do not read, against a real server: prints figures, asserts nothing.

Usage: ``.venv/bin/python bench/backlog.py [--sleepers 100] [--seconds 30] [--rounds 2]
[--unbounded]``

The server is started the production way (``python -m server.cli serve``, bench/load.py's
``start_node``) on a fresh SQLite file with one 二人 room. ``--sleepers`` guests each open a
socket (raw TCP, a 4 KiB receive buffer, no compression: the worst case for the server), sign
in, watch the table and the lobby, and then never read. One watcher reads everything, and a
churner sits down and stands up at the table as fast as the server answers (the seat-command
limit is lifted): each command is a table update for every watcher and a lobby listing.

In each of ``--rounds`` rounds ``--sleepers`` new sleepers come, the table churns for
``--seconds``, and the sleepers (those still open) go. Every second: the commands made, the
server's RSS, its open sockets and how many it closed for being too far behind (code 4008,
``junqi_sockets_too_far_behind_total``); a second round that ends where the first did shows
the memory held for the sleepers freed and used again, not kept. At the end: the
updates the watcher got against those made (all of them, in order, if nobody waited for the
sleepers). ``--unbounded`` lifts the sockets' backlog bounds (``JUNQI_SOCKET_BACKLOG_*``) to
show what the server holds without them.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load import start_node, stop_node

ROOM = {"id": "duel", "name": "二人", "variant": "liangguo", "options": {}}
LOTS = "1000000000"


def frame(text: str) -> bytes:
    """A masked text frame, as a client sends it."""
    payload = text.encode()
    mask = os.urandom(4)
    size = len(payload)
    if size < 126:
        header = bytes([0x81, 0x80 | size])
    elif size < 1 << 16:
        header = bytes([0x81, 0x80 | 126]) + size.to_bytes(2, "big")
    else:
        header = bytes([0x81, 0x80 | 127]) + size.to_bytes(8, "big")
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def sleeper(port: int, token: str, table: str) -> socket.socket:
    """A socket that signs in, watches ``table`` and the lobby, and will never read again."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before the window is set
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(1)  # byte by byte: nothing of the frames after it is read
    assert answer.startswith(b"HTTP/1.1 101"), answer
    for message in (
        {"type": "auth", "token": token},
        {"type": "open", "table": table},
        {"type": "lobby"},
    ):
        sock.sendall(frame(json.dumps(message)))
    return sock


def metrics(base: str) -> dict[str, float]:
    figures = {}
    for line in httpx.get(f"{base}/metrics", trust_env=False).text.splitlines():
        if line.startswith("junqi_") and " " in line:
            name, value = line.rsplit(" ", 1)
            figures[name] = float(value)
    return figures


async def run(base: str, args: argparse.Namespace, rss: Any) -> None:
    port = int(base.rsplit(":", 1)[1])
    async with httpx.AsyncClient(base_url=base, trust_env=False) as http:
        tokens = [
            (await http.post("/api/auth/guest")).json()["token"] for _ in range(args.sleepers + 2)
        ]
    url = base.replace("http", "ws", 1) + "/ws"
    churner = await websockets.connect(url, compression=None, max_size=None)
    watcher = await websockets.connect(url, compression=None, max_size=None, max_queue=None)
    for ws, token in ((churner, tokens[0]), (watcher, tokens[1])):
        await ws.send(json.dumps({"type": "auth", "token": token}))
        assert json.loads(await ws.recv())["type"] == "welcome"
    await churner.send(json.dumps({"id": 1, "type": "create_table", "room": "duel"}))
    table = None
    while table is None:
        answer = json.loads(await churner.recv())
        if answer.get("ref") == 1:
            table = answer["table"]
    await watcher.send(json.dumps({"type": "open", "table": table}))
    await watcher.send(json.dumps({"type": "lobby"}))
    seen: list[int] = []

    async def watch() -> None:
        async for raw in watcher:
            message = json.loads(raw)
            if message["type"] == "update" and message["table"] == table:
                seen.append(message["version"])

    reading = asyncio.create_task(watch())
    await asyncio.sleep(1)
    print(f"server RSS {rss() / 2**20:.1f} MiB before the sleepers")
    print("round  time  commands  RSS MiB  sockets  closed (4008)")
    made: list[int] = []
    ref = 1
    for round_ in range(1, args.rounds + 1):
        sleepers = [sleeper(port, token, table) for token in tokens[2:]]
        started = time.monotonic()
        next_report = started
        while time.monotonic() - started < args.seconds:
            ref += 1
            message = {"type": "sit", "seat": 0} if ref % 2 == 0 else {"type": "stand"}
            await churner.send(json.dumps({"id": ref, "table": table, **message}))
            while True:
                answer = json.loads(await churner.recv())
                if answer.get("ref") == ref:
                    made.append(answer["version"])
                    break
            now = time.monotonic()
            if now >= next_report:
                next_report += 1
                figures = metrics(base)
                print(
                    f"{round_:5d} {now - started:5.0f}  {len(made):8d}  {rss() / 2**20:7.1f}  "
                    f"{figures['junqi_connections']:7.0f}  "
                    f"{figures.get('junqi_sockets_too_far_behind_total', 0):13.0f}"
                )
        for sock in sleepers:
            sock.close()
    await asyncio.sleep(2)
    reading.cancel()
    missed = sorted(set(made) - set(seen))
    print(
        f"{len(made)} seat commands; the watcher got {len(set(made) & set(seen))} of their "
        f"updates (missed {len(missed)}), in order: {seen == sorted(seen)}; server RSS at the "
        f"end {rss() / 2**20:.1f} MiB"
    )
    await churner.close()
    await watcher.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sleepers", type=int, default=100, help="sockets that never read")
    parser.add_argument("--seconds", type=float, default=30.0, help="churn per round")
    parser.add_argument("--rounds", type=int, default=2, help="waves of new sleepers")
    parser.add_argument("--unbounded", action="store_true", help="lift the backlog bounds")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="junqi-backlog-"))
    env = {
        **os.environ,
        "JUNQI_DATABASE_URL": f"sqlite+aiosqlite:///{workdir / 'backlog.db'}",
        "JUNQI_ROOMS": json.dumps([ROOM]),
        "JUNQI_SIGN_INS_PER_MINUTE": LOTS,
        "JUNQI_GUESTS_PER_ADDRESS_PER_DAY": LOTS,
        "JUNQI_TABLES_PER_ADDRESS": LOTS,  # and open their tables from there
        "JUNQI_SHARED_ADDRESS_UNRATED": "false",  # rated, as the games of people apart are
        "JUNQI_SEAT_COMMANDS_PER_10_SECONDS": LOTS,
        "JUNQI_LOG_JSON": "false",
    }
    for name in ("REDIS_URL", "JUNQI_REDIS_URL"):
        env.pop(name, None)
    if args.unbounded:
        env["JUNQI_SOCKET_BACKLOG_MESSAGES"] = LOTS
        env["JUNQI_SOCKET_BACKLOG_BYTES"] = str(1 << 50)
    node = start_node(0, env, None, workdir, None)
    process = psutil.Process(node.process.pid)
    print(
        f"backlog bounds: {'lifted' if args.unbounded else 'the defaults'}; "
        f"{args.sleepers} sleepers; logs in {workdir}"
    )
    try:
        asyncio.run(run(node.base, args, lambda: process.memory_info().rss))
    finally:
        stop_node(node)


if __name__ == "__main__":
    main()
