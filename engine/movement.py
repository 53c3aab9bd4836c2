"""Movement: where a piece may go (docs/rules.md §3), on integer bitsets.

Bit ``i`` stands for the station with index ``i``. Per board we precompute, for every station:
its one-step neighbours, its rail neighbours, and its rail *rays* (the stations met when sliding
from it in one direction along one straight rail line). Station indices are chosen so that almost
every ray runs monotonically through the bit order (see ``engine.board``); then the nearest
blocker on a ray is its lowest (or highest) occupied bit, found with two integer operations.
The few rays that are not monotone (two arcs of the 四国 board) are split into monotone segments
that are followed one after the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from engine.board import Board, StationKind
from engine.errors import MalformedInput
from engine.pieces import IMMOBILE_RANKS, RAIL_FLYERS, parse_rank
from engine.position import Position
from engine.variants import STANDARD_MOVEMENT, MovementRules, RuleOptions, get_variant

Segment = tuple[int, bool]  # (mask, True when the ray runs towards higher bits)


@dataclass(frozen=True, slots=True)
class MoveTables:
    """Everything movement needs about one board, indexed by station index."""

    board: Board
    bit: Mapping[str, int]
    step: tuple[int, ...]  # neighbours along any edge
    rail_step: Mapping[int, int]  # single-bit station mask -> its rail neighbours
    up_rays: tuple[tuple[int, ...], ...]  # monotone rays towards higher bits
    down_rays: tuple[tuple[int, ...], ...]  # monotone rays towards lower bits
    split_rays: tuple[tuple[tuple[Segment, ...], ...], ...]  # rays made of several segments
    rail: int
    camps: int
    hqs: int
    byte_ids: tuple[tuple[tuple[str, ...], ...], ...]  # [byte k][value] -> ids of its set bits


def _segments(indices: list[int]) -> tuple[Segment, ...]:
    """Split a ray (station indices in travel order) into maximal monotone runs."""
    runs: list[list[int]] = [[indices[0]]]
    for i in indices[1:]:
        run = runs[-1]
        rising = len(run) < 2 or run[-1] > run[-2]
        if (i > run[-1]) == rising:
            run.append(i)
        else:
            runs.append([i])
    return tuple((sum(1 << i for i in run), len(run) < 2 or run[1] > run[0]) for run in runs)


@cache
def move_tables(board: Board) -> MoveTables:
    """The precomputed movement tables of ``board`` (built once per board)."""
    n = len(board.stations)
    bit = {sid: 1 << board.station(sid).index for sid in board.stations}
    step = [0] * n
    rail_step = dict.fromkeys(bit.values(), 0)
    for a, b in board.road_edges + board.rail_edges:
        step[board.station(a).index] |= bit[b]
        step[board.station(b).index] |= bit[a]
    for a, b in board.rail_edges:
        rail_step[bit[a]] |= bit[b]
        rail_step[bit[b]] |= bit[a]
    rays: list[set[tuple[int, ...]]] = [set() for _ in range(n)]
    for line in board.lines:
        idx = [board.station(sid).index for sid in line]
        for p, origin in enumerate(idx):
            if p + 1 < len(idx):
                rays[origin].add(tuple(idx[p + 1 :]))
            if p > 0:
                rays[origin].add(tuple(reversed(idx[:p])))
    up: list[tuple[int, ...]] = []
    down: list[tuple[int, ...]] = []
    split: list[tuple[tuple[Segment, ...], ...]] = []
    for station_rays in rays:
        segmented = [_segments(list(ray)) for ray in sorted(station_rays)]
        up.append(tuple(s[0][0] for s in segmented if len(s) == 1 and s[0][1]))
        down.append(tuple(s[0][0] for s in segmented if len(s) == 1 and not s[0][1]))
        split.append(tuple(s for s in segmented if len(s) > 1))

    def mask_of(kind: StationKind) -> int:
        return sum(bit[s] for s in board.stations if board.station(s).kind == kind)

    ids = board.stations
    byte_ids = tuple(
        tuple(
            tuple(ids[k * 8 + j] for j in range(8) if value >> j & 1 and k * 8 + j < n)
            for value in range(256)
        )
        for k in range((n + 7) // 8)
    )
    return MoveTables(
        board=board,
        bit=bit,
        step=tuple(step),
        rail_step=rail_step,
        up_rays=tuple(up),
        down_rays=tuple(down),
        split_rays=tuple(split),
        rail=sum(bit[s] for s in board.stations if board.station(s).rail),
        camps=mask_of(StationKind.CAMP),
        hqs=mask_of(StationKind.HQ),
        byte_ids=byte_ids,
    )


def slide_mask(t: MoveTables, index: int, occupied: int) -> int:
    """Stations a non-engineer on rail station ``index`` reaches by sliding along straight
    lines: every station up to and including the first occupied one on each ray."""
    reach = 0
    for m in t.up_rays[index]:
        blockers = occupied & m
        # lowest blocker b: keep the ray's bits up to b; no blocker gives -1, the whole ray
        reach |= m & (((blockers & -blockers) << 1) - 1)
    for m in t.down_rays[index]:
        # highest blocker b: keep the ray's bits from b up; (| 1) makes "no blocker" keep all
        reach |= m & -(1 << ((occupied & m | 1).bit_length() - 1))
    for ray in t.split_rays[index]:
        for m, rising in ray:
            blockers = occupied & m
            if not blockers:
                reach |= m
                continue
            if rising:
                reach |= m & (((blockers & -blockers) << 1) - 1)
            else:
                reach |= m & -(1 << (blockers.bit_length() - 1))
            break
    return reach


def fly_mask(t: MoveTables, index: int, occupied: int) -> int:
    """Stations an engineer (or missile) on rail station ``index`` reaches over the rail
    network, turning anywhere, through empty stations only."""
    origin = 1 << index
    rail_step = t.rail_step
    seen = origin | rail_step[origin]
    frontier = seen & ~occupied
    while frontier:
        low = frontier & -frontier
        frontier ^= low
        new = rail_step[low] & ~seen
        if new:
            seen |= new
            frontier |= new & ~occupied
    return seen ^ origin


def destination_mask(
    t: MoveTables,
    position: Position,
    index: int,
    friendly: int,
    movement: MovementRules = STANDARD_MOVEMENT,
) -> int:
    """Destinations of the piece on ``index`` as a mask; ``friendly`` marks the stations of its
    own and its partners' pieces, which it may never move onto."""
    bit = 1 << index
    if not position.mobile & bit or (movement.hq_lock and t.hqs & bit):
        return 0
    occupied = position.occupied
    reach = t.step[index]
    if t.rail & bit:
        if position.flyers & bit:
            reach |= fly_mask(t, index, occupied)
        else:
            reach |= slide_mask(t, index, occupied)
    return reach & ~(friendly | occupied & t.camps)


def friendly_mask(position: Position, seat: int, teams: tuple[int, ...]) -> int:
    """The stations of ``seat``'s own and partners' pieces."""
    team = teams[seat]
    return sum(m for s, m in enumerate(position.seat_masks) if teams[s] == team)


def legal_moves(
    position: Position,
    seat: int,
    teams: tuple[int, ...],
    movement: MovementRules = STANDARD_MOVEMENT,
    frozen: int = 0,
    first_only: bool = False,
) -> dict[int, int]:
    """All legal moves of ``seat``: ``{origin index: destination mask}`` (non-empty masks), by
    the ``movement`` options (the standard game's unless given). Pieces on ``frozen`` stations
    (翻棋's face-down pieces) neither move nor can be attacked. With ``first_only`` it stops at
    the first piece that can move (to ask whether any can)."""
    t = move_tables(position.board)
    occupied = position.occupied
    blocked = friendly_mask(position, seat, teams) | occupied & t.camps | frozen
    movers = position.seat_masks[seat] & position.mobile & ~frozen
    if movement.hq_lock:
        movers &= ~t.hqs
    rail, flyers, step = t.rail, position.flyers, t.step
    moves = {}
    while movers:
        bit = movers & -movers
        movers ^= bit
        index = bit.bit_length() - 1
        reach = step[index]
        if rail & bit:
            if flyers & bit:
                reach |= fly_mask(t, index, occupied)
            else:
                reach |= slide_mask(t, index, occupied)
        reach &= ~blocked
        if reach:
            moves[index] = reach
            if first_only:
                break
    return moves


def mask_ids(t: MoveTables, mask: int) -> list[str]:
    """The station ids of the bits in ``mask``, in index order."""
    if mask.bit_count() <= 4:  # a few bits: scan them; many: look them up a byte at a time
        ids = t.board.stations
        out = []
        while mask:
            low = mask & -mask
            mask ^= low
            out.append(ids[low.bit_length() - 1])
        return out
    out = []
    for k, value in enumerate(mask.to_bytes(len(t.byte_ids), "little")):
        if value:
            out += t.byte_ids[k][value]
    return out


def legal_move_list(
    position: Position,
    seat: int,
    teams: tuple[int, ...],
    movement: MovementRules = STANDARD_MOVEMENT,
) -> list[tuple[str, str]]:
    """All legal moves of ``seat`` as ``(origin, target)`` station-id pairs."""
    ids = position.board.stations
    out: list[tuple[str, str]] = []
    append = out.append
    for origin, mask in legal_moves(position, seat, teams, movement).items():
        source = ids[origin]
        while mask:
            low = mask & -mask
            mask ^= low
            append((source, ids[low.bit_length() - 1]))
    return out


def destinations(
    variant: str,
    pieces: Mapping[str, tuple[int, str] | tuple[int, str, int | None]],
    origin: str,
    *,
    teams: tuple[int, ...] | None = None,
    rules: RuleOptions | MovementRules | None = None,
) -> set[str]:
    """Where the piece on ``origin`` may move, given every piece on the board.

    ``pieces`` maps station ids to ``(seat, rank key)``. Partners are the variant's default
    teams unless ``teams`` (team id per seat) is given; the movement options are the variant's
    unless ``rules`` (a table's ``RuleOptions``, or their ``MovementRules``) are given.
    """
    v = get_variant(variant)
    board = v.board
    t = move_tables(board)
    bit = t.bit
    try:
        occupied = sum(map(bit.__getitem__, pieces))
    except KeyError as e:
        raise MalformedInput(f"no station {e.args[0]!r} on the {board.key} board") from None
    try:
        seat, rank_key, *_ = pieces[origin]
    except KeyError:
        board.station(origin)
        raise MalformedInput(f"no piece on {origin}") from None
    rank = parse_rank(rank_key)
    if rules is None:
        rules = v.rules
    movement = rules if isinstance(rules, MovementRules) else rules.movement
    team_of = teams or v.teams
    if seat not in board.seats:
        raise MalformedInput(f"no seat {seat!r} on the {board.key} board")
    index = bit[origin].bit_length() - 1
    if rank in IMMOBILE_RANKS or (movement.hq_lock and t.hqs & bit[origin]):
        return set()
    reach = t.step[index]
    if t.rail & bit[origin]:
        if rank in RAIL_FLYERS:
            reach |= fly_mask(t, index, occupied)
        else:
            reach |= slide_mask(t, index, occupied)
    # Only occupied candidates need a closer look: partners' pieces and occupied camps are out.
    ids = board.stations
    taken = reach & occupied
    while taken:
        low = taken & -taken
        taken ^= low
        if low & t.camps or team_of[pieces[ids[low.bit_length() - 1]][0]] == team_of[seat]:
            reach ^= low
    return set(mask_ids(t, reach))
