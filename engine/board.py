"""Boards as data: stations, road and rail edges, straight rail lines (docs/rules.md §2).

Every board is built from the same arm (docs/rules.md §2.2) plus a centre. The rail network is
exactly the union of the straight rail lines' consecutive pairs, so a board is defined by its arms,
its centre stations and its lines; everything else is derived and checked here.

Station indices double as bit positions in the integer masks the movement code uses. They follow
an order in which as many straight lines as possible run monotonically (see ``_monotone_order``),
so that the nearest blocker on a rail ray is a single bit scan.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from engine.errors import MalformedInput


class StationKind(StrEnum):
    """What a station is; the value is the stable key sent to clients."""

    POST = "post"  # ordinary station 兵站
    CAMP = "camp"  # 行营: its occupant cannot be attacked
    HQ = "hq"  # 大本营: whoever enters never moves again
    CENTRE = "centre"  # 九宫 station


@dataclass(frozen=True, slots=True)
class Station:
    """One station. ``row``/``col`` are the owner's local coordinates (None in the centre)."""

    id: str
    index: int
    kind: StationKind
    seat: int | None
    row: int | None
    col: int | None
    rail: bool
    xy: tuple[float, float]


ARM_ROWS = 6
ARM_COLS = 5
ARM_CAMPS = frozenset({(2, 2), (2, 4), (3, 3), (4, 2), (4, 4)})
ARM_HQS = frozenset({(6, 2), (6, 4)})


def arm_station_id(seat: int, row: int, col: int) -> str:
    """The public id of an arm station, e.g. ``arm_station_id(0, 6, 2) == "0:62"``."""
    return f"{seat}:{row}{col}"


def _is_arm_rail(row: int, col: int) -> bool:
    return row <= 5 and (row in (1, 5) or col in (1, 5))


def _arm_kind(row: int, col: int) -> StationKind:
    if (row, col) in ARM_CAMPS:
        return StationKind.CAMP
    if (row, col) in ARM_HQS:
        return StationKind.HQ
    return StationKind.POST


def _arm_road_pairs() -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Road edges of one arm in local coordinates: orthogonal non-rail pairs and camp diagonals."""
    pairs: set[tuple[tuple[int, int], tuple[int, int]]] = set()
    for r in range(1, ARM_ROWS + 1):
        for c in range(1, ARM_COLS + 1):
            for nr, nc in ((r, c + 1), (r + 1, c)):
                inside = nr <= ARM_ROWS and nc <= ARM_COLS
                if inside and not (_is_arm_rail(r, c) and _is_arm_rail(nr, nc)):
                    pairs.add(((r, c), (nr, nc)))
    for r, c in ARM_CAMPS:
        for dr in (-1, 1):
            for dc in (-1, 1):
                a, b = (r, c), (r + dr, c + dc)
                pairs.add((min(a, b), max(a, b)))
    return sorted(pairs)


class Board:
    """A board: stations (by id and index), road and rail edges, straight rail lines."""

    def __init__(
        self,
        key: str,
        seats: int,
        stations: Sequence[tuple[str, StationKind, int | None, int | None, int | None, bool]],
        xy: dict[str, tuple[float, float]],
        road_edges: Iterable[tuple[str, str]],
        lines: Sequence[Sequence[str]],
    ) -> None:
        self.key = key
        self.seats: tuple[int, ...] = tuple(range(seats))
        ids = [s[0] for s in stations]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{key}: duplicate station ids")
        natural = sorted(ids, key=lambda sid: (xy[sid][1], xy[sid][0]))
        order = _monotone_order(natural, lines)
        index = {sid: i for i, sid in enumerate(order)}
        by_id = {s[0]: s for s in stations}
        self._stations: dict[str, Station] = {}
        for sid in order:
            _, kind, seat, row, col, rail = by_id[sid]
            self._stations[sid] = Station(sid, index[sid], kind, seat, row, col, rail, xy[sid])
        self.stations: tuple[str, ...] = tuple(order)
        self.lines: tuple[tuple[str, ...], ...] = tuple(tuple(line) for line in lines)
        pairs = {tuple(sorted(p)) for line in self.lines for p in itertools.pairwise(line)}
        self.rail_edges: tuple[tuple[str, str], ...] = tuple(sorted((a, b) for a, b in pairs))
        self.road_edges: tuple[tuple[str, str], ...] = tuple(
            sorted(tuple(sorted(e)) for e in road_edges)  # type: ignore[misc]
        )
        every: dict[str, set[str]] = {sid: set() for sid in order}
        rail_only: dict[str, set[str]] = {sid: set() for sid in order}
        for a, b in self.road_edges + self.rail_edges:
            every[a].add(b)
            every[b].add(a)
        for a, b in self.rail_edges:
            rail_only[a].add(b)
            rail_only[b].add(a)
        self._neighbours = {k: frozenset(v) for k, v in every.items()}
        self._rail_neighbours = {k: frozenset(v) for k, v in rail_only.items()}
        self._check()

    def _check(self) -> None:
        for a, b in self.rail_edges:
            if not (self._stations[a].rail and self._stations[b].rail):
                raise ValueError(f"{self.key}: rail edge {a}-{b} touches a non-rail station")
        if set(self.rail_edges) & set(self.road_edges):
            raise ValueError(f"{self.key}: an edge is both road and rail")

    def __repr__(self) -> str:
        return f"<Board {self.key}: {len(self.stations)} stations>"

    def station(self, sid: str) -> Station:
        """The station with public id ``sid``; MalformedInput if there is none."""
        try:
            return self._stations[sid]
        except KeyError:
            raise MalformedInput(f"no station {sid!r} on the {self.key} board") from None

    def __contains__(self, sid: object) -> bool:
        return sid in self._stations

    def arm(self, seat: int) -> tuple[str, ...]:
        """The 30 stations of a seat's arm, ordered by local row then column."""
        if seat not in self.seats:
            raise MalformedInput(f"no seat {seat} on the {self.key} board")
        return tuple(
            arm_station_id(seat, r, c)
            for r in range(1, ARM_ROWS + 1)
            for c in range(1, ARM_COLS + 1)
        )

    def neighbours(self, sid: str) -> frozenset[str]:
        """Stations one step away along any edge (road or rail)."""
        return self._neighbours[self.station(sid).id]

    def rail_neighbours(self, sid: str) -> frozenset[str]:
        """Stations one rail edge away."""
        return self._rail_neighbours[self.station(sid).id]


def _monotone_order(natural: Sequence[str], lines: Sequence[Sequence[str]]) -> list[str]:
    """A total order of the stations in which as many lines as possible are monotone.

    Lines are taken longest first; each is oriented (trying the natural direction first) so that
    the ordering constraints stay acyclic, or skipped when neither orientation fits. The order is
    a topological sort that otherwise keeps the natural (reading) order.
    """
    rank = {sid: i for i, sid in enumerate(natural)}
    succ: dict[str, set[str]] = {sid: set() for sid in natural}

    def reaches(start: str, goal: str) -> bool:
        stack, seen = [start], {start}
        while stack:
            node = stack.pop()
            if node == goal:
                return True
            for nxt in succ[node] - seen:
                seen.add(nxt)
                stack.append(nxt)
        return False

    for line in sorted(lines, key=len, reverse=True):
        forward = list(line) if rank[line[0]] < rank[line[-1]] else list(reversed(line))
        for candidate in (forward, forward[::-1]):
            added = []
            for u, v in itertools.pairwise(candidate):
                if v in succ[u]:
                    continue
                if reaches(v, u):
                    break
                succ[u].add(v)
                added.append((u, v))
            else:
                break
            for u, v in added:
                succ[u].discard(v)
    indegree = dict.fromkeys(natural, 0)
    for targets in succ.values():
        for v in targets:
            indegree[v] += 1
    ready = [(rank[s], s) for s in natural if indegree[s] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, node = heapq.heappop(ready)
        order.append(node)
        for v in succ[node]:
            indegree[v] -= 1
            if indegree[v] == 0:
                heapq.heappush(ready, (rank[v], v))
    return order


# --- board builders ------------------------------------------------------------------------------

LocalToXY = Callable[[int, int], tuple[float, float]]


class _Builder:
    def __init__(self, key: str, seats: int) -> None:
        self.key = key
        self.seats = seats
        self.stations: list[tuple[str, StationKind, int | None, int | None, int | None, bool]] = []
        self.xy: dict[str, tuple[float, float]] = {}
        self.road: list[tuple[str, str]] = []
        self.lines: list[list[str]] = []

    def arm(self, seat: int, to_xy: LocalToXY) -> None:
        for r in range(1, ARM_ROWS + 1):
            for c in range(1, ARM_COLS + 1):
                sid = arm_station_id(seat, r, c)
                self.stations.append((sid, _arm_kind(r, c), seat, r, c, _is_arm_rail(r, c)))
                x, y = to_xy(r, c)
                self.xy[sid] = (round(x, 3) + 0.0, round(y, 3) + 0.0)
        for (r1, c1), (r2, c2) in _arm_road_pairs():
            self.road.append((arm_station_id(seat, r1, c1), arm_station_id(seat, r2, c2)))
        self.lines.append([arm_station_id(seat, 1, c) for c in range(1, 6)])
        self.lines.append([arm_station_id(seat, 5, c) for c in range(1, 6)])

    def centre(self, sid: str, xy: tuple[float, float]) -> None:
        self.stations.append((sid, StationKind.CENTRE, None, None, None, True))
        self.xy[sid] = (round(xy[0], 3) + 0.0, round(xy[1], 3) + 0.0)

    def build(self) -> Board:
        return Board(self.key, self.seats, self.stations, self.xy, self.road, self.lines)


def _column(seat: int, col: int, rows: Iterable[int]) -> list[str]:
    return [arm_station_id(seat, r, col) for r in rows]


FRONTWARD = range(5, 0, -1)  # rows 5 → 1, towards the front
BACKWARD = range(1, 6)  # rows 1 → 5, away from the front


def _build_siguo() -> Board:
    """四国: four arms clockwise (S, W, N, E) around a 3×3 rail centre; docs/rules.md §2.3."""
    b = _Builder("siguo", 4)
    to_world: list[LocalToXY] = [
        lambda r, c: (5 + c, 10 + r),
        lambda r, c: (6 - r, 5 + c),
        lambda r, c: (11 - c, 6 - r),
        lambda r, c: (10 + r, 11 - c),
    ]
    for seat in range(4):
        b.arm(seat, to_world[seat])
    for r in range(1, 4):
        for c in range(1, 4):
            b.centre(f"c:{r}{c}", (4 + 2 * c, 4 + 2 * r))
    b.lines += [
        _column(0, 1, FRONTWARD) + ["c:31", "c:21", "c:11"] + _column(2, 5, BACKWARD),
        _column(0, 5, FRONTWARD) + ["c:33", "c:23", "c:13"] + _column(2, 1, BACKWARD),
        _column(1, 1, FRONTWARD) + ["c:11", "c:12", "c:13"] + _column(3, 5, BACKWARD),
        _column(1, 5, FRONTWARD) + ["c:31", "c:32", "c:33"] + _column(3, 1, BACKWARD),
        ["0:13", "c:32", "c:22", "c:12", "2:13"],
        ["1:13", "c:21", "c:22", "c:23", "3:13"],
    ]
    for seat in range(4):  # arcs 弧形铁路: seat i's column 1 runs on into seat i+1's column 5
        b.lines.append(_column(seat, 1, FRONTWARD) + _column((seat + 1) % 4, 5, BACKWARD))
    return b.build()


def _build_liangguo() -> Board:
    """二人: two arms facing each other across the mountain line; docs/rules.md §2.4."""
    b = _Builder("liangguo", 2)
    b.arm(0, lambda r, c: (c - 1, 6 + r))
    b.arm(1, lambda r, c: (5 - c, 6 - r))
    b.lines += [
        _column(0, 1, FRONTWARD) + _column(1, 5, BACKWARD),
        _column(0, 5, FRONTWARD) + _column(1, 1, BACKWARD),
        ["0:13", "1:13"],
    ]
    return b.build()


def _build_sanguo() -> Board:
    """三国: three arms at 120° around a hexagonal 7-station centre; docs/rules.md §2.5."""
    b = _Builder("sanguo", 3)
    front = 3.5  # distance from the hub to the front rows, in arm units

    def rotated(x: float, y: float, seat: int) -> tuple[float, float]:
        # Seat 0 sits south; seats follow clockwise on screen (y grows downwards).
        a = math.radians(120 * seat)
        return (x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a))

    for seat in range(3):
        b.arm(seat, lambda r, c, s=seat: rotated(c - 3, front - 1 + r, s))  # type: ignore[misc]
    b.centre("c:h", (0.0, 0.0))
    for seat in range(3):
        b.centre(f"c:f{seat}", rotated(0.0, 2.0, seat))
        b.centre(f"c:k{seat}", rotated(-2.598, 1.5, seat))  # between seat i and i+1, radius 3
    for i in range(3):
        prev, nxt = (i - 1) % 3, (i + 1) % 3
        b.lines += [
            _column(i, 1, FRONTWARD) + _column(nxt, 5, BACKWARD),  # arc
            _column(i, 1, FRONTWARD) + [f"c:k{i}"],
            _column(i, 5, FRONTWARD) + [f"c:k{prev}"],
            [f"c:k{i}", f"c:f{i}", f"c:k{prev}"],  # ring side in front of seat i
            [f"{i}:13", f"c:f{i}", "c:h"],  # spoke
        ]
    return b.build()


_BUILDERS: dict[str, Callable[[], Board]] = {
    "siguo": _build_siguo,
    "liangguo": _build_liangguo,
    "sanguo": _build_sanguo,
}
BOARD_KEYS = tuple(_BUILDERS)


@cache
def get_board(key: str) -> Board:
    """The board ``"siguo"``, ``"liangguo"`` or ``"sanguo"`` (built once, then shared)."""
    try:
        builder = _BUILDERS[key]
    except KeyError:
        raise MalformedInput(f"unknown board {key!r}; expected one of {BOARD_KEYS}") from None
    return builder()
