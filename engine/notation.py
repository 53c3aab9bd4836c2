"""Human-editable text notation for layouts (布局文件), with parse/print round-trip.

A layout file shows one arm as its owner sees it: six lines, front row (row 1) first, five
tokens per line from the owner's left to right. Each token is a rank's one-character Chinese
name, and ``＋`` marks a camp or an empty station. Lines starting with ``#`` are comments.
Parsing also accepts rank keys (``field_marshal``), full Chinese names (``司令``) and ``40``,
and ``.``, ``+``, ``·`` or ``-`` for empty stations, so files are easy to edit by hand::

    # junqi layout
    排 连 工 营 团
    司 ＋ 连 ＋ 军
    炸 师 ＋ 旅 炸
    团 ＋ 工 ＋ 师
    排 雷 营 旅 雷
    雷 旗 排 工 连
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from engine.board import ARM_COLS, ARM_ROWS, arm_station_id
from engine.errors import MalformedInput
from engine.pieces import CHINESE_NAME, Rank

SHORT_NAME: Mapping[Rank, str] = {
    Rank.SUPREME_MARSHAL: "帅",
    Rank.FIELD_MARSHAL: "司",
    Rank.GENERAL: "军",
    Rank.MAJOR_GENERAL: "师",
    Rank.BRIGADIER: "旅",
    Rank.COLONEL: "团",
    Rank.MAJOR: "营",
    Rank.CAPTAIN: "连",
    Rank.LIEUTENANT: "排",
    Rank.ENGINEER: "工",
    Rank.LANDMINE: "雷",
    Rank.BOMB: "炸",
    Rank.FLAG: "旗",
    Rank.MISSILE: "导",
    Rank.FORTRESS: "垒",
}
EMPTY = "＋"
_EMPTY_TOKENS = frozenset({EMPTY, "+", ".", "·", "-"})
_TOKENS: dict[str, Rank] = {
    **{r.value: r for r in Rank},
    **{name: r for r, name in CHINESE_NAME.items()},
    **{name: r for r, name in SHORT_NAME.items()},
    "40": Rank.FIELD_MARSHAL,
}
_ARM_ID = re.compile(rf"(\d+):([1-{ARM_ROWS}])([1-{ARM_COLS}])")
_RANK_KEYS = frozenset(r.value for r in Rank)
HEADER = "# junqi layout: row 1 (front) to row 6 (back), columns from the owner's left"


def arm_cells(layout: Mapping[str, str]) -> dict[tuple[int, int], Rank]:
    """One seat's layout (``{station id: rank key}`` on a single arm) by (row, column) of the
    arm, as every layout file holds it; MalformedInput for anything else."""
    seats = set()
    cells: dict[tuple[int, int], Rank] = {}
    for sid, key in layout.items():
        match = _ARM_ID.fullmatch(sid)
        if match is None:
            raise MalformedInput(f"{sid!r} is not an arm station; a layout file holds one arm")
        if key not in _RANK_KEYS:
            raise MalformedInput(f"unknown rank {key!r} on {sid}")
        seats.add(int(match[1]))
        cells[int(match[2]), int(match[3])] = Rank(key)
    if len(seats) > 1:
        raise MalformedInput(f"a layout covers one arm, not seats {sorted(seats)}")
    return cells


def format_layout(layout: Mapping[str, str]) -> str:
    """The text of one seat's layout (``{station id: rank key}`` on a single arm)."""
    cells = arm_cells(layout)
    lines = [HEADER]
    for r in range(1, ARM_ROWS + 1):
        lines.append(
            " ".join(
                SHORT_NAME[cells[r, c]] if (r, c) in cells else EMPTY
                for c in range(1, ARM_COLS + 1)
            )
        )
    return "\n".join(lines) + "\n"


def parse_layout(text: str, seat: int) -> dict[str, Rank]:
    """The layout for ``seat`` written in ``text``; MalformedInput says which line is wrong."""
    rows = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        tokens = line.split()
        if len(tokens) != ARM_COLS:
            raise MalformedInput(
                f"line {number}: expected {ARM_COLS} tokens, found {len(tokens)}: {raw!r}"
            )
        rows.append((number, tokens))
    if len(rows) != ARM_ROWS:
        extra = f" (line {rows[ARM_ROWS][0]} is one too many)" if len(rows) > ARM_ROWS else ""
        raise MalformedInput(f"expected {ARM_ROWS} rows of stations, found {len(rows)}{extra}")
    layout: dict[str, Rank] = {}
    for r, (number, tokens) in enumerate(rows, start=1):
        for c, token in enumerate(tokens, start=1):
            if token in _EMPTY_TOKENS:
                continue
            rank = _TOKENS.get(token)
            if rank is None:
                raise MalformedInput(f"line {number}: unknown piece {token!r}")
            layout[arm_station_id(seat, r, c)] = rank
    return layout
