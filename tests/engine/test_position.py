"""Position: building, moving, combat outcomes, removal of an eliminated seat."""

from __future__ import annotations

import random

import pytest

import engine
from engine import Outcome, Piece, Position, Rank
from engine.sampling import random_action

BOARD = engine.get_board("siguo")


def position(**pieces: tuple[int, str]) -> Position:
    return Position.from_pieces(BOARD, {k.replace("_", ":"): v for k, v in pieces.items()})


def test_from_pieces_and_back() -> None:
    pos = position(**{"0_51": (0, "engineer"), "c_22": (1, "landmine")})
    assert pos.pieces() == {"0:51": Piece(0, Rank.ENGINEER), "c:22": Piece(1, Rank.LANDMINE)}
    assert pos.piece_at("0:51") == Piece(0, Rank.ENGINEER)
    assert pos.piece_at("0:52") is None
    assert list(pos.stations_of(1)) == ["c:22"]
    assert pos.count(0, Rank.ENGINEER) == 1


def in_play(seed: str) -> engine.GameState:
    """A 四国 game just in play, its layouts chosen at random."""
    rng, state = random.Random(seed), engine.new_game("siguo", seed=seed)
    while state.phase != "playing":
        state, _ = engine.apply(state, random_action(state, rng))
    return state


def test_games_share_one_object_for_each_kind_of_piece() -> None:
    first, second = (in_play(seed) for seed in ("a", "b"))
    assert first.position is not None and second.position is not None
    one = {piece: piece for piece in first.position.cells if piece is not None}
    others = [piece for piece in second.position.cells if piece is not None]
    assert len(one) == 4 * 12 and len(others) == 4 * 25  # kinds; pieces
    assert all(one[piece] is piece for piece in others)
    own = Position.from_pieces(BOARD, {"0:51": (0, "engineer"), "0:52": (0, "engineer", 0)})
    assert own.cells[BOARD.station("0:51").index] is own.cells[BOARD.station("0:52").index]


def test_move_to_an_empty_station() -> None:
    pos = position(**{"0_51": (0, "engineer")}).with_move("0:51", "2:51")
    assert pos == position(**{"2_51": (0, "engineer")})
    assert pos.occupied == 1 << BOARD.station("2:51").index
    assert pos.flyers == pos.mobile == pos.seat_masks[0] == pos.occupied


@pytest.mark.parametrize(
    ("outcome", "left"),
    [
        (Outcome.ATTACKER, {"0:41": Piece(0, Rank.GENERAL)}),
        (Outcome.DEFENDER, {"0:41": Piece(1, Rank.FIELD_MARSHAL)}),
        (Outcome.BOTH, {}),
    ],
)
def test_move_with_combat(outcome: Outcome, left: dict[str, Piece]) -> None:
    pos = position(**{"0_51": (0, "general"), "0_41": (1, "field_marshal")})
    after = pos.with_move("0:51", "0:41", outcome)
    assert after.pieces() == left
    # the masks always agree with the cells
    assert after == Position.from_cells(BOARD, after.cells)
    rebuilt = Position.from_cells(BOARD, after.cells)
    assert (after.occupied, after.seat_masks, after.mobile, after.flyers) == (
        rebuilt.occupied,
        rebuilt.seat_masks,
        rebuilt.mobile,
        rebuilt.flyers,
    )


def test_outcome_is_given_exactly_for_combat() -> None:
    pos = position(**{"0_51": (0, "general"), "0_41": (1, "field_marshal")})
    with pytest.raises(engine.MalformedInput):
        pos.with_move("0:51", "0:41")
    with pytest.raises(engine.MalformedInput):
        pos.with_move("0:51", "0:52", Outcome.ATTACKER)
    with pytest.raises(engine.MalformedInput, match="no piece on 0:53"):
        pos.with_move("0:53", "0:52")


def test_without_seat_removes_every_piece_of_that_seat() -> None:
    pos = position(**{"0_51": (0, "general"), "0_41": (1, "field_marshal"), "1_62": (1, "flag")})
    assert position(**{"0_51": (0, "general")}) == pos.without_seat(1)


def test_bad_pieces_are_malformed() -> None:
    with pytest.raises(engine.MalformedInput, match="no seat"):
        position(**{"0_51": (4, "general")})
    with pytest.raises(engine.MalformedInput, match="unknown rank"):
        position(**{"0_51": (0, "generalissimo")})
