"""The database: SQLAlchemy 2 async engine and sessions, and Alembic migrations at start-up."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import MetaData, event
from sqlalchemy.dialects.sqlite.aiosqlite import AsyncAdapt_aiosqlite_connection
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase

from server.config import REPO

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


# how long a dropped SQLite connection's closing waits for its thread to drain and stop; then it
# gives up, so that no task (a table's, a socket's) stalls on it for longer
STOP_SECONDS = 2.0


async def _stop_aiosqlite(self: AsyncAdapt_aiosqlite_connection) -> None:
    """Close an aiosqlite connection that SQLAlchemy drops (one whose task was cancelled while
    using it): stop its thread, which closes it after the work queued before, and wait until
    it has, even if cancelled meanwhile, for at most ``STOP_SECONDS``.

    SQLAlchemy's own way, aiosqlite's ``close``, queues the close, waits for it, then queues a
    stop and waits for that. When the dropping task is cancelled again meanwhile (as anyio's
    cancel scopes do, or a server shutting down), SQLAlchemy stops the thread itself; that stop
    lands between the two, ends the thread, and the closing task waits for ever: ``asyncio.run``
    (uvicorn's shutdown, a test client's exit) then hangs on it. Here the stop is queued in the
    closing task's first step, before the dropping task can run again, so it is the one the
    thread answers (SQLAlchemy's, after it, is answered by nobody). The wait outlasts a
    cancellation because the thread answers the work queued before it, and then the stop, on
    this event loop: were the loop closed first (``asyncio.run`` closes it once its tasks are
    done), the thread would fail with "Event loop is closed". (A connection dropped while
    ``asyncio.run`` is already cancelling its tasks is waited for by nobody: its thread's late
    answer fails so, harmlessly, and the test suite lets that pass.)"""
    stopped = self._connection.stop()
    if stopped is None:
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STOP_SECONDS
    while not stopped.done() and loop.time() < deadline:
        try:
            await asyncio.wait([stopped], timeout=deadline - loop.time())
        except asyncio.CancelledError:
            continue  # the loop must outlive the thread's answers (see above)


AsyncAdapt_aiosqlite_connection._terminate_graceful_close = _stop_aiosqlite  # type: ignore[method-assign]


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


def alembic_config(database_url: str) -> Config:
    config = Config(str(REPO / "alembic.ini"))
    config.set_main_option("script_location", str(REPO / "migrations"))
    config.set_main_option("sqlalchemy.url", database_url)
    return config


async def migrate(database_url: str) -> None:
    """Bring the database to the newest schema (Alembic runs its own event loop in a thread)."""
    await asyncio.to_thread(command.upgrade, alembic_config(database_url), "head")


class Database:
    """Owns the engine and hands out sessions."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: AsyncEngine = create_async_engine(url)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine.sync_engine, "connect", sqlite_pragmas)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    async def session(self) -> AsyncIterator[AsyncSession]:
        async with self.sessions() as session:
            yield session

    async def close(self) -> None:
        await self.engine.dispose()


def sqlite_pragmas(connection: Any, _: Any) -> None:
    """SQLite (the embedded default) with a write-ahead log: a commit (one per move) does not wait
    for the disk (a killed process loses nothing; a power cut may lose the last instant's
    commits), and readers never wait for the writer."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()
