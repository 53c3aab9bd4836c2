"""Bots: always legal, in every variant and level; deciding from the view alone; sensible."""

from __future__ import annotations

import random

import pytest

import engine
from engine.beliefs import Beliefs
from engine.bot import LEVELS, choose_action
from tests.engine.game_helpers import Pieces, setup


def bot_game(variant: str, seed: int, level: str) -> engine.GameState:
    """A whole game of bots: each seat decides from its view and its own beliefs."""
    rng = random.Random(seed)
    state = engine.new_game(variant, seed=seed)
    beliefs = {s: Beliefs(variant, s) for s in state.variant.seats}
    for step in range(3000):
        if state.phase == "finished":
            return state
        for seat in state.variant.seats:
            view = engine.view(state, seat)
            action = choose_action(view, rng, beliefs[seat].table(), level)
            if action is not None:
                break
        else:  # nobody has anything to decide: the clock decides
            action = {"type": "timeout" if state.phase == "playing" else "deadline"}
            seat = -1
        payload = {**action, "now": min(state.deadline, float(step))}
        if seat >= 0 and action["type"] not in ("timeout", "deadline"):
            payload["seat"] = seat
        state, events = engine.apply(state, engine.action_from_dict(payload))  # never refused
        if state.position is not None:
            for s, b in beliefs.items():
                b.follow((e.for_viewer(s) for e in events), engine.view(state, s))
    raise AssertionError("the bots' game did not end")


@pytest.mark.parametrize("variant", sorted(engine.VARIANTS))
@pytest.mark.parametrize("level", LEVELS)
def test_bots_play_whole_games_with_legal_actions_only(variant: str, level: str) -> None:
    for seed in range(2):
        final = bot_game(variant, seed, level)
        assert final.result is not None


def test_a_bot_cannot_tell_hidden_ranks_apart() -> None:
    """Two positions that differ only in a rank seat 0 cannot see: the same decisions."""
    base: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "general"),
        "0:41": (0, "engineer"),
        "1:62": (1, "flag"),
        "1:15": (1, "captain"),
        "1:14": (1, "major"),
    }
    other = {**base, "1:15": (1, "field_marshal")}
    for seed in range(20):
        views = [engine.view(setup("liangguo", pieces), 0) for pieces in (base, other)]
        assert views[0] == views[1]
        decisions = [choose_action(v, random.Random(seed)) for v in views]
        assert decisions[0] == decisions[1]


def test_a_bot_takes_a_known_weaker_piece() -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "general"),
        "1:62": (1, "flag"),
        "1:15": (1, "captain"),
        "1:14": (1, "major"),
    }
    state = setup("liangguo", pieces, information="open")
    for seed in range(10):
        action = choose_action(engine.view(state, 0), random.Random(seed))
        assert action == {"type": "move", "origin": "0:51", "target": "1:15"}


def test_a_bot_does_not_throw_its_general_at_a_known_field_marshal() -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "general"),
        "1:62": (1, "flag"),
        "1:15": (1, "field_marshal"),
        "1:14": (1, "major"),
    }
    state = setup("liangguo", pieces, information="open")
    for seed in range(10):
        action = choose_action(engine.view(state, 0), random.Random(seed), level="hard")
        assert action is not None and action.get("target") != "1:15"


def test_a_bot_does_not_go_back_and_forth_for_nothing() -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:52": (0, "captain"),
        "1:62": (1, "flag"),
        "1:11": (1, "major"),
    }
    view = engine.view(setup("liangguo", pieces), 0)
    view["legal_moves"] = {"0:52": ["0:51", "0:42"]}  # two quiet steps, equally far
    for seed in range(20):
        action = choose_action(view, random.Random(seed), recent=[("0:51", "0:52")])
        assert action == {"type": "move", "origin": "0:52", "target": "0:42"}


def test_a_bot_hides_its_engineer_when_it_can() -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:55": (0, "engineer"),
        "1:62": (1, "flag"),
        "1:11": (1, "major"),
    }
    view = engine.view(setup("liangguo", pieces), 0)
    # 0:21 (a turn at 0:11) would show the engineer; 0:25, straight up and as far, would not
    view["legal_moves"] = {"0:55": ["0:21", "0:25"]}
    picks = {
        choose_action(view, random.Random(seed), level="hard")["target"]  # type: ignore[index]
        for seed in range(20)
    }
    assert picks == {"0:25"}


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_a_bot_hits_an_enemy_next_to_its_flag(level: str) -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "general"),
        "0:14": (0, "captain"),
        "1:62": (1, "flag"),
        "1:11": (1, "major"),
        "0:52": (1, "lieutenant"),  # one step from 0:62
    }
    view = engine.view(setup("liangguo", pieces), 0)
    for seed in range(20):
        action = choose_action(view, random.Random(seed), level=level)
        assert action == {"type": "move", "origin": "0:51", "target": "0:52"}
