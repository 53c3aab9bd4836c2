"""The messages the server sends over a socket: one ``TypedDict`` per ``type`` (docs/protocol.md,
"Server → client"; the client's messages are the pydantic models of ``server.realtime``).

Typed dicts, not models: at run time a message is a plain dict, written to JSON by orjson (an
update once for each viewer, ``server.updates``), so sending costs no validation; mypy checks
every place that builds one. ``ServerMessage`` is their discriminated union, for pydantic to
validate with where it is worth it: tests/server/test_outbound.py holds the protocol's examples
against it, and keeps its list of messages and fields equal to these.

``snapshot``, ``patch``, a ``lobby``'s listing and the events stay ``dict[str, Any]``: they are
rendered from the engine's views and the tables' listings, which say what is in them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict  # pydantic reads only this one before Python 3.12

# the codes a socket is closed with (docs/protocol.md)
UNAUTHORIZED = 4401  # no auth message in time, a bad or expired token, or logged out
BANNED = 4003  # a banned user's sockets, or a ban covers the address
FOREIGN_PAGE = 4403  # opened by a web page of another site
TOO_MANY_SOCKETS = 4429  # the user has sockets_per_user open in this process already
TOO_FAR_BEHIND = 4008  # the client did not read its messages: its backlog passed the bounds


class User(TypedDict):
    id: int
    name: str
    role: str


class Welcome(TypedDict):
    """The answer to ``auth``: who the socket signed in as."""

    type: Literal["welcome"]
    user: User


class Answer(TypedDict, total=False):
    """What a command's ``ok`` carries besides its ``ref``."""

    version: int  # the table's version after a table command
    table: str  # the id of the table ``create_table``, ``play_now`` or ``join`` gave
    code: str  # a friend room's code (``create_table`` with ``private``)


class Ok(Answer):
    type: Literal["ok"]
    ref: Any  # the client's ``id``, as it sent it


class Error(TypedDict):
    type: Literal["error"]
    ref: Any
    code: str  # one of ``server.errors.CODES``
    message: str


class Pong(TypedDict):
    type: Literal["pong"]
    ref: Any
    at: float  # the server's clock, Unix seconds


class Lobby(TypedDict):
    type: Literal["lobby"]
    lobby: dict[str, Any]  # ``server.lobby.Lobby.listing``


DealKind = Literal["colours", "hands", "face_down"]


class Capabilities(TypedDict):
    """What a variant does, so that a client draws it without knowing it by name: a snapshot's
    ``capabilities`` and a lobby variant's (``server.capabilities``)."""

    colour: Literal["seat", "picked", "first_engineer"]  # how a seat's colour is known
    teams: Literal["fixed", "banker", "none"]  # how teams are known
    picks_colours: bool
    bids: bool
    contracts: list[int]  # the bids above a pass
    flips: bool
    deal: DealKind | None  # the deal to check from the revealed seed
    mountain: bool  # the board's 山界 between two arms


class Table(TypedDict):
    """The answer to ``open``: the table now, and the events missed."""

    type: Literal["table"]
    table: str
    epoch: int
    snapshot: dict[str, Any]  # ``server.updates.snapshot``
    events: list[dict[str, Any]]


class Update(TypedDict):
    """A change of a watched table: a whole snapshot, or during play a patch on the last one."""

    type: Literal["update"]
    table: str
    epoch: int
    version: int
    events: list[dict[str, Any]]
    snapshot: NotRequired[dict[str, Any]]
    patch: NotRequired[dict[str, Any]]


# "from" is a keyword: the functional form
Chat = TypedDict(
    "Chat",
    {
        "type": Literal["chat"],
        "channel": Literal["lobby", "table", "spectators"],
        "table": str | None,
        "from": str,
        "text": str,
        "at": float,
    },
)


# a quick phrase (``server.inbound.PHRASES``), sent on as its key alone, with its speaker's seat
# (None: a spectator's) for the bubble at the seat's panel
Phrase = TypedDict(
    "Phrase",
    {
        "type": Literal["phrase"],
        "channel": Literal["table", "spectators"],
        "table": str,
        "from": str,
        "seat": int | None,
        "key": str,
        "at": float,
    },
)


class Muted(TypedDict):
    type: Literal["muted"]
    until: str  # ISO 8601
    reason: str


class Closed(TypedDict):
    type: Literal["closed"]
    table: str
    why: Literal["idle", "lonely", "room_closed", "lost", "blocked", "private"]


class Banned(TypedDict):
    type: Literal["banned"]
    message: str


class LoggedOut(TypedDict):
    type: Literal["logged_out"]


class Marks(TypedDict):
    """A player's private marks (标记) in the game of a table, to that player's sockets alone
    (``server.marks``): all of them, by station, each time one changes."""

    type: Literal["marks"]
    table: str
    game_id: str
    seat: int
    choices: list[str]  # the rank keys a mark may name (any other mark is a label)
    marks: dict[str, str]  # station id -> a rank key or a label


class QueueStatus(TypedDict):
    """Quick match (``server.matchmaking``): how the queue stands for a waiting socket."""

    type: Literal["queue_status"]
    variant: str
    mode: str  # the information mode: hidden, partners_open or open
    size: int  # players waiting for this variant and mode, the receiver too
    waited: float  # seconds
    band: str  # the receiver's own: beginner, intermediate or advanced (初/中/高)
    bands: list[str]  # the lowest and highest band the receiver accepts by now
    bots: bool  # the receiver may take a table with bots now (``queue_bots``)
    commitment: str  # sha256("junqi-seats:" + seed) of the next table's seat draw


class Matched(TypedDict):
    """Quick match formed the receiver's table (they are seated at it): ``open`` it."""

    type: Literal["matched"]
    table: str
    variant: str
    mode: str
    bots: bool  # a table with bots (``queue_bots``): no seat draw
    commitment: str | None  # of the table's seat draw (its snapshot's ``seat_draw``)


class Unqueued(TypedDict):
    """The receiver's place in the queue is gone (``lost``: the queue was lost, join again)."""

    type: Literal["unqueued"]
    why: Literal["lost"]


# "from" is a keyword: the functional form
Invited = TypedDict(
    "Invited",
    {
        "type": Literal["invited"],
        "table": str,
        "code": str | None,  # the friend room's code (None: a table of the lobby)
        "room": str,
        "variant": str,
        "from": str,  # who invites
        "at": float,
    },
)
"""An invite to a table, pushed to every socket of the invitee (``server.invites``)."""


ServerMessage = Annotated[
    Welcome
    | Ok
    | Error
    | Pong
    | Lobby
    | Table
    | Update
    | Chat
    | Phrase
    | Muted
    | Closed
    | Banned
    | LoggedOut
    | Marks
    | QueueStatus
    | Matched
    | Unqueued
    | Invited,
    Field(discriminator="type"),
]
