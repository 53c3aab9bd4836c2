"""A real server process on loopback, for the tests that need one (live sockets, browsers)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def live_server(tmp_path: Path, rooms: list[dict[str, Any]]) -> Iterator[str]:
    """Start ``uvicorn`` with the app on a fresh SQLite file and ``rooms``; yield its base URL."""
    port = free_port()
    env = {
        **os.environ,
        "JUNQI_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'live.db'}",
        "JUNQI_ROOMS": json.dumps(rooms),
        "JUNQI_ACTIONS_PER_10_SECONDS": "100000",  # scripted clients play far faster than people
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
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                if httpx.get(f"{base}/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            raise AssertionError("the server did not start")
        yield base
    finally:
        process.terminate()
        process.wait(10)
