"""Patches (``server.updates``): a view changed by ``engine.view_changes`` and applied with
``apply_patch`` is exactly the new view, for every seat and spectator, after every action of
random games of every variant; patches name only stations that look different, and carry the
记牌 counts only when they changed."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import engine
from engine import GameState, Phase
from engine.sampling import random_action
from server.updates import apply_patch
from tests.engine.test_fanqi import carry, play
from tests.engine.test_random_games import new_random_game, random_steps
from tests.soak import soak

GAMES = {  # random games per variant
    "siguo": soak(2, 6),
    "liangguo": soak(3, 10),
    "sanguo": soak(2, 6),
    "luanzhan": soak(1, 4),
    "sandayi": soak(1, 4),
    "fanqi": soak(3, 10),
}


def check_changes(before: GameState, after: GameState) -> tuple[int, int]:
    """Every viewer's patch from ``before`` to ``after`` makes its new view; returns how many
    stations the patches named and how many patches had 记牌 counts."""
    viewers: list[int | None] = [*after.variant.seats, None]
    changes = engine.view_changes(before, after, viewers)
    if before.phase != Phase.PLAYING or after.phase != Phase.PLAYING:
        assert changes is None
        return 0, 0
    if changes is None:  # 翻棋: the colours were just assigned, which changes every seat shown
        assert before.flip is not None and before.flip.colours != after.flip.colours  # type: ignore[union-attr]
        return 0, 0
    named = counted = 0
    for viewer in viewers:
        old, new = engine.view(before, viewer), engine.view(after, viewer)
        patch = json.loads(json.dumps({"version": 2, "seq": 9, **changes[viewer]}))
        made = apply_patch({"version": 1, "seq": 8, "game": old}, patch)
        assert made == {"version": 2, "seq": 9, "game": json.loads(json.dumps(new))}, viewer
        shown = {p["station"]: p for p in old["pieces"]}
        for station, entry in patch["pieces"].items():
            assert shown.get(station) != entry, (viewer, station)  # it does look different
        named += len(patch["pieces"])
        assert ("tracker" in patch["game"]) == (old["tracker"] != new["tracker"]), viewer
        counted += "tracker" in patch["game"]
    return named, counted


def play_and_check(variant: str, seed: int) -> tuple[int, int, int]:
    rng = random.Random(f"patches/{variant}/{seed}")
    steps = named = counted = 0
    for before, state in random_steps(new_random_game(variant, seed, rng), rng, variant):
        n, c = check_changes(before, state)
        named, counted = named + n, counted + c
        steps += before.phase == Phase.PLAYING
    return steps, named, counted


@pytest.mark.parametrize("variant", sorted(GAMES))
def test_patches_make_the_new_view_in_random_games(variant: str) -> None:
    steps = named = counted = 0
    for seed in range(GAMES[variant]):
        s, n, c = play_and_check(variant, seed)
        steps, named, counted = steps + s, named + n, counted + c
    assert steps > 50
    viewers = len(engine.get_variant(variant).seats + (None,))
    # a move changes a station or two for each viewer, not the whole board
    assert named <= steps * viewers * 4, (steps, named)
    # and the 记牌 counts of few viewers: most moves prove no death
    assert 0 < counted < steps * viewers / 4, (steps, counted)


def test_a_reveal_elsewhere_is_in_the_patch() -> None:
    """Private scouting reveals and a 司令's death show ranks of pieces that did not move: the
    patch carries them, for those who may now see them."""
    revealed = 0
    for information in ("hidden", "partners_open"):
        for seed in range(soak(1, 3)):
            rng = random.Random(f"reveals/{information}/{seed}")
            options = {"engineer_scouting": "team", "information": information}
            state = engine.new_game("siguo", seed=seed, options=options)
            while state.phase != "finished":
                before = state
                state, _ = engine.apply(state, random_action(state, rng))
                check_changes(before, state)
                if state.phase == Phase.PLAYING and before.phase == Phase.PLAYING:
                    revealed += len(state.reveals.private) > len(before.reveals.private)
                    revealed += len(state.reveals.public) > len(before.reveals.public)
    assert revealed > 10


def test_the_flag_carry_is_in_the_patch() -> None:
    before = carry()
    after, _ = play(before, "1:53", "1:63")
    assert check_changes(before, after)[0] > 0
    changes = engine.view_changes(before, after, [None])
    assert changes is not None
    entry: Any = changes[None]["pieces"]["1:63"]
    assert entry["carrying_flag"] is True
