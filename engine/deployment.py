"""Deployment 布阵: layout validation and the automatic layout generator (RULES.md §5).

A layout is ``{station id: rank key}`` for one seat's arm. Validation returns every problem at
once, each with a stable code and the stations involved, so that a client can highlight them.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from engine.board import Board, StationKind
from engine.errors import MalformedInput
from engine.pieces import CHINESE_NAME, Rank
from engine.variants import Variant, get_variant

Layout = dict[str, Rank]

_RANK_KEYS = frozenset(r.value for r in Rank)
LANDMINE_ROWS = frozenset({5, 6})  # landmines only in the last two rows
FRONT_ROW = 1


class ProblemCode(StrEnum):
    """Why a layout is illegal; the value is the stable key sent to clients."""

    UNKNOWN_STATION = "unknown_station"
    OUTSIDE_OWN_ARM = "outside_own_arm"
    PIECE_IN_CAMP = "piece_in_camp"
    UNKNOWN_RANK = "unknown_rank"
    TOO_MANY_PIECES = "too_many_pieces"
    MISSING_PIECES = "missing_pieces"
    EMPTY_STATION = "empty_station"
    FLAG_NOT_IN_HQ = "flag_not_in_hq"
    LANDMINE_OUTSIDE_BACK_ROWS = "landmine_outside_back_rows"
    BOMB_IN_FRONT_ROW = "bomb_in_front_row"


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem of a layout: its code, the stations involved and a readable detail."""

    code: ProblemCode
    stations: tuple[str, ...]
    detail: str


def deploy_stations(board: Board, seat: int) -> tuple[str, ...]:
    """The stations a seat fills when deploying: its arm without the camps."""
    return tuple(s for s in board.arm(seat) if board.station(s).kind != StationKind.CAMP)


_MISPLACED = {
    Rank.FLAG: ProblemCode.FLAG_NOT_IN_HQ,
    Rank.LANDMINE: ProblemCode.LANDMINE_OUTSIDE_BACK_ROWS,
    Rank.BOMB: ProblemCode.BOMB_IN_FRONT_ROW,
}


def _placement_allowed(variant: Variant, rank: Rank, row: int, kind: StationKind) -> bool:
    """Whether ``rank`` may be deployed on a station of the own arm (row, kind)."""
    if kind == StationKind.CAMP:
        return False
    if rank == Rank.FLAG:
        return kind == StationKind.HQ
    if rank == Rank.LANDMINE:
        return row in LANDMINE_ROWS
    if rank == Rank.BOMB:
        return row != FRONT_ROW or variant.rules.bombs_in_front_row
    return True


def layout_problems(variant: str, seat: int, layout: Mapping[str, str]) -> list[Problem]:
    """Every problem of ``layout`` for ``seat`` in ``variant`` ([] when the layout is legal)."""
    v = get_variant(variant)
    board = v.board
    if seat not in v.seats:
        raise MalformedInput(f"no seat {seat!r} in {variant}")
    found: dict[ProblemCode, list[str]] = {}
    details: dict[ProblemCode, str] = {}

    def report(code: ProblemCode, sid: str, detail: str = "") -> None:
        found.setdefault(code, []).append(sid)
        if detail:
            details[code] = detail

    placed: dict[str, Rank] = {}
    for sid, key in layout.items():
        if sid not in board:
            report(ProblemCode.UNKNOWN_STATION, sid, f"{sid!r} is not a station")
            continue
        station = board.station(sid)
        if station.seat != seat:
            report(ProblemCode.OUTSIDE_OWN_ARM, sid, f"pieces go on seat {seat}'s arm")
        elif station.kind == StationKind.CAMP:
            report(ProblemCode.PIECE_IN_CAMP, sid, "camps 行营 stay empty")
        try:
            rank = Rank(key)
        except ValueError:
            report(ProblemCode.UNKNOWN_RANK, sid, f"{key!r} is not a rank")
            continue
        placed[sid] = rank
        own_post = station.seat == seat and station.kind != StationKind.CAMP
        if own_post and not _placement_allowed(v, rank, station.row or 0, station.kind):
            report(_MISPLACED[rank], sid)

    counts = Counter(placed.values())
    extra, missing = [], []
    for rank in sorted(set(counts) | set(v.army), key=list(Rank).index):
        have, want = counts[rank], v.army.get(rank, 0)
        if have > want:
            extra.append(f"{have} {CHINESE_NAME[rank]} {rank.value} (the army has {want})")
            for sid in sorted(s for s, r in placed.items() if r == rank):
                report(ProblemCode.TOO_MANY_PIECES, sid)
        elif have < want:
            missing.append(f"{want - have} {CHINESE_NAME[rank]} {rank.value}")
    if extra:
        details[ProblemCode.TOO_MANY_PIECES] = "too many: " + ", ".join(extra)
    if missing:
        found[ProblemCode.MISSING_PIECES] = []
        details[ProblemCode.MISSING_PIECES] = "missing: " + ", ".join(missing)
    for sid in deploy_stations(board, seat):
        if sid not in layout:
            report(ProblemCode.EMPTY_STATION, sid)

    default_detail = {
        ProblemCode.EMPTY_STATION: "every station outside the camps holds a piece",
        ProblemCode.FLAG_NOT_IN_HQ: "the flag 军旗 stands in an HQ 大本营",
        ProblemCode.LANDMINE_OUTSIDE_BACK_ROWS: "landmines 地雷 go in the last two rows",
        ProblemCode.BOMB_IN_FRONT_ROW: "bombs 炸弹 may not stand in the front row",
    }
    return [
        Problem(code, tuple(found[code]), details.get(code) or default_detail[code])
        for code in ProblemCode
        if code in found
    ]


def deployment_problems(variant: str, seat: int, layout: Mapping[str, str]) -> list[str]:
    """The codes of every problem of ``layout`` (``[]`` when it is legal)."""
    return [p.code.value for p in layout_problems(variant, seat, layout)]


# --- automatic layout 自动布局 -------------------------------------------------------------------

# How much each rank likes each local (row, col); 0 means never. The flag, landmines and bombs are
# placed first (they have the hard constraints), then officers from the strongest down, then the
# rest. Weights make a sensible shape: small pieces screen the front, the big ones sit on the side
# rails ready to strike, engineers wait safely in the back, the flag's HQ is ringed with mines.
_PLACEMENT_ORDER = (
    Rank.FLAG,
    Rank.LANDMINE,
    Rank.BOMB,
    Rank.FIELD_MARSHAL,
    Rank.GENERAL,
    Rank.MAJOR_GENERAL,
    Rank.ENGINEER,
    Rank.BRIGADIER,
    Rank.COLONEL,
    Rank.MAJOR,
    Rank.CAPTAIN,
    Rank.LIEUTENANT,
)


def _weight(rank: Rank, row: int, col: int, flag_col: int) -> float:
    hq = row == 6 and col in (2, 4)
    side = col in (1, 5)
    if rank == Rank.FLAG:
        return 5.0 if col == flag_col else 1.0
    if rank == Rank.LANDMINE:
        guards = {(5, flag_col), (6, flag_col - 1), (6, flag_col + 1)}
        return 12.0 if (row, col) in guards else 3.0 if hq else 1.0
    if rank == Rank.BOMB:
        # row 1 only where bombs may stand there at all (三国), and then reluctantly
        return {1: 0.2, 2: 2.0, 3: 4.0, 4: 3.0, 5: 2.0, 6: 0.3}[row] * (0.1 if hq else 1.0)
    if rank in (Rank.FIELD_MARSHAL, Rank.GENERAL, Rank.MAJOR_GENERAL):
        by_row = {1: 1.0, 2: 4.0, 3: 4.0, 4: 3.0, 5: 1.0, 6: 0.2}[row]
        return by_row * (2.0 if side else 1.0) * (0.05 if hq else 1.0)
    if rank == Rank.ENGINEER:
        return {1: 0.5, 2: 1.0, 3: 1.0, 4: 2.0, 5: 4.0, 6: 3.0}[row] * (0.1 if hq else 1.0)
    if rank in (Rank.CAPTAIN, Rank.LIEUTENANT):
        return {1: 5.0, 2: 2.0, 3: 1.0, 4: 1.0, 5: 1.0, 6: 1.0}[row] * (4.0 if hq else 1.0)
    return {1: 2.0, 2: 2.0, 3: 2.0, 4: 2.0, 5: 1.5, 6: 1.0}[row] * (0.5 if hq else 1.0)


def auto_layout(
    variant: str,
    seat: int,
    seed: int | str,
    partial: Mapping[str, str] | None = None,
) -> Layout:
    """A legal, sensible layout for ``seat`` drawn from ``seed`` (same seed, same layout).

    With ``partial`` (a layout being edited, possibly illegal or incomplete) the pieces that
    are placed legally are kept where they are and the rest are placed around them (自动布局 at
    the deploy deadline).
    """
    v = get_variant(variant)
    board = v.board
    rng = random.Random(f"{variant}/{seat}/{seed}")
    free = {sid: board.station(sid) for sid in deploy_stations(board, seat)}
    pool = Counter(v.army)
    layout: Layout = {}
    for sid, key in (partial or {}).items():
        station = free.get(sid)
        if station is None or key not in _RANK_KEYS:
            continue
        rank = Rank(key)
        if pool[rank] > 0 and _placement_allowed(v, rank, station.row or 0, station.kind):
            layout[sid] = rank
            pool[rank] -= 1
    for sid in layout:
        del free[sid]

    flags = [sid for sid, r in layout.items() if r == Rank.FLAG]
    flag_col = board.station(flags[0]).col if flags else rng.choice((2, 4))
    assert flag_col is not None
    order = sorted(pool, key=lambda r: _PLACEMENT_ORDER.index(r) if r in _PLACEMENT_ORDER else 99)
    for rank in order:
        for _ in range(pool.pop(rank, 0)):
            options = [
                s for s, st in free.items() if _placement_allowed(v, rank, st.row or 0, st.kind)
            ]
            if not options:
                # Kept pieces fill every station this rank may use: move one that is placed
                # later in the order (so it finds a station of its own afterwards).
                later = set(order[order.index(rank) + 1 :])
                options = [
                    s
                    for s, r in layout.items()
                    if r in later
                    and _placement_allowed(
                        v, rank, board.station(s).row or 0, board.station(s).kind
                    )
                ]
                evicted = rng.choice(sorted(options))
                pool[layout.pop(evicted)] += 1
                free[evicted] = board.station(evicted)
                options = [evicted]
            weights = [_weight(rank, free[s].row or 0, free[s].col or 0, flag_col) for s in options]
            sid = rng.choices(options, weights=weights)[0]
            layout[sid] = rank
            del free[sid]
    return {sid: layout[sid] for sid in board.arm(seat) if sid in layout}
