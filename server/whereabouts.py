"""Where a user is now, for their friends' lists (presence: docs/protocol.md, "Presence").

A user is ``playing`` at a table whose game they sit in, ``seated`` at one between games,
``watching`` one they have open without a seat, ``online`` with a socket open anywhere else (the
lobby), else ``offline``. Seats come from the lobby's entries, which every process holds for
every table; sockets are each process's own. With one process those are read as they are. With
several, each process writes what its sockets watch to Redis, in a hash per user with a field
per process (``junqi:<db>:presence:<user id>``), once a second for the users whose sockets
changed and every ``refresh`` seconds for all (``JUNQI_PRESENCE_REFRESH_SECONDS``, 10), each
with the time written: a field not written for three times that is a dead process's and counts
for nothing, so a process that dies takes its users offline within that time. Losing Redis
loses presence only, until the next refresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Collection, Iterable, Mapping
from typing import Literal, Protocol

import orjson
from pydantic import BaseModel, Field
from redis import asyncio as aioredis
from redis.exceptions import RedisError

from server.listing import LobbyEntry

log = logging.getLogger("junqi")
BEAT = 1.0  # seconds between two writes of the users that changed

State = Literal["offline", "online", "watching", "seated", "playing"]


class Place(BaseModel):
    """Where a user is: ``table`` (and its ``room``) when seated, playing or watching."""

    state: State
    table: str | None = Field(default=None, description="the table's id")
    room: str | None = None


class _User(Protocol):
    @property
    def id(self) -> int: ...


class Socket(Protocol):
    """What is read of a socket (``server.realtime.Connection``)."""

    watching: set[str]

    @property
    def user(self) -> _User: ...


class Whereabouts:
    """The presence of users, as this process sees it (``connections``: its sockets;
    ``entries``: the lobby's entries of every table)."""

    def __init__(
        self,
        connections: Collection[Socket],
        entries: Mapping[str, LobbyEntry],
        redis: aioredis.Redis | None = None,
        node: str | None = None,
        refresh: float = 10.0,
    ) -> None:
        self.connections = connections
        self.entries = entries
        self.redis = redis
        self.node = node
        self.refresh = refresh  # seconds between two writes of every user of the process
        self.stale = 3 * refresh  # a field not written for this long is a dead process's
        database = redis.connection_pool.connection_kwargs.get("db", 0) if redis else 0
        self.prefix = f"junqi:{database}:presence:"
        self.written: dict[int, frozenset[str]] = {}  # what this process last wrote
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.redis is not None:
            self.task = asyncio.create_task(self._write_loop(), name="whereabouts")

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        if self.redis is not None and self.written:  # this process's users leave at once
            with contextlib.suppress(RedisError):
                async with self.redis.pipeline(transaction=False) as pipe:
                    for user_id in self.written:
                        pipe.hdel(self.prefix + str(user_id), str(self.node))
                    await pipe.execute()

    def local(self) -> dict[int, frozenset[str]]:
        """The tables each user with a socket in this process has open."""
        found: dict[int, set[str]] = {}
        for socket in list(self.connections):
            found.setdefault(socket.user.id, set()).update(socket.watching)
        return {user: frozenset(tables) for user, tables in found.items()}

    async def _write_loop(self) -> None:
        last_refresh = 0.0
        while True:
            now = time.time()
            everyone = now - last_refresh >= self.refresh
            try:
                await self._write(now, everyone)
                last_refresh = now if everyone else last_refresh
            except RedisError as error:
                log.warning("presence not written: %s", error)
                self.written.clear()  # every user again once Redis is back
            await asyncio.sleep(BEAT)

    async def _write(self, now: float, everyone: bool) -> None:
        assert self.redis is not None
        local = self.local()
        changed = {u: t for u, t in local.items() if everyone or self.written.get(u) != t}
        gone = [u for u in self.written if u not in local]
        if not changed and not gone:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for user_id, tables in changed.items():
                key = self.prefix + str(user_id)
                value = orjson.dumps({"at": now, "watching": sorted(tables)})
                pipe.hset(key, str(self.node), value)
                pipe.expire(key, math.ceil(self.stale))
            for user_id in gone:
                pipe.hdel(self.prefix + str(user_id), str(self.node))
            await pipe.execute()
        self.written = local

    async def _shared(self, user_ids: list[int]) -> dict[int, set[str]]:
        """The tables each user has open on any live process (those online only)."""
        assert self.redis is not None
        async with self.redis.pipeline(transaction=False) as pipe:
            for user_id in user_ids:
                pipe.hgetall(self.prefix + str(user_id))
            fields = await pipe.execute()
        now, found = time.time(), dict[int, set[str]]()
        for user_id, nodes in zip(user_ids, fields, strict=True):
            for node, value in nodes.items():
                seen = orjson.loads(value)
                if node != self.node and now - seen["at"] < self.stale:
                    found.setdefault(user_id, set()).update(seen["watching"])
        return found

    async def of(self, user_ids: Iterable[int]) -> dict[int, Place]:
        """Where each of ``user_ids`` is now."""
        ids = list(dict.fromkeys(user_ids))
        online: dict[int, set[str]] = {u: set(t) for u, t in self.local().items() if u in ids}
        if self.redis is not None and ids:
            try:
                for user_id, tables in (await self._shared(ids)).items():
                    online.setdefault(user_id, set()).update(tables)
            except RedisError as error:  # those of this process are still known
                log.warning("presence not read: %s", error)
        wanted = {str(u) for u in ids}
        seated = {  # each user's table, of those wanted (one pass over the tables)
            int(user): (table_id, entry)
            for table_id, entry in list(self.entries.items())
            for user in entry.players.keys() & wanted
        }
        return {u: self._place(seated.get(u), online.get(u)) for u in ids}

    def _place(self, seated: tuple[str, LobbyEntry] | None, watching: set[str] | None) -> Place:
        if seated is not None:
            table_id, entry = seated
            state: State = "playing" if entry.game is not None else "seated"
            return Place(state=state, table=_listed(table_id, entry), room=entry.room)
        for table_id in sorted(watching or ()):
            watched = self.entries.get(table_id)
            if watched is not None:
                return Place(state="watching", table=_listed(table_id, watched), room=watched.room)
        return Place(state="offline" if watching is None else "online")


def _listed(table_id: str, entry: LobbyEntry) -> str | None:
    """A table's id as presence shows it: none for a friend room (``server.friend_rooms``),
    which its code alone opens: a friend sees that the user plays, not where."""
    return table_id if entry.code is None else None
