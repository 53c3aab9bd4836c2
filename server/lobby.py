"""The lobby 大厅: variants → rooms → tables, and its live listing (REST and broker topic)."""

from __future__ import annotations

import functools
import json
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from engine import VARIANTS, EngineError, MalformedInput, get_board, get_variant
from server.broker import InMemoryBroker
from server.config import RoomConfig
from server.models import Room, User
from server.observability import Metrics
from server.store import Store
from server.tables import Table, TableError

router = APIRouter(prefix="/api", tags=["lobby"])
LOBBY_TOPIC = "lobby"

log = logging.getLogger("junqi")


async def load_rooms(
    sessions: async_sessionmaker[AsyncSession], configured: list[RoomConfig]
) -> list[RoomConfig]:
    """Write the configured rooms into the database (the configuration wins for those) and
    return every room the database holds."""
    async with sessions() as session:
        for room in configured:
            owner = None
            if room.owner is not None:
                found = await session.execute(select(User.id).where(User.name == room.owner))
                owner = found.scalar_one_or_none()
            row = await session.get(Room, room.id)
            if row is None:
                row = Room(id=room.id)
                session.add(row)
            row.name, row.variant, row.max_tables = room.name, room.variant, room.tables
            row.options = json.dumps(room.options, ensure_ascii=False)
            row.owner_id = owner
            row.rated_with_bots = room.rated_with_bots
        await session.commit()
        rows = await session.execute(
            select(Room, User.name).join(User, User.id == Room.owner_id, isouter=True)
        )
        return [
            RoomConfig(
                id=row.id,
                name=row.name,
                variant=row.variant,
                options=json.loads(row.options),
                owner=owner_name,
                tables=row.max_tables,
                rated_with_bots=row.rated_with_bots,
            )
            for row, owner_name in rows.all()
        ]


class Lobby:
    def __init__(
        self,
        rooms: list[RoomConfig],
        broker: InMemoryBroker,
        store: Store,
        think: Callable[..., Awaitable[dict[str, Any] | None]] | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        for room in rooms:
            if room.variant not in VARIANTS:
                raise ValueError(f"room {room.id}: unknown variant {room.variant!r}")
        self.rooms = {room.id: room for room in rooms}
        self.broker = broker
        self.store = store
        self.think = think
        self.metrics = metrics
        self.tables: dict[str, Table] = {}

    def create_table(
        self, room_id: str, options: dict[str, Any] | None = None, stand_in: bool = False
    ) -> Table:
        """A new table of the room; ``options`` change the room's rule options for it;
        ``stand_in`` (托管) lets a bot play for a player who is away."""
        room = self.rooms.get(room_id)
        if room is None:
            raise TableError("no_room", f"no room {room_id!r}")
        if options:
            merged = {**room.options, **options}
            try:
                get_variant(room.variant).rules.with_changes(merged)
            except MalformedInput as error:
                raise TableError("bad_options", str(error)) from None
            room = room.model_copy(update={"options": merged})
        if sum(t.room.id == room_id for t in self.tables.values()) >= room.tables:
            raise TableError("room_full", f"room {room_id} has no free table")
        table = self.new_table(uuid.uuid4().hex[:12], room)
        table.stand_in = stand_in
        self.tables[table.id] = table
        table.start()
        self.changed(table)
        return table

    async def restore(self) -> None:
        """Take back every table whose game was running when the server stopped."""
        for table_id, data, record in await self.store.live_tables():
            room = RoomConfig.model_validate(data["room"])
            table = self.new_table(table_id, room)
            try:
                saved_at = table.restore(data, record)
            except (EngineError, KeyError, TypeError, ValueError):
                # a record this version cannot replay: the server must start all the same
                log.exception("table %s could not be taken back; dropped", table_id)
                await self.store.drop_table(table_id)
                continue
            self.tables[table.id] = table
            table.start()
            await table.call(functools.partial(table.resume_after_restart, saved_at))
            self.changed(table)
            if self.metrics is not None:
                self.metrics.takeovers.inc()
            log.info("table taken back", extra={"table": table.id, "game": table.game_id})

    def new_table(self, table_id: str, room: RoomConfig) -> Table:
        return Table(
            table_id, room, self.broker, self.store, self.changed, self.think, self.metrics
        )

    def table(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise TableError("no_table", f"no table {table_id!r}")
        return table

    def changed(self, table: Table) -> None:
        self.broker.publish(LOBBY_TOPIC, self.listing())

    def listing(self) -> dict[str, Any]:
        return {
            "variants": [
                {"key": v.key, "name": v.name, "seats": len(v.seats)} for v in VARIANTS.values()
            ],
            "rooms": [
                {
                    "id": room.id,
                    "name": room.name,
                    "variant": room.variant,
                    "options": room.options,
                    "owner": room.owner,
                    "tables": [t.listing() for t in self.tables.values() if t.room.id == room.id],
                    "option_keys": sorted(get_variant(room.variant).rules.to_dict()),
                }
                for room in self.rooms.values()
            ],
        }

    async def close(self) -> None:
        for table in self.tables.values():
            await table.stop()


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
        return lobby.table(table_id).snapshot(None)
    except TableError as error:
        raise HTTPException(404, error.message) from None
