"""Keeping running tables, so that a restart or another process can take them back exactly.

A table is kept while its game runs, written before its players hear of a change: the table
around the game (seats, ids, counters), the game record's header (rules, seed, start) once, then
each action and each event appended as it comes, never rewritten. ``Keeper`` keeps them in the
database (``live_tables`` and ``live_log``), for one process and for a cluster alike: the
database is the truth of every running game, Redis holds none of it. In a cluster each write is
fenced by the table's epoch (``server.ownership``): a process that lost the table to another
can never write over the new owner's moves, not even with a write it began before.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import logging
import sqlite3
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import Select, bindparam, delete, insert, select, update
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.dml import UpdateBase

import engine
from engine import Event, GameState
from server.db import sqlite_pragmas
from server.models import LiveLogEntry, LiveTable, TableOwner

log = logging.getLogger("junqi")


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

# PostgreSQL, going games (no new one): the tables' data ($1 ids, $2 data) and their log rows
# ($3-$6 columns) in one statement; fenced, only the tables this node holds ($8) at the
# writer's epoch ($7), whose leases it locks (a takeover waits for it), and it returns them
_PG_WRITES = """
tables AS (
    UPDATE live_tables t SET data = d.data
    FROM unnest($1::varchar[], $2::text[]) AS d(id, data)
    WHERE t.id = d.id AND d.id IN (SELECT table_id FROM held)
), appended AS (
    INSERT INTO live_log (table_id, kind, n, body)
    SELECT r.table_id, r.kind, r.n, r.body
    FROM unnest($3::varchar[], $4::varchar[], $5::int[], $6::text[]) AS r(table_id, kind, n, body)
    WHERE r.table_id IN (SELECT table_id FROM held)
)"""
_PG_APPEND = f"""
WITH held AS (SELECT unnest($1::varchar[]) AS table_id), {_PG_WRITES}
SELECT 1"""
_PG_FENCED_APPEND = f"""
WITH held AS (
    SELECT o.table_id FROM table_owners o
    JOIN unnest($1::varchar[], $7::int[]) AS w(table_id, epoch)
        ON o.table_id = w.table_id AND o.epoch = w.epoch
    WHERE o.node = $8
    FOR UPDATE OF o
), {_PG_WRITES}
SELECT table_id FROM held"""


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
    epoch: int = 0  # the writer's epoch of the table (in a cluster)
    waiting: list[asyncio.Future[None]] = field(default_factory=list)  # its saves


class Keeper:
    """Kept tables in the database (``live_tables`` and ``live_log``). Saves made while a write is
    under way go together in the next one (group commit): one transaction for every table that
    moved meanwhile, each caller still answered only once its save is written. SQLAlchemy's
    core, not its sessions: this runs for every move.

    With ``node`` (a cluster), the transaction first reads (and locks) the leases of its tables
    (``table_owners``): a table this node no longer holds at the epoch it writes with is left
    out of the write, and its saves raise ``LeaseLost``. A takeover, which bumps the epoch, waits
    for a write under way and is seen by every later one.

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
        self,
        engine: AsyncEngine,
        node: str | None = None,
        hold_seconds: float = 1.0,
        checkpoint_every: int = 250,
        restart_frames: int = 10_000,
    ) -> None:
        self.engine = engine
        self.node = node
        self.hold_seconds = hold_seconds  # in a cluster on PostgreSQL: the longest a write
        # may idle with the leases locked (less than a lease)
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
        self.writer: asyncio.Task[None] | None = None

    async def save(
        self,
        table_id: str,
        data: dict[str, Any],
        state: GameState,
        saved_actions: int,
        events: list[KeptEvent],
        epoch: int = 0,
    ) -> None:
        """Keep the table: ``data``, the game in ``state`` (of which the first
        ``saved_actions`` actions are kept already) and the ``events`` not kept yet; returns
        once they are written, raises ``LeaseLost`` if this node no longer holds the table
        at ``epoch`` (in a cluster)."""
        unwritten = self.unwritten.setdefault(table_id, _Unwritten())
        unwritten.data, unwritten.epoch = as_json(data), epoch
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
        unwritten.waiting.append(written)
        if self.writer is None or self.writer.done():
            self.writer = asyncio.create_task(self._write())
        await written

    async def _write(self) -> None:
        while self.unwritten:
            unwritten, self.unwritten = self.unwritten, {}
            try:
                if self.sqlite is not None:
                    try:
                        refused = self._write_sqlite(unwritten)
                    except sqlite3.OperationalError as error:
                        if "locked" not in str(error):
                            raise
                        refused = await asyncio.to_thread(self._write_sqlite, unwritten, 5.0)
                    self._checkpoint_if_due()
                elif any(t.header is not None for t in unwritten.values()):
                    async with self.engine.begin() as connection:  # a new game: its log goes
                        refused = await self._fence(connection, unwritten)
                        for statement, rows in self._statements(unwritten, refused):
                            await connection.execute(statement, rows)
                else:
                    refused = await self._append_postgresql(unwritten)
            except Exception as error:  # every save in it failed: its table says so
                for table in unwritten.values():
                    for written in table.waiting:
                        written.set_exception(error)
            else:
                for table_id, table in unwritten.items():
                    for written in table.waiting:
                        if table_id in refused:
                            written.set_exception(LeaseLost(table_id))
                        else:
                            written.set_result(None)

    async def _fence(
        self, connection: AsyncConnection, unwritten: dict[str, _Unwritten]
    ) -> set[str]:
        """In a cluster, lock the leases of the tables about to be written (a takeover waits
        for this transaction) and return those held by another process or at another epoch."""
        if self.node is None:
            return set()
        # a process that froze inside this transaction must not hold a takeover up for long:
        # the database ends the transaction (and its locks) once it idles that long
        if connection.dialect.name == "postgresql":
            hold = int(self.hold_seconds * 1000)
            await connection.exec_driver_sql(
                f"SET LOCAL idle_in_transaction_session_timeout = {hold}"
            )
        held = await connection.execute(self._leases(list(unwritten)).with_for_update())
        return self._refused(unwritten, {row.table_id: row.epoch for row in held})

    async def _append_postgresql(self, unwritten: dict[str, _Unwritten]) -> set[str]:
        """A write of going games on PostgreSQL as one statement, in a transaction of its own:
        one round trip to the database (a move's write is on the way of every move). In a
        cluster the statement locks the leases held at the writers' epochs first, and writes
        only their tables; a frozen process holds no lock while it is frozen (the statement
        ends on the server)."""
        ids = list(unwritten)
        rows = [row for t in unwritten.values() for row in t.rows]
        log = [[row[k] for row in rows] for k in ("table_id", "kind", "n", "body")]
        data = [t.data for t in unwritten.values()]
        async with self.engine.connect() as connection:
            raw = (await connection.get_raw_connection()).driver_connection
            assert raw is not None
            if self.node is None:
                await raw.execute(_PG_APPEND, ids, data, *log)
                return set()
            epochs = [t.epoch for t in unwritten.values()]
            held = await raw.fetch(_PG_FENCED_APPEND, ids, data, *log, epochs, self.node)
        return set(ids) - {row[0] for row in held}

    def _leases(self, table_ids: list[str]) -> Select[str, int]:
        """The epochs of the tables this node holds among ``table_ids``."""
        return select(TableOwner.table_id, TableOwner.epoch).where(
            TableOwner.node == self.node, TableOwner.table_id.in_(table_ids)
        )

    @staticmethod
    def _refused(unwritten: dict[str, _Unwritten], held: dict[str, int]) -> set[str]:
        """The tables whose writer's epoch is not the one this node holds them at."""
        return {table_id for table_id, t in unwritten.items() if held.get(table_id) != t.epoch}

    def _write_sqlite(self, unwritten: dict[str, _Unwritten], wait: float = 0.0) -> set[str]:
        """One transaction; returns the tables fenced out of it. ``wait``: how long to wait
        for the database's lock (seconds; the connection waits for none otherwise)."""
        connection = self.sqlite
        assert connection is not None
        if wait:
            connection.execute(f"PRAGMA busy_timeout={int(wait * 1000)}")
        try:
            connection.execute("BEGIN IMMEDIATE")  # the lock now, or the error at once
            try:
                refused: set[str] = set()
                if self.node is not None:
                    query = self._leases(list(unwritten)).compile(
                        dialect=sqlite_dialect(paramstyle="named"),
                        compile_kwargs={"render_postcompile": True},
                    )
                    held = connection.execute(str(query), query.params).fetchall()
                    refused = self._refused(unwritten, dict(held))
                for statement, rows in self._statements(unwritten, refused):
                    connection.executemany(_sqlite_text(statement), rows)
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
        finally:
            if wait:
                connection.execute("PRAGMA busy_timeout=0")
        return refused

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
    def _statements(unwritten: dict[str, _Unwritten], refused: set[str]) -> list[Statement]:
        """The statements of one write, each with its rows, leaving the ``refused`` tables
        out."""
        written = [(table_id, t) for table_id, t in unwritten.items() if table_id not in refused]
        new = [(table_id, t) for table_id, t in written if t.header is not None]
        going_on = [{"key": i, "data": t.data} for i, t in written if t.header is None]
        rows = [row for _, t in written for row in t.rows]
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

    async def drop(self, table_id: str, epoch: int = 0) -> None:
        """Forget a kept table (its game ended); in a cluster only while this node holds it at
        ``epoch``, else it raises ``LeaseLost`` and the new owner's game stays."""
        unwritten = self.unwritten.pop(table_id, None)
        for written in unwritten.waiting if unwritten else ():
            written.set_result(None)  # the game is over: nothing of it is kept any more
        if self.writer is not None and not self.writer.done():
            await asyncio.shield(self.writer)  # a write under way must not outlive the drop
        async with self.engine.begin() as connection:
            if await self._fence(connection, {table_id: _Unwritten(epoch=epoch)}):
                raise LeaseLost(table_id)
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
            ids = await connection.execute(select(LiveTable.id).order_by(LiveTable.id))
            return list(ids.scalars())

    async def close(self) -> None:
        if self.writer is not None:
            await asyncio.gather(self.writer, return_exceptions=True)
        if self.checkpointing is not None:
            await asyncio.gather(self.checkpointing, return_exceptions=True)
        if self.checkpointer is not None:
            self.checkpointer.close()
        if self.sqlite is not None:
            self.sqlite.close()
