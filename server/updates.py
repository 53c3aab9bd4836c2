"""Table updates as clients get them, and how a client applies one.

A ``table`` message carries a whole ``snapshot`` of the table as its receiver may see it. Each
``update`` after it carries the new ``events`` and either a whole ``snapshot`` again (when
seats, phases or games change) or, during play, a ``patch`` on the snapshot the client has:

- ``version`` and ``seq``: the table's version and event number after the update;
- ``game``: the whole game view (``engine.view``) but its pieces;
- ``pieces``: by station id, the entry of every station that looks different now, or None
  where no piece stands any more;
- ``listing``: the table's lobby listing, only if it changed.

A patch holds new values, never differences of values, so applying it again, or on a snapshot
that already has some of it, does no harm. The server passes a socket each update once, in
order, after its snapshot (``server.realtime``); ``apply_patch`` is how a client applies one
(the web client does the same in ``web/js/api.js``).
"""

from __future__ import annotations

from typing import Any

import engine


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
            **patch["game"],
            "pieces": sorted(pieces.values(), key=lambda piece: order(piece["station"]).index),
        },
    }
