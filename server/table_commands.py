"""The commands a table takes from the socket gateway of any process (``Table.run``), each run
inside the table's actor: seats (sit, swap, stand, ready, bots, 托管, play now), the game's
actions and private marks, moderation (kick, dissolve) and watching (open, close, snapshot).

Each checks what the table's state allows, changes its parts (``server.seating``, the game) and
leaves the table to tell everyone (``Table.flush``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import engine
from engine import Event
from engine.bot import LEVELS
from server import friend_rooms, rematch, updates
from server.errors import TableError
from server.quick_tables import seat_matched
from server.seating import SeatInfo
from server.table_options import Pace
from server.tables import Table

log = logging.getLogger("junqi")


def check_between_games(table: Table) -> None:
    if table.in_game:
        raise TableError("game_running", "seats change only between games")


async def sit(
    table: Table,
    user_id: int,
    name: str,
    seat: int,
    address: str | None = None,
    device: str | None = None,
) -> None:
    check_between_games(table)
    table.seating.check_sit(seat, user_id)
    friend_rooms.check_sit(table, seat, user_id, name)  # a friend room's own say
    points = (await table.services.store.points(table.variant.key, [user_id]))[user_id]
    info = SeatInfo(user_id=user_id, name=name, points=points, address=address, device=device)
    table.seating.sit(seat, info)
    table.seats_changed()


async def swap(table: Table, user_id: int, seat: int) -> None:
    """Ask to swap seats with the player on ``seat``; the swap happens when that player
    asks for this one in turn."""
    if table.seat_of(user_id) is None:
        raise TableError("not_seated", "sit down first")
    check_between_games(table)
    table.seating.swap(user_id, seat)
    table.seats_changed()


async def stand(table: Table, user_id: int) -> None:
    """Stand up: between games, or during one once out of it (an escaper's escape is
    scored, an eliminated player has nothing left to play): the game goes on without."""
    seat = table.seat_of(user_id)
    if seat is None:
        return
    if table.game.alive(seat):
        raise TableError("game_running", "leave the game to stand up")
    table.vacate(seat)


async def ready(table: Table, user_id: int, ready: bool) -> None:
    if table.seat_of(user_id) is None:
        raise TableError("not_seated", "sit down first")
    if table.in_game:
        raise TableError("game_running", "the game is on")
    table.seating.set_ready(user_id, ready)
    table.seats_changed()
    await rematch.start_if_ready(table)  # after a game, partners rotated first if asked


def check_may_seat_bots(table: Table, user_id: int) -> None:
    """Bots are seated and unseated by the table's players, or by its creator (who may
    fill it with bots to watch them play); not by passers-by."""
    if user_id != table.creator and table.seat_of(user_id) is None:
        raise TableError("not_allowed", "only the table's players and its creator seat bots")


async def add_bot(table: Table, user_id: int, seat: int, level: str = "normal") -> None:
    """A bot of ``level`` (easy, normal, hard) takes an empty seat, ready at once."""
    check_may_seat_bots(table, user_id)
    if level not in LEVELS:
        raise TableError("bad_level", f"a bot level is one of {', '.join(LEVELS)}")
    check_between_games(table)
    friend_rooms.check_bot(table, seat)
    table.seating.add_bot(seat, level)
    table.seats_changed()
    await rematch.start_if_ready(table)


async def remove_bot(table: Table, user_id: int, seat: int) -> None:
    check_may_seat_bots(table, user_id)
    check_between_games(table)
    table.seating.remove_bot(seat)
    table.seats_changed()


async def leave(table: Table, user_id: int) -> None:
    """Leaving a running game is an escape (docs/rules.md §11); otherwise just standing
    up."""
    seat = table.seat_of(user_id)
    if seat is None:
        return
    if table.game.alive(seat):
        await table.apply(engine.Escape(seat, now=time.time()))
    await stand(table, user_id)


async def seat_with_bots(
    table: Table, user_id: int, name: str, address: str | None = None, device: str | None = None
) -> None:
    """Play now: the user sits (on their own seat if they have one, else the first free
    one) and bots take every other free seat, ready."""
    check_between_games(table)
    if table.seat_of(user_id) is None:
        free = table.seating.free()
        if free is None:
            raise TableError("seat_taken", "no seat is free")
        await sit(table, user_id, name, free, address, device)
    for other, info in enumerate(table.seats):
        if not info.taken:
            await add_bot(table, user_id, other)


async def stand_in(table: Table, user_id: int, on: bool) -> None:
    """托管 by the player's own choice: a bot plays the seat until the player ends it
    (coming back to the table does not end it, as it ends a stand-in for one away)."""
    seat = table.seat_of(user_id)
    if seat is None:
        raise TableError("not_seated", "sit down first")
    if not table.game.alive(seat):
        raise TableError("not_playing", "a bot plays for you only during your game")
    table.seats[seat].asked_stand_in = on
    table.set_taken_over(seat, on, "asked")
    table.seats_changed()


async def set_pace(table: Table, user_id: int, pace: Pace) -> None:
    """The table's creator sets how long its bots wait before a move, at any time: the pace
    is no rule (``server.table_options``)."""
    if user_id != table.creator:
        raise TableError("not_allowed", "only the table's creator sets its pace")
    if pace != table.pace:
        table.pace = pace
        table.seats_changed()  # listed, and in every snapshot


def check_not_own(table: Table, judge: int | None) -> None:
    """A room owner (``judge``, a user id; None: an admin, who may) judges no table he
    sits at, nor the game he plays in."""
    if judge is not None and (table.seat_of(judge) is not None or judge in table.game.players):
        raise TableError(
            "own_table", "a room owner does not judge his own table or game: ask an admin"
        )


async def kick(
    table: Table, seat: int, penalty: bool, by: str, reason: str, judge: int | None = None
) -> dict[str, Any]:
    """A room owner or an admin (``by``) removes the player on ``seat`` (docs/rules.md
    §11). Between games the player just loses the seat; during one, with ``penalty`` it is
    their escape, without it the game is dissolved as a draw. Returns what happened.
    ``judge``: the room owner's user id (``check_not_own``); None for an admin."""
    check_not_own(table, judge)
    info = table.seats[seat] if seat in range(len(table.seats)) else None
    if info is None or info.user_id is None:
        raise TableError("bad_seat", f"no player on seat {seat}")
    outcome, game_id = "removed", None
    if table.in_game:
        game_id = table.game_id
        if not penalty:
            outcome = "dissolved"
        elif table.game.alive(seat):  # a player already out just leaves
            outcome = "escaped"
    kicked = {"seat": seat, "name": info.name, "outcome": outcome, "by": by}
    table.version += 1
    table.record([Event("kicked", {**kicked, "reason": reason})])
    if outcome == "dissolved":
        await dissolve(table, by, reason)
    elif outcome == "escaped":
        await table.apply(engine.Escape(seat, now=time.time()))
    table.vacate(seat)
    return {**kicked, "user_id": info.user_id, "game_id": game_id}


async def dissolve(table: Table, by: str, reason: str, judge: int | None = None) -> str:
    """End the running game as a draw in which nobody scores (a moderator, ``by``,
    decided); returns the game's id. ``judge`` as for ``kick``."""
    check_not_own(table, judge)
    game_id = table.game_id
    if not table.in_game or game_id is None:
        raise TableError("not_playing", "no game is running at this table")
    table.game.dissolve()
    table.version += 1
    assert table.state is not None and table.state.result is not None
    details = {"game_id": game_id, "by": by, "reason": reason}
    table.record([Event("dissolved", {**details, "result": table.state.result.to_dict()})])
    try:
        await table.persist()  # as for a move: only the table's owner ends its game
    except Exception as error:
        table.lost_if_taken(error)
        log.exception("a dissolved game could not be kept", extra={"table": table.id})
    await table.finish_game()
    return game_id


async def act(table: Table, user_id: int, version: int, action: dict[str, Any]) -> None:
    seat = table.seat_of(user_id)
    if seat is None or not table.in_game:
        raise TableError("not_playing", "only seated players of a running game act")
    if table.seats[seat].taken_over:
        raise TableError("stood_in", "a bot plays for you (托管): end it to play yourself")
    await table.act_as(seat, version, action)
    table.presence.played(user_id, time.time())


async def mark(table: Table, user_id: int, station: str, mark: str | None) -> None:
    """A private mark on a hidden enemy piece (``server.marks``); None clears it."""
    await table.marks.set(table, user_id, station, mark)


async def open_for(table: Table, user_id: int, socket: str, since: int | None) -> dict[str, Any]:
    """A ``socket`` of ``user_id`` opens the table (or again): the ``table`` message it
    gets (``message``), with the events missed since event ``since``, and the number of
    the last update its snapshot shows (``update``: the gateway passes on only later ones)."""
    await friend_rooms.check_open(table, user_id)  # a friend room's own say
    table.flush()  # what was held back (``sure``) goes first, so the snapshot follows it
    await table.connection_changed(user_id, socket, True)
    viewer = table.seat_of(user_id)
    missed = table.game.missed(since)
    number = 0 if table.sent is None else table.sent.number
    return {
        "update": number,
        "message": updates.table_message(table, viewer, missed),
        "marks": await table.marks.message(table, user_id),  # the user's own, for this socket alone
    }


async def close_for(table: Table, user_id: int, socket: str) -> None:
    await table.connection_changed(user_id, socket, False)


async def snapshot(table: Table, viewer: int | None) -> dict[str, Any]:
    if table.private is not None:  # a friend room is opened by its code, never shown here
        raise TableError("no_table", f"no table {table.id!r}")
    return table.snapshot(viewer)


# by name, as ``Table.run`` takes them
COMMANDS: dict[str, Callable[..., Any]] = {
    "sit": sit,
    "swap": swap,
    "stand": stand,
    "ready": ready,
    "add_bot": add_bot,
    "remove_bot": remove_bot,
    "leave": leave,
    "stand_in": stand_in,
    "set_pace": set_pace,
    "seat_with_bots": seat_with_bots,
    "seat_matched": seat_matched,  # quick match (``server.matchmaking``)
    "act": act,
    "mark": mark,
    "kick": kick,
    "dissolve": dissolve,
    "open_for": open_for,
    "close_for": close_for,
    "snapshot": snapshot,
    "join_code": friend_rooms.join,
    "admit": friend_rooms.admit,
    "arrange": friend_rooms.arrange,
    "rematch": rematch.rematch,
}


async def run(table: Table, command: str, args: dict[str, Any]) -> dict[str, Any]:
    """Run one of ``COMMANDS`` with ``args`` (JSON values) in the table's actor; returns its
    result and the table's version after it."""
    handler = COMMANDS.get(command)
    if handler is None:
        raise TableError("bad_command", f"no table command {command!r}")
    if not table.sure():  # it may be another process's table by now: the caller looks again
        raise TableError("moved", "the table may be moving to another server; try again")

    async def execute() -> Any:
        return await handler(table, **args)

    return {"result": await table.call(execute), "version": table.version}
