"""Rooms: the lobby's rooms as the database holds them, written there from the configuration.

The configuration (``JUNQI_ROOMS``) names rooms; at start each is written into the database,
unless an admin has changed it over REST (``server.admin_rooms``), after which the database's
is the room. A room's owner (室主) is bound by identity: a configured owner must be a user
registered before the configuration first named them (``Room.owner_named_at``).
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from engine import VARIANTS
from server.config import RoomConfig
from server.models import Room, User, aware
from server.table_options import BadOption, checked_room_options

log = logging.getLogger("junqi")


def room_config(row: Room, owner: str | None) -> RoomConfig:
    """A room of the database as the lobby and its tables know it (``owner``: the owner's name)."""
    return RoomConfig(
        id=row.id,
        name=row.name,
        name_en=row.name_en,
        variant=row.variant,
        options=json.loads(row.options),
        owner=owner,
        tables=row.max_tables,
        rated_with_bots=row.rated_with_bots,
        rated_friend_rooms=row.rated_friend_rooms,
    )


async def stored_rooms(
    session: AsyncSession, room_id: str | None = None
) -> list[tuple[Room, str | None]]:
    """The rooms of the database (or the one ``room_id``) with their owner's name, by id."""
    query = select(Room, User.name).join(User, User.id == Room.owner_id, isouter=True)
    if room_id is not None:
        query = query.where(Room.id == room_id)
    rows = await session.execute(query.order_by(Room.id))
    return [(row, owner) for row, owner in rows.all()]


async def load_rooms(
    sessions: async_sessionmaker[AsyncSession], configured: list[RoomConfig]
) -> list[RoomConfig]:
    """Write the configured rooms into the database (the configuration wins for those, but for
    a room an admin has changed over REST: that one is the database's) and return every room
    the database holds, closed ones too, the configured ones first in their order."""
    async with sessions() as session:
        for room in configured:
            row = await session.get(Room, room.id)
            if row is not None and row.changed_at is not None:
                log.info("room %s is managed over /admin: its configuration is not used", room.id)
                continue
            if row is None:
                row = Room(id=room.id)
                session.add(row)
            row.name, row.variant, row.max_tables = room.name, room.variant, room.tables
            row.name_en = room.name_en
            row.options = json.dumps(room.options, ensure_ascii=False)
            row.owner_id = await _configured_owner(session, row, room.owner)
            row.rated_with_bots = room.rated_with_bots
            row.rated_friend_rooms = room.rated_friend_rooms
        await session.commit()
        order = {room.id: n for n, room in enumerate(configured)}
        rows = sorted(await stored_rooms(session), key=lambda r: order.get(r[0].id, len(order)))
        return [room_config(row, owner) for row, owner in rows]


async def _configured_owner(session: AsyncSession, row: Room, name: str | None) -> int | None:
    """The id of the owner the configuration names for the room ``row``: a user registered
    before the configuration first named them (``Room.owner_named_at``), so that nobody
    becomes 室主 by registering a name the configuration is waiting for. Otherwise nobody,
    and the log says why."""
    if name != row.owner_named:  # named now (or another name): from now on
        row.owner_named, row.owner_named_at = name, datetime.now(UTC) if name else None
    if name is None:
        return None
    user = (await session.execute(select(User).where(User.name == name))).scalar_one_or_none()
    named_at = aware(row.owner_named_at)
    created_at = aware(user.created_at) if user is not None else None
    if user is not None and named_at is not None and created_at and created_at <= named_at:
        return user.id
    log.error(
        "room %s has no owner: %r %s; register the owner first and then name them in "
        "JUNQI_ROOMS (or give the room an owner over /admin/rooms)",
        row.id,
        name,
        "is not a registered user"
        if user is None
        else "registered only after the configuration named them",
    )
    return None


def check_rooms(rooms: list[RoomConfig]) -> None:
    """ValueError for a room of an unknown variant or with options out of bounds."""
    for room in rooms:
        if room.variant not in VARIANTS:
            raise ValueError(f"room {room.id}: unknown variant {room.variant!r}")
        try:
            checked_room_options(room.variant, room.options)
        except BadOption as error:
            raise ValueError(f"room {room.id}: {error}") from None
