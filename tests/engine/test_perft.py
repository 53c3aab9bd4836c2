"""Perft-style fixtures: exact numbers of legal moves per seat in fixed positions.

The positions are literal (``fixtures/perft.json``). The counts were checked against the slow
reference generator, which is run again here; the opening's 42 per seat was also counted by hand:
32 camp entries less one for the row-5 landmine beside a camp, plus 11 moves from the front row
into the centre and onto the enemy's arc-end piece (partners' pieces cannot be attacked).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import Position
from tests.engine.reference import reference_destinations

FIXTURES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "fixtures" / "perft.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f["name"] for f in FIXTURES])
def test_moves_per_seat(fixture: dict[str, Any]) -> None:
    v = engine.get_variant(fixture["variant"])
    pieces = {sid: (seat, rank) for sid, (seat, rank) in fixture["pieces"].items()}
    position = Position.from_pieces(v.board, pieces)
    counts = [len(engine.legal_move_list(position, seat, v.teams)) for seat in v.seats]
    assert counts == fixture["moves_per_seat"]
    reference = [
        sum(
            len(reference_destinations(v.board, pieces, origin, v.teams))
            for origin, (owner, _) in pieces.items()
            if owner == seat
        )
        for seat in v.seats
    ]
    assert reference == fixture["moves_per_seat"]
