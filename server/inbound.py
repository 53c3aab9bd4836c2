"""What a client sends over its socket: one pydantic model per message ``type`` (the
discriminator), with an optional ``id`` that the answer echoes as ``ref`` (docs/protocol.md has
every message with an example). The server's messages are typed beside these, in
``server.outbound``; a socket's first message, ``auth``, is read apart (``server.sign_in``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from server.table_options import DEFAULT_PACE, Pace


class _Message(BaseModel):
    id: str | int | None = None


class Ping(_Message):
    type: Literal["ping"]


class WatchLobby(_Message):
    type: Literal["lobby"]


class CreateTable(_Message):
    type: Literal["create_table"]
    room: str
    options: dict[str, Any] = Field(default_factory=dict)  # rule options for this table
    stand_in: bool = False  # 托管: a bot plays for a player who is away
    pace: Pace = DEFAULT_PACE  # how long its bots wait before a move
    # a friend room (好友房, ``server.friend_rooms``): not listed, reached by the code answered
    private: bool = False
    password: str | None = Field(default=None, max_length=64)
    reserved: dict[int, str] = Field(default_factory=dict)  # seat -> a friend's user name
    watch: Literal["anyone", "friends", "nobody"] = "anyone"  # who may watch its games


class Join(_Message):
    """Be let into a friend room by its code (and password); the answer names the table,
    which the client then opens."""

    type: Literal["join"]
    code: str = Field(min_length=1, max_length=16)
    password: str | None = Field(default=None, max_length=64)


class Invite(_Message):
    """Invite a user (by name) to the table: an ``invited`` notice reaches their sockets."""

    type: Literal["invite"]
    table: str
    user: str = Field(min_length=1, max_length=40)


class Rematch(_Message):
    """再来一局: agree (or withdraw) to play again after the game; ``rotate``: ask for a
    partner rotation (四国)."""

    type: Literal["rematch"]
    table: str
    agree: bool = True
    rotate: bool = False


class Arrange(_Message):
    """A friend room's host moves the player on ``seat`` to ``to`` (and whoever sat there to
    ``seat``) before the start."""

    type: Literal["arrange"]
    table: str
    seat: int
    to: int


class OpenTable(_Message):
    type: Literal["open"]
    table: str
    since: int | None = None  # the last event number seen, to resync after a reconnect


class CloseTable(_Message):
    type: Literal["close"]
    table: str


class Sit(_Message):
    type: Literal["sit"]
    table: str
    seat: int


class AddBot(_Message):
    type: Literal["add_bot", "remove_bot"]
    table: str
    seat: int
    level: str = "normal"  # easy, normal or hard


class PlayNow(_Message):
    """Sit at a new table of the room (default: the first 四国 room) with bots on every other
    seat, ready to start."""

    type: Literal["play_now"]
    room: str | None = None
    pace: Pace | None = None  # the table's pace (None: as it is, or the default)


class Swap(_Message):
    type: Literal["swap"]
    table: str
    seat: int


class Stand(_Message):
    type: Literal["stand"]
    table: str


class Ready(_Message):
    type: Literal["ready"]
    table: str
    ready: bool = True


class Leave(_Message):
    type: Literal["leave"]
    table: str


class StandIn(_Message):
    """托管 by the player's own choice: a bot plays the seat (``on``) until the player ends it."""

    type: Literal["stand_in"]
    table: str
    on: bool = True


class SetPace(_Message):
    """The table's creator sets how long its bots wait at least before a move."""

    type: Literal["pace"]
    table: str
    pace: Pace


class Act(_Message):
    type: Literal["act"]
    table: str
    version: int
    action: dict[str, Any]


class Chat(_Message):
    type: Literal["chat"]
    channel: Literal["lobby", "table", "spectators"]
    table: str | None = None
    text: str = Field(min_length=1)


# The quick phrases (快捷语) a table knows, by key: every client says them in its reader's own
# words (web/js/i18n.js), so a phrase carries nothing but its key - no rank, no station.
PHRASES = ("hello", "hurry", "nice_move", "thanks", "again", "sorry", "teamwork", "bye")


class Phrase(_Message):
    """A quick phrase at a table (one of ``PHRASES``): a player's to the players, a
    spectator's to the spectators, as chat goes."""

    type: Literal["phrase"]
    table: str
    key: str = Field(max_length=40)


class Mark(_Message):
    """A private mark (标记) on a hidden enemy piece, for the player alone: a rank key or a
    short label; none clears it (``server.marks``)."""

    type: Literal["mark"]
    table: str
    station: str = Field(min_length=1, max_length=16)
    mark: str | None = Field(default=None, max_length=64)  # checked, and cleaned, by the table


class Kick(_Message):
    """A room owner (室主) or an admin removes the player on ``seat`` (see ``Table.kick``)."""

    type: Literal["kick"]
    table: str
    seat: int
    penalty: bool = False
    reason: str = Field(min_length=1, max_length=500)


class Dissolve(_Message):
    """A room owner or an admin ends the table's game as a draw in which nobody scores."""

    type: Literal["dissolve"]
    table: str
    reason: str = Field(min_length=1, max_length=500)


class Queue(_Message):
    """Join quick match (自动匹配) for a variant and an information mode (``hidden``,
    ``partners_open``, ``open``; none: the variant's own)."""

    type: Literal["queue"]
    variant: str = Field(max_length=20)
    mode: str | None = Field(default=None, max_length=20)


class Unqueue(_Message):
    """Leave quick match's queue."""

    type: Literal["unqueue", "queue_bots"]  # queue_bots: leave it for a table with bots


ClientMessage = Annotated[
    Ping
    | WatchLobby
    | CreateTable
    | OpenTable
    | CloseTable
    | Sit
    | AddBot
    | PlayNow
    | Swap
    | Stand
    | Ready
    | Leave
    | StandIn
    | SetPace
    | Act
    | Chat
    | Phrase
    | Mark
    | Kick
    | Dissolve
    | Queue
    | Unqueue
    | Join
    | Invite
    | Rematch
    | Arrange,
    Field(discriminator="type"),
]
parse = TypeAdapter(ClientMessage)
# messages under a rate limit (server.limits), by the limiter they count against: seat and
# table commands each change a listing every lobby watcher is sent, or render a snapshot
LIMITED: dict[type[BaseModel], str] = {
    CreateTable: "tables",
    PlayNow: "tables",
    Act: "actions",
    Mark: "actions",  # each one is a write to the database
    **dict.fromkeys([OpenTable, CloseTable, Sit, AddBot, Swap, Stand, Ready, Leave], "seats"),
    StandIn: "seats",
    SetPace: "seats",
    Queue: "seats",
    Unqueue: "seats",
    Rematch: "seats",
    Arrange: "seats",
    Join: "joins",  # each may be a guess at a password
    Invite: "invites",
}
RATE_WORDS = {
    "tables": "tables created",
    "actions": "game actions",
    "seats": "seat commands",
    "joins": "attempts to join by code",
    "invites": "invites",
}
# Control characters (Unicode category Cc: NUL, line breaks, terminal escapes) and the
# bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), which make a
# line read otherwise than it was written: cut out of chat lines.
_UNPRINTABLE = dict.fromkeys(
    [*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
)


def chat_text(text: str) -> str:
    """A chat line as it is passed on: control and bidi characters cut out, ends trimmed."""
    return text.translate(_UNPRINTABLE).strip()
