"""Gathering people at a table, the socket's side: tables made (friend rooms among them,
``server.friend_rooms``), friend rooms joined by code, invites, rematches
(``server.rematch``) and the host's seat arrangement.

A socket's message of one of ``MESSAGES`` comes here from the gateway (``server.realtime``);
table commands go through ``Lobby.run``, so they reach the table on whichever process runs it,
and an invite reaches every socket of the invitee on every process (their user topic).
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Protocol

from sqlalchemy import select

from engine import get_variant
from server import friend_rooms, inbound, messages, outbound, social
from server.errors import TableError
from server.models import User
from server.names import name_key

if TYPE_CHECKING:
    from server.lobby import Lobby


class Connection(Protocol):
    """What these commands read of the socket they came on (``server.realtime.Connection``)."""

    id: str
    user: User
    lobby: Lobby
    address: str


MESSAGES = (inbound.CreateTable, inbound.Join, inbound.Invite, inbound.Rematch, inbound.Arrange)
Gathering = inbound.CreateTable | inbound.Join | inbound.Invite | inbound.Rematch | inbound.Arrange


async def handle(connection: Connection, m: Gathering) -> outbound.Answer:
    """Run one of ``MESSAGES`` for the socket's user; the ``ok``'s fields."""
    user, lobby = connection.user, connection.lobby
    if isinstance(m, inbound.CreateTable):
        return await create_table(connection, m)
    if isinstance(m, inbound.Join):
        return {"table": await join(connection, m.code, m.password)}
    if isinstance(m, inbound.Invite):
        await invite(connection, m.table, m.user)
        return {}
    if isinstance(m, inbound.Rematch):
        args = {"agree": m.agree, "rotate_partners": m.rotate}
        ran = await lobby.run(m.table, "rematch", user_id=user.id, **args)
    else:
        ran = await lobby.run(m.table, "arrange", user_id=user.id, seat=m.seat, to=m.to)
    return {"version": ran["version"]}


async def create_table(connection: Connection, m: inbound.CreateTable) -> outbound.Answer:
    """A new table of a room; with ``private`` a friend room, answered with its code."""
    lobby, user = connection.lobby, connection.user
    private = None
    if m.private:
        room = lobby.rooms.get(m.room)
        if room is None:
            raise TableError("no_room", f"no room {m.room!r}")
        seats = len(get_variant(room.variant).seats)
        friend_rooms.check_settings(seats, m.password, m.reserved)
        private = friend_rooms.PrivateRoom.make(
            friend_rooms.new_code(e.code for e in lobby.entries.values()),
            m.password,
            m.reserved,
            m.watch,
        )
    elif m.password or m.reserved or m.watch != "anyone":
        raise TableError("bad_option", "a password, reserved seats and watch are a friend room's")
    table = await lobby.create_table(
        m.room,
        m.options,
        m.stand_in,
        (user.id, user.name),
        address=connection.address,
        pace=m.pace,
        private=private,
    )
    if private is None:
        return {"table": table.id}
    return {"table": table.id, "code": private.code}


async def shown_out(connection: Connection, table_id: str) -> None:
    """The socket was shown out of a friend room's game (``friend_rooms.show_out``): the table
    counts it among its spectators no more."""
    with contextlib.suppress(TableError):  # gone, or moving: it counts us no more
        await connection.lobby.run(
            table_id, "close_for", user_id=connection.user.id, socket=connection.id
        )


def table_of_code(connection: Connection, code: str) -> str:
    """The table of a friend room's code, on any process (``no_code``)."""
    wanted = friend_rooms.normal_code(code)
    for table_id, entry in connection.lobby.entries.items():
        if entry.code is not None and entry.code == wanted:
            return table_id
    raise TableError("no_code", "no friend room has this code")


async def join(connection: Connection, code: str, password: str | None) -> str:
    """Be let into the friend room of ``code``; returns its table's id."""
    user = connection.user
    table_id = table_of_code(connection, code)
    await connection.lobby.run(
        table_id, "join_code", user_id=user.id, name=user.name, password=password
    )
    return table_id


async def invite(connection: Connection, table_id: str, name: str) -> None:
    """Invite the user called ``name`` to the table: refused if either blocks the other
    (``blocked``); the invitee is let in (a friend room's password is not asked of them) and
    gets an ``invited`` notice on every socket."""
    lobby, user = connection.lobby, connection.user
    entry = lobby.entries.get(table_id)
    if entry is None:
        raise TableError("no_table", f"no table {table_id!r}")
    async with lobby.store.sessions() as session:
        found = await session.execute(
            select(User.id, User.name).where(User.name_key == name_key(name))
        )
        invitee = found.first()
    if invitee is None or invitee.id == user.id:
        raise TableError("no_user", f"no other user called {name!r}")
    if await social.blocked_pairs(lobby.store.sessions, [user.id, invitee.id]):
        raise TableError("blocked", "you cannot invite this user")
    await lobby.run(table_id, "admit", user_id=invitee.id, by=user.id)
    notice: outbound.Invited = {
        "type": "invited",
        "table": table_id,
        "code": entry.code,
        "room": entry.room,
        "variant": str(entry.listing["variant"]),
        "from": user.name,
        "at": time.time(),
    }
    lobby.broker.publish(messages.user_topic(invitee.id), notice)
