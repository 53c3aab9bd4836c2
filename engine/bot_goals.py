"""Where a bot heads and what it guards, from its seat's view: the enemy flags it makes for
(``enemy_flags``), the stations beside its own flag and the enemies on them, the moves back
towards it while a threat is near (``homeward``), and distances on the board (``distance``)."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from engine.beliefs import flags_known
from engine.board import Board, get_board
from engine.pieces import Rank
from engine.variants import MovementRules, get_variant

NEAR_FLAG = 4  # how near its flag (in steps) an enemy piece makes a threat...
NEAR_SHOWN_FLAG = 6  # ...and once the enemies know where that flag is


def flag_sides(board: Board, seat: int, pieces: Mapping[str, dict[str, Any]]) -> set[str]:
    """The stations next to ``seat``'s flag (as far as the seat knows where it is)."""
    return {
        n
        for s, p in pieces.items()
        if p.get("seat") == seat and p.get("rank") == "flag"
        for n in board.neighbours(s)
    }


def homeward(
    board: Board,
    moves: Sequence[tuple[str, str]],
    sides: set[str],
    pieces: Mapping[str, dict[str, Any]],
    enemies: set[int],
    movement: MovementRules,
    near: int = NEAR_FLAG,
) -> list[tuple[str, str]]:
    """Of ``moves`` (quiet ones, in order), those that bring a piece closer to the stations
    beside its flag (``sides``) while an enemy piece stands ``near`` steps or less from
    them: the defenders a threat calls back, which the search then weighs (a blocker on the
    way, a piece that can strike the attacker)."""
    goal = frozenset(sides)
    if not goal:
        return []
    threat = any(
        p.get("seat") in enemies and distance(board.key, s, goal, movement) <= near
        for s, p in pieces.items()
    )
    if not threat:
        return []
    return [
        (o, t)
        for o, t in moves
        if t not in sides
        and distance(board.key, t, goal, movement) < distance(board.key, o, goal, movement)
    ]


def flag_threats(
    board: Board, seat: int, pieces: Mapping[str, dict[str, Any]], enemies: set[int]
) -> set[str]:
    """Stations of enemy pieces next to ``seat``'s flag, from where they could take it."""
    return {
        n
        for n in flag_sides(board, seat, pieces)
        if n in pieces and pieces[n].get("seat") in enemies
    }


def enemy_flags(
    view: Mapping[str, Any],
    board: Board,
    pieces: Mapping[str, dict[str, Any]],
    enemies: set[int],
    guesses: Mapping[str, Mapping[str, float]],
) -> frozenset[str]:
    """Where the enemies' flags may stand (the goals of progress): a seat's flags once they are
    shown or raised (none of its other pieces is one, ``flags_known``), else its HQs holding a
    hidden piece of its own that may be its flag. 翻棋: every enemy HQ (a carried flag wins
    there)."""
    hqs = enemy_hqs(board.key, enemies)
    if get_variant(view["variant"]).dealing == "fanqi":
        return hqs
    known = flags_known(view)
    goals: set[str] = set()
    for seat in enemies:
        if seat in known:
            raised = view["seats"][seat].get("flag_raised")
            shown = {
                s for s, p in pieces.items() if p.get("seat") == seat and p.get("rank") == "flag"
            }
            goals |= shown | ({raised} if raised else set())
            continue
        held = {
            s
            for s in hqs
            if board.station(s).seat == seat
            and pieces.get(s, {}).get("seat") == seat
            and "rank" not in pieces[s]
            and (s not in guesses or guesses[s].get(Rank.FLAG, 0.0) > 0)
        }
        goals |= held or {s for s in hqs if board.station(s).seat == seat}
    return frozenset(goals)


def enemy_hqs(board_key: str, enemies: set[int]) -> frozenset[str]:
    board = get_board(board_key)
    return frozenset(
        s
        for s in board.stations
        if board.station(s).kind == "hq" and board.station(s).seat in enemies
    )


def distance(
    board_key: str, station: str, goals: frozenset[str], movement: MovementRules | None = None
) -> int:
    """Steps (along any edge) from ``station`` to the nearest of ``goals``; by the ``movement``
    options if given: with ``hq_lock`` no way leads through an HQ (a piece entering one stays
    there)."""
    if not goals:
        return 0
    table = _distances(board_key, movement is not None and movement.hq_lock)[station]
    far = len(table)  # no way there
    return min(table.get(g, far) for g in goals)


@cache
def _distances(board_key: str, hq_lock: bool) -> dict[str, dict[str, int]]:
    board = get_board(board_key)
    out = {}
    for start in board.stations:
        seen = {start: 0}
        frontier = deque([start])
        while frontier:
            here = frontier.popleft()
            if here != start and hq_lock and board.station(here).kind == "hq":
                continue  # reached, but a dead end
            for nxt in board.neighbours(here):
                if nxt not in seen:
                    seen[nxt] = seen[here] + 1
                    frontier.append(nxt)
        out[start] = seen
    return out
