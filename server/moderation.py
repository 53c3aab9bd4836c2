"""Moderation (docs/rules.md §11): kicks, dissolved games, bans, mutes and point penalties.

Admins do all of it over REST (``server.admin``); a room owner (室主) kicks and dissolves at the
tables of their room over the socket (``server.realtime``). Both come through here, so that every
action is checked and written to the audit log the same way. Bans and mutes are stored on the
user (they outlive a restart) and announced on the broker topic ``user:<id>``, which every socket
of that user follows: a ban closes them at once.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from server import addresses, outbound
from server.broker import InMemoryBroker
from server.config import RoomConfig
from server.errors import TableError
from server.messages import user_topic
from server.models import AuditEntry, BanAddress, Game, User, aware
from server.store import Tally, add_to_standings

if TYPE_CHECKING:
    from server.lobby import Lobby

Sessions = async_sessionmaker[AsyncSession]


def ban_message(user: User) -> str:
    if user.ban_permanent:
        when = "permanently"
    else:
        until = aware(user.banned_until)
        when = f"until {until:%Y-%m-%d %H:%M} UTC" if until else "for now"
    return f"{user.name} is banned {when}: {user.ban_reason or 'no reason given'}"


def may_moderate(user: User, room: RoomConfig) -> bool:
    """Admins moderate every table; a room's owner (室主) the tables of that room."""
    return user.role == "admin" or (room.owner is not None and room.owner == user.name)


def record(
    session: AsyncSession, actor: User, action: str, target: str, reason: str, **details: Any
) -> None:
    """Add an entry to the audit log (committed with the action it records)."""
    session.add(
        AuditEntry(
            actor_id=actor.id,
            action=action,
            target=target,
            reason=reason,
            details=json.dumps(details, ensure_ascii=False),
        )
    )


# --- at a table (admins and room owners) -------------------------------------------------------


async def kick(
    sessions: Sessions,
    lobby: Lobby,
    table: str,
    seat: int,
    penalty: bool,
    actor: User,
    reason: str,
) -> dict[str, Any]:
    """Remove the player on ``seat`` (``Table.kick``); returns what happened and the table's
    version after it."""
    room = _check_moderator(actor, lobby, table)
    ran = await lobby.run(
        table,
        "kick",
        seat=seat,
        penalty=penalty,
        by=actor.name,
        reason=reason,
        judge=_judge(actor),
    )
    done = ran["result"]
    async with sessions() as session:
        if done["outcome"] == "dissolved":
            await _note_dissolved(session, done["game_id"], actor, reason)
        record(
            session,
            actor,
            "kick",
            done["name"],
            reason,
            table=table,
            room=room.id,
            seat=seat,
            penalty=penalty,
            outcome=done["outcome"],
            game=done["game_id"],
        )
        await session.commit()
    return {**done, "version": ran["version"]}


async def dissolve(
    sessions: Sessions, lobby: Lobby, table: str, actor: User, reason: str
) -> dict[str, Any]:
    """End the table's running game as a draw in which nobody scores; returns its id and the
    table's version after it."""
    room = _check_moderator(actor, lobby, table)
    ran = await lobby.run(table, "dissolve", by=actor.name, reason=reason, judge=_judge(actor))
    game_id = ran["result"]
    async with sessions() as session:
        await _note_dissolved(session, game_id, actor, reason)
        record(session, actor, "dissolve", game_id, reason, table=table, room=room.id)
        await session.commit()
    return {"game_id": game_id, "version": ran["version"]}


def _check_moderator(actor: User, lobby: Lobby, table: str) -> RoomConfig:
    """The table's room, if ``actor`` (as read just now: a role taken away counts at once)
    may moderate it."""
    room = lobby.room_of(table)
    if not may_moderate(actor, room):
        raise TableError("not_owner", "only the room owner (室主) or an admin may do that")
    return room


def _judge(actor: User) -> int | None:
    """Who the table must check is not judging his own game: a room owner, never an admin
    (whose every action is audited)."""
    return None if actor.role == "admin" else actor.id


async def _note_dissolved(session: AsyncSession, game_id: str, actor: User, reason: str) -> None:
    """Keep who dissolved the game, and why, with its stored result."""
    game = await session.get(Game, game_id)
    if game is not None and game.result is not None:
        result = json.loads(game.result) | {"dissolved": {"by": actor.name, "reason": reason}}
        game.result = json.dumps(result, ensure_ascii=False)


# --- on a user (admins) ------------------------------------------------------------------------


async def ban(
    session: AsyncSession,
    lobby: Lobby,
    user: User,
    minutes: int | None,
    actor: User,
    reason: str,
    block_addresses: bool = True,
) -> None:
    """Ban ``user`` for ``minutes`` (None: for good): no login, no token, no socket; and the
    user's part in every running game ends at once, as a kick with penalty (an escape), the
    others told why (the ``kicked`` event's reason) rather than left waiting for a grace.

    With ``block_addresses`` (the setting ``block_banned_addresses``) the ban covers the
    address the user was last seen at, and those the user signs in from while banned
    (``server.addresses``): the accounts last seen there are logged out at once, and none
    signs in while the ban lasts."""
    if not user.banned(datetime.now(UTC)):  # a new ban: the addresses of an old one are let go
        await session.execute(delete(BanAddress).where(BanAddress.user_id == user.id))
    user.ban_permanent = minutes is None
    user.banned_until = None if minutes is None else _after(minutes)
    user.ban_reason = reason
    record(session, actor, "ban", user.name, reason, minutes=minutes)
    if user.address is not None:
        await addresses.cover(session, user.id, user.address)
    await session.commit()
    banned = outbound.Banned(type="banned", message=ban_message(user))
    lobby.broker.publish(user_topic(user.id), banned)
    if block_addresses:
        for other in await addresses.revoke_at(session, user):
            lobby.broker.publish(user_topic(other), {"type": "logged_out"})
    for table_id, entry in list(lobby.entries.items()):
        seat = entry.seat_of(user.id)
        if seat is None or entry.status != "playing":
            continue
        why = f"banned: {reason}"
        try:
            kicked = await lobby.run(
                table_id, "kick", seat=seat, penalty=True, by=actor.name, reason=why
            )
        except TableError:  # the game ended meanwhile, or the table is gone
            continue
        done = kicked["result"]
        record(
            session,
            actor,
            "kick",
            user.name,
            why,
            table=table_id,
            seat=seat,
            penalty=True,
            outcome=done["outcome"],
            game=done["game_id"],
        )
    await session.commit()


async def unban(session: AsyncSession, user: User, actor: User, reason: str) -> None:
    """Lift ``user``'s ban, and with it the block on the addresses it covered."""
    user.ban_permanent, user.banned_until, user.ban_reason = False, None, None
    await session.execute(delete(BanAddress).where(BanAddress.user_id == user.id))
    record(session, actor, "unban", user.name, reason)
    await session.commit()


async def mute(
    session: AsyncSession,
    broker: InMemoryBroker,
    user: User,
    minutes: int,
    actor: User,
    reason: str,
) -> None:
    """Refuse ``user``'s chat lines for ``minutes``."""
    user.muted_until = _after(minutes)
    record(session, actor, "mute", user.name, reason, minutes=minutes)
    await session.commit()
    notice = outbound.Muted(type="muted", until=user.muted_until.isoformat(), reason=reason)
    broker.publish(user_topic(user.id), notice)


async def unmute(session: AsyncSession, user: User, actor: User, reason: str) -> None:
    user.muted_until = None
    record(session, actor, "unmute", user.name, reason)
    await session.commit()


def mute_message(user: User) -> str:
    until = aware(user.muted_until)
    return f"you are muted until {until:%Y-%m-%d %H:%M} UTC" if until else "you are muted"


async def penalize(
    session: AsyncSession, user: User, variant: str, points: int, actor: User, reason: str
) -> int:
    """Take ``points`` from ``user``'s standing in ``variant``; returns the points left."""
    # taken in SQL: a game of the user ending at the same instant counts too
    left = (await add_to_standings(session, variant, {user.id: Tally(points=-points)}))[user.id]
    record(
        session,
        actor,
        "penalty",
        user.name,
        reason,
        variant=variant,
        points=-points,
        before=left + points,
        after=left,
    )
    await session.commit()
    return left


def _after(minutes: int) -> datetime:
    return datetime.now(UTC) + timedelta(minutes=minutes)


async def set_role(sessions: Sessions, name: str, role: str) -> bool:
    """Make the user ``name`` an admin or a player again (``junqi admin``); False if unknown."""
    async with sessions() as session:
        user = (await session.execute(select(User).where(User.name == name))).scalar_one_or_none()
        if user is None:
            return False
        user.role = role
        await session.commit()
    return True
