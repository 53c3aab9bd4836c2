"""Rematch (再来一局): after a game, the same people play again at the same table.

Each seated player agrees (or withdraws) on the result card; bots agree at once. The agreements
count for the game just finished (``Rematch.game``): a new game, or another finished one, starts
them afresh, and they are by user, so a player who left no longer counts and one who sat down
since has not agreed yet. Once every seat is taken and every seated person has agreed, everyone
is ready and the next game starts. In a variant of fixed teams on four seats (四国) the players
may ask for a partner rotation: if every one of them asks, seats 1-3 turn round (seat 1 to 2, 2
to 3, 3 to 1) before the start, so that each player has each other one as partner in turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from engine import Variant
from server import friend_rooms
from server.capabilities import capabilities
from server.errors import TableError
from server.seating import SeatInfo

if TYPE_CHECKING:
    from server.tables import Table


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


def rotation_offered(table: Agreeing) -> bool:
    """Whether the variant has partners to rotate: fixed teams on four seats (四国)."""
    return len(table.seats) == 4 and capabilities(table.variant.key)["teams"] == "fixed"


def _current(table: Agreeing) -> dict[int, bool]:
    """The agreements that count now: for the finished game, by the people seated."""
    rematch = table.rematch
    if table.status != "finished" or rematch.game != table.game_id:
        return {}
    return {
        user: rotate for user, rotate in rematch.agreed.items() if table.seat_of(user) is not None
    }


def shown(table: Agreeing) -> dict[str, Any] | None:
    """As the table's listing shows it after a game: the seats that agreed (bots' too), those
    that asked for a rotation, and whether one is offered; None while no game is finished."""
    if table.status != "finished":
        return None
    agreed = _current(table)
    seats = {user: table.seat_of(user) for user in agreed}
    return {
        "agreed": sorted(
            [s for s in seats.values() if s is not None]
            + [seat for seat, info in enumerate(table.seats) if info.bot]
        ),
        "rotate": sorted(s for u, s in seats.items() if s is not None and agreed[u]),
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
    """The user (seated) agrees to play again, or withdraws; when the last one agrees the next
    game starts (rotated if everyone asked for it)."""
    seat = table.seat_of(user_id)
    if seat is None:
        raise TableError("not_seated", "sit down first")
    if table.status != "finished" or table.in_game:
        raise TableError("no_rematch", "a rematch is agreed after a game")
    state = table.rematch
    if state.game != table.game_id:
        state.game, state.agreed = table.game_id, {}
    if not agree:
        state.agreed.pop(user_id, None)
        table.seats[seat].ready = False
        table.seats_changed()
        return
    state.agreed[user_id] = rotate_partners and rotation_offered(table)
    table.seats_changed()
    agreed = _current(table)
    people = [s.user_id for s in table.seats if s.user_id is not None]
    if not all(s.taken for s in table.seats) or any(u not in agreed for u in people):
        return
    if rotation_offered(table) and all(agreed.values()):
        rotate(table)
    for info in table.seats:
        info.ready = True
    await table.start_if_ready()
    await friend_rooms.show_out(table)
