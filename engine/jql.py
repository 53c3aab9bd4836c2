"""QQ游戏 layout files (``.jql``), which QQ players keep their layouts in (seed 001:
"布局一但保存就可以永久的使用"), read and written beside the project's own text notation
(``engine.notation``).

A file is 50 bytes, as open-source Junqi clients that read them describe it: a 16-byte header
(``QQGame JQL File`` and a NUL), the 4-byte magic ``57 04 00 00``, then one byte per station of
the arm, 30 in all, front row first and each row from the owner's left (the order of the
project's text files). A byte is a piece: 0 none (a camp, or an empty station), 2 flag 军旗,
3 landmine 地雷, 4 bomb 炸弹, 5 司令 up to 12 排长 in rank order, 13 engineer 工兵 (1 marks a
hidden piece in a game, never in a layout). QQ's files hold standard armies only: a layout
with 三打一's specials cannot be written as one.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.board import ARM_COLS, ARM_ROWS, arm_station_id
from engine.errors import MalformedInput
from engine.notation import arm_cells
from engine.pieces import Rank

HEADER = b"QQGame JQL File\x00"
MAGIC = bytes([0x57, 0x04, 0x00, 0x00])
SIZE = len(HEADER) + len(MAGIC) + ARM_ROWS * ARM_COLS
CODES: Mapping[Rank, int] = {
    Rank.FLAG: 2,
    Rank.LANDMINE: 3,
    Rank.BOMB: 4,
    Rank.FIELD_MARSHAL: 5,
    Rank.GENERAL: 6,
    Rank.MAJOR_GENERAL: 7,
    Rank.BRIGADIER: 8,
    Rank.COLONEL: 9,
    Rank.MAJOR: 10,
    Rank.CAPTAIN: 11,
    Rank.LIEUTENANT: 12,
    Rank.ENGINEER: 13,
}
_RANKS = {code: rank for rank, code in CODES.items()}


def format_jql(layout: Mapping[str, str]) -> bytes:
    """One seat's layout (``{station id: rank key}`` on a single arm) as a ``.jql`` file."""
    cells = arm_cells(layout)
    body = bytearray(ARM_ROWS * ARM_COLS)
    for (row, col), rank in cells.items():
        code = CODES.get(rank)
        if code is None:
            raise MalformedInput(f"a QQ layout file holds no {rank.value}")
        body[(row - 1) * ARM_COLS + col - 1] = code
    return HEADER + MAGIC + bytes(body)


def parse_jql(data: bytes, seat: int) -> dict[str, Rank]:
    """The layout for ``seat`` in a ``.jql`` file; MalformedInput says why a file is not one."""
    if len(data) < SIZE or data[len(HEADER) : len(HEADER) + len(MAGIC)] != MAGIC:
        raise MalformedInput(f"not a QQ layout file (.jql): {SIZE} bytes with the QQ mark expected")
    body = data[len(HEADER) + len(MAGIC) : SIZE]
    layout: dict[str, Rank] = {}
    for index, code in enumerate(body):
        if code == 0:
            continue
        rank = _RANKS.get(code)
        if rank is None:
            raise MalformedInput(f"byte {len(HEADER) + len(MAGIC) + index}: no piece {code}")
        layout[arm_station_id(seat, index // ARM_COLS + 1, index % ARM_COLS + 1)] = rank
    return layout
