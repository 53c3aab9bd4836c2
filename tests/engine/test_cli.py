"""The ``junqi`` command-line front end."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from engine.cli import main


@pytest.mark.parametrize("variant", sorted(engine.VARIANTS))
def test_demo_deals_deploys_and_plays(variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--variant", variant, "--seed", "3", "--plies", "8"]) == 0
    out = capsys.readouterr().out
    seats = engine.get_variant(variant).seats
    if variant != "fanqi":  # 翻棋 has no deployment
        assert all(f"seat {s} (team" in out for s in seats)
    assert "  8. seat" in out
    assert "pieces with a legal move, per seat" in out
    if variant == "sandayi":
        assert "banker" in out


def test_layout_prints_a_legal_layout_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["layout", "--variant", "siguo", "--seat", "2", "--seed", "5"]) == 0
    text = capsys.readouterr().out
    assert engine.parse_layout(text, 2) == engine.auto_layout("siguo", 2, 5)


def test_check_accepts_a_legal_file_and_lists_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.txt"
    good.write_text(engine.format_layout(engine.auto_layout("siguo", 0, 1)), encoding="utf-8")
    assert main(["check", str(good)]) == 0
    assert "a legal siguo layout" in capsys.readouterr().out

    lines = good.read_text(encoding="utf-8").splitlines()
    lines[1] = "雷 ＋ 炸 ＋ 旗"  # row 1: a landmine, a bomb, the flag; two pieces left out
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines), encoding="utf-8")
    assert main(["check", str(bad)]) == 1
    out = capsys.readouterr().out
    for code in ("landmine_outside_back_rows", "bomb_in_front_row", "flag_not_in_hq"):
        assert code in out

    bad.write_text("not a layout", encoding="utf-8")
    assert main(["check", str(bad)]) == 1
    assert "expected 5 tokens" in capsys.readouterr().out
