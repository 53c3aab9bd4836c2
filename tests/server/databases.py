"""A database for a whole test module, as conftest's ``database_url`` makes one per test:
SQLite in a directory, or a fresh PostgreSQL database when ``JUNQI_TEST_POSTGRES`` names a
server (skipped otherwise), dropped after."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncpg
import pytest


async def _execute(url: str, sql: str) -> None:
    connection = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


@contextmanager
def database(kind: str, directory: Path) -> Iterator[str]:
    """The URL of a new ``kind`` ("sqlite" or "postgresql") database."""
    if kind == "sqlite":
        yield f"sqlite+aiosqlite:///{directory / 'junqi.db'}"
        return
    server = os.environ.get("JUNQI_TEST_POSTGRES")
    if server is None:
        pytest.skip("PostgreSQL tests need JUNQI_TEST_POSTGRES (set by .ci/run)")
    name = f"junqi_test_{secrets.token_hex(4)}"
    asyncio.run(_execute(server, f"CREATE DATABASE {name}"))
    try:
        yield server.rsplit("/", 1)[0] + "/" + name
    finally:
        asyncio.run(_execute(server, f"DROP DATABASE {name} WITH (FORCE)"))
