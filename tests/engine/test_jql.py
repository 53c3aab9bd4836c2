"""QQ游戏 layout files (.jql): a file as QQ writes it reads as the layout it shows, every legal
layout goes through a file and back unchanged, and what is not such a file says so."""

from __future__ import annotations

import pytest

import engine
from engine.jql import HEADER, MAGIC
from engine.pieces import Rank

# a file as the format is published: front row first, columns from the owner's left
QQ_FILE = (
    HEADER
    + MAGIC
    + bytes(
        [
            *(5, 8, 11, 13, 7),  # 司令 旅长 连长 工兵 师长
            *(9, 0, 11, 0, 9),  # 团长 (camp) 连长 (camp) 团长
            *(6, 13, 0, 11, 7),  # 军长 工兵 (camp) 连长 师长
            *(4, 0, 12, 0, 10),  # 炸弹 (camp) 排长 (camp) 营长
            *(8, 3, 12, 3, 4),  # 旅长 地雷 排长 地雷 炸弹
            *(10, 2, 3, 12, 13),  # 营长 军旗 地雷 排长 工兵
        ]
    )
)


def test_a_qq_file_reads_as_the_layout_it_shows() -> None:
    layout = engine.parse_jql(QQ_FILE, 0)
    assert layout["0:11"] == Rank.FIELD_MARSHAL and layout["0:15"] == Rank.MAJOR_GENERAL
    assert layout["0:62"] == Rank.FLAG  # the left HQ, from the owner's side
    assert "0:22" not in layout and "0:33" not in layout  # camps stay empty
    assert engine.deployment_problems("siguo", 0, {s: r.value for s, r in layout.items()}) == []
    turned = engine.parse_jql(QQ_FILE, 2)  # a file is the same for every seat
    assert turned["2:62"] == Rank.FLAG and len(turned) == 25


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(("variant", "seat"), [("siguo", 1), ("liangguo", 0), ("sanguo", 2)])
def test_every_layout_goes_through_a_file_and_back(variant: str, seat: int, seed: int) -> None:
    layout = {s: str(r) for s, r in engine.auto_layout(variant, seat, seed).items()}
    data = engine.format_jql(layout)
    assert len(data) == 50 and data.startswith(HEADER + MAGIC)
    assert {s: r.value for s, r in engine.parse_jql(data, seat).items()} == layout
    assert engine.parse_jql(data, 0) == engine.parse_layout(engine.format_layout(layout), 0)


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"", "not a QQ layout file"),
        (b"# junqi layout\n" * 4, "not a QQ layout file"),
        (HEADER + bytes(4) + bytes(30), "not a QQ layout file"),  # no magic
        (HEADER + MAGIC + bytes([1] + [0] * 29), "byte 20: no piece 1"),  # a hidden piece
        (HEADER + MAGIC + bytes([14] + [0] * 29), "no piece 14"),
    ],
)
def test_what_is_not_a_qq_layout_file_says_so(data: bytes, why: str) -> None:
    with pytest.raises(engine.MalformedInput, match=why):
        engine.parse_jql(data, 0)


def test_the_specials_of_three_against_one_have_no_qq_byte() -> None:
    with pytest.raises(engine.MalformedInput, match="no missile"):
        engine.format_jql({"0:11": "missile"})
