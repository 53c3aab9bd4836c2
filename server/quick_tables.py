"""A quick-match table's seats: the table command that seats the players the matcher brought
together (``server.matchmaking``), on the seats their draw gave them, ready, and starts the game.
Run in the table's actor, on whichever process runs the table (``Lobby.run``)."""

from __future__ import annotations

import json
from typing import Any

from server.errors import TableError
from server.match_core import SeatDraw
from server.models import Game
from server.seating import SeatInfo
from server.tables import Table


async def seat_matched(table: Table, players: list[dict[str, Any]], draw: dict[str, Any]) -> None:
    """Seat ``players`` (seat by seat: ``user``, ``name``, ``points``, ``address``,
    ``device``), each ready, keep the seat ``draw`` (``SeatDraw``'s fields) and start."""
    if table.in_game:
        raise TableError("game_running", "seats change only between games")
    for seat, p in enumerate(players):
        info = SeatInfo(
            user_id=p["user"],
            name=p["name"],
            points=p["points"],
            address=p["address"],
            device=p["device"],
            ready=True,
        )
        table.seating.sit(seat, info)
    table.seat_draw = SeatDraw(**draw)
    table.seats_changed()
    await table.start_if_ready()
    if table.game_id is not None:  # kept with the game, for its replay's 验证座位
        async with table.services.store.sessions() as session:
            game = await session.get(Game, table.game_id)
            if game is not None:
                game.seat_draw = json.dumps(draw, ensure_ascii=False)
                await session.commit()
