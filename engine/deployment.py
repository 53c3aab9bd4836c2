"""Deployment 布阵: layout validation and the automatic layout generator (docs/rules.md §5).

A layout is ``{station id: rank key}`` for one seat's arm (a dealt piece's colour may be chosen
with ``rank/army``). Validation returns every problem at once, each with a stable code and the
stations involved, so that a client can highlight them.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from engine.board import Board, Station, StationKind
from engine.errors import MalformedInput
from engine.pieces import CHINESE_NAME, Piece, Rank, piece_of
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
    COLOUR_NOT_IN_HAND = "colour_not_in_hand"


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem of a layout: its code, the stations involved and a readable detail."""

    code: ProblemCode
    stations: tuple[str, ...]
    detail: str


def deploy_stations(board: Board, seat: int, banker: bool = False) -> tuple[str, ...]:
    """The stations a seat fills when deploying: its arm without the camps, or (三打一 banker)
    its whole arm and the 九宫 centre."""
    if banker:
        centre = tuple(s for s in board.stations if board.station(s).seat is None)
        return board.arm(seat) + centre
    return tuple(s for s in board.arm(seat) if board.station(s).kind != StationKind.CAMP)


_MISPLACED = {
    Rank.FLAG: ProblemCode.FLAG_NOT_IN_HQ,
    Rank.LANDMINE: ProblemCode.LANDMINE_OUTSIDE_BACK_ROWS,
    Rank.BOMB: ProblemCode.BOMB_IN_FRONT_ROW,
}
MINE_FREE_ROWS = 5  # docs/rules.md §9.2 step 3: with n > 5 landmines, n - 5 may stand in row 4


def split_key(value: str) -> tuple[Rank, int | None]:
    """A layout value: a rank key, or ``rank/army`` to choose a dealt piece's colour."""
    rank, _, army = value.partition("/")
    if army and not army.isdigit():
        raise ValueError(value)
    return Rank(rank), int(army) if army else None


@dataclass(frozen=True, slots=True)
class _Plan:
    """What one seat deploys and where (docs/rules.md §5, §9.2 step 3, §9.3 step 5)."""

    variant: Variant
    seat: int
    stations: tuple[str, ...]
    army: Counter[Rank]  # as dealt: flags not yet turned into 军长
    colours: dict[Rank, list[int]] | None  # dealt colours by rank, None: the seat's own army
    banker: bool
    mines_in_row4: int  # how many landmines may stand in row 4

    def allows(self, rank: Rank, station: Station) -> bool:
        """Whether ``rank`` may stand on ``station`` (the row-4 landmine count aside)."""
        if station.id not in self.stations and not (self.banker and station.seat is None):
            return False
        if rank == Rank.FLAG:
            return station.kind == StationKind.HQ
        if rank == Rank.LANDMINE:
            return (
                self.banker
                or station.row in LANDMINE_ROWS
                or (station.row == 4 and self.mines_in_row4 > 0)
            )
        if rank == Rank.BOMB:
            return self.banker or station.row != FRONT_ROW or self.variant.rules.bombs_in_front_row
        return True

    def flags_kept(self, placed: int) -> int:
        """How many flags the layout keeps: with dealt flags, one or two (the rest become 军长)."""
        dealt = self.army[Rank.FLAG]
        if not self.variant.rules.dealt_flags or dealt <= 1:
            return dealt
        return max(1, min(placed, 2))

    def final_army(self, flags_placed: int) -> Counter[Rank]:
        army = Counter(self.army)
        kept = self.flags_kept(flags_placed)
        army[Rank.GENERAL] += army[Rank.FLAG] - kept
        army[Rank.FLAG] = kept
        return +army


def _plan(
    v: Variant, seat: int, hand: Sequence[tuple[Rank, int | None]] | None, banker: bool
) -> _Plan:
    if seat not in v.seats:
        raise MalformedInput(f"no seat {seat!r} in {v.key}")
    colours: dict[Rank, list[int]] | None = None
    if hand is None:
        army = Counter(v.army)
    else:
        army = Counter(rank for rank, _ in hand)
        colours = {}
        for rank, colour in sorted(hand, key=lambda p: (p[0].value, -1 if p[1] is None else p[1])):
            colours.setdefault(rank, []).append(seat if colour is None else colour)
    mines = army[Rank.LANDMINE]
    row4 = max(0, mines - MINE_FREE_ROWS) if v.rules.extra_mines_row4 and not banker else 0
    return _Plan(v, seat, deploy_stations(v.board, seat, banker), army, colours, banker, row4)


def layout_problems(
    variant: str,
    seat: int,
    layout: Mapping[str, str],
    *,
    hand: Sequence[tuple[Rank, int | None]] | None = None,
    banker: bool = False,
) -> list[Problem]:
    """Every problem of ``layout`` for ``seat`` in ``variant`` ([] when the layout is legal).

    ``hand`` is a dealt hand of ``(rank, army colour)`` pieces (乱战, 三打一) instead of the
    standard army; ``banker`` deploys the 三打一 banker over the whole arm and the centre.
    """
    plan = _plan(get_variant(variant), seat, hand, banker)
    found = _Found()
    placed = _placement_problems(plan, layout, found)
    _count_problems(plan, placed, found)
    for sid in plan.stations:
        if sid not in layout:
            found.report(ProblemCode.EMPTY_STATION, sid)
    for sid in _colour_problems(plan, placed):
        found.report(ProblemCode.COLOUR_NOT_IN_HAND, sid)
    default_detail = {
        ProblemCode.EMPTY_STATION: "every station to deploy on holds a piece",
        ProblemCode.FLAG_NOT_IN_HQ: "the flag 军旗 stands in an HQ 大本营",
        ProblemCode.LANDMINE_OUTSIDE_BACK_ROWS: "landmines 地雷 go in the last two rows"
        + (f" (and {plan.mines_in_row4} in row 4)" if plan.mines_in_row4 else ""),
        ProblemCode.BOMB_IN_FRONT_ROW: "bombs 炸弹 may not stand in the front row",
        ProblemCode.COLOUR_NOT_IN_HAND: "no piece of that rank and colour in the hand",
    }
    return [
        Problem(code, tuple(stations), found.details.get(code) or default_detail[code])
        for code in ProblemCode
        if (stations := found.stations.get(code)) is not None
    ]


class _Found:
    """The problems found so far: the stations of each code, and its detail."""

    def __init__(self) -> None:
        self.stations: dict[ProblemCode, list[str]] = {}
        self.details: dict[ProblemCode, str] = {}

    def report(self, code: ProblemCode, sid: str | None, detail: str = "") -> None:
        """A problem of ``code`` on ``sid`` (None: on no station in particular)."""
        stations = self.stations.setdefault(code, [])
        if sid is not None:
            stations.append(sid)
        if detail:
            self.details[code] = detail


def _placement_problems(
    plan: _Plan, layout: Mapping[str, str], found: _Found
) -> dict[str, tuple[Rank, int | None]]:
    """The problems of where each piece stands, and the pieces placed (station -> rank and
    colour) on stations of the board whose rank is understood."""
    board, seat = plan.variant.board, plan.seat
    placed: dict[str, tuple[Rank, int | None]] = {}
    for sid, key in layout.items():
        if sid not in board:
            found.report(ProblemCode.UNKNOWN_STATION, sid, f"{sid!r} is not a station")
            continue
        station = board.station(sid)
        inside = sid in plan.stations
        if not inside and station.kind == StationKind.CAMP and station.seat == seat:
            found.report(ProblemCode.PIECE_IN_CAMP, sid, "camps 行营 stay empty")
        elif not inside:
            found.report(ProblemCode.OUTSIDE_OWN_ARM, sid, f"pieces go on seat {seat}'s arm")
        try:
            placed[sid] = split_key(key)
        except ValueError:
            found.report(ProblemCode.UNKNOWN_RANK, sid, f"{key!r} is not a rank")
            continue
        rank = placed[sid][0]
        if inside and not plan.allows(rank, station):
            found.report(_MISPLACED[rank], sid)
    row4 = sorted(
        s for s, (r, _) in placed.items() if r == Rank.LANDMINE and board.station(s).row == 4
    )
    if not plan.banker and len(row4) > plan.mines_in_row4 > 0:
        for sid in row4:
            found.report(ProblemCode.LANDMINE_OUTSIDE_BACK_ROWS, sid)
    return placed


def _count_problems(
    plan: _Plan, placed: Mapping[str, tuple[Rank, int | None]], found: _Found
) -> None:
    """The ranks placed more often than the army has them, and those missing."""
    counts = Counter(rank for rank, _ in placed.values())
    army = plan.final_army(counts[Rank.FLAG])
    extra, missing = [], []
    for rank in sorted(set(counts) | set(army), key=list(Rank).index):
        have, want = counts[rank], army.get(rank, 0)
        if have > want:
            extra.append(f"{have} {CHINESE_NAME[rank]} {rank.value} (the army has {want})")
            for sid in sorted(s for s, (r, _) in placed.items() if r == rank):
                found.report(ProblemCode.TOO_MANY_PIECES, sid)
        elif have < want:
            missing.append(f"{want - have} {CHINESE_NAME[rank]} {rank.value}")
    if extra:
        found.details[ProblemCode.TOO_MANY_PIECES] = "too many: " + ", ".join(extra)
    if missing:
        found.report(ProblemCode.MISSING_PIECES, None, "missing: " + ", ".join(missing))


def _colour_pools(
    plan: _Plan, placed: Mapping[str, tuple[Rank, int | None]]
) -> dict[Rank, list[int]]:
    """The colours available per rank once flags beyond those kept become 军长 (the flags placed
    with a colour keep it; the others, lowest colours first, stay flags)."""
    if plan.colours is None:
        pools = {rank: [plan.seat] * n for rank, n in plan.army.items()}
    else:
        pools = {rank: list(colours) for rank, colours in plan.colours.items()}
    flags = pools.get(Rank.FLAG, [])
    kept = plan.flags_kept(sum(1 for r, _ in placed.values() if r == Rank.FLAG))
    chosen = [c for r, c in placed.values() if r == Rank.FLAG and c is not None and c in flags]
    rest = sorted(_minus(flags, chosen))
    keep = chosen[:kept] + rest[: max(0, kept - len(chosen))]
    pools[Rank.FLAG] = keep
    pools.setdefault(Rank.GENERAL, []).extend(_minus(flags, keep))
    return pools


def _minus(items: list[int], taken: list[int]) -> list[int]:
    left = list(items)
    for item in taken:
        if item in left:
            left.remove(item)
    return left


def _colour_problems(plan: _Plan, placed: Mapping[str, tuple[Rank, int | None]]) -> list[str]:
    pools = _colour_pools(plan, placed)
    bad = []
    for sid in sorted(placed):
        rank, colour = placed[sid]
        if colour is None:
            continue
        pool = pools.get(rank, [])
        if colour in pool:
            pool.remove(colour)
        else:
            bad.append(sid)
    return bad


def layout_pieces(
    variant: str,
    seat: int,
    layout: Mapping[str, str],
    *,
    hand: Sequence[tuple[Rank, int | None]] | None = None,
    banker: bool = False,
) -> dict[str, Piece]:
    """The pieces of a legal layout, with colours: chosen ones kept, the rest given the hand's
    remaining colours of that rank, lowest first, in station order."""
    v = get_variant(variant)
    plan = _plan(v, seat, hand, banker)
    placed = {sid: split_key(key) for sid, key in layout.items()}
    pools = _colour_pools(plan, placed)
    for rank, colour in placed.values():
        if colour is not None:
            pools[rank].remove(colour)
    pieces = {}
    for sid in sorted(placed, key=lambda s: v.board.station(s).index):
        rank, colour = placed[sid]
        if colour is None:
            colour = pools[rank].pop(0)
        pieces[sid] = piece_of(seat, rank, colour)
    return pieces


def deployment_problems(
    variant: str,
    seat: int,
    layout: Mapping[str, str],
    *,
    hand: Sequence[tuple[Rank, int | None]] | None = None,
    banker: bool = False,
) -> list[str]:
    """The codes of every problem of ``layout`` (``[]`` when it is legal)."""
    return [p.code.value for p in layout_problems(variant, seat, layout, hand=hand, banker=banker)]


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
    """Row 0 is the 九宫 centre, where only the 三打一 banker deploys: its front line."""
    hq = row == 6 and col in (2, 4)
    side = col in (1, 5)
    if rank == Rank.FLAG:
        return 5.0 if col == flag_col else 1.0
    if rank == Rank.LANDMINE:
        guards = {(5, flag_col), (6, flag_col - 1), (6, flag_col + 1)}
        return 12.0 if (row, col) in guards else 3.0 if hq else 0.3 if row < 5 else 1.0
    if rank == Rank.BOMB:
        # row 1 only where bombs may stand there at all (三国), and then reluctantly
        by_row = {0: 1.0, 1: 0.2, 2: 2.0, 3: 4.0, 4: 3.0, 5: 2.0, 6: 0.3}[row]
        return by_row * (0.1 if hq else 1.0)
    if rank in (Rank.SUPREME_MARSHAL, Rank.FIELD_MARSHAL, Rank.GENERAL, Rank.MAJOR_GENERAL):
        by_row = {0: 2.0, 1: 1.0, 2: 4.0, 3: 4.0, 4: 3.0, 5: 1.0, 6: 0.2}[row]
        return by_row * (2.0 if side else 1.0) * (0.05 if hq else 1.0)
    if rank in (Rank.ENGINEER, Rank.MISSILE):
        return {0: 0.5, 1: 0.5, 2: 1.0, 3: 1.0, 4: 2.0, 5: 4.0, 6: 3.0}[row] * (0.1 if hq else 1.0)
    if rank in (Rank.CAPTAIN, Rank.LIEUTENANT):
        return {0: 2.0, 1: 5.0, 2: 2.0, 3: 1.0, 4: 1.0, 5: 1.0, 6: 1.0}[row] * (4.0 if hq else 1.0)
    by_row = {0: 2.0, 1: 2.0, 2: 2.0, 3: 2.0, 4: 2.0, 5: 1.5, 6: 1.0}[row]
    return by_row * (0.5 if hq else 1.0)


def auto_layout(
    variant: str,
    seat: int,
    seed: int | str,
    partial: Mapping[str, str] | None = None,
    *,
    hand: Sequence[tuple[Rank, int | None]] | None = None,
    banker: bool = False,
) -> dict[str, str]:
    """A legal, sensible layout for ``seat`` drawn from ``seed`` (same seed, same layout).

    With ``partial`` (a layout being edited, possibly illegal or incomplete) the pieces that
    are placed legally are kept where they are and the rest are placed around them (自动布局 at
    the deploy deadline). ``hand`` and ``banker`` as for ``layout_problems``; dealt extra flags
    become 军长 unless the partial already holds two flags.

    Every hand the platform deals can be laid out; if the partial's choices leave no room (two
    flags kept beside twelve landmines, say), they give way: the partial with one flag, then
    none of it. A hand no layout can hold (more pieces than stations, landmines beyond the
    back rows) raises ``MalformedInput``.
    """
    v = get_variant(variant)
    plan = _plan(v, seat, hand, banker)
    tries = [dict(partial or {})]
    flags = [sid for sid, key in tries[0].items() if (_parsed(key) or (None,))[0] == Rank.FLAG]
    if len(flags) > 1:  # keep the first flag only: the others become 军长
        tries.append({sid: key for sid, key in tries[0].items() if sid not in flags[1:]})
    tries.append({})
    for kept in tries:
        layout = _place(plan, random.Random(f"{variant}/{seat}/{seed}"), kept)
        if layout is not None:
            return layout
    pieces, stations = sum(plan.army.values()), len(plan.stations)
    raise MalformedInput(
        f"no layout holds this hand of {pieces} pieces on {stations} stations "
        f"({plan.army[Rank.LANDMINE]} landmines, {plan.army[Rank.FLAG]} flags)"
    )


def _place(plan: _Plan, rng: random.Random, partial: Mapping[str, str]) -> dict[str, str] | None:
    """``auto_layout`` with one partial: the layout, or None if the pieces do not fit."""
    board = plan.variant.board
    banker = plan.banker
    free = {sid: board.station(sid) for sid in plan.stations}
    wanted = {sid: _parsed(key) for sid, key in partial.items()}
    pool = plan.final_army(sum(1 for w in wanted.values() if w and w[0] == Rank.FLAG) or 1)
    if sum(pool.values()) > len(free):
        return None
    layout: dict[str, str] = {}
    kept: dict[str, Rank] = {}
    row4_mines = 0

    def fits(rank: Rank, station: Station) -> bool:
        row4 = rank == Rank.LANDMINE and station.row == 4 and not banker
        return plan.allows(rank, station) and not (row4 and row4_mines >= plan.mines_in_row4)

    def place(sid: str, rank: Rank, key: str) -> None:
        nonlocal row4_mines
        layout[sid], kept[sid] = key, rank
        row4_mines += rank == Rank.LANDMINE and free[sid].row == 4
        del free[sid]

    for sid, parsed in wanted.items():
        if (
            sid in free
            and parsed is not None
            and pool[parsed[0]] > 0
            and fits(parsed[0], free[sid])
        ):
            pool[parsed[0]] -= 1
            place(sid, parsed[0], str(partial[sid]))

    flags = [sid for sid, r in kept.items() if r == Rank.FLAG]
    flag_col = board.station(flags[0]).col if flags else rng.choice((2, 4))
    assert flag_col is not None
    order = sorted(pool, key=lambda r: _PLACEMENT_ORDER.index(r) if r in _PLACEMENT_ORDER else 99)
    for rank in order:
        for _ in range(pool.pop(rank, 0)):
            options = [s for s, st in free.items() if fits(rank, st)]
            if not options:
                # Kept pieces fill every station this rank may use: move one that is placed
                # later in the order (so it finds a station of its own afterwards).
                later = set(order[order.index(rank) + 1 :])
                movable = [
                    s for s, r in kept.items() if r in later and fits(rank, board.station(s))
                ]
                if not movable:
                    return None
                evicted = rng.choice(sorted(movable))
                pool[kept.pop(evicted)] += 1
                del layout[evicted]
                free[evicted] = board.station(evicted)
                options = [evicted]
            weights = [_weight(rank, free[s].row or 0, free[s].col or 0, flag_col) for s in options]
            sid = rng.choices(options, weights=weights)[0]
            place(sid, rank, rank.value)
    # colour choices are checked once the flags are all placed: how many of them stay flags
    # decides which colours of 军长 the hand holds
    if _colour_problems(plan, {s: split_key(k) for s, k in layout.items()}):
        layout = {s: kept[s].value for s in layout}  # drop colour choices the hand cannot meet
    return {sid: layout[sid] for sid in plan.stations if sid in layout}


def _parsed(key: object) -> tuple[Rank, int | None] | None:
    try:
        return split_key(key) if isinstance(key, str) else None
    except ValueError:
        return None
