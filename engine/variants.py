"""Variants: which board, which teams, which armies and which rule options (RULES.md §9).

A variant is data. Every *(option)* of RULES.md that the kernel uses is a field of ``RuleOptions``
with the variant's default; tables may override them with ``dataclasses.replace``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from engine.board import Board, get_board
from engine.errors import MalformedInput
from engine.pieces import STANDARD_ARMY, Rank


class Scouting(StrEnum):
    """Who sees a rank revealed by 工兵侦察 (RULES.md §4)."""

    OFF = "off"
    ALL = "all"  # every player (seed 001)
    TEAM = "team"  # the engineer's own team (乱战, seed 000)


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """Kernel rule options: combat (§4), movement (§3) and deployment (§5)."""

    mine_trades: bool = False  # any non-engineer hitting a landmine dies with it
    bomb_takes_flag: bool = False  # a bomb captures a flag instead of trading with it
    hq_dig: bool = False  # any attacker removes an HQ occupant (乱战)
    engineer_scouting: Scouting = Scouting.OFF
    hq_lock: bool = True  # a piece in an HQ never moves (off only in 翻棋)
    bombs_in_front_row: bool = False  # 三国 allows bombs in row 1


@dataclass(frozen=True, slots=True)
class Variant:
    """A game variant: its board, the team of each seat, its army and its default options."""

    key: str
    name: str  # Chinese name shown to players
    board_key: str
    teams: tuple[int, ...]  # teams[seat] == team id; partners share a team
    rules: RuleOptions = field(default_factory=RuleOptions)
    army: Mapping[Rank, int] = field(default_factory=lambda: STANDARD_ARMY)

    @property
    def board(self) -> Board:
        return get_board(self.board_key)

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(range(len(self.teams)))


VARIANTS: Mapping[str, Variant] = MappingProxyType(
    {
        "siguo": Variant("siguo", "四国军棋", "siguo", teams=(0, 1, 0, 1)),
        "liangguo": Variant("liangguo", "二人暗棋", "liangguo", teams=(0, 1)),
        "sanguo": Variant(
            "sanguo",
            "三国军棋",
            "sanguo",
            teams=(0, 1, 2),
            rules=RuleOptions(bomb_takes_flag=True, bombs_in_front_row=True),
        ),
    }
)


def get_variant(key: str) -> Variant:
    """The variant registered under ``key``; MalformedInput if there is none."""
    try:
        return VARIANTS[key]
    except KeyError:
        raise MalformedInput(
            f"unknown variant {key!r}; expected one of {tuple(VARIANTS)}"
        ) from None
