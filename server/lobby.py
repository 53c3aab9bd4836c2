"""The lobby 大厅: variants → rooms → tables, and its live listing (REST and broker topic).

Rooms live in the database: written from the configuration at start, and made, edited, closed
and reopened by admins (``server.admin``). Each process keeps a copy (``Lobby.rooms``); a change
reaches every process's copy through the broker topic ``rooms`` (each reads the room again from
the database), and a new table reads its room from the database first, so that a room closed a
moment ago on another process takes no table here either. With several processes the lobby runs
its tables through ``server.cluster``, which it hands what the cluster needs of it at start
(``LobbyHooks``)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
import uuid
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from engine import VARIANTS, EngineError, MalformedInput, get_board, get_variant
from server import adoption, messages, table_commands
from server.bot_driver import Think
from server.broker import InMemoryBroker, Subscription
from server.capabilities import capabilities
from server.cluster import Cluster, LobbyHooks
from server.config import RoomConfig, TablePolicy
from server.errors import TableError
from server.friend_rooms import PrivateRoom
from server.keeping import Keeper, Unreadable
from server.listing import LobbyEntry
from server.observability import Metrics
from server.rooms import check_rooms, room_config, stored_rooms
from server.store import Store
from server.table_options import DEFAULT_PACE, BadOption, Pace, kept_rules, table_rules
from server.tables import Services, Table
from server.tasks import cancel

router = APIRouter(prefix="/api", tags=["lobby"])
LOBBY_TOPIC = "lobby"  # the whole listing, for this process's lobby watchers
TABLES_TOPIC = "tables"  # a table's lobby entry changed (any process)
ROOMS_TOPIC = "rooms"  # a room changed in the database (any process): ``{"room": id}``
# what starts a game, or leads to one: refused at the tables of a closed room
NEW_GAME_COMMANDS = frozenset({"sit", "ready", "add_bot", "seat_with_bots"})
LISTING_DELAY = 0.05  # seconds

log = logging.getLogger("junqi")


class Lobby:
    """The rooms (``rooms``, closed ones too: their running games go on; ``closed_rooms``), the
    tables this process runs (``tables``) and the lobby entry of every table of every process
    (``entries``); table commands go through ``run`` wherever the table is."""

    def __init__(
        self,
        rooms: list[RoomConfig],
        broker: InMemoryBroker,
        store: Store,
        think: Think | None = None,
        metrics: Metrics | None = None,
        cluster: Cluster | None = None,
        policy: TablePolicy | None = None,
    ) -> None:
        check_rooms(rooms)
        self.rooms = {room.id: room for room in rooms}
        self.closed_rooms: set[str] = set()  # read from the database at ``start``
        self.origin = uuid.uuid4().hex  # this lobby's messages on ``ROOMS_TOPIC``
        self.broker = broker
        self.store = store
        self.cluster = cluster
        self.policy = policy or TablePolicy()
        self.keeper = Keeper(store.engine) if cluster is None else cluster.keeper
        self.services = Services(
            broker, store, self.keeper, self.changed, self.lost, think, metrics, self.policy
        )
        self.metrics = metrics
        self.tables: dict[str, Table] = {}
        self.entries: dict[str, LobbyEntry] = {}
        self.listing_due = False
        self.tasks: list[asyncio.Task[None]] = []
        self.pending: set[asyncio.Task[None]] = set()  # rooms being read again
        self.closed = False

    async def start(self) -> None:
        """Follow the tables and the rooms of every process, and take back the games left
        running."""
        updates = self.broker.subscribe(TABLES_TOPIC)
        await self.broker.subscribed(TABLES_TOPIC)
        self.tasks.append(asyncio.create_task(self._follow(updates), name="lobby"))
        rooms = self.broker.subscribe(ROOMS_TOPIC)
        await self.broker.subscribed(ROOMS_TOPIC)
        self.tasks.append(asyncio.create_task(self._follow_rooms(rooms), name="lobby rooms"))
        await self.reload_rooms()  # which are closed
        self.tasks.append(asyncio.create_task(self._reap_idle_tables(), name="table reaper"))
        if self.cluster is not None:
            for table_id, entry in (await self.cluster.saved_entries()).items():
                self.entries.setdefault(table_id, entry)
            await self.cluster.start(
                LobbyHooks(
                    self.tables,
                    self.entries,
                    self.adopt,
                    self.lost,
                    self.forget,
                    self.changed,
                    self.reload_rooms_soon,
                )
            )
        else:
            for table_id in await self.keeper.kept():
                await self.adopt(table_id)

    async def close(self) -> None:
        """Stop every table here (kept games go to another process); once only."""
        if self.closed:
            return
        self.closed = True
        await cancel([*self.tasks, *self.pending])
        tables = list(self.tables.values())  # a table may leave meanwhile (its lease lapsed)
        if tables:
            # all at once, and not waiting long for one stuck in a command: the handover of
            # the others (with several processes) must not wait for it
            await asyncio.wait([asyncio.create_task(t.stop()) for t in tables], timeout=2)
        await self.keeper.close()
        if self.cluster is not None:
            for table in tables:
                if not table.in_game:  # kept tables go to another node; the others end here
                    self.forget(table.id)
            await self.cluster.close()

    async def create_table(
        self,
        room_id: str,
        options: dict[str, Any] | None = None,
        stand_in: bool = False,
        creator: tuple[int, str] | None = None,
        quick: bool = False,
        address: str | None = None,
        pace: Pace = DEFAULT_PACE,
        private: PrivateRoom | None = None,
    ) -> Table:
        """A new table of the room, opened by the user ``creator`` (id and name) from
        ``address``; ``options`` change the room's rule options for it, within what a table
        may change (parsed once into the rules the table keeps: ``server.table_options``);
        ``stand_in`` (托管) lets a bot play for a player who is away; ``pace``: how long its
        bots wait before a move; ``quick``: a table of play now, outside the room's count of
        tables and its creator's; ``private``: a friend room's settings (好友房,
        ``server.friend_rooms``), not listed. A user may have
        ``tables_per_creator`` tables open, the users of one address ``tables_per_address``:
        a few accounts cannot fill a room."""
        room = await self.open_room(room_id)
        try:
            rules = table_rules(room.variant, room.options, options or {})
        except BadOption as error:
            raise TableError("bad_option", str(error)) from None
        entries = [e for e in self.entries.values() if e.room == room_id]
        if not quick and sum(not e.quick for e in entries) >= room.tables:
            raise TableError("room_full", f"room {room_id} has no free table")
        if creator is not None and not quick:
            opened = sum(e.creator == creator[0] and not e.quick for e in self.entries.values())
            if opened >= self.policy.tables_per_creator:
                raise TableError(
                    "too_many_tables",
                    f"you have {opened} tables open already: sit at one or let one close",
                )
        if address is not None and not quick:
            opened = sum(
                e.creator_address == address and not e.quick for e in self.entries.values()
            )
            if opened >= self.policy.tables_per_address:
                raise TableError(
                    "address_tables",
                    f"{opened} tables opened from your address are open already: "
                    "sit at one or let one close",
                )
        table = Table(uuid.uuid4().hex[:12], room, self.services, rules)
        table.stand_ins = stand_in
        table.pace = pace
        table.quick, table.private = quick, private
        if creator is not None:
            table.creator, table.creator_name = creator
        table.creator_address = address
        if self.cluster is not None:
            await self.cluster.claim(table)
        self.tables[table.id] = table
        table.start()
        self.changed(table)
        return table

    async def play_now(
        self,
        room_id: str,
        user_id: int,
        name: str,
        address: str | None = None,
        device: str | None = None,
        pace: Pace | None = None,
    ) -> Table:
        """Play now (马上开始): the user's own table of bots in the room, or a new one, with
        the user seated and bots on every other seat, at ``pace`` if given. Its other tables of
        bots with no game on close: one is enough."""
        if room_id in self.closed_rooms:
            raise self.room_closed(room_id)
        if room_id not in self.rooms:
            raise TableError("no_room", f"no room {room_id!r}")
        await self.stand_elsewhere(user_id)
        mine = [
            t
            for t in list(self.tables.values())
            if t.quick and t.creator == user_id and not t.in_game and not t.others_seated(user_id)
        ]
        table = next((t for t in mine if t.room.id == room_id), None)
        for other in mine:
            if other is not table:
                await self.close_table(other, idle_only=False)
        if table is None:
            table = await self.create_table(
                room_id, creator=(user_id, name), quick=True, address=address
            )
        await self.run(
            table.id, "seat_with_bots", user_id=user_id, name=name, address=address, device=device
        )
        if pace is not None:
            await self.run(table.id, "set_pace", user_id=user_id, pace=pace)
        return table

    async def stand_elsewhere(self, user_id: int, table_id: str | None = None) -> None:
        """Before the user sits at ``table_id`` (or plays now): a seat at one table at a time.
        The user stands up from any other table with no game on (so nobody holds tables by
        sitting at them); a running game elsewhere refuses (``playing_elsewhere``). A table
        this process has not heard of is left to say so itself (``no_table``)."""
        if table_id is not None and table_id not in self.entries:
            return
        for other, entry in list(self.entries.items()):
            if other == table_id or entry.seat_of(user_id) is None:
                continue
            if entry.status == "playing":
                raise TableError(
                    "playing_elsewhere", "you are playing at another table: finish that game first"
                )
            with contextlib.suppress(TableError):  # gone, or moving: it counts us no more
                await self.run(other, "stand", user_id=user_id)

    async def _reap_idle_tables(self) -> None:
        """Close the tables with nobody seated and no game on for ``policy.idle_seconds``,
        and those with no game on where one person alone sits (one account, or accounts of
        one address or device) for ``policy.lonely_seconds``: else abandoned tables, or a few
        accounts sitting at tables of their own, would fill the rooms."""
        while True:
            await asyncio.sleep(self.policy.sweep_seconds)
            now = time.time()
            for table in list(self.tables.values()):
                idle, lonely = table.idle_since, table.lonely_since
                if idle is not None and now - idle >= self.policy.idle_seconds:
                    await self.close_table(table)
                elif lonely is not None and now - lonely >= self.policy.lonely_seconds:
                    await self.close_table(table, why="lonely")

    async def close_table(
        self, table: Table, idle_only: bool = True, why: messages.Closing = "idle"
    ) -> None:
        """Close a table of this process without a game on (``idle_only``: only if nobody sits
        at it either, checked in its actor); those watching it hear so, and ``why``."""
        try:
            closed = await table.call(functools.partial(table.close, idle_only, why))
        except TableError:  # it stopped meanwhile
            return
        if closed and self.tables.get(table.id) is table:
            del self.tables[table.id]
            await table.stop()
            if self.cluster is not None:
                await self.cluster.release(table.id)
            self.forget(table.id)
            log.info("table closed", extra={"table": table.id})

    async def adopt(self, table_id: str, epoch: int = 0, sure_until: float | None = None) -> None:
        """Take over a kept table: after a restart, or from a process that died (in a cluster
        at ``epoch``, its lease sure until ``sure_until``, monotonic)."""
        kept = None
        try:
            kept = await self.keeper.load(table_id)
            if kept is None:
                return
            room = RoomConfig.model_validate(kept.data["room"])
            rules = kept_rules(room.variant, room.options, kept.data.get("changes") or {})
            table = Table(table_id, room, self.services, rules)
            table.epoch, table.lease.until = epoch, sure_until
            saved_at = adoption.restore(table, kept)
        except (EngineError, KeyError, TypeError, ValueError) as error:
            # a record this version cannot replay: the server must start all the same
            log.exception("table %s could not be taken back; its game is aborted", table_id)
            data = error.data if isinstance(error, Unreadable) else kept.data if kept else {}
            await self.abort(table_id, data, epoch)
            return
        self.tables[table.id] = table
        table.start()
        if table.in_game:
            await table.call(functools.partial(adoption.resume, table, saved_at))
        else:  # its end was kept, not yet stored: it is stored now (``Store`` does it once)
            await table.call(table.finish_game)
        self.changed(table)
        # every socket watching it, here and on other processes, opens it again here
        self.broker.publish(f"table:{table.id}", messages.moved(table.id, epoch))
        if self.metrics is not None:
            self.metrics.takeovers.inc()
        log.info("table taken over", extra={"table": table.id, "game": table.game_id})

    async def abort(self, table_id: str, data: Any, epoch: int = 0) -> None:
        """A kept table that cannot be taken back (``data``: what was kept around its game):
        the game ends unscored (``aborted``), never left running; those watching it hear so,
        and a metric counts it."""
        if isinstance(data, dict) and isinstance(data.get("game_id"), str):
            await self.store.game_unscored(data["game_id"], "aborted")
        await self.keeper.drop(table_id, epoch)
        if self.cluster is not None:
            await self.cluster.release(table_id)
        self.broker.publish(f"table:{table_id}", messages.closed(table_id, "lost"))
        self.forget(table_id)
        if self.metrics is not None:
            self.metrics.aborted.inc()

    def lost(self, table: Table) -> None:
        """Another process took ``table`` over: stop running it here."""
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
            task = asyncio.create_task(table.stop())
            task.add_done_callback(lambda _: None)

    async def run(self, table_id: str, command: str, **args: Any) -> dict[str, Any]:
        """Run a table command (``Table.run``) on the table, in whichever process runs it; at
        a table of a closed room nothing that leads to a new game (``NEW_GAME_COMMANDS``)."""
        if command in NEW_GAME_COMMANDS and args.get("ready", True):
            entry = self.entries.get(table_id)
            if entry is not None and entry.room in self.closed_rooms:
                raise self.room_closed(entry.room)
        if self.cluster is not None:  # here or not, it may be moving: the cluster looks
            return await self.cluster.call(table_id, command, args)
        table = self.tables.get(table_id)
        if table is None:
            raise TableError("no_table", f"no table {table_id!r}")
        return await table_commands.run(table, command, args)

    def seat_of(self, table_id: str, user_id: int) -> int | None:
        """The user's seat at a table, as the lobby last heard."""
        entry = self.entries.get(table_id)
        return None if entry is None else entry.seat_of(user_id)

    def room_of(self, table_id: str) -> RoomConfig:
        entry = self.entries.get(table_id)
        if entry is None:
            raise TableError("no_table", f"no table {table_id!r}")
        return self.rooms[entry.room]

    # --- the rooms ----------------------------------------------------------------------------

    @staticmethod
    def room_closed(room_id: str) -> TableError:
        return TableError(
            "room_closed",
            f"room {room_id} is closed: no new tables or games in it (its running games finish)",
        )

    def default_room(self) -> str:
        """The room of play now without one: the first open 四国 room, else the first open one."""
        rooms = [r for r in self.rooms.values() if r.id not in self.closed_rooms]
        room = next((r for r in rooms if r.variant == "siguo"), rooms[0] if rooms else None)
        if room is None:
            raise TableError("no_room", "no room is open")
        return room.id

    async def open_room(self, room_id: str) -> RoomConfig:
        """The room as the database has it now (this process's copy brought up to date): a
        room just closed or changed by an admin on any process counts at once. With the
        database away for a moment, the copy."""
        try:
            await self.reload_room(room_id)
        except Exception:
            log.warning(
                "room %s could not be read: its last known state counts", room_id, exc_info=True
            )
        room = self.rooms.get(room_id)
        if room is None:
            raise TableError("no_room", f"no room {room_id!r}")
        if room_id in self.closed_rooms:
            raise self.room_closed(room_id)
        return room

    async def room_changed(self, room_id: str) -> None:
        """An admin changed the room in the database: the other processes read it again as
        they hear of it, this one now."""
        news: messages.RoomNews = {"room": room_id, "from": self.origin}
        self.broker.publish(ROOMS_TOPIC, news)
        await self.reload_room(room_id)

    async def reload_rooms(self) -> None:
        """Read every room from the database again (at start; after Redis was away, when
        changes may have gone unheard)."""
        async with self.store.sessions() as session:
            rows = await stored_rooms(session)
        for row, owner in rows:
            await self._set_room(room_config(row, owner), row.closed_at is not None)

    def reload_rooms_soon(self) -> None:
        task = asyncio.create_task(self._reload_rooms_logged(), name="lobby rooms")
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def _reload_rooms_logged(self) -> None:
        try:
            await self.reload_rooms()
        except Exception:
            log.exception("the rooms could not be read again")

    async def reload_room(self, room_id: str) -> None:
        async with self.store.sessions() as session:
            rows = await stored_rooms(session, room_id)
        for row, owner in rows:
            await self._set_room(room_config(row, owner), row.closed_at is not None)

    async def _set_room(self, room: RoomConfig, closed: bool) -> None:
        """This process's copy of a room. Tables keep the room they opened in (their rules
        were announced with it); the owner and the listing change at once. A room that has
        just closed closes its tables here with no game on; those with one play it out."""
        was_closed = room.id in self.closed_rooms
        if self.rooms.get(room.id) == room and was_closed == closed:
            return
        self.rooms[room.id] = room
        if closed:
            self.closed_rooms.add(room.id)
        else:
            self.closed_rooms.discard(room.id)
        self.listing_changed()
        if closed and not was_closed:
            for table in list(self.tables.values()):
                if table.room.id == room.id and not table.in_game:
                    await self.close_table(table, idle_only=False, why="room_closed")

    async def _follow_rooms(self, changes: Subscription) -> None:
        while True:
            change = await changes.get()
            if change.get("from") == self.origin:
                continue  # read already (``room_changed``)
            try:
                await self.reload_room(str(change["room"]))
            except Exception:  # the database away for a moment: the next change reads it
                log.exception("room %s could not be read again", change.get("room"))

    # --- the listing --------------------------------------------------------------------------

    def changed(self, table: Table) -> None:
        """A table's listing changed: every process hears of it (unless this process may have
        lost the table: ``Table.regained`` sends it once it is sure again)."""
        if not table.sure():
            return
        entry = table.entry()
        self.entries[table.id] = entry
        news: messages.EntryNews = {"table": table.id, "entry": entry.to_json()}
        self.broker.publish(TABLES_TOPIC, news)
        if self.cluster is not None:
            self.cluster.keep_entry(table.id, entry)
        self.listing_changed()

    def forget(self, table_id: str) -> None:
        """A table is gone (its process stopped between games)."""
        self.entries.pop(table_id, None)
        news: messages.EntryNews = {"table": table_id, "entry": None}
        self.broker.publish(TABLES_TOPIC, news)
        if self.cluster is not None:
            self.cluster.keep_entry(table_id, None)
        self.listing_changed()

    async def _follow(self, updates: Subscription) -> None:
        while True:
            news: messages.EntryNews = await updates.get()
            entry = news["entry"]
            if entry is None:
                self.entries.pop(news["table"], None)
            else:
                self.entries[news["table"]] = LobbyEntry.from_json(entry)
            self.listing_changed()

    def listing_changed(self) -> None:
        """Send the listing to this process's lobby watchers soon: changes close together go
        out as one."""
        if not self.listing_due:
            self.listing_due = True
            asyncio.get_running_loop().call_later(LISTING_DELAY, self._send_listing)

    def _send_listing(self) -> None:
        self.listing_due = False
        if self.broker.topics.get(LOBBY_TOPIC):
            self.broker.publish_local(LOBBY_TOPIC, self.listing())

    def listing(self) -> dict[str, Any]:
        """Variants and rooms with their tables; a closed room only while tables of it are left
        (their games go on), marked ``closed``."""
        tables: dict[str, list[dict[str, Any]]] = {}
        for entry in self.entries.values():
            if entry.code is None:  # friend rooms are reached by their code alone
                tables.setdefault(entry.room, []).append(entry.listing)
        play_now = None  # the variant of play now's room, while a room is open
        with contextlib.suppress(TableError):
            play_now = self.rooms[self.default_room()].variant
        return {
            "variants": [
                {
                    "key": v.key,
                    "name": v.name,
                    "seats": len(v.seats),
                    "capabilities": capabilities(v.key),
                    "rules": v.rules.to_dict(),
                    "play_now": v.key == play_now,
                }
                for v in VARIANTS.values()
            ],
            "rooms": [
                {
                    "id": room.id,
                    "name": room.name,
                    "name_en": room.name_en,
                    "variant": room.variant,
                    "options": room.options,
                    "owner": room.owner,
                    "max_tables": room.tables,
                    "rated_with_bots": room.rated_with_bots,
                    "rated_friend_rooms": room.rated_friend_rooms,
                    "closed": room.id in self.closed_rooms,
                    "tables": tables.get(room.id, []),
                    "option_keys": sorted(get_variant(room.variant).rules.to_dict()),
                }
                for room in self.rooms.values()
                if room.id not in self.closed_rooms or room.id in tables
            ],
        }


@router.get("/lobby")
async def lobby_listing(request: Request) -> dict[str, Any]:
    """Variants, rooms and their tables with seat occupancy and status."""
    lobby: Lobby = request.app.state.lobby
    return lobby.listing()


@router.get("/boards/{key}")
async def board_data(key: str) -> dict[str, Any]:
    """Everything a client needs to draw a board: stations (kind, seat, row, col, rail, xy),
    road and rail edges, and the straight rail lines."""
    try:
        board = get_board(key)
    except MalformedInput as error:
        raise HTTPException(404, str(error)) from None
    return {
        "key": board.key,
        "seats": list(board.seats),
        "stations": [
            {
                "id": sid,
                "kind": st.kind.value,
                "seat": st.seat,
                "row": st.row,
                "col": st.col,
                "rail": st.rail,
                "xy": list(st.xy),
            }
            for sid in board.stations
            for st in [board.station(sid)]
        ],
        "road": [list(e) for e in board.road_edges],
        "rail": [list(e) for e in board.rail_edges],
        "lines": [list(line) for line in board.lines],
    }


@router.get("/tables/{table_id}")
async def table_listing(table_id: str, request: Request) -> dict[str, Any]:
    """A table as a spectator sees it."""
    lobby: Lobby = request.app.state.lobby
    try:
        return dict((await lobby.run(table_id, "snapshot", viewer=None))["result"])
    except TableError as error:
        raise HTTPException(404 if error.code == "no_table" else 503, error.message) from None
