"""A table's part that keeps its players' private marks (标记, ``server.marks``): read from the
database when the game is first marked or taken over, moved with their pieces after every
step, and sent to each player alone, on their own topic, whenever theirs changed."""

from __future__ import annotations

import logging
from typing import Protocol

from engine import Event, GameState
from server import marks, outbound
from server.broker import InMemoryBroker
from server.errors import TableError
from server.messages import user_topic
from server.store import Store

log = logging.getLogger("junqi.tables")


class MarkingTable(Protocol):
    """What the marks need of their table (``server.tables.Table``)."""

    id: str

    @property
    def game_id(self) -> str | None: ...

    @property
    def state(self) -> GameState | None: ...

    @property
    def players(self) -> list[int | None]: ...

    def seat_of(self, user_id: int) -> int | None: ...

    def sure(self) -> bool: ...


class TableMarks:
    """The marks of the table's current game, and the seats whose player is to be sent theirs."""

    def __init__(self, store: Store, broker: InMemoryBroker) -> None:
        self.store, self.broker = store, broker
        self.seats = marks.SeatMarks()
        self.changed: set[int] = set()

    def begin(self, game_id: str) -> None:
        self.seats.begin(game_id)

    async def load(self, table: MarkingTable) -> bool:
        """Read the current game's marks if they are not yet; False if there is no game."""
        game_id, state = table.game_id, table.state
        if game_id is None or state is None:
            return False
        await self.seats.load(self.store.sessions, game_id, state)
        return True

    async def follow(self, table: MarkingTable, events: list[Event]) -> None:
        """The marks follow their pieces through a step (never in the way of the step)."""
        try:
            if self.seats.game_id != table.game_id:
                await self.load(table)  # as they are after this step
            elif table.state is not None:
                self.changed.update(self.seats.step(events, table.state))
        except Exception:
            log.exception("marks could not be followed", extra={"table": table.id})

    @staticmethod
    def marker(table: MarkingTable, user_id: int) -> int | None:
        """The seat ``user_id`` plays in the table's current game and sits on still: whose
        marks are theirs (a seat's next sitter sees none of them)."""
        seat = table.seat_of(user_id)
        players = table.players
        if seat is None or seat >= len(players) or players[seat] != user_id:
            return None
        return seat

    async def set(self, table: MarkingTable, user_id: int, station: str, mark: str | None) -> None:
        seat = self.marker(table, user_id)
        state = table.state
        if seat is None or state is None or not await self.load(table):
            raise TableError("not_playing", "only the game's players mark its pieces")
        await self.seats.set(self.store.sessions, seat, user_id, state, station, mark)
        self.changed.add(seat)

    async def message(self, table: MarkingTable, user_id: int) -> outbound.Marks | None:
        """``user_id``'s own marks in the current game, or None."""
        seat = self.marker(table, user_id)
        if seat is None or table.state is None or not await self.load(table):
            return None
        game_id = table.game_id
        assert game_id is not None
        shown = self.seats.by_seat.get(seat, {})
        return marks.message(table.id, game_id, seat, table.state, shown)

    def send(self, table: MarkingTable) -> None:
        """Each player whose marks changed gets them, on their own topic only."""
        game_id, state = table.game_id, table.state
        if not self.changed or not table.sure() or game_id is None or state is None:
            return
        for seat in sorted(self.changed):
            user_id = table.players[seat]
            if user_id is not None:
                shown = self.seats.by_seat.get(seat, {})
                text = marks.message(table.id, game_id, seat, state, shown)
                self.broker.publish(user_topic(user_id), text)
        self.changed.clear()
