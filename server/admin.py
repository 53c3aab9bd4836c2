"""Admin REST under /admin (docs/rules.md §11): look at users, live tables, games and the audit log;
kick, dissolve a game, take points, ban and mute (the rooms' routes: ``server.admin_rooms``).

Every route needs an admin's bearer token (none or a bad one: 401; not an admin: 403). Every
action needs a ``reason`` and is written to the audit log by ``server.moderation``. A room's
refusals carry a stable code in the ``X-Error-Code`` header, and at the start of the message.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from pydantic import BaseModel, Field, StringConstraints
from sqlalchemy import select

from engine import VARIANTS
from server import moderation
from server.accounts import NO_NUL, REFUSALS, CurrentUser, Name, Session
from server.errors import TableError
from server.lobby import Lobby
from server.models import AuditEntry, Game, GameSeat, User, aware

router = APIRouter(prefix="/admin", tags=["admin"])


async def admin_user(user: CurrentUser) -> User:
    if user.role != "admin":
        raise HTTPException(403, "only admins may do that")
    return user


Admin = Annotated[User, Depends(admin_user)]
Reason = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500, pattern=NO_NUL)
]
MAX_MINUTES = 100 * 365 * 24 * 60  # a ban or mute of a century at most (dates end at 9999)


class ReasonIn(BaseModel):
    reason: Reason = Field(examples=["insulted other players"])


class KickIn(ReasonIn):
    seat: int = Field(ge=0)
    penalty: bool = False  # during a game: with it an escape, without it the game is dissolved


class PenaltyIn(ReasonIn):
    variant: str = Field(examples=["siguo"])
    points: int = Field(ge=1, le=1_000_000)  # taken away


class BanIn(ReasonIn):
    # null: permanent (given explicitly)
    minutes: int | None = Field(ge=1, le=MAX_MINUTES, examples=[1440])


class MuteIn(ReasonIn):
    minutes: int = Field(ge=1, le=MAX_MINUTES, examples=[30])


class UserRow(BaseModel):
    id: int
    name: str
    role: str
    guest: bool
    created_at: datetime | None
    banned: bool  # now
    banned_until: datetime | None
    ban_permanent: bool
    ban_reason: str | None
    muted_until: datetime | None


class AuditRow(BaseModel):
    id: int
    at: datetime | None
    actor: str | None
    action: str
    target: str
    reason: str
    details: dict[str, Any]


def user_row(user: User) -> UserRow:
    return UserRow(
        id=user.id,
        name=user.name,
        role=user.role,
        guest=user.guest,
        created_at=aware(user.created_at),
        banned=user.banned(datetime.now(UTC)),
        banned_until=aware(user.banned_until),
        ban_permanent=user.ban_permanent,
        ban_reason=user.ban_reason,
        muted_until=aware(user.muted_until),
    )


async def _user(session: Session, name: str) -> User:
    user = (await session.execute(select(User).where(User.name == name))).scalar_one_or_none()
    if user is None:
        raise HTTPException(404, f"no user {name!r}")
    return user


def _refused(error: TableError) -> HTTPException:
    if error.code == "no_table":
        return HTTPException(404, error.message)
    return HTTPException(
        503 if error.code == "unavailable" else 409, f"{error.code}: {error.message}"
    )


# --- looking ------------------------------------------------------------------------------------


@router.get("/users", response_model=list[UserRow])
async def users(
    _: Admin,
    session: Session,
    name: Annotated[str | None, Query(pattern=NO_NUL)] = None,
    limit: int = Query(100, ge=1, le=500),
) -> list[UserRow]:
    """Users by id, with their bans and mutes; ``name`` filters by part of the name."""
    query = select(User).order_by(User.id).limit(limit)
    if name:
        query = query.where(User.name.contains(name, autoescape=True))
    return [user_row(u) for u in (await session.execute(query)).scalars()]


@router.get("/tables")
async def tables(_: Admin, request: Request) -> list[dict[str, Any]]:
    """The live tables with their seats, status and running game."""
    lobby: Lobby = request.app.state.lobby
    return [{**e.listing, "game_id": e.game} for e in lobby.entries.values()]


@router.get("/games")
async def games(
    _: Admin, session: Session, limit: int = Query(50, ge=1, le=200)
) -> list[dict[str, Any]]:
    """The latest games, newest first, with their status, players and result."""
    rows = (
        (await session.execute(select(Game).order_by(Game.created_at.desc()).limit(limit)))
        .scalars()
        .all()
    )
    seats = await session.execute(
        select(GameSeat, User.name)
        .join(User, User.id == GameSeat.user_id, isouter=True)
        .where(GameSeat.game_id.in_([g.id for g in rows]))
        .order_by(GameSeat.seat)
    )
    players: dict[str, list[dict[str, Any]]] = {}
    for seat, name in seats.all():
        players.setdefault(seat.game_id, []).append(
            {"seat": seat.seat, "name": name, "outcome": seat.outcome, "points": seat.points}
        )
    return [
        {
            "id": g.id,
            "variant": g.variant,
            "room": g.room,
            "status": g.status,
            "created_at": aware(g.created_at),
            "finished_at": aware(g.finished_at),
            "result": json.loads(g.result) if g.result else None,
            "players": players.get(g.id, []),
        }
        for g in rows
    ]


@router.get("/audit", response_model=list[AuditRow])
async def audit(
    _: Admin, session: Session, limit: int = Query(100, ge=1, le=1000)
) -> list[AuditRow]:
    """The audit log, newest first: who did what to whom, when and why."""
    rows = await session.execute(
        select(AuditEntry, User.name)
        .join(User, User.id == AuditEntry.actor_id, isouter=True)
        .order_by(AuditEntry.id.desc())
        .limit(limit)
    )
    return [
        AuditRow(
            id=entry.id,
            at=aware(entry.at),
            actor=actor,
            action=entry.action,
            target=entry.target,
            reason=entry.reason,
            details=json.loads(entry.details),
        )
        for entry, actor in rows.all()
    ]


# --- acting -------------------------------------------------------------------------------------


@router.post("/tables/{table_id}/kick")
async def kick(table_id: str, body: KickIn, admin: Admin, request: Request) -> dict[str, Any]:
    """Remove the player on a seat. Before a game: just the seat. During one: with
    ``penalty`` the player escapes (scored as an escape), without it the game is dissolved
    as a draw in which nobody scores."""
    lobby: Lobby = request.app.state.lobby
    sessions = request.app.state.db.sessions
    try:
        return await moderation.kick(
            sessions, lobby, table_id, body.seat, body.penalty, admin, body.reason
        )
    except TableError as error:
        raise _refused(error) from None


@router.post("/tables/{table_id}/dissolve")
async def dissolve(table_id: str, body: ReasonIn, admin: Admin, request: Request) -> dict[str, Any]:
    """End the table's running game as a draw in which nobody scores."""
    lobby: Lobby = request.app.state.lobby
    try:
        done = await moderation.dissolve(
            request.app.state.db.sessions, lobby, table_id, admin, body.reason
        )
    except TableError as error:
        raise _refused(error) from None
    return {"game_id": done["game_id"]}


@router.post("/users/{name}/penalty", responses=REFUSALS)
async def penalty(name: Name, body: PenaltyIn, admin: Admin, session: Session) -> dict[str, Any]:
    """Take points from a user's standing in one variant."""
    if body.variant not in VARIANTS:
        raise HTTPException(422, f"no variant {body.variant!r}")
    user = await _user(session, name)
    points = await moderation.penalize(session, user, body.variant, body.points, admin, body.reason)
    return {"name": user.name, "variant": body.variant, "points": points}


@router.post("/users/{name}/ban", response_model=UserRow)
async def ban(name: Name, body: BanIn, admin: Admin, session: Session, request: Request) -> UserRow:
    """Ban a user for ``minutes``, or for good (``null``): no login, the tokens stop working
    and the user's sockets are closed at once (code 4003); the user's running games go on
    without them at once, each part scored as an escape (a kick with penalty)."""
    user = await _user(session, name)
    block = request.app.state.settings.block_banned_addresses
    await moderation.ban(
        session, request.app.state.lobby, user, body.minutes, admin, body.reason, block
    )
    return user_row(user)


@router.post("/users/{name}/unban", response_model=UserRow)
async def unban(name: Name, body: ReasonIn, admin: Admin, session: Session) -> UserRow:
    user = await _user(session, name)
    await moderation.unban(session, user, admin, body.reason)
    return user_row(user)


@router.post("/users/{name}/mute", response_model=UserRow)
async def mute(
    name: Name, body: MuteIn, admin: Admin, session: Session, request: Request
) -> UserRow:
    """Refuse a user's chat lines for ``minutes``."""
    user = await _user(session, name)
    await moderation.mute(session, request.app.state.broker, user, body.minutes, admin, body.reason)
    return user_row(user)


@router.post("/users/{name}/unmute", response_model=UserRow)
async def unmute(name: Name, body: ReasonIn, admin: Admin, session: Session) -> UserRow:
    user = await _user(session, name)
    await moderation.unmute(session, user, admin, body.reason)
    return user_row(user)
