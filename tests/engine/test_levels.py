"""Titles and stakes (docs/rules.md §10)."""

from __future__ import annotations

import pytest

from engine.levels import TITLES, table_stake, title_for


@pytest.mark.parametrize(
    ("points", "name", "level", "stage"),
    [
        (-40, "兵", 1, "beginner"),
        (0, "兵", 1, "beginner"),
        (9, "兵", 1, "beginner"),
        (10, "副班长", 2, "beginner"),
        (149, "副连长", 6, "beginner"),
        (150, "连长", 7, "intermediate"),
        (1549, "副旅长", 12, "intermediate"),
        (1550, "旅长", 13, "advanced"),
        (12749, "军长", 17, "advanced"),
        (12750, "司令", 18, "advanced"),
        (99999, "司令", 18, "advanced"),
    ],
)
def test_titles(points: int, name: str, level: int, stage: str) -> None:
    title = title_for(points)
    assert (title.name, title.level, title.stage) == (name, level, stage)


def test_eighteen_titles_in_rising_order() -> None:
    assert len(TITLES) == 18
    assert [t.points for t in TITLES] == sorted(t.points for t in TITLES)


def test_the_table_plays_for_its_lowest_level_player_s_stake() -> None:
    assert table_stake([5000, 2000, 300, 0]) == 1
    assert table_stake([5000, 2000, 300, 160]) == 5
    assert table_stake([5000, 2000]) == 10
    assert table_stake([]) == 1
