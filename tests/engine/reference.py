"""A slow, direct reading of docs/rules.md §3 to check the fast bitset move generator against.

It walks the board's public data (edges and straight lines) station by station and shares no
code with ``engine.movement``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

from engine import Board, MovementRules
from engine.variants import STANDARD_MOVEMENT

IMMOBILE = {"landmine", "flag", "fortress"}
FLYERS = {"engineer", "missile"}


def reference_destinations(
    board: Board,
    pieces: Mapping[str, tuple[int, str]],
    origin: str,
    teams: tuple[int, ...],
    movement: MovementRules = STANDARD_MOVEMENT,
) -> set[str]:
    seat, rank = pieces[origin]
    if rank in IMMOBILE or (movement.hq_lock and board.station(origin).kind == "hq"):
        return set()
    reach = set(board.neighbours(origin))
    if board.station(origin).rail:
        if rank in FLYERS:
            queue, seen = deque([origin]), {origin}
            while queue:
                here = queue.popleft()
                for nxt in board.rail_neighbours(here):
                    if nxt in seen:
                        continue
                    seen.add(nxt)
                    reach.add(nxt)
                    if nxt not in pieces:
                        queue.append(nxt)
        else:
            for line in board.lines:
                if origin not in line:
                    continue
                p = line.index(origin)
                for direction in (line[p + 1 :], line[:p][::-1]):
                    for sid in direction:
                        reach.add(sid)
                        if sid in pieces:
                            break
    legal = set()
    for sid in reach:
        other = pieces.get(sid)
        if other is None or (teams[other[0]] != teams[seat] and board.station(sid).kind != "camp"):
            legal.add(sid)
    return legal
