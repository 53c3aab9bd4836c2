"""Layout text notation 布局文件 (docs/rules.md §5): format_layout / parse_layout."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

import engine
from tests.engine.layouts import HAND

HEADER = "# junqi layout: row 1 (front) to row 6 (back), columns from the owner's left"

HAND_ROWS = """\
排 连 排 连 营
师 ＋ 工 ＋ 旅
司 炸 ＋ 炸 军
团 ＋ 营 ＋ 师
工 雷 旅 雷 团
雷 旗 排 工 连
"""
HAND_TEXT = HEADER + "\n" + HAND_ROWS

SEATS = {"siguo": (0, 1, 2, 3), "liangguo": (0, 1), "sanguo": (0, 1, 2)}
VARIANT_SEATS = [(v, s) for v, seats in SEATS.items() for s in seats]


def on_seat(layout: Mapping[str, str], seat: int) -> dict[str, str]:
    return {f"{seat}:{sid.split(':')[1]}": rank for sid, rank in layout.items()}


def one_token(token: str) -> str:
    """Six rows with ``token`` at row 2, column 3 and every other station empty."""
    rows = [". . . . ."] * 6
    rows[1] = f". . {token} . ."
    return "\n".join(rows)


# --- format --------------------------------------------------------------------------------------


def test_format_hand_layout_gives_the_expected_text() -> None:
    assert engine.format_layout(HAND) == HAND_TEXT


@pytest.mark.parametrize(("variant", "seat"), VARIANT_SEATS)
def test_format_shows_every_seat_from_its_owner_s_side(variant: str, seat: int) -> None:
    assert engine.format_layout(on_seat(HAND, seat)) == HAND_TEXT


def test_format_partial_layout_marks_empty_stations() -> None:
    layout = {"2:11": "bomb", "2:15": "field_marshal", "2:33": "engineer", "2:64": "flag"}
    expected = (
        HEADER
        + "\n"
        + "炸 ＋ ＋ ＋ 司\n"
        + "＋ ＋ ＋ ＋ ＋\n"
        + "＋ ＋ 工 ＋ ＋\n"
        + "＋ ＋ ＋ ＋ ＋\n"
        + "＋ ＋ ＋ ＋ ＋\n"
        + "＋ ＋ ＋ 旗 ＋\n"
    )
    assert engine.format_layout(layout) == expected


def test_format_empty_layout_is_six_empty_rows() -> None:
    assert engine.format_layout({}) == HEADER + "\n" + "＋ ＋ ＋ ＋ ＋\n" * 6


@pytest.mark.parametrize(
    "layout",
    [
        {"0:11": "bomb", "1:11": "bomb"},
        {**HAND, "2:62": "flag"},
        {"1:62": "flag", "3:64": "flag"},
    ],
)
def test_format_pieces_on_two_arms_is_malformed(layout: dict[str, str]) -> None:
    with pytest.raises(engine.MalformedInput):
        engine.format_layout(layout)


@pytest.mark.parametrize(
    "layout",
    [{"c:22": "bomb"}, {"0:77": "bomb"}, {"0:11": "king"}],
    ids=["centre-station", "off-arm-station", "unknown-rank"],
)
def test_format_unwritable_layout_is_malformed(layout: dict[str, str]) -> None:
    with pytest.raises(engine.MalformedInput):
        engine.format_layout(layout)


# --- parse ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_parse_hand_text_gives_the_hand_layout_on_the_seat(seat: int) -> None:
    assert engine.parse_layout(HAND_TEXT, seat) == on_seat(HAND, seat)


def test_parse_without_header_is_the_same() -> None:
    assert engine.parse_layout(HAND_ROWS, 0) == HAND


def test_parse_returns_rank_members() -> None:
    layout = engine.parse_layout(HAND_TEXT, 0)
    assert all(isinstance(rank, engine.Rank) for rank in layout.values())


ALIASES = [
    # rank keys
    ("field_marshal", "field_marshal"),
    ("general", "general"),
    ("major_general", "major_general"),
    ("brigadier", "brigadier"),
    ("colonel", "colonel"),
    ("major", "major"),
    ("captain", "captain"),
    ("lieutenant", "lieutenant"),
    ("engineer", "engineer"),
    ("landmine", "landmine"),
    ("bomb", "bomb"),
    ("flag", "flag"),
    ("supreme_marshal", "supreme_marshal"),
    ("missile", "missile"),
    ("fortress", "fortress"),
    # full Chinese names (docs/rules.md §1)
    ("司令", "field_marshal"),
    ("军长", "general"),
    ("师长", "major_general"),
    ("旅长", "brigadier"),
    ("团长", "colonel"),
    ("营长", "major"),
    ("连长", "captain"),
    ("排长", "lieutenant"),
    ("工兵", "engineer"),
    ("地雷", "landmine"),
    ("炸弹", "bomb"),
    ("军旗", "flag"),
    ("导弹", "missile"),
    ("堡垒", "fortress"),
    # one-character names
    ("帅", "supreme_marshal"),
    ("司", "field_marshal"),
    ("军", "general"),
    ("师", "major_general"),
    ("旅", "brigadier"),
    ("团", "colonel"),
    ("营", "major"),
    ("连", "captain"),
    ("排", "lieutenant"),
    ("工", "engineer"),
    ("雷", "landmine"),
    ("炸", "bomb"),
    ("旗", "flag"),
    ("导", "missile"),
    ("垒", "fortress"),
    # "40" is the common name of the 司令
    ("40", "field_marshal"),
]


@pytest.mark.parametrize(("token", "rank"), ALIASES)
def test_parse_accepts_rank_alias(token: str, rank: str) -> None:
    assert engine.parse_layout(one_token(token), 1) == {"1:23": rank}


@pytest.mark.parametrize("token", ["＋", "+", ".", "·", "-"])
def test_parse_accepts_empty_token(token: str) -> None:
    text = "\n".join([" ".join([token] * 5)] * 5 + [f"{token} 旗 {token} {token} {token}"])
    assert engine.parse_layout(text, 0) == {"0:62": "flag"}


def test_parse_mixed_aliases_give_the_hand_layout() -> None:
    text = """\
排长 captain 排 连长 营
师 . engineer + brigadier
40 炸弹 · bomb 军长
团 - major ＋ major_general
工兵 地雷 旅 landmine 团长
雷 军旗 lieutenant 工 连
"""
    assert engine.parse_layout(text, 0) == HAND


def test_parse_skips_comments_blank_lines_and_extra_spaces() -> None:
    text = (
        "# my favourite layout\n"
        "\n"
        "  排 连 排 连 营  \n"
        "#   another comment: 司 司 司\n"
        "师\t＋  工 ＋ 旅\n"
        "   \n"
        "司 炸 ＋ 炸 军\n"
        "  # indented comment\n"
        "团 ＋ 营 ＋ 师\n"
        "工 雷 旅 雷 团\n"
        "雷 旗 排 工 连\n"
        "\n"
        "# the end\n"
    )
    assert engine.parse_layout(text, 0) == HAND


@pytest.mark.parametrize(
    ("lines", "bad_line"),
    [
        (["# header", "排 连 排 连", *HAND_ROWS.splitlines()[1:]], 2),
        (["", "# header", "", *HAND_ROWS.splitlines()[:3], "团 ＋ 营 ＋ 师 师"], 7),
        ([*HAND_ROWS.splitlines()[:5], "雷旗排工连"], 6),
        (["# a", "# b", "# c", *HAND_ROWS.splitlines()[:3], "团 ＋ 营 ＋ 师 # note"], 7),
    ],
    ids=["too-few", "too-many", "no-spaces", "inline-comment"],
)
def test_parse_wrong_token_count_names_the_line(lines: list[str], bad_line: int) -> None:
    with pytest.raises(engine.MalformedInput, match=rf"\bline {bad_line}\b"):
        engine.parse_layout("\n".join(lines), 0)


@pytest.mark.parametrize(
    ("token", "bad_line"),
    [("王", 5), ("司令官", 5), ("Bomb", 5), ("41", 5), ("x", 5)],
)
def test_parse_unknown_token_names_the_line(token: str, bad_line: int) -> None:
    rows = HAND_ROWS.splitlines()
    rows[2] = f"司 炸 ＋ {token} 军"
    text = "\n".join(["# header", "", *rows])  # row 3 sits on line 5
    with pytest.raises(engine.MalformedInput, match=rf"\bline {bad_line}\b.*{token}"):
        engine.parse_layout(text, 0)


@pytest.mark.parametrize("rows", [0, 1, 5, 7, 12])
def test_parse_wrong_number_of_rows_is_malformed(rows: int) -> None:
    text = "# header\n" + "排 连 排 连 营\n" * rows
    with pytest.raises(engine.MalformedInput, match=rf"\b6\b.*\b{rows}\b"):
        engine.parse_layout(text, 0)


def test_parse_seventh_row_names_its_line() -> None:
    text = HAND_TEXT + "排 连 排 连 营\n"  # header + 6 rows: the extra row is line 8
    with pytest.raises(engine.MalformedInput, match=r"\bline 8\b"):
        engine.parse_layout(text, 0)


# --- round trip ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("variant", "seat"), VARIANT_SEATS)
def test_round_trip_of_auto_layouts(variant: str, seat: int) -> None:
    for seed in range(40):
        layout = engine.auto_layout(variant, seat, seed)
        text = engine.format_layout(layout)
        assert engine.parse_layout(text, seat) == layout
        assert engine.format_layout(engine.parse_layout(text, seat)) == text


@pytest.mark.parametrize(
    ("layout", "seat"),
    [
        ({}, 0),
        ({"0:62": "flag"}, 0),
        ({"1:11": "bomb", "1:65": "landmine", "1:33": "engineer"}, 1),
        ({"3:22": "general", "3:24": "general", "3:44": "missile"}, 3),
        ({"2:12": "supreme_marshal", "2:13": "fortress", "2:14": "missile"}, 2),
        ({k: v for k, v in HAND.items() if k[2] in "135"}, 0),
    ],
    ids=["empty", "flag-only", "with-camp", "camps-and-extras", "banker-ranks", "odd-rows"],
)
def test_round_trip_of_partial_layout(layout: dict[str, str], seat: int) -> None:
    assert engine.parse_layout(engine.format_layout(layout), seat) == layout


def test_round_trip_of_text_with_aliases_normalises_it() -> None:
    text = one_token("40")
    assert engine.format_layout(engine.parse_layout(text, 0)) == (
        HEADER + "\n" + "＋ ＋ ＋ ＋ ＋\n" + "＋ ＋ 司 ＋ ＋\n" + "＋ ＋ ＋ ＋ ＋\n" * 4
    )
