"""Admin REST under /admin for rooms: make, edit, close and reopen the lobby's rooms.

Every route needs an admin's bearer token (``server.admin.Admin``) and every change a
``reason``, written to the audit log (``server.moderation.record``). A room's refusals carry a
stable code in the ``X-Error-Code`` header, and at the start of the message. Rooms live in the
database (``server.rooms``); a change reaches the lobby of every process (``Lobby.room_changed``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Request
from pydantic import BaseModel, Field, StringConstraints
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from engine import VARIANTS
from server import moderation
from server.accounts import NO_NUL, NOT_FOUND, REFUSALS, Session, refusal
from server.admin import Admin, ReasonIn
from server.lobby import Lobby
from server.models import Room, User, aware
from server.rooms import stored_rooms
from server.table_options import BadOption, checked_admin_options

router = APIRouter(prefix="/admin", tags=["admin"])
MAX_TABLES = 500  # a room's cap on its open tables (play-now tables apart)
ROOM_ID = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
RoomId = Annotated[str, Path(pattern=NO_NUL)]  # a room's id in a path
RoomName = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]*$"
    ),
]
# documented in the schema, checked by the route (a refusal with its code, not a field error)
VARIANT_FIELD: dict[str, Any] = {"enum": sorted(VARIANTS)}
TABLES_FIELD: dict[str, Any] = {"minimum": 1, "maximum": MAX_TABLES}


class RoomIn(ReasonIn):
    id: str | None = Field(
        None,
        pattern=ROOM_ID,
        examples=["siguo-2"],
        description="letters, digits, _ and -; none: the variant and the first free number",
    )
    name: RoomName = Field(examples=["四国军棋 快棋室"])
    name_en: RoomName | None = Field(None, examples=["Four-player, quick"])
    variant: str = Field(examples=["siguo"], json_schema_extra=VARIANT_FIELD)
    options: dict[str, Any] = Field(
        default_factory=dict,
        examples=[{"move_seconds": 20, "deploy_seconds": 60}],
        description="rule options: those a table may change within the tables' bounds",
    )
    owner: str | None = Field(
        None, pattern=NO_NUL, examples=["老司令"], description="a registered user (室主)"
    )
    max_tables: int = Field(20, json_schema_extra=TABLES_FIELD)
    rated_with_bots: bool = False
    rated_friend_rooms: bool = False


class RoomEdit(ReasonIn):
    """What changes: each field given; ``null`` or absent leave it as it is, but ``owner``:
    ``null`` takes the owner away."""

    name: RoomName | None = None
    name_en: RoomName | None = None
    variant: str | None = Field(None, json_schema_extra=VARIANT_FIELD)
    options: dict[str, Any] | None = Field(
        None, description="the room's options, all of them (they replace the old ones)"
    )
    owner: str | None = Field(None, pattern=NO_NUL)
    max_tables: int | None = Field(None, json_schema_extra=TABLES_FIELD)
    rated_with_bots: bool | None = None
    rated_friend_rooms: bool | None = None


class RoomRow(BaseModel):
    id: str
    name: str
    name_en: str | None
    variant: str
    options: dict[str, Any]
    owner: str | None
    max_tables: int
    rated_with_bots: bool
    rated_friend_rooms: bool
    closed: bool
    closed_at: datetime | None
    changed_at: datetime | None = Field(
        description="when an admin last changed it; null: as configured (JUNQI_ROOMS)"
    )
    configured: bool = Field(description="in JUNQI_ROOMS, applied at start while never changed")
    tables: int = Field(description="open now, counted against max_tables")
    play_now_tables: int = Field(description="open now, not counted")
    games: int = Field(description="running now")


# --- rooms --------------------------------------------------------------------------------------

ROOM_FIELDS = (
    "name",
    "name_en",
    "variant",
    "options",
    "owner",
    "max_tables",
    "rated_with_bots",
    "rated_friend_rooms",
)
Responses = dict[int | str, dict[str, Any]]


def _answer(description: str) -> dict[str, Any]:
    """A refusal with a message (``detail``), as documented."""
    return {"description": description, "content": NOT_FOUND[404]["content"]}


NO_ROOM: Responses = {404: _answer("No such room (X-Error-Code no_room)")}
ROOM_INVALID: Responses = {
    422: {
        **REFUSALS[422],
        "description": "Invalid request: the validation errors, or a message (X-Error-Code "
        "bad_variant, bad_option, bad_owner, bad_tables or no_change)",
    }
}


def _room_refused(status: int, code: str, message: str) -> HTTPException:
    return refusal(status, code, f"{code}: {message}")


def _room_row(request: Request, row: Room, owner: str | None) -> RoomRow:
    lobby: Lobby = request.app.state.lobby
    listed = [e for e in lobby.entries.values() if e.room == row.id]
    return RoomRow(
        id=row.id,
        name=row.name,
        name_en=row.name_en,
        variant=row.variant,
        options=json.loads(row.options),
        owner=owner,
        max_tables=row.max_tables,
        rated_with_bots=row.rated_with_bots,
        rated_friend_rooms=row.rated_friend_rooms,
        closed=row.closed_at is not None,
        closed_at=aware(row.closed_at),
        changed_at=aware(row.changed_at),
        configured=any(room.id == row.id for room in request.app.state.settings.rooms),
        tables=sum(not e.quick for e in listed),
        play_now_tables=sum(e.quick for e in listed),
        games=sum(e.status == "playing" for e in listed),
    )


async def _room(session: Session, room_id: str) -> tuple[Room, str | None]:
    found = await stored_rooms(session, room_id)
    if not found:
        raise _room_refused(404, "no_room", f"no room {room_id!r}")
    return found[0]


def _checked_variant(variant: str) -> str:
    if variant not in VARIANTS:
        known = ", ".join(sorted(VARIANTS))
        raise _room_refused(422, "bad_variant", f"no variant {variant!r}: one of {known}")
    return variant


def _checked_options(variant: str, options: dict[str, Any]) -> dict[str, Any]:
    try:
        return checked_admin_options(variant, options)
    except BadOption as error:
        raise _room_refused(422, "bad_option", str(error)) from None


def _checked_tables(tables: int) -> int:
    if not 1 <= tables <= MAX_TABLES:
        raise _room_refused(
            422,
            "bad_tables",
            f"max_tables: {tables} is outside 1-{MAX_TABLES}"
            + (" (to take no table, close the room)" if tables < 1 else ""),
        )
    return tables


async def _owner(session: Session, name: str | None) -> User | None:
    """The room's owner (室主, who moderates its tables): a registered user, or nobody."""
    if name is None:
        return None
    user = (await session.execute(select(User).where(User.name == name))).scalar_one_or_none()
    if user is None:
        raise _room_refused(422, "bad_owner", f"no user {name!r} to own the room")
    if user.guest:
        raise _room_refused(422, "bad_owner", f"{name} is a guest: a room's owner has an account")
    return user


async def _free_room_id(session: Session, variant: str) -> str:
    taken = set((await session.execute(select(Room.id))).scalars())
    return next(f"{variant}-{n}" for n in range(1, len(taken) + 2) if f"{variant}-{n}" not in taken)


@router.get("/rooms", response_model=list[RoomRow])
async def rooms(_: Admin, session: Session, request: Request) -> list[RoomRow]:
    """Every room by id, closed ones too, with its open tables and running games."""
    return [_room_row(request, row, owner) for row, owner in await stored_rooms(session)]


@router.get("/rooms/{room_id}", response_model=RoomRow, responses=NO_ROOM)
async def room(room_id: RoomId, _: Admin, session: Session, request: Request) -> RoomRow:
    """One room."""
    return _room_row(request, *await _room(session, room_id))


@router.post(
    "/rooms",
    status_code=201,
    response_model=RoomRow,
    responses={
        409: _answer("A room of that id exists (X-Error-Code room_exists)"),
        **ROOM_INVALID,
    },
)
async def create_room(body: RoomIn, admin: Admin, session: Session, request: Request) -> RoomRow:
    """Make a room: the lobby lists it at once, on every server process. Its options are
    checked as a table's are (the options a table may change, within the tables' bounds) and
    against the variant; the owner (室主) is a registered user, who moderates its tables."""
    variant = _checked_variant(body.variant)
    options = _checked_options(variant, body.options)
    tables = _checked_tables(body.max_tables)
    owner = await _owner(session, body.owner)
    room_id = body.id or await _free_room_id(session, variant)
    if await session.get(Room, room_id) is not None:
        raise _room_refused(409, "room_exists", f"a room {room_id!r} exists")
    row = Room(
        id=room_id,
        name=body.name,
        name_en=body.name_en,
        variant=variant,
        options=json.dumps(options, ensure_ascii=False),
        owner_id=None if owner is None else owner.id,
        max_tables=tables,
        rated_with_bots=body.rated_with_bots,
        rated_friend_rooms=body.rated_friend_rooms,
        changed_at=datetime.now(UTC),
    )
    session.add(row)
    fields = {
        "name": body.name,
        **({} if body.name_en is None else {"name_en": body.name_en}),
        "variant": variant,
        "options": options,
        "owner": body.owner,
        "max_tables": tables,
        "rated_with_bots": body.rated_with_bots,
        "rated_friend_rooms": body.rated_friend_rooms,
    }
    moderation.record(session, admin, "room_create", room_id, body.reason, **fields)
    try:
        await session.commit()
    except IntegrityError:  # made meanwhile by another request
        raise _room_refused(409, "room_exists", f"a room {room_id!r} exists") from None
    await request.app.state.lobby.room_changed(room_id)
    return _room_row(request, row, body.owner)


@router.patch(
    "/rooms/{room_id}",
    response_model=RoomRow,
    responses={
        **NO_ROOM,
        409: _answer("A new variant while tables of the room are open (X-Error-Code room_busy)"),
        **ROOM_INVALID,
    },
)
async def edit_room(
    room_id: RoomId, body: RoomEdit, admin: Admin, session: Session, request: Request
) -> RoomRow:
    """Change a room: name, variant, rule options (all of them; checked as at creation, and
    again against a new variant), owner (``null``: none), the cap on its tables, whether games
    with bots are rated. The lobby shows it at once, on every server process; tables opened
    before keep the rules they opened with, the owner moderates them all at once. The variant
    changes only while no table of the room is open. Only what differs is audited; a change to
    nothing is no action."""
    given = {f for f in ROOM_FIELDS if f == "owner" or getattr(body, f) is not None}
    given &= body.model_fields_set
    if not given:
        raise _room_refused(422, "no_change", f"give one of {', '.join(ROOM_FIELDS)} at least")
    row, owner_name = await _room(session, room_id)
    lobby: Lobby = request.app.state.lobby
    before = {
        "name": row.name,
        "name_en": row.name_en,
        "variant": row.variant,
        "options": json.loads(row.options),
        "owner": owner_name,
        "max_tables": row.max_tables,
        "rated_with_bots": row.rated_with_bots,
        "rated_friend_rooms": row.rated_friend_rooms,
    }
    after = dict(before)
    if body.variant is not None:
        after["variant"] = _checked_variant(body.variant)
    if body.options is not None or after["variant"] != before["variant"]:
        options = before["options"] if body.options is None else body.options
        after["options"] = _checked_options(after["variant"], options)
    if body.max_tables is not None:
        after["max_tables"] = _checked_tables(body.max_tables)
    owner = None
    if "owner" in given:
        owner = await _owner(session, body.owner)
        after["owner"] = None if owner is None else owner.name
    if body.name is not None:
        after["name"] = body.name
    if body.name_en is not None:
        after["name_en"] = body.name_en
    if body.rated_with_bots is not None:
        after["rated_with_bots"] = body.rated_with_bots
    if body.rated_friend_rooms is not None:
        after["rated_friend_rooms"] = body.rated_friend_rooms
    changes = {f: {"from": before[f], "to": after[f]} for f in ROOM_FIELDS if before[f] != after[f]}
    if not changes:
        return _room_row(request, row, owner_name)
    if "variant" in changes:
        open_tables = sum(e.room == room_id for e in lobby.entries.values())
        if open_tables:
            raise _room_refused(
                409,
                "room_busy",
                f"room {room_id} has {open_tables} tables open: its variant changes only "
                "with none (close it and let its games finish)",
            )
    row.name, row.name_en, row.variant = after["name"], after["name_en"], after["variant"]
    row.options = json.dumps(after["options"], ensure_ascii=False)
    if "owner" in changes:
        row.owner_id = None if owner is None else owner.id
    row.max_tables, row.rated_with_bots = after["max_tables"], after["rated_with_bots"]
    row.rated_friend_rooms = after["rated_friend_rooms"]
    row.changed_at = datetime.now(UTC)
    moderation.record(session, admin, "room_edit", room_id, body.reason, **changes)
    await session.commit()
    await lobby.room_changed(room_id)
    return _room_row(request, row, after["owner"])


@router.post(
    "/rooms/{room_id}/close",
    response_model=RoomRow,
    responses={**NO_ROOM, 409: _answer("Closed already (X-Error-Code room_closed)")},
)
async def close_room(
    room_id: RoomId, body: ReasonIn, admin: Admin, session: Session, request: Request
) -> RoomRow:
    """Close a room: no new table in it (``room_closed``), on every server process. Its tables
    with no game on close at once (their watchers get ``closed``, ``why: "room_closed"``);
    those with one play it out and are scored as ever, but start no other game (sitting,
    getting ready and seating bots are refused with ``room_closed``), and close once empty.
    The lobby lists the room, marked closed, while tables of it are left."""
    row, owner = await _room(session, room_id)
    if row.closed_at is not None:
        raise _room_refused(409, "room_closed", f"room {room_id} is closed already")
    lobby: Lobby = request.app.state.lobby
    playing = sum(e.room == room_id and e.status == "playing" for e in lobby.entries.values())
    row.closed_at = row.changed_at = datetime.now(UTC)
    moderation.record(session, admin, "room_close", room_id, body.reason, games=playing)
    await session.commit()
    await lobby.room_changed(room_id)
    return _room_row(request, row, owner)


@router.post(
    "/rooms/{room_id}/reopen",
    response_model=RoomRow,
    responses={**NO_ROOM, 409: _answer("Open already (X-Error-Code room_open)")},
)
async def reopen_room(
    room_id: RoomId, body: ReasonIn, admin: Admin, session: Session, request: Request
) -> RoomRow:
    """Open a closed room again: it takes new tables, on every server process."""
    row, owner = await _room(session, room_id)
    if row.closed_at is None:
        raise _room_refused(409, "room_open", f"room {room_id} is open")
    row.closed_at, row.changed_at = None, datetime.now(UTC)
    moderation.record(session, admin, "room_reopen", room_id, body.reason)
    await session.commit()
    await request.app.state.lobby.room_changed(room_id)
    return _room_row(request, row, owner)
