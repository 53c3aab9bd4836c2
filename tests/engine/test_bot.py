"""Bots: always legal, in every variant and level; deciding from the view alone; sensible."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

import engine
from engine.arena import Bot, play
from engine.bot import choose_action
from tests.engine.game_helpers import Pieces, setup
from tests.engine.leaks import Knowledge, check_events, check_view

GAMES = 200  # seeded games per variant with the quick (easy) bots
SEARCHED = {"normal": 3, "hard": 1}  # seeded games per variant with a searching bot


def bots(variant: str, levels: list[str]) -> dict[int, Bot]:
    return {s: Bot(variant, s, levels[s % len(levels)]) for s in engine.get_variant(variant).seats}


@pytest.mark.parametrize("variant", sorted(engine.VARIANTS))
def test_hundreds_of_bot_games_end_with_legal_actions_only(variant: str) -> None:
    """``arena.play`` applies every action with ``engine.apply``, which refuses illegal ones."""
    reasons: Counter[str] = Counter()
    for seed in range(GAMES):
        final = play(variant, seed, bots(variant, ["easy"]))
        assert final.result is not None
        reasons[final.result.reason] += 1
    assert reasons["elimination"] > 0  # the games are played, not drawn out


@pytest.mark.parametrize("variant", sorted(engine.VARIANTS))
@pytest.mark.parametrize("level", ["normal", "hard"])
def test_searching_bots_play_whole_games(variant: str, level: str) -> None:
    for seed in range(SEARCHED[level]):
        final = play(variant, seed, bots(variant, [level, "easy"]))
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
        "1:42": (1, "major"),  # in a camp: it cannot reach 0:21 or 0:25 next
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
        action = choose_action(view, random.Random(seed), level="normal")
        assert action == {"type": "move", "origin": "0:51", "target": "0:52"}


def test_a_bot_blocks_the_way_to_its_flag() -> None:
    """An enemy in a camp (where it cannot be hit) is one step from the open side of the flag:
    the bot fills that side before the enemy gets there. (Looking two rounds ahead, the hard
    bot may rather keep the colonel back to strike the enemy once it steps out.)"""
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:61": (0, "landmine"),
        "0:63": (0, "landmine"),
        "0:51": (0, "colonel"),
        "0:21": (0, "major"),
        "0:23": (0, "major"),
        "0:25": (0, "major"),
        "0:42": (1, "lieutenant"),
        "1:62": (1, "flag"),
        "1:11": (1, "captain"),
    }
    view = engine.view(setup("liangguo", pieces), 0)
    for seed in range(10):
        action = choose_action(view, random.Random(seed), level="normal")
        assert action == {"type": "move", "origin": "0:51", "target": "0:52"}


@pytest.mark.parametrize("variant", ["siguo", "liangguo", "sanguo"])
def test_bots_put_a_landmine_beside_their_flag_not_a_piece_that_could_move(variant: str) -> None:
    for seed in range(20):
        state = engine.new_game(variant, seed=seed)
        action = choose_action(engine.view(state, 0), random.Random(seed))
        assert action is not None
        hqs = sorted(r for s, r in action["layout"].items() if s.endswith(("62", "64")))
        assert hqs == ["flag", "landmine"]
        assert engine.deployment_problems(variant, 0, action["layout"]) == []


@pytest.mark.parametrize("variant", sorted(engine.VARIANTS))
def test_a_bot_is_given_its_view_and_its_events_and_nothing_more(variant: str) -> None:
    """Every input of every bot, checked by the leak checker as it is handed over."""
    now: list[engine.GameState] = []
    knowledge: list[Knowledge] = []
    seats = list(engine.get_variant(variant).seats)

    class Watched(Bot):
        def decide(self, view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
            if now:  # from the first step on: the view of exactly this seat, nothing hidden
                assert view == engine.view(now[0], self.beliefs.seat)
                check_view(knowledge[0], now[0], self.beliefs.seat)
            return super().decide(view, rng)

    def watch(
        before: engine.GameState,
        action: engine.Action,
        after: engine.GameState,
        events: list[engine.Event],
    ) -> None:
        if not knowledge:
            knowledge.append(Knowledge(before))
        check_events(knowledge[0], before, action, events, [*seats])
        knowledge[0].after(before, action, after)
        now[:] = [after]

    for seed in range(2):
        now.clear()
        knowledge.clear()
        players = {s: Watched(variant, s, "normal") for s in seats}
        assert play(variant, seed, players, watch=watch).result is not None


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_a_bot_takes_a_flag_it_can_see(level: str) -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:21": (0, "major"),
        "0:23": (0, "major"),
        "0:25": (0, "major"),
        "1:62": (1, "flag"),
        "1:52": (0, "lieutenant"),  # one step from the enemy flag
        "1:15": (1, "captain"),  # a fair capture elsewhere: less than the flag
        "0:15": (0, "colonel"),
    }
    view = engine.view(setup("liangguo", pieces, information="open"), 0)
    for seed in range(10):
        action = choose_action(view, random.Random(seed), level=level)
        assert action == {"type": "move", "origin": "1:52", "target": "1:62"}


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_a_bot_bombs_a_known_field_marshal(level: str) -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:23": (0, "major"),
        "0:25": (0, "major"),
        "0:45": (0, "major"),
        "0:21": (0, "bomb"),
        "1:62": (1, "flag"),
        "1:15": (1, "field_marshal"),  # down the rail from the bomb
        "1:13": (1, "lieutenant"),
    }
    view = engine.view(setup("liangguo", pieces, information="open"), 0)
    assert "1:15" in view["legal_moves"]["0:21"]
    for seed in range(10):
        action = choose_action(view, random.Random(seed), level=level)
        assert action == {"type": "move", "origin": "0:21", "target": "1:15"}
