"""Records of set-up games (``start_from``): each variant keeps and reads its own set-up value,
and records written before set-up values were the variants' own still replay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import fanqi, sandayi

# Records of set-up games of 四国, 三打一 and 翻棋, each with random actions after the start,
# written when ``start_from`` took every variant's set-up arguments: each record's ``setup``
# holds ``banker``, ``contract``, ``face_down`` and ``colours`` beside the pieces, whatever its
# variant; ``final`` is what the game was when it was written.
OLD = json.loads((Path(__file__).parent / "fixtures" / "setup_records.json").read_text("utf-8"))

QUIET = {
    **{f"{s}:62": (s, "flag") for s in range(4)},
    **{f"{s}:51": (s, "major") for s in range(4)},
}
FACE_DOWN = {
    "0:62": (0, "flag"),
    "0:51": (0, "engineer"),
    "0:33": (0, "colonel"),
    "1:33": (1, "major"),
    "1:64": (1, "flag"),
}


def summary(state: engine.GameState) -> dict[str, Any]:
    """What the fixture keeps of a game's state."""
    return {
        "phase": state.phase.value,
        "to_move": state.to_move,
        "pieces": {sid: [p.seat, p.rank.value] for sid, p in state.board_position.pieces().items()},
        "flip": None
        if state.flip is None
        else [state.flip.face_down, state.flip.colours and list(state.flip.colours)],
        "teams": list(state.teams),
        "result": None if state.result is None else state.result.to_dict(),
    }


@pytest.mark.parametrize("case", range(len(OLD)), ids=[c["record"]["variant"] for c in OLD])
def test_an_old_set_up_record_replays_as_it_was_played(case: int) -> None:
    record = engine.GameRecord.from_json(json.dumps(OLD[case]["record"]))
    assert summary(engine.replay(record)) == OLD[case]["final"]


@pytest.mark.parametrize(
    ("variant", "pieces", "setup", "kept"),
    [
        ("siguo", QUIET, None, {}),
        ("sandayi", QUIET, sandayi.Setup(banker=2, contract=3), {"banker": 2, "contract": 3}),
        (
            "fanqi",
            FACE_DOWN,
            fanqi.Setup(face_down=("1:33", "0:33"), colours=(1, 0)),
            {"face_down": ["0:33", "1:33"], "colours": [1, 0]},
        ),
    ],
)
def test_a_record_keeps_the_variant_s_own_set_up_value(
    variant: str, pieces: dict[str, tuple[int, str]], setup: Any, kept: dict[str, Any]
) -> None:
    state, _ = engine.start_from(variant, pieces, seed="s", setup=setup)
    record = engine.record_of(state)
    assert record.setup == {"pieces": {s: list(p) for s, p in pieces.items()}, **kept}
    again = engine.replay(engine.GameRecord.from_json(record.to_json()))
    assert again == state


def test_a_set_up_value_fits_its_variant_only() -> None:
    with pytest.raises(engine.MalformedInput):
        engine.start_from("siguo", QUIET, seed="s", setup=sandayi.Setup(banker=0, contract=1))
    with pytest.raises(engine.MalformedInput):
        engine.start_from("sandayi", QUIET, seed="s", setup=fanqi.Setup())
    with pytest.raises(engine.MalformedInput):
        engine.start_from("sandayi", QUIET, seed="s")  # 三打一 needs its banker
    with pytest.raises(engine.MalformedInput):
        engine.start_from("fanqi", FACE_DOWN, seed="s", setup=sandayi.Setup(banker=0, contract=1))
    state, _ = engine.start_from("fanqi", FACE_DOWN, seed="s")  # none: all face up, no colours
    assert state.flip is not None
    assert state.flip.face_down == 0 and state.flip.colours is None
