"""Movement (docs/rules.md §3 and the §12 cases), checked by hand and against a slow reference."""

from __future__ import annotations

import math
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.sampling import random_position
from tests.engine.reference import reference_destinations
from tests.soak import soak

Pieces = dict[str, tuple[int, str]]


def dest(pieces: Pieces, origin: str, variant: str = "siguo") -> set[str]:
    return engine.destinations(variant, pieces, origin)


LONG_LINE = ["0:41", "0:31", "0:21", "0:11", "c:31", "c:21", "c:11"] + [
    f"2:{r}5" for r in range(1, 6)
]
ARC = ["1:15", "1:25", "1:35", "1:45", "1:55"]


# --- docs/rules.md §12 ---------------------------------------------------------------------------


def test_slides_the_long_line_on_an_empty_board() -> None:
    reach = dest({"0:51": (0, "major")}, "0:51")
    assert set(LONG_LINE) <= reach
    assert "2:55" in reach  # 13 stations along the line


def test_a_piece_on_the_line_stops_the_slide() -> None:
    reach = dest({"0:51": (0, "major"), "c:21": (1, "major")}, "0:51")
    assert {"c:31", "c:21"} <= reach  # c:21 holds an enemy: it may attack it
    assert not {"c:11", "2:15", "2:55"} & reach
    reach = dest({"0:51": (0, "major"), "c:21": (2, "major")}, "0:51")  # partner
    assert "c:31" in reach and "c:21" not in reach


def test_no_turning_without_an_engineer() -> None:
    assert "2:51" not in dest({"0:51": (0, "major")}, "0:51")
    assert "2:51" in dest({"0:51": (0, "engineer")}, "0:51")


def test_the_arc_is_straight_and_the_centre_corner_does_not_block_it() -> None:
    pieces: Pieces = {"0:51": (0, "major"), "c:31": (1, "major")}
    assert set(ARC) <= dest(pieces, "0:51")


def test_no_turning_from_the_front_row_onto_the_arc() -> None:
    reach = dest({"0:12": (0, "major")}, "0:12")
    assert reach == {"0:11", "0:13", "0:14", "0:15", "0:22"}


@pytest.mark.parametrize("origin", ["0:12", "0:14"])
def test_columns_two_and_four_have_no_centre_link(origin: str) -> None:
    assert not any(s.startswith("c:") for s in dest({origin: (0, "major")}, origin))
    # an engineer gets there only by turning at 0:11, 0:13 or 0:15: block those and it cannot
    blocked: Pieces = {origin: (0, "engineer"), "0:11": (0, "bomb"), "0:13": (0, "bomb")}
    blocked["0:15"] = (0, "bomb")
    assert not any(s.startswith("c:") for s in dest(blocked, origin))


@pytest.mark.parametrize("hq", ["0:62", "0:64", "2:62", "1:64"])
@pytest.mark.parametrize("rank", ["field_marshal", "engineer", "bomb"])
def test_nobody_leaves_an_hq(hq: str, rank: str) -> None:
    assert dest({hq: (int(hq[0]), rank)}, hq) == set()


def test_pieces_enter_an_hq() -> None:
    assert "0:62" in dest({"0:52": (0, "captain")}, "0:52")
    assert "1:64" in dest({"1:54": (0, "captain")}, "1:54")  # an enemy HQ too


def test_nobody_attacks_into_a_camp() -> None:
    pieces: Pieces = {"0:12": (0, "field_marshal"), "0:22": (1, "lieutenant")}
    assert "0:22" not in dest(pieces, "0:12")
    pieces = {"c:31": (0, "engineer"), "1:22": (1, "lieutenant"), "1:11": (0, "major")}
    assert "1:22" not in dest(pieces, "1:11")


def test_a_piece_may_enter_an_empty_enemy_camp() -> None:
    assert "2:22" in dest({"2:12": (0, "captain")}, "2:12")


def test_never_into_an_occupied_camp_even_own() -> None:
    assert "0:22" not in dest({"0:12": (0, "captain"), "0:22": (0, "major")}, "0:12")


def test_a_camp_piece_steps_to_all_eight_neighbours() -> None:
    reach = dest({"0:22": (0, "major")}, "0:22")
    assert reach == {"0:11", "0:12", "0:13", "0:21", "0:23", "0:31", "0:32", "0:33"}


@pytest.mark.parametrize("rank", ["landmine", "flag", "fortress"])
def test_immobile_pieces(rank: str) -> None:
    assert dest({"0:53": (0, rank)}, "0:53") == set()


def test_never_onto_own_or_partner_pieces_but_onto_enemies() -> None:
    pieces: Pieces = {"0:51": (0, "major"), "0:52": (0, "captain"), "0:41": (2, "captain")}
    pieces["0:61"] = (1, "captain")
    pieces["0:42"] = (3, "captain")  # an enemy in a camp
    assert dest(pieces, "0:51") == {"0:61"}


# --- exact destination sets worked out by hand -------------------------------------------------

HAND_COUNTS = [
    # variant, origin, rank, number of destinations on an otherwise empty board
    ("siguo", "0:51", "major", 23),  # 12 long line + 5 arc + 4 row 5 + 0:61 + camp 0:42
    ("siguo", "0:51", "engineer", 74),  # 72 other rail stations + 0:61 + 0:42
    ("siguo", "c:22", "major", 8),  # the two middle lines
    ("siguo", "c:22", "engineer", 72),
    ("siguo", "0:33", "major", 8),  # camp in the middle of the arm
    ("siguo", "0:63", "major", 3),  # 0:53 and both HQs
    ("liangguo", "0:51", "major", 15),  # 4 + 5 across + 4 row 5 + 0:61 + 0:42
    ("liangguo", "0:51", "engineer", 33),
    ("liangguo", "0:13", "major", 8),  # row 1 (4) + 1:13 + 0:23 + camps 0:22, 0:24
    ("sanguo", "0:51", "major", 16),  # col 1 (4) + c:k0 + arc (5) + row 5 (4) + 2 road
    ("sanguo", "0:51", "engineer", 56),
    ("sanguo", "c:h", "major", 6),  # three spokes, nothing straight through the hub
    ("sanguo", "c:f0", "major", 4),  # c:k0, c:k2, 0:13, c:h
    ("sanguo", "c:k0", "major", 14),  # two columns (5 + 5) and two ring sides (2 + 2)
]


@pytest.mark.parametrize(("variant", "origin", "rank", "count"), HAND_COUNTS)
def test_hand_counted_destinations(variant: str, origin: str, rank: str, count: int) -> None:
    seat = 0 if origin.startswith(("0", "c")) else int(origin[0])
    assert len(dest({origin: (seat, rank)}, origin, variant)) == count


def test_sanguo_corner_ends_every_line() -> None:
    reach = dest({"c:k0": (0, "major")}, "c:k0", "sanguo")
    columns = {f"0:{r}1" for r in range(1, 6)} | {f"1:{r}5" for r in range(1, 6)}
    assert reach == columns | {"c:f0", "c:k2", "c:f1", "c:k1"}
    # coming up seat 0's column 1, a piece stops at the corner: it cannot turn onto the ring
    reach = dest({"0:21": (0, "major")}, "0:21", "sanguo")
    assert "c:k0" in reach and not {"c:f0", "c:f1"} & reach
    assert "1:55" in reach  # but the arc runs on


# --- against the reference, on random positions -------------------------------------------------

VARIANT_SEEDS = [(v, seed) for v in ("siguo", "liangguo", "sanguo") for seed in range(12)]


@pytest.mark.parametrize(("variant", "seed"), VARIANT_SEEDS)
def test_matches_reference_on_random_positions(variant: str, seed: int) -> None:
    v = engine.get_variant(variant)
    position, _ = random_position(variant, seed, plies=20 + 15 * seed)
    pieces = {sid: (p.seat, p.rank.value) for sid, p in position.pieces().items()}
    for origin in pieces:
        expected = reference_destinations(v.board, pieces, origin, v.teams)
        assert engine.destinations(variant, pieces, origin) == expected, origin
    for seat in v.seats:
        listed = engine.legal_move_list(position, seat, v.teams)
        expected_moves = {
            (o, t)
            for o, (s, _) in pieces.items()
            if s == seat
            for t in reference_destinations(v.board, pieces, o, v.teams)
        }
        assert sorted(listed) == sorted(expected_moves)


RANKS = ["field_marshal", "major", "engineer", "bomb", "landmine", "flag", "missile"]


@st.composite
def sparse_positions(draw: st.DrawFn, variant: str) -> tuple[Pieces, str]:
    board = engine.get_board(variant)
    seats = len(board.seats)
    chosen = draw(st.sets(st.sampled_from(board.stations), min_size=1, max_size=40))
    pieces = {
        sid: (draw(st.integers(0, seats - 1)), draw(st.sampled_from(RANKS))) for sid in chosen
    }
    return pieces, draw(st.sampled_from(sorted(chosen)))


@pytest.mark.parametrize("variant", ["siguo", "liangguo", "sanguo"])
@settings(max_examples=soak(30, 150), deadline=None)
@given(data=st.data())
def test_sparse_positions_match_reference(variant: str, data: st.DataObject) -> None:
    pieces, origin = data.draw(sparse_positions(variant))
    v = engine.get_variant(variant)
    expected = reference_destinations(v.board, pieces, origin, v.teams)
    assert engine.destinations(variant, pieces, origin) == expected


# --- symmetry -------------------------------------------------------------------------------------


@cache
def rotation(variant: str) -> dict[str, str]:
    """Station map that turns the board by one seat (seat i's arm onto seat i+1's), from xy."""
    board = engine.get_board(variant)
    points = {sid: board.station(sid).xy for sid in board.stations}
    cx = sum(x for x, _ in points.values()) / len(points)
    cy = sum(y for _, y in points.values()) / len(points)
    angle = 2 * math.pi / len(board.seats)
    out = {}
    for sid, (x, y) in points.items():
        dx, dy = x - cx, y - cy
        rx = cx + dx * math.cos(angle) - dy * math.sin(angle)
        ry = cy + dx * math.sin(angle) + dy * math.cos(angle)
        image = min(points, key=lambda s: math.dist(points[s], (rx, ry)))
        assert math.dist(points[image], (rx, ry)) < 0.01, sid
        out[sid] = image
    return out


@pytest.mark.parametrize("variant", ["siguo", "liangguo", "sanguo"])
def test_rotation_maps_each_arm_onto_the_next(variant: str) -> None:
    turn = rotation(variant)
    seats = len(engine.get_board(variant).seats)
    for sid, image in turn.items():
        if not sid.startswith("c:"):
            assert image == f"{(int(sid[0]) + 1) % seats}:{sid[2:]}"


@pytest.mark.parametrize("variant", ["siguo", "liangguo", "sanguo"])
@settings(max_examples=soak(20, 60), deadline=None)
@given(data=st.data())
def test_rotating_a_position_rotates_its_moves(variant: str, data: st.DataObject) -> None:
    pieces, origin = data.draw(sparse_positions(variant))
    seats = len(engine.get_board(variant).seats)
    turn = rotation(variant)
    turned = {turn[s]: ((seat + 1) % seats, rank) for s, (seat, rank) in pieces.items()}
    assert {turn[s] for s in dest(pieces, origin, variant)} == dest(turned, turn[origin], variant)


@pytest.mark.parametrize("variant", ["siguo", "liangguo", "sanguo"])
@settings(max_examples=soak(20, 60), deadline=None)
@given(data=st.data())
def test_an_engineer_reaches_at_least_what_others_reach(variant: str, data: st.DataObject) -> None:
    pieces, origin = data.draw(sparse_positions(variant))
    seat = pieces[origin][0]
    as_engineer = dest({**pieces, origin: (seat, "engineer")}, origin, variant)
    for rank in ("field_marshal", "bomb", "lieutenant"):
        assert dest({**pieces, origin: (seat, rank)}, origin, variant) <= as_engineer


def test_the_missile_flies_like_an_engineer() -> None:
    pieces: Pieces = {"0:51": (0, "missile"), "c:22": (1, "major")}
    engineer = dest({**pieces, "0:51": (0, "engineer")}, "0:51")
    assert dest(pieces, "0:51") == engineer
    assert "2:51" in engineer


# --- the façade's input checks -------------------------------------------------------------


def test_bad_input_is_malformed() -> None:
    with pytest.raises(engine.MalformedInput, match="unknown variant"):
        dest({"0:51": (0, "major")}, "0:51", "chess")
    with pytest.raises(engine.MalformedInput, match="no station"):
        dest({"0:99": (0, "major"), "0:51": (0, "major")}, "0:51")
    with pytest.raises(engine.MalformedInput, match="no piece on 0:52"):
        dest({"0:51": (0, "major")}, "0:52")
    with pytest.raises(engine.MalformedInput, match="no station"):
        dest({"0:51": (0, "major")}, "9:99")
    with pytest.raises(engine.MalformedInput, match="unknown rank"):
        dest({"0:51": (0, "admiral")}, "0:51")
    with pytest.raises(engine.MalformedInput, match="no seat"):
        dest({"0:51": (5, "major")}, "0:51")


def test_teams_can_be_given() -> None:
    pieces: Pieces = {"0:51": (0, "major"), "0:41": (1, "captain")}
    assert "0:41" in dest(pieces, "0:51")
    assert "0:41" not in engine.destinations("siguo", pieces, "0:51", teams=(0, 0, 1, 1))


def test_the_movement_options_travel_as_one_object() -> None:
    """``RuleOptions.movement`` holds the options movement follows; the generators take it whole,
    and ``destinations`` takes a table's options or that object (the variant's by default)."""
    pieces: Pieces = {"0:62": (0, "major"), "1:62": (1, "flag")}
    locked = engine.get_variant("siguo").rules
    free = locked.with_changes({"hq_lock": False})
    assert locked.movement == engine.MovementRules(hq_lock=True)
    assert free.movement == engine.MovementRules(hq_lock=False)
    assert "movement" not in free.to_dict() and "movement" not in repr(free)
    with pytest.raises(engine.MalformedInput):
        locked.with_changes({"movement": free.movement})
    out = {"0:52", "0:61", "0:63"}
    assert dest(pieces, "0:62") == set()
    assert engine.destinations("siguo", pieces, "0:62", rules=locked) == set()
    assert engine.destinations("siguo", pieces, "0:62", rules=free) == out
    assert engine.destinations("siguo", pieces, "0:62", rules=free.movement) == out
    board = engine.get_board("siguo")
    position = engine.Position.from_pieces(board, pieces)
    teams = (0, 1, 0, 1)
    assert engine.legal_moves(position, 0, teams) == {}
    assert engine.legal_moves(position, 0, teams, locked.movement) == {}
    listed = engine.legal_move_list(position, 0, teams, free.movement)
    assert {target for _, target in listed} == out
    assert reference_destinations(board, pieces, "0:62", teams, free.movement) == out
