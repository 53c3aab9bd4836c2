"""The database: SQLAlchemy 2 async engine and sessions, and Alembic migrations at start-up."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from sqlalchemy import MetaData, event, make_url
from sqlalchemy.dialects.sqlite.aiosqlite import AsyncAdapt_aiosqlite_connection
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase

from server.config import REPO

if TYPE_CHECKING:
    from alembic.config import Config

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
    # Alembic is imported when the schema is brought up to date, not with the models: every
    # process that only reads them (bots' workers, tools) is spared about 0.3 s of CPU
    from alembic.config import Config  # noqa: PLC0415 (see above)

    config = Config(str(REPO / "alembic.ini"))
    config.set_main_option("script_location", str(REPO / "migrations"))
    config.set_main_option("sqlalchemy.url", database_url)
    return config


async def migrate(database_url: str) -> None:
    """Bring the database to the newest schema (Alembic runs its own event loop in a thread)."""
    from alembic import command  # noqa: PLC0415 (imported when used: see alembic_config)

    await asyncio.to_thread(command.upgrade, alembic_config(database_url), "head")


# Connections each pool keeps open between bursts; the rest of its size opens when needed and
# closes when given back. Both pools together, at their defaults (15 + 10 connections), stay well
# inside PostgreSQL's 100 with two nodes (50), and leave room for a third node, the migrations
# and an operator's psql.
POOL_KEPT = 5
# how long a REST request waits for a connection before it is answered 503 (``busy``); the
# tables' pool waits SQLAlchemy's 30 s: a move is not given up lightly
REST_POOL_TIMEOUT = 10.0


class Database:
    """Owns the engines and hands out sessions, from two pools: ``sessions`` (of ``engine``)
    for the tables (their stores and keepers), the cluster and the sockets' sign-ins, and
    ``rest_sessions`` (of ``rest_engine``) for REST requests. However many REST requests wait
    (for a password check, for a connection), a move, a chat line or a socket's sign-in never
    waits behind them for a connection. ``pool`` and ``rest_pool``: the most connections each
    holds at once."""

    def __init__(self, url: str, pool: int = 15, rest_pool: int = 10) -> None:
        self.url = url
        self.engine: AsyncEngine = _engine(url, pool)
        # an in-memory SQLite database is one connection's own: the pools could not share it
        self.rest_engine = (
            self.engine if _in_memory(url) else _engine(url, rest_pool, REST_POOL_TIMEOUT)
        )
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        self.rest_sessions = async_sessionmaker(self.rest_engine, expire_on_commit=False)

    async def session(self) -> AsyncIterator[AsyncSession]:
        async with self.sessions() as session:
            yield session

    async def close(self) -> None:
        if self.rest_engine is not self.engine:
            await self.rest_engine.dispose()
        await self.engine.dispose()


def _in_memory(url: str) -> bool:
    parsed = make_url(url)
    return parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:")


def _engine(url: str, size: int, timeout: float = 30.0) -> AsyncEngine:
    """An engine whose pool holds at most ``size`` connections (``POOL_KEPT`` of them kept)."""
    options: dict[str, Any] = {}
    if not _in_memory(url):  # that one has a single connection (SQLAlchemy's StaticPool)
        kept = min(POOL_KEPT, size)
        options = {"pool_size": kept, "max_overflow": size - kept, "pool_timeout": timeout}
    engine = create_async_engine(url, **options)
    if engine.dialect.name == "sqlite":
        event.listen(engine.sync_engine, "connect", sqlite_pragmas)
    return engine


def sqlite_pragmas(connection: Any, _: Any) -> None:
    """SQLite (the embedded default) with a write-ahead log: a commit (one per move) does not wait
    for the disk (a killed process loses nothing; a power cut may lose the last instant's
    commits), and readers never wait for the writer."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()
