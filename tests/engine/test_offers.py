"""What a seat may offer (``engine.offers``) is exactly what the engine takes: over random games
of every variant, each seat's draw proposal and surrender are tried at many moments, and the
view's ``may`` says beforehand whether each is taken."""

from __future__ import annotations

import random

import pytest

import engine
from engine.offers import draw_refusal, surrender_refusal
from engine.sampling import random_action
from engine.state import Phase

VARIANTS = ["siguo", "luanzhan", "sandayi", "sanguo", "liangguo", "fanqi"]


def taken(state: engine.GameState, action: engine.Action) -> bool:
    try:
        engine.apply(state, action)
    except engine.IllegalAction:
        return False
    return True


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_view_offers_exactly_what_the_engine_takes(variant: str) -> None:
    rng = random.Random(variant)
    tried = {"draw": [0, 0], "surrender": [0, 0]}  # [taken, refused]
    for game in range(4):
        state = engine.new_game(variant, seed=f"{variant}-{game}", host=game % 2, now=0.0)
        for _ in range(400):
            if state.phase == Phase.FINISHED:
                break
            if state.phase == Phase.PLAYING:
                assert state.started_at is not None
                for seat in state.variant.seats:
                    may = engine.view(state, seat)["may"]
                    draw = taken(state, engine.ProposeDraw(seat, now=state.deadline - 1))
                    assert may["propose_draw"] == draw, (seat, state.total_moves)
                    assert (draw_refusal(state, seat) is None) == draw
                    tried["draw"][not draw] += 1
                    # surrender, early and late in the turn: from the time the view gives
                    for now in (state.started_at + 1, state.started_at + 200):
                        now = min(now, state.deadline)
                        given = may["surrender_from"]
                        surrender = taken(state, engine.Surrender(seat, now=now))
                        assert (given is not None and now >= given) == surrender, (seat, now)
                        assert (surrender_refusal(state, seat, now) is None) == surrender
                        tried["surrender"][not surrender] += 1
                assert "may" not in engine.view(state, None)  # spectators offer nothing
                proposal = engine.ProposeDraw(rng.choice(state.variant.seats), now=state.deadline)
                if state.proposal is None and rng.random() < 0.2 and taken(state, proposal):
                    state, _ = engine.apply(state, proposal)  # pending, then used up
                    continue
            state, _ = engine.apply(state, random_action(state, rng))
    if variant != "sanguo":  # 三国 has no surrender: only refusals
        assert min(tried["surrender"]) > 0, tried
    assert min(tried["draw"]) > 0, tried
