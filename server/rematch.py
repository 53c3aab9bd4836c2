"""Rematch (再来一局): after a game, the same people play again at the same table.

Each seated player agrees (or withdraws) on the result card: agreeing is being ready for the
next game, as the table's ready is (bots are at once), with a wish for a partner rotation or not.
The wishes count for the game just finished (``Rematch.game``): a new game, or another finished
one, starts them afresh, and they are by user, so a player who left no longer counts and one who
sat down since has not asked. Once every seat is taken and ready, the next game starts. In a
variant of fixed teams on four seats (四国, 乱战) the players may ask for a partner rotation: if
every one of them asks, seats 1-3 turn round (seat 1 to 2, 2 to 3, 3 to 1) before the start, so
that each player has each other one as partner in turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from engine import Variant
from server import friend_rooms
from server.capabilities import capabilities
from server.errors import TableError
from server.seating import SeatInfo, Seating


@dataclass
class Rematch:
    """The agreements to play again after the table's game ``game``."""

    game: str | None = None
    agreed: dict[int, bool] = field(default_factory=dict)  # user id -> asked for a rotation


class Agreeing(Protocol):
    """What the listing of a rematch reads of a table (``server.tables.Table``)."""

    variant: Variant
    rematch: Rematch

    @property
    def seats(self) -> list[SeatInfo]: ...

    @property
    def status(self) -> str: ...

    @property
    def game_id(self) -> str | None: ...

    def seat_of(self, user_id: int) -> int | None: ...


class Table(Agreeing, friend_rooms.Table, Protocol):
    """What a rematch reads and does of its table (``server.tables.Table``)."""

    @property
    def seating(self) -> Seating: ...

    async def start_if_ready(self) -> None: ...


def rotation_offered(table: Agreeing) -> bool:
    """Whether the variant has partners to rotate: fixed teams on four seats (四国)."""
    return len(table.seats) == 4 and capabilities(table.variant.key)["teams"] == "fixed"


def _wishes(table: Agreeing) -> dict[int, bool]:
    """Whether each seated user who agreed asked for a rotation, for the finished game."""
    rematch = table.rematch
    if table.status != "finished" or rematch.game != table.game_id:
        return {}
    return {
        user: rotate for user, rotate in rematch.agreed.items() if table.seat_of(user) is not None
    }


def shown(table: Agreeing) -> dict[str, Any] | None:
    """As the table's listing shows it after a game: the seats that agreed (those ready: bots
    at once, and a player who pressed ready agrees too), those that asked for a rotation, and
    whether one is offered; None while no game is finished."""
    if table.status != "finished":
        return None
    wishes = _wishes(table)
    ready = [(seat, info) for seat, info in enumerate(table.seats) if info.taken and info.ready]
    return {
        "agreed": [seat for seat, _ in ready],
        "rotate": [seat for seat, info in ready if wishes.get(info.user_id or 0, False)],
        "rotation": rotation_offered(table),
    }


def rotate(table: Table) -> None:
    """Partners change: seats 1, 2 and 3 turn round, seat 0 stays (its host too)."""
    seating = table.seating
    seats = seating.seats
    seats[1], seats[2], seats[3] = seats[3], seats[1], seats[2]
    if seating.host in (1, 2, 3):
        seating.host = seating.host % 3 + 1
    seating.swaps.clear()


async def rematch(table: Table, user_id: int, agree: bool, rotate_partners: bool = False) -> None:
    """The user (seated) agrees to play again (ready, with a rotation asked for or not), or
    withdraws; when the last one agrees the next game starts (``start_if_ready``)."""
    seat = table.seat_of(user_id)
    if seat is None:
        raise TableError("not_seated", "sit down first")
    if table.status != "finished":
        raise TableError("no_rematch", "a rematch is agreed after a game")
    state = table.rematch
    if state.game != table.game_id:
        state.game, state.agreed = table.game_id, {}
    if agree:
        state.agreed[user_id] = rotate_partners and rotation_offered(table)
    else:
        state.agreed.pop(user_id, None)
    table.seats[seat].ready = agree
    table.seats_changed()
    await start_if_ready(table)


async def start_if_ready(table: Table) -> None:
    """The next game starts once every seat is ready (``Table.start_if_ready``): after a game
    with partners rotated first if every player asked for it. At a friend room the spectators
    its watch setting does not allow stop watching then (``friend_rooms.show_out``)."""
    if table.in_game or not table.seating.all_ready():
        return
    wishes = _wishes(table)
    people = [info.user_id for info in table.seats if info.user_id is not None]
    if rotation_offered(table) and people and all(wishes.get(user) for user in people):
        rotate(table)
    await table.start_if_ready()
    await friend_rooms.show_out(table)
