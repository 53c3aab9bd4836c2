"""Database models (SQLAlchemy 2). API schemas live with their routers, not here."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    DateTime,
    Double,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.engine.default import DefaultExecutionContext
from sqlalchemy.orm import Mapped, mapped_column

from server import names
from server.db import Base


def utcnow() -> datetime:
    return datetime.now(UTC)


def aware(at: datetime | None) -> datetime | None:
    """``at`` with its time zone (UTC): SQLite hands datetimes back without one."""
    return at if at is None or at.tzinfo is not None else at.replace(tzinfo=UTC)


def _of_name(derive: Callable[[str], str]) -> Callable[[DefaultExecutionContext], str]:
    """A column's default made from the row's name (``server.names``)."""

    def default(context: DefaultExecutionContext) -> str:
        row: dict[str, Any] = context.get_current_parameters()  # type: ignore[no-untyped-call]
        return derive(row["name"])

    return default


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(32), unique=True)
    # the name casefolded, and as it looks (server.names): no two users share either, so no
    # name passes for another. Filled from the name unless given.
    name_key: Mapped[str] = mapped_column(
        String(255), unique=True, index=True, default=_of_name(names.name_key)
    )
    name_skeleton: Mapped[str] = mapped_column(
        String(255), unique=True, index=True, default=_of_name(names.skeleton)
    )
    password_hash: Mapped[str | None] = mapped_column(String(200))  # None for guests
    role: Mapped[str] = mapped_column(String(16), default="player")  # "player" | "admin"
    guest: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # moderation (server.moderation): a ban ends at banned_until unless it is permanent
    banned_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    ban_permanent: Mapped[bool] = mapped_column(default=False, server_default=false())
    ban_reason: Mapped[str | None] = mapped_column(Text)
    muted_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # where the user last signed in from (registration, login, guest entry): guests per
    # address, and no new account from the address of a banned user (server.accounts)
    address: Mapped[str | None] = mapped_column(String(64), index=True)

    def banned(self, now: datetime) -> bool:
        until = aware(self.banned_until)
        return self.ban_permanent or (until is not None and until > now)

    def muted(self, now: datetime) -> bool:
        until = aware(self.muted_until)
        return until is not None and until > now


class AuditEntry(Base):
    """One moderation action (an admin's or a room owner's): who did what to whom, and why."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    actor_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), index=True
    )
    action: Mapped[str] = mapped_column(String(32))  # kick, dissolve, ban, mute, penalty, ...
    target: Mapped[str] = mapped_column(String(64))  # a user name, a table id or a game id
    reason: Mapped[str] = mapped_column(Text)
    details: Mapped[str] = mapped_column(Text, default="{}")  # JSON


class BanAddress(Base):
    """An address a banned user signed in, or tried to, from: while the ban lasts no account
    signs in from it, nor does an account last seen there (``server.accounts``)."""

    __tablename__ = "ban_addresses"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    address: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Token(Base):
    """A login: the SHA-256 of an opaque bearer token, so that a stolen database holds none."""

    __tablename__ = "tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Standing(Base):
    """A user's points and record in one variant (each variant has its own ladder, docs/rules.md
    §10)."""

    __tablename__ = "standings"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    variant: Mapped[str] = mapped_column(String(16), primary_key=True)
    points: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)


class Room(Base):
    """A room of the lobby: a variant with its rule options and its owner (室主), who moderates
    the room's tables. Written from the configuration at start (``JUNQI_ROOMS``) until an admin
    changes it over REST (``server.admin``); from then on the database's alone."""

    __tablename__ = "rooms"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    name_en: Mapped[str | None] = mapped_column(String(64))  # its name in English, if any
    variant: Mapped[str] = mapped_column(String(16))
    options: Mapped[str] = mapped_column(Text, default="{}")  # rule options, JSON
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    max_tables: Mapped[int] = mapped_column(Integer, default=20)
    rated_with_bots: Mapped[bool] = mapped_column(default=False)
    rated_friend_rooms: Mapped[bool] = mapped_column(default=False)
    # when an admin last made, edited, closed or reopened it (None: as configured)
    changed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # closed by an admin: no new table, its running games finish (None: open)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # the owner's name as the configuration gave it, and since when: an account registered
    # after that is never made the owner (``server.rooms.load_rooms``)
    owner_named: Mapped[str | None] = mapped_column(String(32))
    owner_named_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Game(Base):
    """A game: public commitment from the start, seed and full record once it is over."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    variant: Mapped[str] = mapped_column(String(16), index=True)
    room: Mapped[str] = mapped_column(String(64))
    # playing | finished | not_stored (its result could not be stored) | aborted (it could not
    # be taken back after a restart or from a failed node): the last two unscored
    status: Mapped[str] = mapped_column(String(16), default="playing")
    commitment: Mapped[str] = mapped_column(String(64))
    seed: Mapped[str | None] = mapped_column(String(64))
    record: Mapped[str | None] = mapped_column(Text)  # engine.GameRecord JSON
    result: Mapped[str | None] = mapped_column(Text)  # engine.GameResult JSON
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # the game's people (their user ids, sorted, comma-separated) and whether it moved points:
    # points between the same accounts diminish within a day (``server.store``)
    players_key: Mapped[str | None] = mapped_column(String(255), index=True)
    rated: Mapped[bool | None] = mapped_column()
    # a quick-match game's seat draw (``server.match_core.SeatDraw`` as JSON, its seed in it):
    # shown, seed and all, once the game is over (``server.games``)
    seat_draw: Mapped[str | None] = mapped_column(Text)


class GameSeat(Base):
    __tablename__ = "game_seats"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    outcome: Mapped[str | None] = mapped_column(String(16))
    points: Mapped[int | None] = mapped_column(Integer)


class MarkEntry(Base):
    """A player's private mark (标记) on a hidden enemy piece, or its clearing (``mark`` None):
    one row per change, never rewritten. A mark is put where the piece stood after ``step``
    recorded actions of the game and follows the piece from there (``server.marks``), so the
    rows give the seat's marks at every step of its replay. Served to that seat's player alone."""

    __tablename__ = "marks"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    step: Mapped[int] = mapped_column(Integer)
    station: Mapped[str] = mapped_column(String(16))
    mark: Mapped[str | None] = mapped_column(String(32))  # a rank key or a short label
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SavedLayout(Base):
    """A layout a user saved (保存布局), in the engine's text notation."""

    __tablename__ = "layouts"
    __table_args__ = (UniqueConstraint("user_id", "variant", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    variant: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class EscapeRecord(Base):
    """An escape from a scored game (docs/rules.md §11), remembered for the escape bans."""

    __tablename__ = "escapes"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LiveTable(Base):
    """A table with a game running: enough to rebuild it after a restart (its record holds the
    secret seed, so it is never served)."""

    __tablename__ = "live_tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    data: Mapped[str] = mapped_column(Text)  # the table around the game, JSON
    # the game's engine.GameRecord JSON without the actions after the start (in live_log)
    record: Mapped[str] = mapped_column(Text)


class TableOwner(Base):
    """Which process (node) runs a table of a cluster, until when, and its epoch: bumped at
    every takeover, so that a write of a process that lost the table fails
    (``server.ownership``)."""

    __tablename__ = "table_owners"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    node: Mapped[str] = mapped_column(String(64), index=True)
    epoch: Mapped[int] = mapped_column(Integer)
    # the lease's end, in seconds since 1970 by the database's clock (one clock for all nodes)
    expires: Mapped[float] = mapped_column(Double)


class LiveLogEntry(Base):
    """An action or an event of a kept game (``LiveTable``), appended as it happens."""

    __tablename__ = "live_log"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8), primary_key=True)  # "action" or "event"
    # the action's number in the game, the event's seq
    n: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    body: Mapped[str] = mapped_column(Text)  # JSON


class FriendRequest(Base):
    """A friend request (加好友) of ``asker_id`` to ``asked_id``, until answered or withdrawn
    (``server.social``)."""

    __tablename__ = "friend_requests"

    asker_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    asked_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Friendship(Base):
    """Two friends, one row: the lower user id first, so that a pair is stored once."""

    __tablename__ = "friendships"

    low_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    high_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    since: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Follow(Base):
    """``follower_id`` follows (关注) ``followed_id``: one way, no consent asked."""

    __tablename__ = "follows"

    follower_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    followed_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Block(Base):
    """``blocker_id`` blocks (屏蔽) ``blocked_id``: the rules of docs/protocol.md, "Friends"."""

    __tablename__ = "blocks"

    blocker_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    blocked_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
