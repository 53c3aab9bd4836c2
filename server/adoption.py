"""Adoption: what of a table is kept with its running game, and how a table takes it back.

A running game is kept (``server.keeping``) with the table around it: the room and its rule
changes, the seats, who opened it, the game's players and numbers. A process that restarts, or
takes over the table of a process that died (``server.cluster``), rebuilds the table from that
and goes on; the lease that says whose table it is lives beside this, in ``server.ownership``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import engine
from server.keeping import KeptTable
from server.seating import SeatInfo

if TYPE_CHECKING:
    from server.tables import Table

RESTART_GRACE = 10.0  # seconds added to the clock of the seat to move after a restart


def kept_data(table: Table) -> dict[str, Any]:
    """The table around its running game, as kept with it (JSON values)."""
    game, seating = table.game, table.seating
    return {
        "room": table.room_data,
        "changes": table.changes,
        "quick": table.quick,
        "seats": [vars(info) for info in seating.seats],  # plain fields: JSON as they are
        "host": seating.host,
        "creator": table.creator,
        "creator_name": table.creator_name,
        "creator_address": table.creator_address,
        "stand_in": table.stand_ins,
        "game_id": game.game_id,
        "players": game.players,
        "stood_in": sorted(game.stood_in),
        "shared": game.shared,
        "version": table.version,
        "seq": game.seq,
        "saved_at": time.time(),
    }


def restore(table: Table, kept: KeptTable) -> float:
    """Rebuild ``table`` (not started yet) from what was kept with its game; returns when it
    was kept."""
    data, game, seating = kept.data, table.game, table.seating
    seating.seats = [SeatInfo(**info) for info in data["seats"]]
    seating.host, table.stand_ins = data["host"], data["stand_in"]
    table.quick = data.get("quick", False)
    # tables kept by an older version name none of these
    table.creator, table.creator_name = data.get("creator"), data.get("creator_name")
    table.creator_address = data.get("creator_address")
    game.game_id, game.players = data["game_id"], data["players"]
    game.stood_in = set(data["stood_in"])
    game.shared = data.get("shared", False)
    # the version moves on: changes after the last save (seats only) were not kept
    table.version = data["version"] + 1
    game.restore(kept, data["seq"])
    state = game.state
    assert state is not None
    for seat, info in enumerate(seating.seats):
        info.away_until = None
        if info.bot or info.taken_over:
            table.bots.take_over(seat, state)
    return float(data["saved_at"])


async def resume(table: Table, saved_at: float) -> None:
    """Fair clocks after a restart or a takeover: play stood still from the last save until
    now, and the seat to move gets ``RESTART_GRACE`` more (a pause and a resume, so the record
    keeps it); every player has the grace period to come back."""
    if table.game.playing:
        await table.apply(engine.Pause(now=saved_at))
        await table.apply(engine.Resume(now=time.time(), bonus=RESTART_GRACE))
    for info in table.seats:
        if info.user_id is not None and not info.bot:
            await table.connection_changed(info.user_id)
