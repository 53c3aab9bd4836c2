"""Table updates as clients get them: how a table renders them, and how a client applies one.

A ``table`` message carries a whole ``snapshot`` of the table as its receiver may see it. Each
``update`` after it carries the new ``events`` and either a whole ``snapshot`` again (when
seats, phases or games change) or, during play, a ``patch`` on the snapshot the client has:

- ``version`` and ``seq``: the table's version and event number after the update;
- ``game``: the whole game view (``engine.view``) but its pieces, and but its 记牌 counts
  (``tracker``) unless they changed for this viewer (the client keeps the last ones);
- ``pieces``: by station id, the entry of every station that looks different now, or None
  where no piece stands any more;
- ``listing``: the table's lobby listing, only if it changed.

A patch holds new values, never differences of values, so applying it again, or on a snapshot
that already has some of it, does no harm. A table (``server.tables``) renders each update once
for each seat and once for spectators (``render_update``, for those someone watches); the server
passes a socket each update once, in order, after its snapshot (``server.realtime``);
``apply_patch`` is how a client applies one (the web client does the same in ``web/js/api.js``).
Both messages are typed in ``server.outbound`` (``Table``, ``Update``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

import engine
from engine import Event, GameState
from server import messages, outbound
from server.capabilities import capabilities
from server.match_core import SeatDraw

SPECTATORS = "spectators"  # the key of the spectators' rendering of an update


class Shown(Protocol):
    """What rendering reads of a table (``server.tables.Table``)."""

    id: str
    version: int
    rules: dict[str, Any]
    sent: Sent | None
    seat_draw: SeatDraw | None

    @property
    def epoch(self) -> int: ...

    @property
    def seq(self) -> int: ...

    @property
    def game_id(self) -> str | None: ...

    @property
    def state(self) -> GameState | None: ...

    @property
    def last_points(self) -> list[int]: ...

    @property
    def scoring(self) -> dict[str, Any] | None: ...

    @property
    def status(self) -> str: ...

    def listing(self) -> dict[str, Any]: ...

    def may(self, viewer: int | None) -> list[str]: ...

    def bot_commands(self) -> list[str]: ...

    def viewers(self) -> set[int | None]: ...

    def players_by_user(self) -> dict[str, int]: ...


@dataclass
class Sent:
    """What a table's last update showed: the next update, if it is a patch, is a change
    from this. Updates are numbered per table, so that a gateway can tell which it has."""

    number: int
    game_id: str | None
    state: GameState | None
    listing: dict[str, Any]


def viewer_key(viewer: int | None) -> str:
    """The key of ``viewer``'s rendering in an update's ``views``."""
    return SPECTATORS if viewer is None else str(viewer)


def snapshot(
    table: Shown, viewer: int | None, listing: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Everything a viewer needs to draw the table now (``listing``: the table's, if made
    already; it is the same for every viewer)."""
    finished = table.status == "finished"
    shown = listing or table.listing()
    return {
        **shown,
        "capabilities": capabilities(shown["variant"]),
        "version": table.version,
        "seq": table.seq,
        "you": viewer,
        "game_id": table.game_id,
        "game": None if table.state is None else engine.view(table.state, viewer),
        "points": table.last_points if finished else None,
        "scoring": table.scoring if finished else None,
        "rules": table.rules,
        "may": table.may(viewer),
        "creator_may": table.bot_commands(),
        # quick match's seat draw (验证座位): its seed once the game is over
        "seat_draw": None if table.seat_draw is None else table.seat_draw.shown(finished),
    }


def table_message(
    table: Shown, viewer: int | None, missed: list[tuple[int, Event]]
) -> outbound.Table:
    """The ``table`` message for a socket of ``viewer`` that opens the table, with the
    numbered events it ``missed``."""
    return outbound.Table(
        type="table",
        table=table.id,
        epoch=table.epoch,
        snapshot=snapshot(table, viewer),
        events=shown_events(missed, viewer),
    )


def render_update(
    table: Shown, events: list[tuple[int, Event]], seats_changed: bool
) -> tuple[Sent, messages.TableUpdate]:
    """The update after a command that made ``events`` (and changed the seats, or not): what
    it shows, which the next update patches, and the broker's message with its text for each
    viewer someone watches: during play a patch on the previous update, else whole snapshots."""
    listing = table.listing()
    viewers = table.viewers()
    before = table.sent
    changes = None
    if (
        events
        and not seats_changed
        and before is not None
        and before.state is not None
        and table.state is not None
        and before.game_id == table.game_id
    ):
        changes = engine.view_changes(before.state, table.state, viewers)
    number = before.number + 1 if before else 1

    def render(viewer: int | None) -> str:
        # a literal, typed: calling the TypedDict costs twice as much, once for every viewer
        message: outbound.Update = {
            "type": "update",
            "table": table.id,
            "epoch": table.epoch,
            "version": table.version,
            "events": shown_events(events, viewer),
        }
        if changes is None:
            message["snapshot"] = snapshot(table, viewer, listing)
        else:
            assert before is not None
            patch = message["patch"] = {
                "version": table.version,
                "seq": table.seq,
                **changes[viewer],
            }
            if listing != before.listing:
                patch["listing"] = listing
        return json_text(message)

    message: messages.TableUpdate = {
        "kind": "update",
        "table": table.id,
        "epoch": table.epoch,
        "update": number,
        "patch": changes is not None,
        "seq": table.seq,
        "players": table.players_by_user(),
        "views": {viewer_key(viewer): render(viewer) for viewer in viewers},
    }
    return Sent(number, table.game_id, table.state, listing), message


def json_text(message: Mapping[str, Any]) -> str:
    """A message as JSON text (orjson: about ten times as fast as the standard library)."""
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


def shown_events(events: list[tuple[int, Event]], viewer: int | None) -> list[dict[str, Any]]:
    """The numbered events as ``viewer`` may see them (an event hidden from it left out)."""
    return [
        {"seq": seq, **seen}
        for seq, event in events
        if (seen := event.for_viewer(viewer)) is not None
    ]


def apply_patch(snapshot: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """The snapshot after ``patch`` (a new one; ``snapshot`` is left as it was)."""
    game = snapshot["game"]
    pieces = {piece["station"]: piece for piece in game["pieces"]}
    for station, piece in patch["pieces"].items():
        if piece is None:
            pieces.pop(station, None)
        else:
            pieces[station] = piece
    order = engine.get_board(game["board"]).station
    return {
        **snapshot,
        **patch.get("listing", {}),
        "version": patch["version"],
        "seq": patch["seq"],
        "game": {
            "tracker": game.get("tracker"),  # a patch has them only when they changed
            **patch["game"],
            "pieces": sorted(pieces.values(), key=lambda piece: order(piece["station"]).index),
        },
    }
