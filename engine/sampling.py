"""Seeded random positions for tests, benchmarks and demos.

``random_position`` deploys every seat with ``auto_layout`` and plays random legal moves in turn
order, resolving combat with the variant's options; a seat whose flag falls loses its pieces.
It is not a game (no clocks, draws or skips): the game state machine lives elsewhere.
"""

from __future__ import annotations

import random

from engine.combat import resolve_combat
from engine.deployment import auto_layout
from engine.movement import legal_move_list, move_tables
from engine.pieces import Rank
from engine.position import Position
from engine.variants import get_variant


def opening_position(variant: str, seed: int | str) -> Position:
    """Every seat of ``variant`` deployed by ``auto_layout`` from ``seed``."""
    v = get_variant(variant)
    pieces = {
        sid: (seat, rank)
        for seat in v.seats
        for sid, rank in auto_layout(variant, seat, seed).items()
    }
    return Position.from_pieces(v.board, pieces)


def random_position(variant: str, seed: int | str, plies: int) -> tuple[Position, int]:
    """A position after ``plies`` random moves from a random opening, and the seat to move."""
    v = get_variant(variant)
    rng = random.Random(f"position/{variant}/{seed}")
    position = opening_position(variant, seed)
    hqs = move_tables(v.board).hqs
    seat = 0
    for _ in range(plies):
        for _ in v.seats:
            moves = legal_move_list(position, seat, v.teams, v.rules.hq_lock)
            if moves:
                break
            seat = (seat + 1) % len(v.seats)
        else:
            break
        origin, target = rng.choice(moves)
        attacker, defender = position.piece_at(origin), position.piece_at(target)
        assert attacker is not None
        outcome = None
        if defender is not None:
            outcome = resolve_combat(
                attacker.rank,
                defender.rank,
                mine_trades=v.rules.mine_trades,
                bomb_takes_flag=v.rules.bomb_takes_flag,
                hq_dig=v.rules.hq_dig,
                defender_in_hq=bool(hqs >> v.board.station(target).index & 1),
            )
        position = position.with_move(origin, target, outcome)
        if defender is not None and defender.rank == Rank.FLAG:
            position = position.without_seat(defender.seat)
        seat = (seat + 1) % len(v.seats)
    return position, seat
