"""Friend rooms (好友房): tables left out of the lobby's listing, reached by a short code.

A friend room is a table with a ``PrivateRoom``: its code (six characters of ``ALPHABET``, no
look-alikes such as 0/O or 1/I), an optional password, seats reserved for named friends and who
may watch it ("anyone" with the code, the host's "friends", or "nobody"). Every process finds a
room by its code in its lobby entries (``server.listing.LobbyEntry.code``), which reach every
node; the password is checked by the table itself, in its actor, wherever it runs. Joining by
code (or an invite, ``admit``) lets the user open the table; between games anyone let in may
open it to take a seat, during one only those the watch setting allows, and the spectators it
does not allow are shown out when the game starts (``show_out``). The host (the table's
creator) arranges partners before the start (``arrange``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from server import messages, social
from server.errors import TableError
from server.presence import Presence
from server.seating import Seating
from server.store import Store

ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # no 0, 1, I, O: read aloud or copied by hand
CODE_LENGTH = 6
Watch = Literal["anyone", "friends", "nobody"]
PASSWORD_MAX = 64
MISSES, MISS_SECONDS = 30, 60.0  # wrong passwords a room takes in a while, from all users


def new_code(taken: Iterable[str | None]) -> str:
    """A fresh code, none of ``taken`` (the codes of the open tables)."""
    used = set(taken)
    while True:
        code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
        if code not in used:
            return code


def normal_code(code: str) -> str:
    """A code as typed (lower case, spaces, dashes) as it is kept."""
    return "".join(c for c in code.upper() if c.isalnum())


def _digest(salt: str, password: str) -> str:
    return hashlib.sha256(f"{salt}:{password}".encode()).hexdigest()


@dataclass
class PrivateRoom:
    """What makes a table a friend room (``Table.private``)."""

    code: str
    salt: str = ""
    password_hash: str | None = None  # salted: never kept nor sent as typed
    reserved: dict[int, str] = field(default_factory=dict)  # seat -> the friend's user name
    watch: Watch = "anyone"
    admitted: set[int] = field(default_factory=set)  # users let in by code or by invite
    # when wrong passwords were given (monotonic), against guesses spread over many accounts:
    # not kept, a restart forgets them
    misses: deque[float] = field(default_factory=deque, compare=False)

    @classmethod
    def make(
        cls, code: str, password: str | None, reserved: Mapping[int, str], watch: Watch
    ) -> PrivateRoom:
        room = cls(code, reserved={s: n.strip() for s, n in reserved.items()}, watch=watch)
        if password:
            room.salt = secrets.token_hex(8)
            room.password_hash = _digest(room.salt, password)
        return room

    def password_fits(self, password: str | None) -> bool:
        if self.password_hash is None:
            return True
        given = _digest(self.salt, password or "")
        return hmac.compare_digest(given, self.password_hash)

    def shown(self) -> dict[str, Any]:
        """As the table's snapshot shows it (no password, no one let in)."""
        return {
            "code": self.code,
            "password": self.password_hash is not None,
            "reserved": {str(seat): name for seat, name in sorted(self.reserved.items())},
            "watch": self.watch,
        }

    def kept(self) -> dict[str, Any]:
        """As kept with a running game (JSON values), for a restart or a takeover."""
        return {
            "code": self.code,
            "salt": self.salt,
            "password_hash": self.password_hash,
            "reserved": self.shown()["reserved"],
            "watch": self.watch,
            "admitted": sorted(self.admitted),
        }

    def guessed_too_often(self, now: float) -> bool:
        """Whether ``MISSES`` wrong passwords came in the last ``MISS_SECONDS``."""
        while self.misses and now - self.misses[0] >= MISS_SECONDS:
            self.misses.popleft()
        return len(self.misses) >= MISSES

    @classmethod
    def from_kept(cls, data: dict[str, Any] | None) -> PrivateRoom | None:
        if data is None:
            return None
        reserved = {int(seat): str(name) for seat, name in data["reserved"].items()}
        return cls(
            data["code"],
            data["salt"],
            data["password_hash"],
            reserved,
            data["watch"],
            set(data["admitted"]),
        )


def check_settings(seats: int, password: str | None, reserved: Mapping[int, str]) -> None:
    """A friend room's settings as ``create_table`` asks for them (``bad_option``)."""
    if password is not None and len(password) > PASSWORD_MAX:
        raise TableError("bad_option", f"a password has at most {PASSWORD_MAX} characters")
    for seat, name in reserved.items():
        if seat not in range(seats) or not name.strip() or len(name) > 40:
            raise TableError("bad_option", f"no seat {seat} to reserve for {name!r}")


def _name_key(name: str) -> str:
    return name.casefold()


class _Services(Protocol):
    @property
    def store(self) -> Store: ...


class Table(Protocol):
    """What a friend room's rules read of its table (``server.tables.Table``)."""

    id: str
    creator: int | None
    private: PrivateRoom | None

    @property
    def services(self) -> _Services: ...

    @property
    def seating(self) -> Seating: ...

    @property
    def presence(self) -> Presence: ...

    @property
    def in_game(self) -> bool: ...

    @property
    def players(self) -> list[int | None]: ...

    def seat_of(self, user_id: int) -> int | None: ...

    def seats_changed(self) -> None: ...

    def publish(self, message: messages.TableNews) -> None: ...


def check_sit(table: Table, seat: int, user_id: int, name: str) -> None:
    """At a friend room only those let in sit down, and a seat reserved for a friend takes
    that friend alone (``seat_reserved``)."""
    room = table.private
    if room is None:
        return
    if user_id != table.creator and user_id not in room.admitted:
        raise TableError("no_table", f"no table {table.id!r}")  # not even its id is known
    check_reserved(table, seat, name)


def check_reserved(table: Table, seat: int, name: str) -> None:
    """A seat reserved for a friend takes that friend alone (``seat_reserved``)."""
    room = table.private
    friend = None if room is None else room.reserved.get(seat)
    if friend is not None and _name_key(friend) != _name_key(name):
        raise TableError("seat_reserved", f"seat {seat} is kept for {friend}")


def check_bot(table: Table, seat: int) -> None:
    """A seat kept for a friend takes no bot either."""
    if table.private is not None and seat in table.private.reserved:
        raise TableError("seat_reserved", f"seat {seat} is kept for {table.private.reserved[seat]}")


def reserved_for(room: PrivateRoom, name: str) -> bool:
    return any(_name_key(friend) == _name_key(name) for friend in room.reserved.values())


async def watchers(table: Table, users: Iterable[int]) -> set[int]:
    """Those of ``users`` who may watch the table's game without a seat, as its watch setting
    says (the host's friends: ``social.friends_of``, read once)."""
    room, wanted = table.private, set(users)
    if room is None:
        return wanted
    allowed = {u for u in wanted if u == table.creator}
    if room.watch == "anyone":
        allowed |= wanted & room.admitted
    elif room.watch == "friends":
        friends = await social.friends_of(table.services.store.sessions, table.creator or 0)
        allowed |= wanted & room.admitted & friends
    return allowed


async def check_open(table: Table, user_id: int) -> None:
    """Who may open a friend room: its players, and those let in (by code or invite) between
    games; during a game, those the watch setting allows (``watch_refused``)."""
    room = table.private
    if room is None or table.seat_of(user_id) is not None or user_id in table.players:
        return
    if user_id != table.creator and user_id not in room.admitted:
        raise TableError("no_table", f"no table {table.id!r}")  # not even its id is known
    if table.in_game and not await watchers(table, [user_id]):
        raise TableError("watch_refused", "the host lets no one else watch this game")


async def show_out(table: Table) -> None:
    """A game starts: the spectators whom the watch setting does not allow stop watching."""
    if table.private is None or not table.in_game:
        return
    spectators = {u for u in table.presence.watching_users() if table.seat_of(u) is None}
    refused = spectators - await watchers(table, spectators)
    if refused:
        table.publish(messages.closed(table.id, "private", sorted(refused)))


async def join(table: Table, user_id: int, name: str, password: str | None) -> None:
    """Let a user in by the room's code (and password; ``room_password``); the user invited
    or reserved a seat needs none."""
    room = table.private
    if room is None:
        raise TableError("no_code", "no friend room has this code")
    invited = user_id in room.admitted or user_id == table.creator or reserved_for(room, name)
    if invited:
        room.admitted.add(user_id)
        return
    now = time.monotonic()
    if room.guessed_too_often(now):  # the host's invites still let friends in
        raise TableError("rate_limited", "too many wrong passwords for this room; wait a little")
    if not room.password_fits(password):
        room.misses.append(now)
        raise TableError("room_password", "the password is wrong")
    room.admitted.add(user_id)


async def admit(table: Table, user_id: int, by: int) -> None:
    """An invite (from ``by``, a player of the table or its host) lets the invitee in."""
    if by != table.creator and table.seat_of(by) is None:
        raise TableError("not_allowed", "only the table's players and its host invite")
    if table.private is not None:
        table.private.admitted.add(user_id)


async def arrange(table: Table, user_id: int, seat: int, to: int) -> None:
    """The host moves the player (or bot) on ``seat`` to the seat ``to`` (whoever sat there
    goes to ``seat``): partners are arranged before the start."""
    if user_id != table.creator:
        raise TableError("not_allowed", "only the table's host arranges the seats")
    if table.in_game:
        raise TableError("game_running", "seats change only between games")
    seating = table.seating
    seating.check_seat(seat)
    seating.check_seat(to)
    if seat == to:
        return
    for info, place in ((seating.seats[seat], to), (seating.seats[to], seat)):
        if info.bot:
            check_bot(table, place)
        elif info.name is not None:
            check_reserved(table, place, info.name)
    seats = seating.seats
    seats[seat], seats[to] = seats[to], seats[seat]
    for info in (seats[seat], seats[to]):
        info.ready = info.bot
    seating.swaps.clear()
    if seating.host in (seat, to):
        seating.host = to if seating.host == seat else seat
    table.seats_changed()
