"""Several server processes sharing one database and one Redis: table ownership, calls to the
owner, takeovers.

Each process (a node) owns the tables created on it, by a lease in the database that it renews
every beat (``server.ownership``); only the owner runs a table's actor and writes its kept game
(``server.keeping``), fenced by the table's epoch. A node stops speaking for a table as soon as
it is not sure of its lease any more (``Table.sure``), and every update carries the epoch, so
that the gateways drop what a node that lost the table still sends. A socket on any node reaches
a table through ``Cluster.call``: the command goes to the owner over the broker and its answer
comes back. Every node looks for kept tables whose lease ran out (their owner died, stopped or
froze) and takes them over, from the kept game. The lobby entries of all tables are shared
through the broker and kept in a Redis hash for newcomers.

Redis holds only what may be lost: the broker's messages, that hash and rate counters. After
Redis comes back (restarted, even empty) every node writes its entries again and every socket
watching another node's table gets a fresh snapshot, for the updates it may have missed.

The lobby (``server.lobby``) calls the cluster; the cluster knows of the lobby only what the
lobby hands it at start (``LobbyHooks``): no import circle between the two.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis
from sqlalchemy.ext.asyncio import AsyncEngine

from server import messages, table_commands
from server.broker import RedisBroker
from server.errors import TableError
from server.keeping import Keeper
from server.listing import LobbyEntry
from server.ownership import Leases
from server.tasks import cancel

if TYPE_CHECKING:
    from server.tables import Table

log = logging.getLogger("junqi")
ENTRIES_KEY = "junqi:tables"  # hash: table id -> its lobby entry (JSON)
CALL_SECONDS = 10.0  # how long a call waits for the owner's answer
FIND_SECONDS = 8.0  # how long a call looks for an owner (a takeover takes a lease's time)


def node_topic(node: str) -> str:
    return f"node:{node}"


@dataclass(frozen=True)
class LobbyHooks:
    """What the cluster reads of its process's lobby and asks of it (``Lobby.start`` hands it
    over): the lobby's own mappings, live, and its methods."""

    tables: Mapping[str, Table]  # the tables this process runs
    entries: Mapping[str, LobbyEntry]  # the lobby entry of every table of every node
    adopt: Callable[[str, int, float | None], Awaitable[None]]  # take a kept table over
    lost: Callable[[Table], None]  # another node took the table over: stop it here
    forget: Callable[[str], None]  # a listed table is gone (its node stopped between games)
    changed: Callable[[Table], None]  # send a table's entry round again
    reload_rooms_soon: Callable[[], None]  # read every room from the database again


class Cluster:
    def __init__(
        self,
        redis: aioredis.Redis,
        broker: RedisBroker,
        node: str,
        engine: AsyncEngine,
        lease_seconds: float = 3.0,
    ) -> None:
        self.redis = redis
        self.broker = broker
        self.node = node
        self.leases = Leases(engine, node, lease_seconds)
        self.keeper = Keeper(engine, node, hold_seconds=lease_seconds / 3)
        self.beat = lease_seconds / 3  # renewals and takeover checks
        self.owners: dict[str, str] = {}  # the node of each other table, as last read
        self.calls: dict[str, asyncio.Future[messages.Answer]] = {}
        self.call_ids = itertools.count()
        self.unsaved: dict[str, LobbyEntry | None] = {}  # lobby entries to write
        self.tasks: list[asyncio.Task[None]] = []
        self.serving: set[asyncio.Task[None]] = set()
        # when each call of the last CALL_SECONDS came, and its answer (None: under way), for a
        # call asked again
        self.served: OrderedDict[str, tuple[float, messages.Answer | None]] = OrderedDict()

    async def saved_entries(self) -> dict[str, LobbyEntry]:
        """The lobby entries the nodes wrote to Redis (for a node that starts); one this
        version cannot read is left out, and the log says so."""
        entries = {}
        for table_id, saved in (await self.redis.hgetall(ENTRIES_KEY)).items():
            try:
                entries[str(table_id)] = LobbyEntry.from_json(json.loads(saved))
            except (ValueError, KeyError, TypeError):
                log.warning(
                    "a lobby entry of an unknown shape was left out", extra={"table": table_id}
                )
        return entries

    async def start(self, lobby: LobbyHooks) -> None:
        """Serve calls, renew leases and take tables over, for ``lobby`` (whose entries hold
        the ``saved_entries`` by now)."""
        self.lobby = lobby
        self.broker.on_disconnect = self.disconnected
        self.broker.on_reconnect = self.reconnected
        inbox = self.broker.subscribe(node_topic(self.node))
        await self.broker.subscribed(node_topic(self.node))
        await self.leases.adopt_unowned()
        await self.take_over()  # what a stopped cluster left running goes on
        self.tasks = [
            asyncio.create_task(self._listen(inbox), name="cluster inbox"),
            asyncio.create_task(self._every_beat(self.renew), name="cluster leases"),
            asyncio.create_task(self._every_beat(self.take_over), name="cluster takeovers"),
            asyncio.create_task(self._every_beat(self.save_entries), name="cluster entries"),
        ]

    async def close(self) -> None:
        """Give up every table at once, so that other nodes take the running games over."""
        await cancel(self.tasks)
        try:
            await self.save_entries()
        except Exception:  # Redis away: the others forget the entries once the leases lapse
            log.exception("could not write the lobby entries")
        await self.leases.hand_over(list(self.lobby.tables))

    async def _every_beat(self, job: Any) -> None:
        """Each job in a loop of its own: a slow Redis never holds up the renewal of a lease,
        nor a long takeover the others."""
        while True:
            await asyncio.sleep(self.beat)
            try:
                await job()
            except aioredis.ConnectionError as error:  # Redis away: the next beat tries again
                log.warning("cluster %s failed: %s", job.__name__, error)
            except Exception:  # the database away for a moment, say: the next beat tries
                log.exception("cluster %s failed", job.__name__)

    # --- ownership ----------------------------------------------------------------------------

    async def claim(self, table: Table) -> None:
        """A lease on a new table."""
        sent = time.monotonic()
        table.epoch = await self.leases.claim(table.id)
        table.lease_renewed(self.leases.sure_until(sent))

    async def release(self, table_id: str) -> None:
        """Give up ``table_id`` (it closed)."""
        await self.leases.drop(table_id)

    async def renew(self) -> None:
        tables = dict(self.lobby.tables)
        sent = time.monotonic()
        held = await self.leases.renew(list(tables))
        sure = self.leases.sure_until(sent)
        for table_id, table in tables.items():
            if held.get(table_id) == table.epoch:
                table.lease_renewed(sure)
            elif self.lobby.tables.get(table_id) is table:
                log.warning("lease lost", extra={"table": table_id})
                self.lobby.lost(table)

    async def take_over(self) -> None:
        """Take over the kept tables whose lease ran out; forget the listed ones without a
        lease (their node stopped between games)."""
        listed = set(self.lobby.entries)  # before reading: each of those was claimed by then
        holdings = await self.leases.holdings()
        self.owners = {h.table_id: h.node for h in holdings if not h.lapsed}
        gone = []
        for holding in holdings:
            if not holding.lapsed or holding.table_id in self.lobby.tables:
                continue
            if not holding.kept:
                gone.append(holding.table_id)
                continue
            sent = time.monotonic()
            epoch = await self.leases.take(holding.table_id)
            if epoch is not None:
                await self.lobby.adopt(holding.table_id, epoch, self.leases.sure_until(sent))
        await self.leases.drop_lapsed(gone)
        leased = {h.table_id for h in holdings}
        for table_id in [*gone, *(listed - leased)]:
            if table_id not in self.lobby.tables:
                self.lobby.forget(table_id)

    # --- Redis ------------------------------------------------------------------------------

    def disconnected(self) -> None:
        """The broker lost Redis: the players of this node's tables on other nodes hear
        nothing, nor can they play, so the clocks stand still until it is back."""
        for table in list(self.lobby.tables.values()):
            table.spawn(functools.partial(table.hold_clocks, True))

    def reconnected(self) -> None:
        """The broker's connection to Redis came back (Redis may have restarted empty): the
        clocks go on, the entries are written again, the rooms are read again, and the sockets
        here watching another node's table get a fresh snapshot, for the updates lost
        meanwhile."""
        for table in list(self.lobby.tables.values()):
            table.spawn(functools.partial(table.hold_clocks, False))
            self.lobby.changed(table)
        self.lobby.reload_rooms_soon()  # a room an admin changed meanwhile went unheard

        for topic in list(self.broker.topics):
            table_id = topic.removeprefix("table:")
            if topic.startswith("table:") and table_id not in self.lobby.tables:
                self.broker.publish_local(topic, messages.resync(table_id))
        log.warning("Redis is back: lobby entries written again, sockets resynchronised")

    def keep_entry(self, table_id: str, entry: LobbyEntry | None) -> None:
        self.unsaved[table_id] = entry

    async def save_entries(self) -> None:
        if not self.unsaved:
            return
        unsaved, self.unsaved = self.unsaved, {}
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for table_id, entry in unsaved.items():
                    if entry is None:
                        pipe.hdel(ENTRIES_KEY, table_id)
                    else:
                        text = json.dumps(entry.to_json(), ensure_ascii=False)
                        pipe.hset(ENTRIES_KEY, table_id, text)
                await pipe.execute()
        except Exception:
            self.unsaved = {**unsaved, **self.unsaved}  # the next beat writes them
            raise

    # --- calls to a table's owner -------------------------------------------------------------

    async def call(self, table_id: str, command: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run a table command (``Table.run``) wherever the table lives."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + FIND_SECONDS
        while loop.time() < give_up:
            table = self.lobby.tables.get(table_id)
            if table is not None:
                try:
                    return await table_commands.run(table, command, args)
                except TableError as error:
                    if error.code != "moved":
                        raise
                    await asyncio.sleep(self.beat / 2)  # not sure of its lease for a moment
                    continue
            owner = self.owners.get(table_id)
            if owner is None:
                leased, owner = await self.leases.owner(table_id)
                if not leased:
                    raise TableError("no_table", f"no table {table_id!r}")
            if owner is None or owner == self.node:
                await asyncio.sleep(self.beat / 2)  # a takeover is under way
                continue
            answer = await self._ask(owner, table_id, command, args)
            if answer.get("moved"):
                self.owners.pop(table_id, None)
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
        request: messages.Call = {
            "kind": "call",
            "call": call_id,
            "from": self.node,
            "table": table_id,
            "command": command,
            "args": args,
        }
        try:
            for _ in range(int(CALL_SECONDS / self.beat)):
                # sent again at every beat without an answer: the request or its answer may
                # have been lost (Redis away); the owner runs it once and repeats its answer
                self.broker.publish(node_topic(owner), request)
                done, _ = await asyncio.wait({answer}, timeout=self.beat)
                if done:
                    return dict(answer.result())
                if (await self.leases.owner(table_id))[1] != owner:
                    # the owner died: the command never ran, or ran and was kept (then the
                    # new owner refuses it again as stale), so it goes to the new owner
                    return {"moved": True}
            raise TableError("unavailable", "the table's server did not answer")
        finally:
            self.calls.pop(call_id, None)

    async def _listen(self, inbox: Any) -> None:
        while True:
            message: messages.NodeMessage = await inbox.get()
            if message["kind"] == "answer":
                future = self.calls.get(message["answer"])
                if future is not None and not future.done():
                    future.set_result(message)
            else:
                task = asyncio.create_task(self._serve(message))
                self.serving.add(task)
                task.add_done_callback(self.serving.discard)

    async def _serve(self, request: messages.Call) -> None:
        call, now = request["call"], time.monotonic()
        if call in self.served:  # asked again: answered again, once it is done
            if (answered := self.served[call][1]) is not None:
                self.broker.publish(node_topic(request["from"]), answered)
            return
        while self.served and next(iter(self.served.values()))[0] < now - CALL_SECONDS:
            self.served.popitem(last=False)  # its caller gave up
        self.served[call] = now, None
        answer: messages.Answer = {"kind": "answer", "answer": call}
        table = self.lobby.tables.get(request["table"])
        if table is None:
            answer["moved"] = True
        else:
            try:
                answer["value"] = await table_commands.run(
                    table, request["command"], request["args"]
                )
            except TableError as error:
                if error.code == "moved":
                    answer["moved"] = True
                else:
                    answer["error"] = [error.code, error.message]
            except Exception:
                log.exception("table command failed", extra={"table": table.id})
                answer["error"] = ["internal", "the command failed on the table's server"]
        self.served[call] = now, answer
        self.broker.publish(node_topic(request["from"]), answer)
