"""Boards (docs/rules.md §2): counts, ids, kinds, edges, straight lines and drawing coordinates."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

import engine
from engine.board import ARM_CAMPS, ARM_HQS

# (stations, rail stations, rail edges, road edges, straight lines): docs/rules.md §2.3-§2.5
COUNTS = {
    "siguo": (129, 73, 92, 196, 18),
    "liangguo": (60, 32, 35, 98, 7),
    "sanguo": (97, 55, 69, 147, 21),
}


@pytest.mark.parametrize("key", COUNTS)
def test_counts(key: str) -> None:
    board = engine.get_board(key)
    rail = [s for s in board.stations if board.station(s).rail]
    assert (
        len(board.stations),
        len(rail),
        len(board.rail_edges),
        len(board.road_edges),
        len(board.lines),
    ) == COUNTS[key]


@pytest.mark.parametrize("key", COUNTS)
def test_every_arm_is_the_standard_arm(key: str) -> None:
    board = engine.get_board(key)
    for seat in board.seats:
        arm = board.arm(seat)
        assert len(arm) == 30
        kinds = Counter(board.station(s).kind for s in arm)
        assert kinds == {"post": 23, "camp": 5, "hq": 2}
        for sid in arm:
            st = board.station(sid)
            assert (st.seat, st.row, st.col) == (seat, int(sid[2]), int(sid[3]))
            assert st.row is not None
            assert (st.kind == "camp") == ((st.row, st.col) in ARM_CAMPS)
            assert (st.kind == "hq") == ((st.row, st.col) in ARM_HQS)
            assert st.rail == (st.row <= 5 and (st.row in (1, 5) or st.col in (1, 5)))
        inside = {frozenset(e) for e in board.road_edges if set(e) <= set(arm)}
        assert len(inside) == 49  # docs/rules.md §2.2
        ring = {frozenset(e) for e in board.rail_edges if set(e) <= set(arm)}
        assert len(ring) == 16


@pytest.mark.parametrize("key", COUNTS)
def test_no_road_joins_two_arms_and_centre_is_rail_only(key: str) -> None:
    board = engine.get_board(key)
    for a, b in board.road_edges:
        assert board.station(a).seat == board.station(b).seat is not None
    for sid in board.stations:
        st = board.station(sid)
        if st.seat is None:
            assert st.kind == "centre" and st.rail and sid.startswith("c:")


@pytest.mark.parametrize(
    ("sid", "kind"),
    [("0:62", "hq"), ("0:64", "hq"), ("2:33", "camp"), ("1:22", "camp"), ("3:11", "post")]
    + [("c:22", "centre"), ("0:63", "post")],
)
def test_station_kinds(sid: str, kind: str) -> None:
    assert engine.get_board("siguo").station(sid).kind == kind


def test_camp_touches_all_eight_neighbours() -> None:
    board = engine.get_board("siguo")
    assert board.neighbours("0:22") == {"0:11", "0:12", "0:13", "0:21", "0:23", "0:31", "0:32"} | {
        "0:33"
    }
    # a post next to camps only gets the camps' diagonals, not diagonals of its own
    assert board.neighbours("0:12") == {"0:11", "0:13", "0:22"}
    assert board.neighbours("0:62") == {"0:52", "0:61", "0:63"}


SIGUO_LINKS = [
    ("0:11", "c:31"),
    ("0:13", "c:32"),
    ("0:15", "c:33"),
    ("1:11", "c:11"),
    ("1:13", "c:21"),
    ("1:15", "c:31"),
    ("2:11", "c:13"),
    ("2:13", "c:12"),
    ("2:15", "c:11"),
    ("3:11", "c:33"),
    ("3:13", "c:23"),
    ("3:15", "c:13"),
]
SIGUO_ARCS = [("0:11", "1:15"), ("1:11", "2:15"), ("2:11", "3:15"), ("3:11", "0:15")]


def test_siguo_rail_beyond_the_arms() -> None:
    board = engine.get_board("siguo")
    rail = {frozenset(e) for e in board.rail_edges}
    for edge in SIGUO_LINKS + SIGUO_ARCS:
        assert frozenset(edge) in rail
    for seat in range(4):  # columns 2 and 4 have no centre link
        for col in (2, 4):
            assert not any(n.startswith("c:") for n in board.rail_neighbours(f"{seat}:1{col}"))
    centre = {e for e in rail if all(s.startswith("c:") for s in e)}
    assert len(centre) == 12
    assert frozenset(("c:11", "c:22")) not in rail  # no diagonals in the centre
    arm_centre = {e for e in rail if len({s[0] for s in e}) == 2 and any("c" in s for s in e)}
    assert arm_centre == {frozenset(e) for e in SIGUO_LINKS}


def test_siguo_world_coordinates() -> None:
    board = engine.get_board("siguo")
    assert board.station("c:11").xy == (6, 6)
    assert board.station("c:22").xy == (8, 8)
    assert board.station("c:33").xy == (10, 10)
    # docs/rules.md §2.3: the arcs join (6,11)-(5,10), (5,6)-(6,5), (10,5)-(11,6), (11,10)-(10,11)
    ends = [(board.station(a).xy, board.station(b).xy) for a, b in SIGUO_ARCS]
    assert ends == [
        ((6, 11), (5, 10)),
        ((5, 6), (6, 5)),
        ((10, 5), (11, 6)),
        ((11, 10), (10, 11)),
    ]
    assert board.station("0:62").xy == (7, 16)  # seat 0 is south, its HQs on the bottom row


SIGUO_LINES = [
    ["0:51", "0:41", "0:31", "0:21", "0:11", "c:31", "c:21", "c:11"]
    + ["2:15", "2:25", "2:35", "2:45", "2:55"],
    ["0:13", "c:32", "c:22", "c:12", "2:13"],
    ["1:13", "c:21", "c:22", "c:23", "3:13"],
    ["0:51", "0:41", "0:31", "0:21", "0:11", "1:15", "1:25", "1:35", "1:45", "1:55"],
    ["0:11", "0:12", "0:13", "0:14", "0:15"],
    ["3:51", "3:52", "3:53", "3:54", "3:55"],
]


@pytest.mark.parametrize("line", SIGUO_LINES)
def test_siguo_straight_lines(line: list[str]) -> None:
    board = engine.get_board("siguo")
    assert tuple(line) in board.lines or tuple(reversed(line)) in board.lines


@pytest.mark.parametrize("key", COUNTS)
def test_rail_edges_are_the_lines_and_lines_are_rail_paths(key: str) -> None:
    board = engine.get_board(key)
    from_lines = {frozenset(p) for line in board.lines for p in itertools.pairwise(line)}
    assert from_lines == {frozenset(e) for e in board.rail_edges}


def test_liangguo_crossings() -> None:
    board = engine.get_board("liangguo")
    between = {frozenset(e) for e in board.rail_edges if e[0][0] != e[1][0]}
    assert between == {frozenset(e) for e in [("0:11", "1:15"), ("0:13", "1:13"), ("0:15", "1:11")]}
    assert ("0:13", "1:13") in board.lines or ("1:13", "0:13") in board.lines


def test_sanguo_centre() -> None:
    board = engine.get_board("sanguo")
    rail = {frozenset(e) for e in board.rail_edges}
    assert {s for s in board.stations if s.startswith("c:")} == {
        "c:h",
        "c:f0",
        "c:f1",
        "c:f2",
        "c:k0",
        "c:k1",
        "c:k2",
    }
    assert board.rail_neighbours("c:h") == {"c:f0", "c:f1", "c:f2"}
    for i in range(3):
        prev, nxt = (i - 1) % 3, (i + 1) % 3
        assert board.rail_neighbours(f"c:f{i}") == {"c:h", f"{i}:13", f"c:k{i}", f"c:k{prev}"}
        assert board.rail_neighbours(f"c:k{i}") == {
            f"{i}:11",
            f"{nxt}:15",
            f"c:f{i}",
            f"c:f{nxt}",
        }
        assert frozenset((f"{i}:11", f"{nxt}:15")) in rail  # the arc
    # nothing runs straight through the hub or a corner
    for line in board.lines:
        assert "c:h" not in line[1:-1]
        assert not any(s.startswith("c:k") for s in line[1:-1])


@pytest.mark.parametrize("key", COUNTS)
def test_coordinates_are_distinct_and_edges_are_short(key: str) -> None:
    board = engine.get_board(key)
    xys = [board.station(s).xy for s in board.stations]
    assert len(set(xys)) == len(xys)
    for a, b in board.road_edges + board.rail_edges:
        (x1, y1), (x2, y2) = board.station(a).xy, board.station(b).xy
        assert 0.9 < math.hypot(x2 - x1, y2 - y1) < 4.2, (a, b)  # arcs are the longest


@pytest.mark.parametrize("key", COUNTS)
def test_station_indices_are_positions(key: str) -> None:
    board = engine.get_board(key)
    assert [board.station(s).index for s in board.stations] == list(range(len(board.stations)))


def test_unknown_board_and_station() -> None:
    with pytest.raises(engine.MalformedInput, match="unknown board"):
        engine.get_board("chess")
    with pytest.raises(engine.MalformedInput, match="no station"):
        engine.get_board("siguo").station("0:99")
    with pytest.raises(engine.MalformedInput):
        engine.get_board("liangguo").arm(2)
