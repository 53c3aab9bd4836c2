"""Keeping running tables, so that a restart or another process can take them back exactly.

A table is kept while its game runs, written before its players hear of a change: the table
around the game (seats, ids, counters), the game record's header (rules, seed, start) once, then
each action and each event appended as it comes, never rewritten. ``DatabaseKeeper`` keeps them in
the database, for the embedded single-process default; ``RedisKeeper`` in Redis, and only while
the writing process still owns the table, so that a process that lost its table to another can
never write over the new owner's moves.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import logging
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
import redis.asyncio as aioredis
from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.dml import UpdateBase

import engine
from engine import Event, GameState
from server.db import sqlite_pragmas
from server.models import LiveLogEntry, LiveTable

log = logging.getLogger("junqi")

OWNER_KEY = "junqi:owner:"  # + table id: the process that owns the table (a lease)
LIVE_SET = "junqi:live"  # ids of the kept tables
KEPT_KEY = "junqi:kept:"  # + table id: a hash of "data" and "header"; lists ":actions", ":events"


class LeaseLost(Exception):
    """This process no longer owns the table: another one took it over."""


# An event of a game with its number, as kept: its whole JSON text (``kept_event``). Tables
# hold their games' events as that text: text is no work for the garbage collector, while an
# Event, its secrets and their audiences would be some ten objects to go through, for every
# event of every running game.
KeptEvent = tuple[int, str]


@dataclass
class KeptTable:
    table_id: str
    data: dict[str, Any]  # the table around the game (``Table.persist``)
    record: engine.GameRecord
    events: list[KeptEvent]  # the game's numbered events so far


class Keeper(Protocol):
    async def save(
        self,
        table_id: str,
        data: dict[str, Any],
        state: GameState,
        saved_actions: int,
        events: list[KeptEvent],
    ) -> None:
        """Keep the table: ``data``, the game in ``state`` (of which the first
        ``saved_actions`` actions are kept already) and the ``events`` not kept yet; returns
        once they are written."""

    async def drop(self, table_id: str) -> None: ...

    async def load(self, table_id: str) -> KeptTable | None: ...

    async def kept(self) -> list[str]:
        """The ids of every kept table."""

    async def close(self) -> None:
        """Finish the writes under way."""


def header(state: GameState) -> str:
    """The record of the game without its actions."""
    return dataclasses.replace(engine.record_of(state), actions=()).to_json()


def as_json(data: Any) -> str:
    """JSON text (orjson: this runs for every move)."""
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()


def new_actions(state: GameState, saved_actions: int) -> list[str]:
    return [as_json(engine.action_to_dict(a)) for a in state.log[saved_actions:]]


def kept_event(event: Event) -> str:
    return as_json(event.to_dict())


def event_of(kept: str) -> Event:
    """The event of a ``kept_event`` text."""
    return Event.from_dict(orjson.loads(kept))


def rebuilt(
    table_id: str, data: str, head: str, actions: list[str], events: list[KeptEvent]
) -> KeptTable:
    """A kept table from its stored parts (a header written before the log existed may hold
    actions of its own: the log's follow them); ``Unreadable`` if this version cannot read
    its record."""
    table = json.loads(data)
    try:
        record = json.loads(head)
        record["actions"] += [json.loads(a) for a in actions]
        game = engine.GameRecord.from_json(json.dumps(record))
    except (engine.EngineError, KeyError, TypeError, ValueError) as error:
        raise Unreadable(f"table {table_id}: {error!r}", table) from error
    return KeptTable(table_id, table, game, events)


class Unreadable(ValueError):
    """A kept game's record this version cannot read; ``data``: the table around it."""

    def __init__(self, message: str, data: dict[str, Any]) -> None:
        super().__init__(message)
        self.data = data


# the statements of a write, each run with many rows (executemany)
_DROP_LOGS = delete(LiveLogEntry).where(LiveLogEntry.table_id == bindparam("key"))
_DROP_TABLES = delete(LiveTable).where(LiveTable.id == bindparam("key"))
_NEW_TABLES = insert(LiveTable)
_TABLE_DATA = (
    update(LiveTable).where(LiveTable.id == bindparam("key")).values(data=bindparam("data"))
)
_APPEND = insert(LiveLogEntry)

Statement = tuple[UpdateBase, list[dict[str, Any]]]  # with its rows


@functools.cache
def _sqlite_text(statement: UpdateBase) -> str:
    """A statement as SQLite's SQL text with named parameters, for ``sqlite3`` itself."""
    return str(statement.compile(dialect=sqlite_dialect(paramstyle="named")))


@dataclass
class _Unwritten:
    """What the next write holds for one table."""

    data: str = ""
    header: str | None = None  # a new game: its header, and the old game's log goes
    rows: list[dict[str, Any]] = field(default_factory=list)


class DatabaseKeeper:
    """Kept tables in the database (``live_tables`` and ``live_log``). Saves made while a write is
    under way go together in the next one (group commit): one transaction for every table that
    moved meanwhile, each caller still answered only once its save is written. SQLAlchemy's
    core, not its sessions: this runs for every move.

    SQLite (the embedded default) is written through ``sqlite3`` itself, in the event loop's
    thread: a write of a few rows takes a fraction of a millisecond, while handing it to a
    thread meant waiting for the GIL and for the busy loop, tens of milliseconds under load.
    It never waits there for the database's lock: if another connection holds it, that write
    waits for it in a thread instead. Nor for the disk: SQLite would copy its write-ahead log
    into the database (a checkpoint, with an fsync) inside a commit every thousand pages,
    stalling every table for up to tens of milliseconds; this connection leaves that to a
    thread of its own, every ``checkpoint_every`` writes (a write adds a few pages to the log:
    about as often as SQLite itself would)."""

    def __init__(
        self, engine: AsyncEngine, checkpoint_every: int = 250, restart_frames: int = 10_000
    ) -> None:
        self.engine = engine
        self.sqlite: sqlite3.Connection | None = None
        self.database = ""  # SQLite's file
        self.checkpoint_every = checkpoint_every
        self.restart_frames = restart_frames
        self.unchecked = 0  # writes since the last checkpoint began
        self.checkpointer: sqlite3.Connection | None = None
        self.checkpointing: asyncio.Task[None] | None = None
        self.checkpoints = 0
        if engine.dialect.name == "sqlite":
            # transactions by hand (BEGIN ... COMMIT); one write at a time, now and then from
            # a thread
            path = engine.url.database or ":memory:"
            self.sqlite = sqlite3.connect(
                path, timeout=0, isolation_level=None, check_same_thread=False
            )
            sqlite_pragmas(self.sqlite, None)
            self.sqlite.execute("PRAGMA busy_timeout=0")
            self.sqlite.execute("PRAGMA wal_autocheckpoint=0")
            if path != ":memory:":
                self.database = path
        self.unwritten: dict[str, _Unwritten] = {}
        self.waiting: list[asyncio.Future[None]] = []
        self.writer: asyncio.Task[None] | None = None

    async def save(
        self,
        table_id: str,
        data: dict[str, Any],
        state: GameState,
        saved_actions: int,
        events: list[KeptEvent],
    ) -> None:
        unwritten = self.unwritten.setdefault(table_id, _Unwritten())
        unwritten.data = as_json(data)
        if saved_actions == 0:
            unwritten.header, unwritten.rows = header(state), []
        actions = enumerate(new_actions(state, saved_actions), start=saved_actions)
        unwritten.rows += [
            {"table_id": table_id, "kind": "action", "n": n, "body": body} for n, body in actions
        ]
        unwritten.rows += [
            {"table_id": table_id, "kind": "event", "n": seq, "body": body} for seq, body in events
        ]
        written = asyncio.get_running_loop().create_future()
        self.waiting.append(written)
        if self.writer is None or self.writer.done():
            self.writer = asyncio.create_task(self._write())
        await written

    async def _write(self) -> None:
        while self.unwritten:
            unwritten, self.unwritten = self.unwritten, {}
            waiting, self.waiting = self.waiting, []
            statements = self._statements(unwritten)
            try:
                if self.sqlite is not None:
                    try:
                        self._write_sqlite(statements)
                    except sqlite3.OperationalError as error:
                        if "locked" not in str(error):
                            raise
                        await asyncio.to_thread(self._write_sqlite, statements, 5.0)
                    self._checkpoint_if_due()
                else:
                    async with self.engine.begin() as connection:
                        for statement, rows in statements:
                            await connection.execute(statement, rows)
            except Exception as error:  # every save in it failed: its table says so
                for written in waiting:
                    written.set_exception(error)
            else:
                for written in waiting:
                    written.set_result(None)

    def _write_sqlite(self, statements: list[Statement], wait: float = 0.0) -> None:
        """One transaction; ``wait``: how long to wait for the database's lock (seconds;
        the connection waits for none otherwise)."""
        connection = self.sqlite
        assert connection is not None
        if wait:
            connection.execute(f"PRAGMA busy_timeout={int(wait * 1000)}")
        try:
            connection.execute("BEGIN IMMEDIATE")  # the lock now, or the error at once
            try:
                for statement, rows in statements:
                    connection.executemany(_sqlite_text(statement), rows)
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
        finally:
            if wait:
                connection.execute("PRAGMA busy_timeout=0")

    def _checkpoint_if_due(self) -> None:
        self.unchecked += 1
        if not self.database or self.unchecked < self.checkpoint_every:
            return
        if self.checkpointing is None or self.checkpointing.done():
            self.unchecked = 0
            self.checkpointing = asyncio.create_task(asyncio.to_thread(self._checkpoint))

    def _checkpoint(self) -> None:
        """Copy the write-ahead log into the database (in a thread: it waits for the disk).
        PASSIVE: it holds up no writer, and the next write starts the log again if it caught
        up. Under writes that never pause it may never quite catch up, and the log would grow
        for ever: past ``restart_frames`` a RESTART checkpoint holds the writers off (they
        wait in a thread too) until the log starts again."""
        try:
            if self.checkpointer is None:
                self.checkpointer = sqlite3.connect(
                    self.database, isolation_level=None, check_same_thread=False
                )
            _, frames, _ = self.checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if frames > self.restart_frames:
                self.checkpointer.execute("PRAGMA wal_checkpoint(RESTART)").fetchall()
        except sqlite3.Error:  # the next one tries again; the log only grows meanwhile
            log.exception("could not checkpoint SQLite's write-ahead log")
        else:
            self.checkpoints += 1

    @staticmethod
    def _statements(unwritten: dict[str, _Unwritten]) -> list[Statement]:
        """The statements of one write, each with its rows."""
        new = [(table_id, t) for table_id, t in unwritten.items() if t.header is not None]
        going_on = [
            {"key": table_id, "data": t.data}
            for table_id, t in unwritten.items()
            if t.header is None
        ]
        rows = [row for t in unwritten.values() for row in t.rows]
        statements: list[Statement] = []
        if new:  # a new game at the table: its old log goes
            keys = [{"key": table_id} for table_id, _ in new]
            statements += [
                (_DROP_LOGS, keys),
                (_DROP_TABLES, keys),
                (_NEW_TABLES, [{"id": i, "data": t.data, "record": t.header} for i, t in new]),
            ]
        if going_on:
            statements.append((_TABLE_DATA, going_on))
        if rows:
            statements.append((_APPEND, rows))
        return statements

    async def drop(self, table_id: str) -> None:
        self.unwritten.pop(table_id, None)
        if self.writer is not None and not self.writer.done():
            await asyncio.shield(self.writer)  # a write under way must not outlive the drop
        async with self.engine.begin() as connection:
            await connection.execute(delete(LiveLogEntry).where(LiveLogEntry.table_id == table_id))
            await connection.execute(delete(LiveTable).where(LiveTable.id == table_id))

    async def load(self, table_id: str) -> KeptTable | None:
        async with self.engine.connect() as connection:
            row = (
                await connection.execute(
                    select(LiveTable.data, LiveTable.record).where(LiveTable.id == table_id)
                )
            ).first()
            if row is None:
                return None
            log = (
                await connection.execute(
                    select(LiveLogEntry.kind, LiveLogEntry.n, LiveLogEntry.body)
                    .where(LiveLogEntry.table_id == table_id)
                    .order_by(LiveLogEntry.kind, LiveLogEntry.n)
                )
            ).all()
        actions = [body for kind, _, body in log if kind == "action"]
        events = [(n, body) for kind, n, body in log if kind == "event"]
        return rebuilt(table_id, row.data, row.record, actions, events)

    async def kept(self) -> list[str]:
        async with self.engine.connect() as connection:
            return list((await connection.execute(select(LiveTable.id))).scalars())

    async def close(self) -> None:
        if self.writer is not None:
            await asyncio.gather(self.writer, return_exceptions=True)
        if self.checkpointing is not None:
            await asyncio.gather(self.checkpointing, return_exceptions=True)
        if self.checkpointer is not None:
            self.checkpointer.close()
        if self.sqlite is not None:
            self.sqlite.close()


# Appends to the kept log of a table, only if this process owns it (its lease).
# KEYS: owner, kept hash, actions list, events list, live set.
# ARGV: node, table id, data, header ('' unless the game is new), number of actions, the actions,
# then the events.
_SAVE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[4] ~= '' then
  redis.call('DEL', KEYS[3], KEYS[4])
  redis.call('HSET', KEYS[2], 'header', ARGV[4])
end
redis.call('HSET', KEYS[2], 'data', ARGV[3])
local actions = tonumber(ARGV[5])
for i = 6, 5 + actions do redis.call('RPUSH', KEYS[3], ARGV[i]) end
for i = 6 + actions, #ARGV do redis.call('RPUSH', KEYS[4], ARGV[i]) end
redis.call('SADD', KEYS[5], ARGV[2])
return 1
"""

_DROP = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('SREM', KEYS[5], ARGV[2])
return 1
"""


class RedisKeeper:
    """Kept tables in Redis, written only under the table's lease held by ``node``."""

    def __init__(self, redis: aioredis.Redis, node: str) -> None:
        self.redis = redis  # decoding responses
        self.node = node
        self._save = redis.register_script(_SAVE)
        self._drop = redis.register_script(_DROP)

    @staticmethod
    def keys(table_id: str) -> list[str]:
        kept = KEPT_KEY + table_id
        return [OWNER_KEY + table_id, kept, kept + ":actions", kept + ":events", LIVE_SET]

    async def save(
        self,
        table_id: str,
        data: dict[str, Any],
        state: GameState,
        saved_actions: int,
        events: list[KeptEvent],
    ) -> None:
        head = header(state) if saved_actions == 0 else ""
        actions = new_actions(state, saved_actions)
        kept_events = [as_json([seq, body]) for seq, body in events]
        args: list[str | int] = [
            self.node,
            table_id,
            as_json(data),
            head,
            len(actions),
        ]
        if not await self._save(self.keys(table_id), [*args, *actions, *kept_events]):
            raise LeaseLost(table_id)

    async def drop(self, table_id: str) -> None:
        await self._drop(self.keys(table_id), [self.node, table_id])

    async def load(self, table_id: str) -> KeptTable | None:
        _, kept, actions_key, events_key, _ = self.keys(table_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hmget(kept, ["data", "header"])
            pipe.lrange(actions_key, 0, -1)
            pipe.lrange(events_key, 0, -1)
            (data, head), actions, events = await pipe.execute()
        if data is None or head is None:
            return None
        numbered = [(seq, event) for seq, event in map(json.loads, events)]
        return rebuilt(table_id, data, head, actions, numbered)

    async def kept(self) -> list[str]:
        return sorted(str(m) for m in await self.redis.smembers(LIVE_SET))

    async def close(self) -> None:
        """Nothing to finish: each save is written before it returns."""
