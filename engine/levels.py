"""Levels: titles by points and the stake of a table (docs/rules.md §10)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class Stage(StrEnum):
    BEGINNER = "beginner"  # 初级
    INTERMEDIATE = "intermediate"  # 中级
    ADVANCED = "advanced"  # 高级


STAKES = {Stage.BEGINNER: 1, Stage.INTERMEDIATE: 5, Stage.ADVANCED: 10}


@dataclass(frozen=True, slots=True)
class Title:
    level: int  # 1..18
    name: str
    points: int  # the least points of this title
    stage: Stage


_TABLE = [
    ("兵", 0),
    ("副班长", 10),
    ("正班长", 20),
    ("副排长", 30),
    ("排长", 50),
    ("副连长", 100),
    ("连长", 150),
    ("副营长", 220),
    ("营长", 350),
    ("副团长", 500),
    ("团长", 750),
    ("副旅长", 1000),
    ("旅长", 1550),
    ("副师长", 2150),
    ("师长", 3150),
    ("副军长", 5000),
    ("军长", 6350),
    ("司令", 12750),
]
# the 6/6/6 stage split is a decision of docs/rules.md §10
TITLES = tuple(
    Title(n + 1, name, points, list(Stage)[n // 6]) for n, (name, points) in enumerate(_TABLE)
)


def title_for(points: int) -> Title:
    """The title a player holds with ``points`` (兵 at 0 and below)."""
    held = TITLES[0]
    for title in TITLES:
        if points >= title.points:
            held = title
    return held


def table_stake(points_of_players: Iterable[int]) -> int:
    """The stake of a table: the stake of its lowest-level player."""
    return min((STAKES[title_for(p).stage] for p in points_of_players), default=1)
