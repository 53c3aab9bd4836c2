"""Pieces: stable rank keys, their Chinese names, order and armies (docs/rules.md §1)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from functools import lru_cache
from types import MappingProxyType
from typing import NamedTuple

from engine.errors import MalformedInput


class Rank(StrEnum):
    """A piece's rank; the value is the stable key used in the API, records and layouts."""

    SUPREME_MARSHAL = "supreme_marshal"  # 帅 (三打一 banker only)
    FIELD_MARSHAL = "field_marshal"  # 司令 ("40")
    GENERAL = "general"  # 军长
    MAJOR_GENERAL = "major_general"  # 师长
    BRIGADIER = "brigadier"  # 旅长
    COLONEL = "colonel"  # 团长
    MAJOR = "major"  # 营长
    CAPTAIN = "captain"  # 连长
    LIEUTENANT = "lieutenant"  # 排长
    ENGINEER = "engineer"  # 工兵
    LANDMINE = "landmine"  # 地雷
    BOMB = "bomb"  # 炸弹
    FLAG = "flag"  # 军旗
    MISSILE = "missile"  # 导弹 (三打一 banker only)
    FORTRESS = "fortress"  # 堡垒 (三打一 banker only)


class Piece(NamedTuple):
    """A piece on the board: its owner's seat, its rank, and its army colour when that differs
    from the owner's (dealt variants: 乱战 hands mix the four armies)."""

    seat: int
    rank: Rank
    army: int | None = None

    @property
    def colour(self) -> int:
        return self.seat if self.army is None else self.army


def piece_of(seat: int, rank: Rank, colour: int | None = None) -> Piece:
    """The piece of ``seat`` and ``rank``, of army ``colour`` (None or ``seat``: its own).

    One object for each kind of piece, shared by every game: the cells of all running games
    then point at a few hundred objects, not at new ones for every game, which the garbage
    collector would go through for as long as their games run."""
    return _shared_piece(seat, rank, None if colour == seat else colour)


@lru_cache(maxsize=1024)
def _shared_piece(seat: int, rank: Rank, army: int | None) -> Piece:
    return Piece(seat, rank, army)


CHINESE_NAME: Mapping[Rank, str] = MappingProxyType(
    {
        Rank.SUPREME_MARSHAL: "帅",
        Rank.FIELD_MARSHAL: "司令",
        Rank.GENERAL: "军长",
        Rank.MAJOR_GENERAL: "师长",
        Rank.BRIGADIER: "旅长",
        Rank.COLONEL: "团长",
        Rank.MAJOR: "营长",
        Rank.CAPTAIN: "连长",
        Rank.LIEUTENANT: "排长",
        Rank.ENGINEER: "工兵",
        Rank.LANDMINE: "地雷",
        Rank.BOMB: "炸弹",
        Rank.FLAG: "军旗",
        Rank.MISSILE: "导弹",
        Rank.FORTRESS: "堡垒",
    }
)

# Officer strength, big to small (帅 > 司令 > … > 排长 > 工兵). Only these fight by rank.
OFFICER_STRENGTH: Mapping[Rank, int] = MappingProxyType(
    {
        Rank.SUPREME_MARSHAL: 10,
        Rank.FIELD_MARSHAL: 9,
        Rank.GENERAL: 8,
        Rank.MAJOR_GENERAL: 7,
        Rank.BRIGADIER: 6,
        Rank.COLONEL: 5,
        Rank.MAJOR: 4,
        Rank.CAPTAIN: 3,
        Rank.LIEUTENANT: 2,
        Rank.ENGINEER: 1,
    }
)

IMMOBILE_RANKS = frozenset({Rank.LANDMINE, Rank.FLAG, Rank.FORTRESS})
MOBILE_RANKS = frozenset(Rank) - IMMOBILE_RANKS
# Pieces that fly over the rail network with turns (docs/rules.md §3.3).
RAIL_FLYERS = frozenset({Rank.ENGINEER, Rank.MISSILE})

STANDARD_ARMY: Mapping[Rank, int] = MappingProxyType(
    {
        Rank.FIELD_MARSHAL: 1,
        Rank.GENERAL: 1,
        Rank.MAJOR_GENERAL: 2,
        Rank.BRIGADIER: 2,
        Rank.COLONEL: 2,
        Rank.MAJOR: 2,
        Rank.CAPTAIN: 3,
        Rank.LIEUTENANT: 3,
        Rank.ENGINEER: 3,
        Rank.LANDMINE: 3,
        Rank.BOMB: 2,
        Rank.FLAG: 1,
    }
)


def piece_key(piece: Piece) -> str:
    """A layout value for ``piece``: its rank key, with ``/army`` when its colour differs."""
    return piece.rank.value if piece.army is None else f"{piece.rank.value}/{piece.army}"


def parse_rank(value: str) -> Rank:
    """The Rank for a stable key such as ``"field_marshal"``; MalformedInput otherwise."""
    try:
        return Rank(value)
    except ValueError:
        raise MalformedInput(f"unknown rank {value!r}") from None
