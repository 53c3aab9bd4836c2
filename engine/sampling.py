"""Seeded randomness for tests, benchmarks and demos.

``random_position`` deploys every seat with ``auto_layout`` and plays random legal moves in turn
order, resolving combat with the variant's options; a seat whose flag falls loses its pieces.
It is a quick way to many positions, not a game (no clocks, draws or skips). ``random_action``
drives a real game (``engine.game``) with random legal actions.
"""

from __future__ import annotations

import random

from engine.actions import Action, Bid, Deadline, Flip, Move
from engine.deployment import auto_layout
from engine.game import moves_of
from engine.movement import legal_move_list, mask_ids, move_tables
from engine.pieces import Rank
from engine.position import Position
from engine.rulebooks import rulebook_of
from engine.state import GameState, Phase
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
            moves = legal_move_list(position, seat, v.teams, v.rules.movement)
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
            outcome = v.rules.fight(
                attacker.rank,
                defender.rank,
                defender_in_hq=bool(hqs >> v.board.station(target).index & 1),
            )
        position = position.with_move(origin, target, outcome)
        if defender is not None and defender.rank == Rank.FLAG:
            position = position.without_seat(defender.seat)
        seat = (seat + 1) % len(v.seats)
    return position, seat


def random_action(state: GameState, rng: random.Random) -> Action:
    """A random legal action for any game, at its deadline's time: the defaults before play
    (automatic layouts and picks, no redeal; in 三打一 the first bidder bids 1, the others
    pass), then a random legal move (翻棋: or a flip)."""
    if state.phase == Phase.BIDDING and not any(state.deal.bids):
        return Bid(min(state.deal.waiting), 1, now=state.deadline)
    if state.phase != Phase.PLAYING:
        return Deadline(now=state.deadline)
    seat = state.to_move
    assert seat is not None
    t = move_tables(state.variant.board)
    moves = [(o, d) for o, m in moves_of(state, seat).items() for d in mask_ids(t, m)]
    face_down = rulebook_of(state.variant).face_down(state)  # 翻棋's, which a turn may flip
    if face_down and (not moves or rng.random() < 0.5):
        return Flip(seat, rng.choice(mask_ids(t, face_down)), now=state.deadline)
    origin, target = rng.choice(moves)
    return Move(seat, state.variant.board.stations[origin], target, now=state.deadline)
