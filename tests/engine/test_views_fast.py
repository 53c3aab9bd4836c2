"""``engine.view`` is optimised; it must show exactly what the plain reference view
(``tests.engine.view_reference``, the view as it was) shows: the same JSON, byte for byte, for every
seat and spectator, in random games of every variant through every phase."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import engine
import tests.engine.view_reference as reference
from engine import GameState
from engine.events import sees
from engine.sampling import random_action
from engine.visibility import rank_audience, visible_ranks
from tests.engine.test_fanqi import carry, play
from tests.engine.test_random_games import new_random_game, random_steps
from tests.engine.view_reference import reference_view
from tests.soak import soak

GAMES = {  # random games per variant
    "siguo": soak(2, 8),
    "liangguo": soak(4, 16),
    "sanguo": soak(2, 8),
    "luanzhan": soak(1, 6),
    "sandayi": soak(1, 6),
    "fanqi": soak(4, 16),
}
PHASES = {
    "siguo": {"deploying", "playing", "finished"},
    "liangguo": {"deploying", "playing", "finished"},
    "sanguo": {"deploying", "playing", "finished"},
    "luanzhan": {"picking", "redealing", "deploying", "playing", "finished"},
    "sandayi": {"bidding", "deploying", "playing", "finished"},
    "fanqi": {"playing", "finished"},
}


def same_views(state: GameState) -> None:
    """Every viewer's view equals the reference: same keys in the same order, same values of the
    same types (``repr``), same JSON; and the batched rank visibility is ``rank_audience``'s."""
    audiences = []
    if state.position is not None:
        for index, piece in enumerate(state.position.cells):
            if piece is not None:
                audience = rank_audience(state, index)
                assert audience == reference.rank_audience(state, index)
                audiences.append((index, audience))
    for viewer in [*state.variant.seats, None]:
        fast, plain = engine.view(state, viewer), reference_view(state, viewer)
        assert repr(fast) == repr(plain), (state.phase, viewer)
        assert json.dumps(fast, ensure_ascii=False) == json.dumps(plain, ensure_ascii=False)
        expected = sum(1 << index for index, audience in audiences if sees(audience, viewer))
        assert visible_ranks(state, viewer) == expected, (state.phase, viewer)


def play_and_compare(variant: str, seed: int) -> set[str]:
    """A random game (the actions of the leak audits' random games), every view compared after
    every action; the phases it went through."""
    rng = random.Random(f"views/{variant}/{seed}")
    start = new_random_game(variant, seed, rng)
    phases = {start.phase.value}
    same_views(start)
    for _, state in random_steps(start, rng, f"{variant} game {seed}"):
        phases.add(state.phase.value)
        same_views(state)
    return phases


@pytest.mark.parametrize("variant", sorted(GAMES))
def test_random_games_view_as_the_reference_does(variant: str) -> None:
    phases: set[str] = set()
    for seed in range(GAMES[variant]):
        phases |= play_and_compare(variant, seed)
    assert PHASES[variant] <= phases


@pytest.mark.parametrize("variant", sorted(set(GAMES) - {"fanqi"}))  # 翻棋 starts in play
def test_an_escape_before_play_views_as_the_reference_does(variant: str) -> None:
    state = engine.new_game(variant, seed=7, host=1)
    state, _ = engine.apply(state, engine.Escape(0, now=1.0))
    assert state.phase == "finished" and state.position is None
    same_views(state)


def test_scouting_reveals_and_partners_view_as_the_reference_does() -> None:
    """四国 with private scouting reveals (the reveals the fast view looks through once)."""
    compared = 0
    for information in ("hidden", "partners_open"):
        for seed in range(3):
            rng = random.Random(f"scouting/{information}/{seed}")
            options = {"engineer_scouting": "team", "information": information}
            state = engine.new_game("siguo", seed=seed, options=options)
            while state.phase != "finished":
                state, _ = engine.apply(state, random_action(state, rng))
                if (
                    state.phase == "playing"
                    and state.reveals.private
                    and state.total_moves % 3 == 0
                ):
                    same_views(state)
                    compared += 1
    assert compared > 50


def test_the_flag_carry_views_as_the_reference_does() -> None:
    state = carry()
    same_views(state)
    state, _ = play(state, "1:53", "1:63")
    assert state.flip is not None and state.flip.carrier is not None
    same_views(state)


@pytest.mark.parametrize("viewer", [4, -1, True, "0", 0.5, [0]])
def test_a_viewer_that_is_no_seat_is_refused_alike(viewer: Any) -> None:
    state = engine.new_game("siguo", seed=1)
    with pytest.raises(engine.MalformedInput):
        reference_view(state, viewer)
    with pytest.raises(engine.MalformedInput):
        engine.view(state, viewer)


def test_views_share_nothing_a_caller_could_change() -> None:
    rng = random.Random(5)
    state = engine.new_game("siguo", seed=5)
    while state.phase != "playing" or state.total_moves < 30:
        state, _ = engine.apply(state, random_action(state, rng))
    spoilt = engine.view(state, None)
    for entry in spoilt["pieces"]:
        entry["rank"] = "flag"
        entry["station"] = "x"
    spoilt["pieces"].clear()
    spoilt["seats"][0]["team"] = 9
    same_views(state)
