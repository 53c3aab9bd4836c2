"""The bots' gate (``bench/bots.py gate``): one deal of every variant through its pairing, at
level easy (a second or two in all)."""

from __future__ import annotations

import pytest

from bench.bots import gate_deal, pairing
from engine.variants import VARIANTS


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_gate_plays_one_deal_of_every_variant(variant: str) -> None:
    games = gate_deal(variant, "easy", 1)
    kind = pairing(variant)
    assert len(games) == {"teams": 2, "banker": 2, "seats": 3}[kind]
    for game in games:
        assert game.result in ("win", "draw", "loss")
        assert game.decided or game.result != "win"
        assert game.new and game.old  # both sides moved, and were timed
    if kind == "banker":  # the same deal, the new bot banker and then idle
        assert [g.side for g in games] == ["banker", "idle"]
