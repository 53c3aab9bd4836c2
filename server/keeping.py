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
import json
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
import redis.asyncio as aioredis
from sqlalchemy import (
    Engine,
    Executable,
    bindparam,
    create_engine,
    delete,
    event,
    insert,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncEngine

import engine
from engine import Event, GameState
from server.db import sqlite_pragmas
from server.models import LiveLogEntry, LiveTable

OWNER_KEY = "junqi:owner:"  # + table id: the process that owns the table (a lease)
LIVE_SET = "junqi:live"  # ids of the kept tables
KEPT_KEY = "junqi:kept:"  # + table id: a hash of "data" and "header"; lists ":actions", ":events"


class LeaseLost(Exception):
    """This process no longer owns the table: another one took it over."""


@dataclass
class KeptTable:
    table_id: str
    data: dict[str, Any]  # the table around the game (``Table.persist``)
    record: engine.GameRecord
    events: list[tuple[int, Event]]  # the game's numbered events so far


class Keeper(Protocol):
    async def save(
        self,
        table_id: str,
        data: dict[str, Any],
        state: GameState,
        saved_actions: int,
        events: list[tuple[int, Event]],
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


def rebuilt(
    table_id: str, data: str, head: str, actions: list[str], events: list[tuple[int, str]]
) -> KeptTable:
    """A kept table from its stored parts (a header written before the log existed may hold
    actions of its own: the log's follow them)."""
    record = json.loads(head)
    record["actions"] += [json.loads(a) for a in actions]
    return KeptTable(
        table_id,
        json.loads(data),
        engine.GameRecord.from_json(json.dumps(record)),
        [(seq, Event.from_dict(json.loads(event))) for seq, event in events],
    )


Statement = tuple[Executable, list[dict[str, Any]] | None]  # with its rows, if many


@dataclass
class _Unwritten:
    """What the next write holds for one table."""

    data: str = ""
    header: str | None = None  # a new game: its header, and the old game's log goes
    rows: list[dict[str, Any]] = field(default_factory=list)


class DatabaseKeeper:
    """Kept tables in the database (``live_tables`` and ``live_log``). Saves made while a write is
    under way go together in the next one (group commit): one transaction of three statements
    for every table that moved meanwhile, each caller still answered only once its save is
    written. SQLAlchemy's core, not its sessions: this runs for every move."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        # SQLite through aiosqlite hands each statement to its thread, fighting over the GIL
        # every time: a whole write goes to one thread call of a plain connection instead
        self.sqlite: Engine | None = None
        if engine.dialect.name == "sqlite":
            self.sqlite = create_engine(engine.url.set(drivername="sqlite"))
            event.listen(self.sqlite, "connect", sqlite_pragmas)
        self.unwritten: dict[str, _Unwritten] = {}
        self.waiting: list[asyncio.Future[None]] = []
        self.writer: asyncio.Task[None] | None = None

    async def save(
        self,
        table_id: str,
        data: dict[str, Any],
        state: GameState,
        saved_actions: int,
        events: list[tuple[int, Event]],
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
            {"table_id": table_id, "kind": "event", "n": seq, "body": kept_event(event)}
            for seq, event in events
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
                    await asyncio.to_thread(self._write_sqlite, statements)
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

    def _write_sqlite(
        self, statements: list[tuple[Executable, list[dict[str, Any]] | None]]
    ) -> None:
        assert self.sqlite is not None
        with self.sqlite.begin() as connection:
            for statement, rows in statements:
                connection.execute(statement, rows)

    @staticmethod
    def _statements(
        unwritten: dict[str, _Unwritten],
    ) -> list[Statement]:
        """The statements of one write (each with its rows, for those that take many)."""
        statements: list[Statement] = []
        new = [(table_id, t) for table_id, t in unwritten.items() if t.header is not None]
        if new:  # a new game at the table: its old log goes
            ids = [table_id for table_id, _ in new]
            statements += [
                (delete(LiveLogEntry).where(LiveLogEntry.table_id.in_(ids)), None),
                (delete(LiveTable).where(LiveTable.id.in_(ids)), None),
                (
                    insert(LiveTable),
                    [{"id": table_id, "data": t.data, "record": t.header} for table_id, t in new],
                ),
            ]
        going_on = [
            {"key": table_id, "data": t.data}
            for table_id, t in unwritten.items()
            if t.header is None
        ]
        if going_on:
            statement = update(LiveTable).where(LiveTable.id == bindparam("key"))
            statements.append((statement.values(data=bindparam("data")), going_on))
        rows = [row for t in unwritten.values() for row in t.rows]
        if rows:
            statements.append((insert(LiveLogEntry), rows))
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
        if self.sqlite is not None:
            self.sqlite.dispose()


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
        events: list[tuple[int, Event]],
    ) -> None:
        head = header(state) if saved_actions == 0 else ""
        actions = new_actions(state, saved_actions)
        kept_events = [as_json([seq, kept_event(event)]) for seq, event in events]
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
