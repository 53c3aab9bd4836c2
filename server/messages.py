"""The messages between the parts of the server, and between its processes, by broker topic.

Each topic carries one kind of message, typed here (a union with a discriminator where a topic
carries several shapes): the code that publishes builds them as these types, so the type
checker holds every publisher to them, and a message that comes in from another process
through Redis is validated against its topic's type on receipt (``checked``): one of an
unknown shape is logged and dropped, never half-read. docs/cluster.md lists them.

- ``table:<id>``: ``TableNews``, an ``update`` of the table, or it ``closed``, ``moved`` to
  another process, or must be opened again (``resync``);
- ``tables``: ``EntryNews``, a table's lobby entry changed (``server.listing.LobbyEntry``), or
  None: it is gone;
- ``rooms``: ``RoomNews``, a room changed in the database;
- ``user:<id>``: ``UserNotice``, a moderator's word for the user's sockets, a logout, or a
  change of whom the user blocks;
- ``chat:lobby``, ``chat:<table id>``: ``outbound.Chat``;
- ``node:<name>``: ``NodeMessage``, a table command for the table's owner (``call``), or its
  ``answer``;
- ``lobby``: the lobby's listing, for this process's sockets only (never through Redis).
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from server import outbound

log = logging.getLogger("junqi")


# --- table:<id> -----------------------------------------------------------------------------------


class TableUpdate(TypedDict):
    """A command's changes, rendered once for each viewer someone watches (``views``, by
    ``server.updates.viewer_key``); ``update`` numbers them per table, ``patch`` says whether
    they patch the previous one, ``players`` is the seat of each seated user."""

    kind: Literal["update"]
    table: str
    epoch: int
    update: int
    patch: bool
    seq: int
    players: dict[str, int]
    views: dict[str, str]


# why a table closed; "private": a friend room's game started, which the watcher may not watch
Closing = Literal["idle", "lonely", "room_closed", "lost", "private"]


class TableClosed(TypedDict):
    kind: Literal["closed"]
    table: str
    why: Closing
    users: NotRequired[list[int]]  # only for these users' sockets (none: for every one)


class TableMoved(TypedDict):
    """Another process took the table over at ``epoch``: its watchers open it again."""

    kind: Literal["moved"]
    table: str
    epoch: int


class TableResync(TypedDict):
    """Updates may have been lost (Redis was away): this process's watchers open it again."""

    kind: Literal["resync"]
    table: str


TableNews = Annotated[
    TableUpdate | TableClosed | TableMoved | TableResync, Field(discriminator="kind")
]


def closed(table: str, why: Closing, users: list[int] | None = None) -> TableClosed:
    news: TableClosed = {"kind": "closed", "table": table, "why": why}
    if users is not None:
        news["users"] = users
    return news


def moved(table: str, epoch: int) -> TableMoved:
    return {"kind": "moved", "table": table, "epoch": epoch}


def resync(table: str) -> TableResync:
    return {"kind": "resync", "table": table}


# --- tables, rooms --------------------------------------------------------------------------------


class EntryData(TypedDict):
    """A lobby entry as JSON (``server.listing.LobbyEntry.to_json``)."""

    listing: dict[str, Any]
    players: dict[str, int]
    game: str | None
    creator: int | None
    creator_address: NotRequired[str | None]
    quick: NotRequired[bool]
    code: NotRequired[str | None]  # a friend room's (``server.friend_rooms``)


class EntryNews(TypedDict):
    table: str
    entry: EntryData | None


# ``from``: the lobby that changed it (``Lobby.origin``), which has read it already
RoomNews = TypedDict("RoomNews", {"room": str, "from": str})


# --- user:<id> ------------------------------------------------------------------------------------


# Close the user's sockets signed in with the token of ``token_hash`` (none: all of them) but
# those of the token ``except`` (a password change's own).
LoggedOutNotice = TypedDict(
    "LoggedOutNotice",
    {"type": Literal["logged_out"], "token_hash": NotRequired[str], "except": NotRequired[str]},
)


class BlocksNotice(TypedDict):
    """The user blocked (``on``) or unblocked the user called ``name``: their sockets hide that
    one's chat, or show it again (``server.block_rules``); not passed on."""

    type: Literal["blocks"]
    name: str
    on: bool


class BlockedByNotice(TypedDict):
    """The user ``by`` blocked this user (``table`` None), or is sitting down at ``table``
    while blocking them: their sockets stop watching where ``by`` sits (``server.block_rules``);
    not passed on."""

    type: Literal["blocked_by"]
    by: int
    table: str | None


def user_topic(user_id: int) -> str:
    """The broker topic of one user's sockets."""
    return f"user:{user_id}"


UserNotice = Annotated[
    outbound.Banned
    | outbound.Muted
    | outbound.Invited
    | LoggedOutNotice
    | BlocksNotice
    | BlockedByNotice,
    Field(discriminator="type"),
]


# --- node:<name> ----------------------------------------------------------------------------------


# A table command (``Table.run``) for the node that owns the table; ``call`` names it (it may
# be sent again: the owner runs it once), ``from`` is the asking node.
Call = TypedDict(
    "Call",
    {
        "kind": Literal["call"],
        "call": str,
        "from": str,
        "table": str,
        "command": str,
        "args": dict[str, Any],
    },
)


class Answer(TypedDict):
    """The owner's answer to a ``call``: the command's ``value``, its ``error`` (code and
    message), or ``moved`` (the table is not, or no longer, the owner's)."""

    kind: Literal["answer"]
    answer: str
    value: NotRequired[dict[str, Any]]
    error: NotRequired[list[str]]
    moved: NotRequired[bool]


NodeMessage = Annotated[Call | Answer, Field(discriminator="kind")]


class MatchedNews(TypedDict):
    """Quick match formed a table (``server.matchmaking``, topic ``quick:matched``): the
    process holding each player's waiting socket tells it. ``entries``: user id -> the wait's
    entry id; ``commitment``: of the table's seat draw."""

    table: str
    commitment: str
    entries: dict[str, str]


# --- checked on receipt ---------------------------------------------------------------------------

_CHECKS: dict[str, TypeAdapter[Any]] = {
    "table:": TypeAdapter(TableNews),
    "tables": TypeAdapter(EntryNews),
    "rooms": TypeAdapter(RoomNews),
    "user:": TypeAdapter(UserNotice),
    "chat:": TypeAdapter(outbound.Chat),
    "node:": TypeAdapter(NodeMessage),
    "quick:": TypeAdapter(MatchedNews),
}


def checked(topic: str, message: Any) -> Any | None:
    """``message``, come in on ``topic`` from another process, if it has the topic's shape;
    else None, and the log says so (the message is dropped)."""
    adapter = next((a for prefix, a in _CHECKS.items() if topic.startswith(prefix)), None)
    if adapter is None:
        log.warning("a message on an unknown topic %s was dropped", topic)
        return None
    try:
        adapter.validate_python(message)
    except ValidationError as error:
        log.warning(
            "a message of an unknown shape on %s was dropped: %s",
            topic,
            error.errors(include_input=False, include_url=False)[:3],
        )
        return None
    return message
