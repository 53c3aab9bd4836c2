"""翻棋 (docs/rules.md §9.6): face-down pieces, flips, colours given by the first engineer, the flag
carry, and the ways a 翻棋 game is won.

The game starts in play with the 50 pieces of two armies face down at random. In a 翻棋 position
a piece's ``seat`` field holds its colour; ``FlipState`` (``GameState.flip``) says which pieces lie
face down, which seat plays which colour once the first engineer is flipped, and which piece
carries its own flag. Face-down pieces neither move nor can be attacked, and nobody sees their
ranks; face-up ranks are public. Nothing is locked in an HQ and a seat left without a legal
action loses (``RuleOptions``: ``hq_lock``, ``blocked_is_defeat``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from engine.actions import Action, Flip, Move
from engine.combat import Outcome
from engine.deal import deal_fanqi
from engine.errors import IllegalAction, MalformedInput
from engine.events import Event
from engine.movement import destination_mask, legal_moves, mask_ids, move_tables
from engine.outcome import EliminationReason
from engine.pieces import OFFICER_STRENGTH, Piece, Rank, parse_rank, piece_of
from engine.position import Position
from engine.rulebook import GameLike, Handler, Marks, Out, Rulebook, WorkingGame
from engine.rulebook import Setup as SetupValue
from engine.state import FlagWatch, FlipState, Phase
from engine.variants import MovementRules

LANDMINES_TO_DIG = 3  # the opponent's landmines to dig before the flag carry


@dataclass(frozen=True, slots=True)
class Setup:
    """A 翻棋 set-up position's ``face_down`` stations and the ``colours`` each seat plays (None:
    not assigned yet, the first engineer flipped decides): ``start_from(..., setup=Setup(...))``,
    with pieces as ``(colour, rank key)``. Without one, every piece is face up, no colour
    assigned."""

    face_down: Collection[str] = ()
    colours: Sequence[int] | None = None

    def to_json(self) -> dict[str, Any]:
        colours = None if self.colours is None else list(self.colours)
        return {"face_down": sorted(self.face_down), "colours": colours}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Setup:
        """The set-up value from a record's ``setup``."""
        return cls(face_down=tuple(data.get("face_down", ())), colours=data.get("colours"))


def start_play(g: WorkingGame, position: Position, flip: FlipState, now: float) -> None:
    g.position = position
    g.flip = flip
    g.phase = Phase.PLAYING
    g.started_at = now
    g.watches = [FlagWatch() for _ in g.variant.seats]


def unlocked(movement: MovementRules) -> MovementRules:
    """翻棋's movement: the game's options, but nothing is locked in an HQ whatever they say (a
    room's or a record's ``hq_lock`` has never applied to 翻棋)."""
    return _unlocked(movement) if movement.hq_lock else movement  # asked for on every turn


@cache
def _unlocked(movement: MovementRules) -> MovementRules:
    return dataclasses.replace(movement, hq_lock=False)


def colour_of(g: GameLike, seat: int) -> int | None:
    """The colour ``seat`` plays, once the first engineer is flipped."""
    assert g.flip is not None
    return None if g.flip.colours is None else g.flip.colours[seat]


def moves(g: GameLike, seat: int) -> dict[int, int]:
    """翻棋 moves of ``seat``: face-up own pieces, never onto face-down pieces, no HQ lock;
    and the flag carry: the smallest officer may step onto its own flag once the player's
    engineers have dug all three enemy landmines (docs/rules.md §9.6)."""
    colour = colour_of(g, seat)
    if colour is None:
        return {}
    pos, flip = g.position, g.flip
    assert pos is not None and flip is not None
    movement = unlocked(g.rules.movement)
    moves = legal_moves(pos, colour, (0, 1), movement, frozen=flip.face_down)
    if flip.mines_dug[colour] >= LANDMINES_TO_DIG and flip.carrier is None:
        flags = [i for i, p in pos.indexed() if p.seat == colour and p.rank == Rank.FLAG]
        carriers = smallest_officers(pos, flip, colour)
        t = move_tables(g.variant.board)
        for flag in flags:
            if flip.face_down >> flag & 1:
                continue
            friends = pos.seat_masks[colour] & ~(1 << flag)
            for i in carriers:
                reach = destination_mask(t, pos, i, friends | flip.face_down, movement)
                if reach >> flag & 1:
                    moves[i] = moves.get(i, 0) | 1 << flag
    return moves


def smallest_officers(pos: Position, flip: FlipState, colour: int) -> list[int]:
    officers = [
        (OFFICER_STRENGTH[p.rank], i)
        for i, p in pos.indexed()
        if p.seat == colour and p.rank in OFFICER_STRENGTH and p.rank != Rank.ENGINEER
    ]
    if not officers:
        return []
    low = min(s for s, _ in officers)
    return [i for s, i in officers if s == low and not flip.face_down >> i & 1]


def flip(g: WorkingGame, a: Flip) -> None:
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
    g.count_move(a.seat, quiet=False)  # a flip changes the game for good, like a capture
    g.put_out(outs(g, a.seat))
    g.end_turn(a.seat, a.now)


def outs(g: GameLike, seat: int) -> list[Out]:
    """The ways a 翻棋 game ends (docs/rules.md §9.6) after ``seat`` acted: the flag carried into an
    enemy HQ, or the opponent left without a movable piece (checked for the opponent first, as
    in 先攻先胜, then for ``seat``)."""
    pos, flip = g.position, g.flip
    assert pos is not None and flip is not None
    colours = flip.colours
    if colours is None:
        return []
    carrier = flip.carrier
    board = g.variant.board
    if carrier is not None and (piece := pos.cells[carrier]) is not None:
        station = board.station(board.stations[carrier])
        carried_by = colours.index(piece.seat)
        if station.kind == "hq" and station.seat is not None and station.seat != carried_by:
            home = Event("flag_carried_home", {"seat": carried_by, "station": station.id})
            return [Out(1 - carried_by, EliminationReason.FLAG_CAPTURED, carried_by, (home,))]
    return [
        Out(loser, EliminationReason.NO_LIVE_PIECES, 1 - loser)
        for loser in (1 - seat, seat)
        if not pos.has_live_pieces(colours[loser])
    ]


class Fanqi(Rulebook):
    """翻棋's hooks."""

    actions: ClassVar[Mapping[type[Action], Handler]] = {Flip: flip}

    def start(self, g: WorkingGame, now: float) -> None:
        board = g.variant.board
        stations = [s for s in board.stations if board.station(s).kind != "camp"]
        placed = deal_fanqi(g.seed, stations)
        cells: list[Piece | None] = [None] * len(board.stations)
        for sid, (rank, colour) in placed.items():
            assert colour is not None
            cells[board.station(sid).index] = piece_of(colour, rank)
        position = Position.from_cells(board, tuple(cells))
        start_play(g, position, FlipState(face_down=position.occupied), now)
        g.emit("game_started", first=g.first, face_down=sorted(placed))
        g.begin_turn(g.first, now)

    def set_up(
        self,
        g: WorkingGame,
        pieces: Mapping[str, Sequence[Any]],
        setup: SetupValue | None,
        now: float,
    ) -> bool:
        """Pieces are ``(colour, rank key)``; ``setup``, a ``Setup``, names the face-down
        stations and the colours each seat plays."""
        if setup is None:
            setup = Setup()
        if not isinstance(setup, Setup):
            raise MalformedInput(f"a 翻棋 set-up value is a fanqi.Setup, not {setup!r}")
        board = g.variant.board
        cells: list[Piece | None] = [None] * len(board.stations)
        for sid, (colour, rank, *_) in pieces.items():
            g.check_seat(colour)
            cells[board.station(sid).index] = piece_of(colour, parse_rank(rank))
        position = Position.from_cells(board, tuple(cells))
        hidden = sum(1 << board.station(sid).index for sid in setup.face_down)
        if hidden & ~position.occupied:
            raise MalformedInput("face-down stations must hold pieces")
        colours = setup.colours
        start_play(g, position, FlipState(hidden, None if colours is None else tuple(colours)), now)
        g.begin_turn(g.first, now)
        return True

    def read_setup(self, data: Mapping[str, Any]) -> Setup:
        return Setup.from_json(data)

    def piece_seat(self, g: GameLike, seat: int) -> int | None:
        return colour_of(g, seat)

    def owner(self, g: GameLike, piece: Piece) -> int | None:
        assert g.flip is not None
        colours = g.flip.colours
        return None if colours is None else colours.index(piece.seat)

    def moves(self, g: GameLike, seat: int) -> dict[int, int]:
        return moves(g, seat)

    def can_act(self, g: GameLike, seat: int) -> bool:
        assert g.flip is not None
        return bool(g.flip.face_down) or bool(moves(g, seat))

    def mover_refusal(self, g: GameLike, a: Move, origin: int) -> str | None:
        assert g.flip is not None
        if g.flip.colours is None:
            return "no colour yet: flip a piece"
        if g.flip.face_down >> origin & 1:
            return f"seat {a.seat} has no piece to move on {a.origin}"
        return None

    def targets(self, g: GameLike, seat: int, origin: int) -> int:
        return moves(g, seat).get(origin, 0)

    def special_move(self, g: WorkingGame, a: Move, origin: int, target: int) -> bool:
        """The flag carry: the officer takes its own flag and carries it from now on (a move
        of its own, which changes the game as the shared move does)."""
        assert g.flip is not None
        cells = list(g.pos.cells)
        defender, attacker = cells[target], cells[origin]
        if defender is None or attacker is None or defender.seat != attacker.seat:
            return False
        cells[target], cells[origin] = attacker, None
        g.position = Position.from_cells(g.variant.board, tuple(cells))
        g.reveals = g.reveals.without({target})
        g.flip = dataclasses.replace(g.flip, carrier=target)
        g.emit("flag_picked_up", seat=a.seat, origin=a.origin, target=a.target)
        g.count_move(a.seat, quiet=True)
        return True

    standard_aftermath = False  # no scouting, no flags to watch: its ways to win are ``outs``

    def flip_after_move(
        self,
        g: GameLike,
        attacker: Piece,
        defender: Piece | None,
        origin: int,
        target: int,
        outcome: Outcome | None,
    ) -> FlipState:
        """The carried flag goes with its carrier (and falls with it); an engineer that took
        a landmine counts towards the flag carry."""
        flip = g.flip
        assert flip is not None
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
        return dataclasses.replace(flip, carrier=carrier, mines_dug=(dug[0], dug[1]))

    def flip_after_removal(self, g: GameLike, gone: set[int]) -> FlipState:
        """Face-down pieces leave too, and a flag carried by one of them."""
        flip = g.flip
        assert flip is not None
        carrier = None if flip.carrier in gone else flip.carrier
        face_down = flip.face_down & ~sum(1 << i for i in gone)
        return dataclasses.replace(flip, face_down=face_down, carrier=carrier)

    def outs(self, g: GameLike, seat: int) -> list[Out]:
        return outs(g, seat)

    def face_down(self, g: GameLike) -> int | None:
        assert g.flip is not None
        return g.flip.face_down

    def marks(self, g: GameLike) -> Marks | None:
        flip = g.flip
        assert flip is not None
        colours = flip.colours
        return Marks(
            face_down=0 if g.phase == Phase.FINISHED else flip.face_down,
            carriers=0 if flip.carrier is None else 1 << flip.carrier,
            owners=(None, None) if colours is None else (colours.index(0), colours.index(1)),
        )

    def board_view(self, g: GameLike) -> Mapping[str, Any]:
        flip = g.flip
        assert flip is not None
        return {
            "colours": None if flip.colours is None else list(flip.colours),
            "mines_dug": list(flip.mines_dug),
        }

    def turn_view(self, g: GameLike) -> Mapping[str, Any]:
        assert g.flip is not None
        return {"flippable": mask_ids(move_tables(g.variant.board), g.flip.face_down)}


RULEBOOK = Fanqi()
