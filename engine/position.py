"""Position: where every piece stands, with the bitmasks that movement needs.

A Position is immutable; ``with_move`` and ``without_seat`` return new positions. Bit ``i`` of
every mask stands for the station with index ``i`` on the board.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from engine.board import Board
from engine.combat import Outcome
from engine.errors import MalformedInput
from engine.pieces import IMMOBILE_RANKS, RAIL_FLYERS, Piece, Rank, parse_rank, piece_of


@dataclass(frozen=True, slots=True, eq=False)
class Position:
    """The pieces on a board. Build one with ``Position.from_pieces``."""

    board: Board
    cells: tuple[Piece | None, ...]
    occupied: int
    seat_masks: tuple[int, ...]
    mobile: int  # stations holding a piece of a rank that can move at all
    flyers: int  # stations holding an engineer or a missile

    @classmethod
    def from_pieces(
        cls, board: Board, pieces: Mapping[str, tuple[int, str] | tuple[int, str, int | None]]
    ) -> Position:
        """A position from ``{station id: (seat, rank key[, army])}``; MalformedInput on bad
        entries."""
        cells: list[Piece | None] = [None] * len(board.stations)
        for sid, (seat, rank, *army) in pieces.items():
            station = board.station(sid)
            if seat not in board.seats:
                raise MalformedInput(f"no seat {seat!r} on the {board.key} board (piece on {sid})")
            colour = army[0] if army else None
            cells[station.index] = piece_of(seat, parse_rank(rank), colour)
        return cls.from_cells(board, tuple(cells))

    @classmethod
    def from_cells(cls, board: Board, cells: tuple[Piece | None, ...]) -> Position:
        seat_masks = [0] * len(board.seats)
        mobile = flyers = 0
        for i, piece in enumerate(cells):
            if piece is None:
                continue
            bit = 1 << i
            seat_masks[piece.seat] |= bit
            if piece.rank not in IMMOBILE_RANKS:
                mobile |= bit
            if piece.rank in RAIL_FLYERS:
                flyers |= bit
        return cls(board, cells, sum(seat_masks), tuple(seat_masks), mobile, flyers)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self.board is other.board and self.cells == other.cells

    def __hash__(self) -> int:
        return hash((self.board.key, self.cells))

    def piece_at(self, sid: str) -> Piece | None:
        """The piece on station ``sid``, or None."""
        return self.cells[self.board.station(sid).index]

    def indexed(self) -> list[tuple[int, Piece]]:
        """Every piece with its station index, in index order."""
        return [(i, p) for i, p in enumerate(self.cells) if p is not None]

    def has_live_pieces(self, seat: int) -> bool:
        """Whether ``seat`` has a piece that is not a landmine, flag or fortress
        (docs/rules.md §7)."""
        return bool(self.seat_masks[seat] & self.mobile)

    def pieces(self) -> dict[str, Piece]:
        """Every piece, as ``{station id: Piece}``."""
        ids = self.board.stations
        return {ids[i]: p for i, p in enumerate(self.cells) if p is not None}

    def stations_of(self, seat: int) -> Iterator[str]:
        """The stations holding the pieces of ``seat``, in index order."""
        ids = self.board.stations
        mask = self.seat_masks[seat]
        while mask:
            low = mask & -mask
            mask ^= low
            yield ids[low.bit_length() - 1]

    def with_move(self, origin: str, target: str, outcome: Outcome | None = None) -> Position:
        """The position after the piece on ``origin`` moves to ``target``.

        ``outcome`` is the combat result when ``target`` is occupied (docs/rules.md §4):
        ``attacker`` (defender removed, attacker moves in), ``defender`` (attacker removed) or
        ``both``. Legality is the caller's business (see ``engine.movement``).
        """
        board = self.board
        o, t = board.station(origin).index, board.station(target).index
        mover, defender = self.cells[o], self.cells[t]
        if mover is None:
            raise MalformedInput(f"no piece on {origin}")
        if (defender is None) != (outcome is None):
            raise MalformedInput("an outcome is given exactly when the target is occupied")
        cells = list(self.cells)
        masks = list(self.seat_masks)
        occupied, mobile, flyers = self.occupied, self.mobile, self.flyers
        cleared = ~((1 << o) | (1 << t))
        cells[o] = cells[t] = None
        occupied &= cleared
        mobile &= cleared
        flyers &= cleared
        masks[mover.seat] &= cleared
        if defender is not None:
            masks[defender.seat] &= cleared
        if outcome is None or outcome == Outcome.ATTACKER:
            survivor: Piece | None = mover
        else:
            survivor = defender if outcome == Outcome.DEFENDER else None
        if survivor is not None:
            bit = 1 << t
            cells[t] = survivor
            occupied |= bit
            masks[survivor.seat] |= bit
            if survivor.rank not in IMMOBILE_RANKS:
                mobile |= bit
            if survivor.rank in RAIL_FLYERS:
                flyers |= bit
        return Position(board, tuple(cells), occupied, tuple(masks), mobile, flyers)

    def without_seat(self, seat: int) -> Position:
        """The position with every piece of ``seat`` removed (an eliminated player,
        docs/rules.md §7)."""
        cells = tuple(None if p is not None and p.seat == seat else p for p in self.cells)
        return Position.from_cells(self.board, cells)

    def count(self, seat: int, rank: Rank) -> int:
        """How many pieces of ``rank`` the seat has on the board."""
        return sum(1 for p in self.cells if p is not None and p.seat == seat and p.rank == rank)
