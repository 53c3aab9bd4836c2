"""翻棋 (RULES.md §9.6): face-down pieces, flips, colours given by the first engineer, the flag
carry, and the ways a 翻棋 game is won.

Each function works on the game's mutable working copy (``engine.game._Game``) inside ``apply``.
In a 翻棋 position a piece's ``seat`` field holds its colour; ``FlipState.colours`` says which
seat plays which colour.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from engine.actions import Flip, Move
from engine.combat import Outcome
from engine.deal import deal_fanqi
from engine.errors import IllegalAction
from engine.movement import destination_mask, legal_moves, move_tables
from engine.outcome import EliminationReason
from engine.pieces import OFFICER_STRENGTH, Piece, Rank, piece_of
from engine.position import Position
from engine.state import FlagWatch, FlipState, Phase

if TYPE_CHECKING:
    from engine.game import _Game

LANDMINES_TO_DIG = 3  # the opponent's landmines to dig before the flag carry


def start(g: _Game, now: float) -> None:
    board = g.variant.board
    stations = [s for s in board.stations if board.station(s).kind != "camp"]
    placed = deal_fanqi(g.seed, stations)
    cells: list[Piece | None] = [None] * len(board.stations)
    for sid, (rank, colour) in placed.items():
        assert colour is not None
        cells[board.station(sid).index] = piece_of(colour, rank)
    g.position = Position.from_cells(board, tuple(cells))
    g.flip = FlipState(face_down=g.position.occupied)
    g.layouts = ()
    g.phase = Phase.PLAYING
    g.started_at = now
    g.watches = [FlagWatch() for _ in g.variant.seats]
    g.emit("game_started", first=g.first, face_down=sorted(placed))
    g.begin_turn(g.first, now)


def face_down(g: _Game, index: int) -> bool:
    return g.flip is not None and bool(g.flip.face_down >> index & 1)


def moves(g: _Game, seat: int) -> dict[int, int]:
    """翻棋 moves of ``seat``: face-up own pieces, never onto face-down pieces, no HQ lock;
    and the flag carry: the smallest officer may step onto its own flag once the player's
    engineers have dug all three enemy landmines (RULES.md §9.6)."""
    assert g.flip is not None
    colour = g.piece_seat(seat)
    if colour is None:
        return {}
    pos, flip = g.pos, g.flip
    moves = legal_moves(pos, colour, (0, 1), hq_lock=False, frozen=flip.face_down)
    if flip.mines_dug[colour] >= LANDMINES_TO_DIG and flip.carrier is None:
        flags = [i for i, p in pos.indexed() if p.seat == colour and p.rank == Rank.FLAG]
        carriers = smallest_officers(g, colour)
        t = move_tables(g.variant.board)
        for flag in flags:
            if flip.face_down >> flag & 1:
                continue
            friends = pos.seat_masks[colour] & ~(1 << flag)
            for i in carriers:
                reach = destination_mask(t, pos, i, friends | flip.face_down, hq_lock=False)
                if reach >> flag & 1:
                    moves[i] = moves.get(i, 0) | 1 << flag
    return moves


def smallest_officers(g: _Game, colour: int) -> list[int]:
    assert g.flip is not None
    officers = [
        (OFFICER_STRENGTH[p.rank], i)
        for i, p in g.pos.indexed()
        if p.seat == colour and p.rank in OFFICER_STRENGTH and p.rank != Rank.ENGINEER
    ]
    if not officers:
        return []
    low = min(s for s, _ in officers)
    return [i for s, i in officers if s == low and not g.flip.face_down >> i & 1]


def flip(g: _Game, a: Flip) -> None:
    g.check_turn(a.seat, a.now)
    if g.flip is None:
        raise IllegalAction(f"there are no face-down pieces in {g.variant.name}")
    index = g.variant.board.station(a.station).index
    if not g.flip.face_down >> index & 1:
        raise IllegalAction(f"{a.station} holds no face-down piece")
    g.expire_proposal()
    piece = g.pos.cells[index]
    assert piece is not None
    colours = g.flip.colours
    assigned = colours is None and piece.rank == Rank.ENGINEER
    if assigned:  # the first engineer flipped decides who plays which colour
        colours = tuple(piece.seat if s == a.seat else 1 - piece.seat for s in (0, 1))
    g.flip = dataclasses.replace(
        g.flip, face_down=g.flip.face_down & ~(1 << index), colours=colours
    )
    g.emit("flipped", seat=a.seat, station=a.station, army=piece.seat, rank=piece.rank.value)
    if assigned and colours is not None:
        g.emit("colours", colours=list(colours))
    g.set_seat(a.seat, moves=g.seats[a.seat].moves + 1)
    g.total_moves += 1
    g.quiet_moves = 0  # a flip changes the game for good, like a capture [decision]
    check_win(g, a.seat)
    if g.phase == Phase.PLAYING:
        g.check_draw_limits()
    if g.phase == Phase.PLAYING:
        g.begin_turn(g.next_seat(a.seat), a.now)


def pick_up_flag(g: _Game, a: Move, origin: int, target: int) -> None:
    """翻棋's flag carry: the officer takes its own flag and carries it from now on."""
    assert g.flip is not None
    cells = list(g.pos.cells)
    cells[target], cells[origin] = cells[origin], None
    g.position = Position.from_cells(g.variant.board, tuple(cells))
    g.reveals = g.reveals.without({target})
    g.flip = dataclasses.replace(g.flip, carrier=target)
    g.emit("flag_picked_up", seat=a.seat, origin=a.origin, target=a.target)
    g.set_seat(a.seat, moves=g.seats[a.seat].moves + 1)
    g.total_moves += 1
    g.quiet_moves += 1
    check_win(g, a.seat)


def after_move(
    g: _Game,
    seat: int,
    attacker: Piece,
    defender: Piece | None,
    origin: int,
    target: int,
    outcome: Outcome | None,
) -> None:
    assert g.flip is not None
    flip = g.flip
    carrier = flip.carrier
    if carrier == origin:
        carrier = target if outcome in (None, Outcome.ATTACKER) else None
    elif carrier == target and outcome in (Outcome.ATTACKER, Outcome.BOTH):
        carrier = None  # the carrier fell: the flag goes with it
    dug = list(flip.mines_dug)
    if (
        defender is not None
        and defender.rank == Rank.LANDMINE
        and attacker.rank == Rank.ENGINEER
        and outcome == Outcome.ATTACKER
    ):
        dug[attacker.seat] += 1
    g.flip = dataclasses.replace(flip, carrier=carrier, mines_dug=(dug[0], dug[1]))
    check_win(g, seat)


def check_win(g: _Game, seat: int) -> None:
    """翻棋 ends (RULES.md §9.6): the flag carried into an enemy HQ, or the opponent left
    without a movable piece (checked for the opponent first, as in 先攻先胜)."""
    assert g.flip is not None
    colours = g.flip.colours
    if colours is None:
        return
    other = 1 - seat
    carrier = g.flip.carrier
    board = g.variant.board
    if carrier is not None and g.pos.cells[carrier] is not None:
        station = board.station(board.stations[carrier])
        carried_by = g.owner(g.pos.cells[carrier])  # type: ignore[arg-type]
        if station.kind == "hq" and station.seat is not None and station.seat != carried_by:
            assert carried_by is not None
            g.emit("flag_carried_home", seat=carried_by, station=station.id)
            g.eliminate(1 - carried_by, EliminationReason.FLAG_CAPTURED, carried_by)
            return
    for loser in (other, seat):
        if g.phase == Phase.PLAYING and not g.pos.has_live_pieces(colours[loser]):
            g.eliminate(loser, EliminationReason.NO_LIVE_PIECES, 1 - loser)
