"""A quick-match table's seats: the table command that seats the players the matcher brought
together (``server.matchmaking``), on the seats their draw gave them, ready, and starts the game.
Run in the table's actor, on whichever process runs the table (``Lobby.run``)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from server.errors import TableError
from server.match_core import SeatDraw
from server.models import Game
from server.seating import SeatInfo
from server.tables import Table


async def seat_matched(
    table: Table, players: list[dict[str, Any]], draw: dict[str, Any]
) -> str | None:
    """Seat ``players`` (seat by seat: ``user``, ``name``, ``points``, ``address``,
    ``device``), each ready, keep the seat ``draw`` (``SeatDraw``'s fields) and start; the
    game's id."""
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
    return table.game_id


async def keep_draws(
    sessions: async_sessionmaker[AsyncSession], draws: list[tuple[str, dict[str, Any]]]
) -> None:
    """Keep the seat draws of new games with them (game id, draw), for their replays' 验证座位:
    the tables formed in one round at once, in one transaction."""
    if not draws:
        return
    async with sessions() as session:
        for game_id, draw in draws:
            game = await session.get(Game, game_id)
            if game is not None:
                game.seat_draw = json.dumps(draw, ensure_ascii=False)
        await session.commit()
