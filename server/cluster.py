"""Several server processes sharing one Redis: table ownership, calls to the owner, takeovers.

Each process (a node) owns the tables created on it, by a lease in Redis that it renews every
second; only the owner runs a table's actor and writes its kept log (``server.keeping``, fenced
by the lease). A socket on any node reaches a table through ``Cluster.call``: the command goes to
the owner over the broker and its answer comes back. Every node looks for kept tables whose
lease ran out (their owner died or stopped) and takes them over, from the kept log. The lobby
entries of all tables are shared through the broker and kept in a Redis hash for newcomers.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis

from server.broker import RedisBroker
from server.keeping import LIVE_SET, OWNER_KEY, RedisKeeper
from server.tables import TableError
from server.tasks import cancel

if TYPE_CHECKING:
    from server.lobby import Lobby

log = logging.getLogger("junqi")
ENTRIES_KEY = "junqi:tables"  # hash: table id -> its lobby entry (JSON)
CALL_SECONDS = 10.0  # how long a call waits for the owner's answer
FIND_SECONDS = 8.0  # how long a call looks for an owner (a takeover takes a lease's time)

# Renew the leases still ours; returns the (1-based) positions of those lost.
_RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then redis.call('PEXPIRE', key, ARGV[2])
  else table.insert(lost, i) end
end
return lost
"""
_RELEASE = """
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then redis.call('DEL', key) end
end
return 0
"""


def node_topic(node: str) -> str:
    return f"node:{node}"


class Cluster:
    def __init__(
        self, redis: aioredis.Redis, broker: RedisBroker, node: str, lease_seconds: float = 3.0
    ) -> None:
        self.redis = redis
        self.broker = broker
        self.node = node
        self.keeper = RedisKeeper(redis, node)
        self.lease_ms = int(lease_seconds * 1000)
        self.beat = lease_seconds / 3  # renewals and takeover checks
        self.calls: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.call_ids = itertools.count()
        self.unsaved: dict[str, dict[str, Any] | None] = {}  # lobby entries to write
        self.tasks: list[asyncio.Task[None]] = []
        self.serving: set[asyncio.Task[None]] = set()
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)

    async def start(self, lobby: Lobby) -> None:
        self.lobby = lobby
        inbox = self.broker.subscribe(node_topic(self.node))
        await self.broker.subscribed(node_topic(self.node))
        saved = await self.redis.hgetall(ENTRIES_KEY)
        for table_id, entry in saved.items():
            lobby.entries.setdefault(str(table_id), json.loads(entry))
        await self.take_over()  # what a stopped cluster left running goes on
        self.tasks = [
            asyncio.create_task(self._listen(inbox), name="cluster inbox"),
            asyncio.create_task(self._keep_beating(), name="cluster beat"),
        ]

    async def close(self) -> None:
        """Give up every table at once, so that other nodes take the running games over."""
        await cancel(self.tasks)
        await self.save_entries()
        owned = [OWNER_KEY + table_id for table_id in self.lobby.tables]
        if owned:
            await self._release(owned, [self.node])

    # --- ownership ----------------------------------------------------------------------------

    async def claim(self, table_id: str) -> bool:
        """Own ``table_id`` if nobody does."""
        return bool(
            await self.redis.set(OWNER_KEY + table_id, self.node, nx=True, px=self.lease_ms)
        )

    async def release(self, table_id: str) -> None:
        """Give up ``table_id`` (it closed)."""
        await self._release([OWNER_KEY + table_id], [self.node])

    async def _keep_beating(self) -> None:
        while True:
            await asyncio.sleep(self.beat)
            try:
                await self.renew()
                await self.save_entries()
                await self.take_over()
            except Exception:  # Redis away for a moment: the next beat tries again
                log.exception("cluster beat failed")

    async def renew(self) -> None:
        ids = list(self.lobby.tables)
        if not ids:
            return
        lost = await self._renew(
            [OWNER_KEY + table_id for table_id in ids], [self.node, self.lease_ms]
        )
        for position in lost:
            table = self.lobby.tables.get(ids[position - 1])
            if table is not None:
                log.warning("lease lost", extra={"table": table.id})
                self.lobby.lost(table)

    async def take_over(self) -> None:
        """Take over the kept tables nobody owns; forget the listed ones nobody owns."""
        kept = await self.keeper.kept()
        for table_id in kept:
            if table_id not in self.lobby.tables and await self.claim(table_id):
                await self.lobby.adopt(table_id)
        others = [t for t in self.lobby.entries if t not in self.lobby.tables and t not in kept]
        if others:
            async with self.redis.pipeline(transaction=False) as pipe:
                for table_id in others:
                    pipe.exists(OWNER_KEY + table_id)
                owned = await pipe.execute()
            for table_id, exists in zip(others, owned, strict=True):
                if not exists:  # its node stopped between games: the table is gone
                    self.lobby.forget(table_id)

    # --- lobby entries ------------------------------------------------------------------------

    def keep_entry(self, table_id: str, entry: dict[str, Any] | None) -> None:
        self.unsaved[table_id] = entry

    async def save_entries(self) -> None:
        if not self.unsaved:
            return
        unsaved, self.unsaved = self.unsaved, {}
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id, entry in unsaved.items():
                if entry is None:
                    pipe.hdel(ENTRIES_KEY, table_id)
                else:
                    pipe.hset(ENTRIES_KEY, table_id, json.dumps(entry, ensure_ascii=False))
            await pipe.execute()

    # --- calls to a table's owner -------------------------------------------------------------

    async def call(self, table_id: str, command: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run a table command (``Table.run``) wherever the table lives."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + FIND_SECONDS
        while loop.time() < give_up:
            table = self.lobby.tables.get(table_id)
            if table is not None:
                return await table.run(command, args)
            owner = await self.redis.get(OWNER_KEY + table_id)
            if owner is None or owner == self.node:
                live = await self.redis.sismember(LIVE_SET, table_id)
                if owner is None and not live:
                    raise TableError("no_table", f"no table {table_id!r}")
                await asyncio.sleep(self.beat / 2)  # a takeover is under way
                continue
            answer = await self._ask(str(owner), table_id, command, args)
            if answer.get("moved"):
                await asyncio.sleep(self.beat / 2)
                continue
            if "error" in answer:
                raise TableError(*answer["error"])
            return dict(answer["value"])
        raise TableError("unavailable", "the table is moving to another server; try again")

    async def _ask(
        self, owner: str, table_id: str, command: str, args: dict[str, Any]
    ) -> dict[str, Any]:
        call_id = f"{self.node}/{next(self.call_ids)}"
        answer = self.calls[call_id] = asyncio.get_running_loop().create_future()
        request = {"call": call_id, "from": self.node, "table": table_id}
        self.broker.publish(node_topic(owner), {**request, "command": command, "args": args})
        try:
            for _ in range(int(CALL_SECONDS / self.beat)):
                done, _ = await asyncio.wait({answer}, timeout=self.beat)
                if done:
                    return dict(answer.result())
                if await self.redis.get(OWNER_KEY + table_id) != owner:
                    # the owner died: the command never ran, or ran and was kept (then the
                    # new owner refuses it again as stale), so it goes to the new owner
                    return {"moved": True}
            raise TableError("unavailable", "the table's server did not answer")
        finally:
            self.calls.pop(call_id, None)

    async def _listen(self, inbox: Any) -> None:
        while True:
            message = await inbox.get()
            if "answer" in message:
                future = self.calls.get(message["answer"])
                if future is not None and not future.done():
                    future.set_result(message)
            else:
                task = asyncio.create_task(self._serve(message))
                self.serving.add(task)
                task.add_done_callback(self.serving.discard)

    async def _serve(self, request: dict[str, Any]) -> None:
        answer: dict[str, Any] = {"answer": request["call"]}
        table = self.lobby.tables.get(request["table"])
        if table is None:
            answer["moved"] = True
        else:
            try:
                answer["value"] = await table.run(request["command"], request["args"])
            except TableError as error:
                answer["error"] = [error.code, error.message]
            except Exception:
                log.exception("table command failed", extra={"table": table.id})
                answer["error"] = ["internal", "the command failed on the table's server"]
        self.broker.publish(node_topic(request["from"]), answer)
