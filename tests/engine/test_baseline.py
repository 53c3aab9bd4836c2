"""The frozen baseline bot of ``bench/baseline_bot.py``: it plays legal games, and exactly the
games it was frozen with, whatever the engine's bot becomes."""

from __future__ import annotations

import hashlib
import json

import pytest

import engine
from bench.baseline_bot import BaselineBot
from engine.arena import play

# the actions of whole seeded games of baseline bots at level normal, hashed when the baseline
# was frozen (the engine's bot of e95e972 plays the same games). A change means the baseline
# plays differently: if the rules changed, record the new hashes; if something it imports did
# (auto_layout, say), copy the old version into the baseline instead. (The dealt variants are
# left out: the frozen beliefs order ranks by a frozenset, so those games vary with the hash seed.)
FROZEN = {
    ("siguo", 3): "49bcbd111ac091ced1a8d9bc4fce1e4136ee88fda0905ec1f6722ccde692ef24",
    ("liangguo", 3): "33b8f33b635fde4b0b8aa46fb94159e2da6bed76437cddae8f45bf4b8e37274a",
}


@pytest.mark.parametrize(("variant", "seed"), sorted(FROZEN))
def test_the_baseline_plays_the_games_it_was_frozen_with(variant: str, seed: int) -> None:
    actions = hashlib.sha256()

    def watch(
        before: engine.GameState,
        action: engine.Action,
        after: engine.GameState,
        events: list[engine.Event],
    ) -> None:
        actions.update(json.dumps(engine.action_to_dict(action), sort_keys=True).encode())

    seats = engine.get_variant(variant).seats
    final = play(variant, seed, {s: BaselineBot(variant, s) for s in seats}, watch=watch)
    assert final.result is not None
    assert actions.hexdigest() == FROZEN[variant, seed]
