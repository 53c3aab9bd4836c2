"""Adoption: how a table takes back what was kept with its running game.

A running game is kept (``server.keeping``) with the table around it (``Table.kept_data``): the
room and its rule changes, its pace, the seats, who opened it, the game's players and numbers. A
process that restarts, or takes over the table of a process that died (``server.cluster``),
rebuilds the table from that and goes on; the lease that says whose table it is lives beside
this, in ``server.ownership``.
"""

from __future__ import annotations

import time

import engine
from server.friend_rooms import PrivateRoom
from server.keeping import KeptTable
from server.seating import SeatInfo
from server.table_options import DEFAULT_PACE
from server.tables import Table

RESTART_GRACE = 10.0  # seconds added to the clock of the seat to move after a restart


def restore(table: Table, kept: KeptTable) -> float:
    """Rebuild ``table`` (not started yet) from what was kept with its game; returns when it
    was kept."""
    data, game, seating = kept.data, table.game, table.seating
    seating.seats = [SeatInfo(**info) for info in data["seats"]]
    seating.host, table.stand_ins = data["host"], data["stand_in"]
    table.quick = data.get("quick", False)
    table.private = PrivateRoom.from_kept(data.get("private"))
    table.pace = data.get("pace", DEFAULT_PACE)
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
