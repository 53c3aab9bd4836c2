"""Listing: a table as the lobby shows it, what each process's lobby keeps of it (its entry),
and the table commands each viewer may send now.

The listing is public (seated players' names, points and presence, never where they come
from); the entry adds what the lobby needs to route and count (who sits where, the running
game, who opened the table and from where), sent between processes but never to a client.
A table's snapshot for each viewer is built on the listing (``server.updates``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from engine import Variant
from server import messages, rematch
from server.config import RoomConfig, TablePolicy
from server.friend_rooms import PrivateRoom
from server.game_driver import GameDriver
from server.presence import Presence
from server.seating import SeatInfo, Seating
from server.table_options import Pace


class Table(Protocol):
    """What listing reads of a table (``server.tables.Table``)."""

    id: str
    room: RoomConfig
    variant: Variant
    options: dict[str, Any]  # the room's rule options with the table's changes
    changes: dict[str, Any]
    quick: bool
    private: PrivateRoom | None  # a friend room's (好友房): never in the lobby's listing
    rematch: rematch.Rematch
    stand_ins: bool
    pace: Pace  # how long its bots wait before a move (``server.table_options.PACES``)
    creator: int | None
    creator_name: str | None
    creator_address: str | None
    policy: TablePolicy
    seating: Seating
    presence: Presence
    game: GameDriver

    @property
    def in_game(self) -> bool: ...

    @property
    def seats(self) -> list[SeatInfo]: ...

    @property
    def status(self) -> str: ...

    @property
    def game_id(self) -> str | None: ...

    def seat_of(self, user_id: int) -> int | None: ...

    def players_by_user(self) -> dict[str, int]: ...


@dataclass(frozen=True)
class LobbyEntry:
    """What every process's lobby keeps of a table (``Lobby.entries``)."""

    listing: dict[str, Any]  # as the lobby lists it (public)
    players: dict[str, int]  # the seat of each seated user, by user id as a JSON key
    game: str | None  # the running game's id
    creator: int | None  # the user who opened the table
    creator_address: str | None  # where from (``server.addresses``)
    quick: bool  # a table of play now
    code: str | None = None  # a friend room's code (``server.friend_rooms``): not listed

    @property
    def room(self) -> str:
        return str(self.listing["room"])

    @property
    def status(self) -> str:
        return str(self.listing["status"])

    def seat_of(self, user_id: int) -> int | None:
        return self.players.get(str(user_id))

    def to_json(self) -> messages.EntryData:
        return {
            "listing": self.listing,
            "players": self.players,
            "game": self.game,
            "creator": self.creator,
            "creator_address": self.creator_address,
            "quick": self.quick,
            "code": self.code,
        }

    @classmethod
    def from_json(cls, data: messages.EntryData) -> LobbyEntry:
        """An entry as another process sent or kept it (tables kept by an older version lack
        the later fields)."""
        return cls(
            listing=data["listing"],
            players=data["players"],
            game=data["game"],
            creator=data["creator"],
            creator_address=data.get("creator_address"),
            quick=bool(data.get("quick", False)),
            code=data.get("code"),
        )


def entry(table: Table) -> LobbyEntry:
    return LobbyEntry(
        listing=listing(table),
        players=table.players_by_user(),
        game=table.game.game_id,
        creator=table.creator,
        creator_address=table.creator_address,
        quick=table.quick,
        code=None if table.private is None else table.private.code,
    )


def listing(table: Table) -> dict[str, Any]:
    """The table as the lobby lists it (public)."""
    seating = table.seating
    return {
        "id": table.id,
        "room": table.room.id,
        "variant": table.variant.key,
        "board": table.variant.board_key,
        "options": table.options,
        "changes": table.changes,
        "rated": unrated_because(table) is None,
        "unrated_because": unrated_because(table),
        "quick": table.quick,
        "status": table.game.status,
        "host": seating.host,
        "creator": table.creator_name,
        "spectators": table.presence.spectators(seating.seat_of),
        "bots": any(s.bot for s in seating.seats),
        "stand_in": table.stand_ins,
        "pace": table.pace,
        "seats": seating.listed(),
        "friend_room": None if table.private is None else table.private.shown(),
        "rematch": rematch.shown(table),
    }


def unrated_because(table: Table, shared: bool | None = None) -> str | None:
    """Why a game at ``table`` would not move points: the table changed its room's rules
    ("table_rules"), bots play in a room that rates only people ("bots"), or two seats share an
    address or a device ("shared_address": one person's accounts, likely; ``shared``: whether
    they did, by default as they sit now, or sat when the running game began)."""
    if table.changes:
        return "table_rules"
    if table.private is not None and not table.room.rated_friend_rooms:
        return "friend_room"
    if not table.room.rated_with_bots and any(info.bot for info in table.seats):
        return "bots"
    if shared is None:
        shared = table.game.shared if table.in_game else table.seating.shared()
    if table.policy.shared_address_unrated and shared:
        return "shared_address"
    return None


def may(table: Table, viewer: int | None) -> list[str]:
    """The table commands the viewer may send now (a spectator's: sitting down; what the game
    itself allows is in the game's view), so that a client offers no other."""
    seats = table.seating.seats
    free = any(not s.taken for s in seats)
    if viewer is None:
        return ["sit"] if free and not table.in_game else []
    info = seats[viewer]
    if not table.in_game:
        others = any(s.user_id is not None for i, s in enumerate(seats) if i != viewer)
        return [
            "unready" if info.ready else "ready",
            "stand",
            *(["sit"] if free else []),
            *(["swap"] if others else []),
            *bot_commands(table),
        ]
    if not table.game.alive(viewer):  # out of the game: free to go
        return ["leave", "stand"]
    return ["leave", "stand_in_off" if info.taken_over else "stand_in_on"]


def bot_commands(table: Table) -> list[str]:
    """What a player of the table, or its creator, may do with bots now."""
    if table.in_game:
        return []
    seats = table.seating.seats
    return [
        *(["add_bot"] if any(not s.taken for s in seats) else []),
        *(["remove_bot"] if any(s.bot for s in seats) else []),
    ]
