"""A real server process on loopback, for the tests that need one (live sockets, browsers)."""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.server.databases import migrated_sqlite

REPO = Path(__file__).resolve().parent.parent


def worker() -> tuple[int, int]:
    """This pytest-xdist worker's index and how many workers there are; (0, 1) without xdist."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(name.removeprefix("gw")), int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))


_ports = random.Random()  # its own: tests that seed the global generator must not repeat ports


def free_port() -> int:
    """A free loopback port from this worker's own share of 10000-19999: no other worker is handed
    it between this check and its server's start, and, being below the kernel's ephemeral range
    (32768 on), no outgoing connection takes it while a server restarts on it."""
    index, count = worker()
    width = 10000 // count
    low = 10000 + index * width
    while True:
        port = _ports.randrange(low, low + width)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # in use, or still closing
            return port


# Redis databases that tests may empty: never 0, the machine's own; Redis has 16 (0-15)
FIRST_REDIS_DATABASE, LAST_REDIS_DATABASE = 11, 15


def redis_database() -> int:
    """This worker's own Redis database, for the tests that empty theirs: 11 without xdist and
    for gw0, 12 for gw1 and so on, so that one worker never empties another's."""
    database = FIRST_REDIS_DATABASE + worker()[0]
    if database > LAST_REDIS_DATABASE:
        raise RuntimeError(
            f"more pytest-xdist workers than Redis databases {FIRST_REDIS_DATABASE}-"
            f"{LAST_REDIS_DATABASE}: run with -n {LAST_REDIS_DATABASE - FIRST_REDIS_DATABASE + 1}"
            " or fewer"
        )
    return database


def start_server(
    tmp_path: Path, rooms: list[dict[str, Any]], port: int, settings: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start ``uvicorn`` with the app on ``port``, on the SQLite file ``live.db`` in ``tmp_path``
    (kept between starts) and ``rooms``, and other ``settings`` (``JUNQI_`` variables); returns
    once it answers."""
    env = {
        **os.environ,
        "JUNQI_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'live.db'}",
        "JUNQI_ROOMS": json.dumps(rooms),
        "JUNQI_ACTIONS_PER_10_SECONDS": "100000",  # scripted clients play far faster than people
        "JUNQI_GUESTS_PER_ADDRESS_PER_DAY": "100000",  # and all come from one address
        "JUNQI_SEAT_COMMANDS_PER_10_SECONDS": "100000",
        "JUNQI_BOT_PACE_SCALE": "0",  # bots move as they decided (the pace has its own tests)
        **(settings or {}),
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "server.app:create_app",
            "--factory",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env=env,
    )
    for _ in range(200):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health").status_code == 200:
                return process
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    process.wait(10)
    raise AssertionError("the server did not start")


@contextmanager
def live_server(
    tmp_path: Path, rooms: list[dict[str, Any]], settings: dict[str, str] | None = None
) -> Iterator[str]:
    """A server on a fresh SQLite file and ``rooms`` (``start_server``); yields its base URL."""
    migrated_sqlite(f"sqlite+aiosqlite:///{tmp_path / 'live.db'}")  # its schema made already
    port = free_port()
    process = start_server(tmp_path, rooms, port, settings)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


@contextmanager
def junqi_serve(tmp_path: Path, settings: dict[str, str] | None = None) -> Iterator[str]:
    """``junqi serve`` (server.cli, as the Dockerfile runs it: JSON logs at INFO) on a loopback
    port, on the SQLite file ``serve.db`` in ``tmp_path`` with other ``settings``; its output
    goes to ``serve.log`` there. Yields its base URL."""
    port = free_port()
    env = {
        **os.environ,
        "JUNQI_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'serve.db'}",
        "JUNQI_BOT_WORKERS": "1",
        **(settings or {}),
    }
    command = [sys.executable, "-m", "server.cli", "serve", "--port", str(port)]
    base = f"http://127.0.0.1:{port}"
    with (tmp_path / "serve.log").open("wb") as log:
        process = subprocess.Popen(command, env=env, cwd=REPO, stdout=log, stderr=log)
        try:
            for _ in range(300):
                try:
                    if httpx.get(f"{base}/health").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            else:
                raise AssertionError(f"junqi serve did not start: see {log.name}")
            yield base
        finally:
            process.terminate()
            process.wait(15)
