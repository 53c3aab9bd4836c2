"""A database for a whole test module, as conftest's ``database_url`` makes one per test:
SQLite in a directory, or a fresh PostgreSQL database when ``JUNQI_TEST_POSTGRES`` names a
server (skipped otherwise), dropped after; and ``migrated_sqlite``, a new SQLite file at the
newest schema for an app to start on, copied rather than migrated."""

from __future__ import annotations

import asyncio
import atexit
import functools
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import asyncpg
import pytest
from alembic import command

from server.db import alembic_config


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
    # commits that do not wait for the disk (a crash of PostgreSQL itself, which no test makes,
    # could lose the last instant's): a test database lives for one test or module
    asyncio.run(_execute(server, f"ALTER DATABASE {name} SET synchronous_commit = off"))
    try:
        yield server.rsplit("/", 1)[0] + "/" + name
    finally:
        asyncio.run(_execute(server, f"DROP DATABASE {name} WITH (FORCE)"))


@functools.cache
def _migrated_template() -> Path:
    """This process's SQLite database migrated from nothing (once), in a directory of its own."""
    directory = Path(tempfile.mkdtemp(prefix="junqi-schema-"))
    atexit.register(shutil.rmtree, directory, True)
    template = directory / "migrated.db"
    # in a thread of its own: Alembic runs an event loop, and a caller may be inside one
    with ThreadPoolExecutor(1) as thread:
        url = f"sqlite+aiosqlite:///{template}"
        thread.submit(command.upgrade, alembic_config(url), "head").result()
    return template


def migrated_sqlite(database_url: str) -> None:
    """Give the SQLite file of ``database_url``, when it does not exist yet, the newest schema:
    a copy of one database this process migrated from nothing. An app started on it finds its
    start-up migration done; running the migrations for every app cost ~0.1 s of CPU and, the
    disk busy, ~0.6 s of waiting for it. Migrating from nothing stays tested: by
    tests/server/test_migrations.py, by every app on PostgreSQL and by ``junqi serve``."""
    prefix = "sqlite+aiosqlite:///"
    if not database_url.startswith(prefix) or database_url.endswith(":memory:"):
        return
    target = Path(database_url.removeprefix(prefix))
    if not target.exists() and target.parent.is_dir():
        shutil.copyfile(_migrated_template(), target)
