"""Beliefs about hidden pieces, built only from what a seat was sent."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

import engine
from engine import Action, Event, GameState, Rank
from engine.arena import Bot, play
from engine.beliefs import Beliefs, layout_prior, own_flag_shown
from tests.engine.game_helpers import Pieces, act, setup
from tests.engine.test_random_games import choose_action


def follow(beliefs: Beliefs, state: engine.GameState, events: list[engine.Event]) -> None:
    beliefs.follow((e.for_viewer(beliefs.seat) for e in events), engine.view(state, beliefs.seat))


def start(pieces: Pieces, host: int = 0) -> tuple[engine.GameState, Beliefs]:
    state = setup("liangguo", pieces, host=host)
    beliefs = Beliefs("liangguo", 0)
    beliefs.update(engine.view(state, 0))
    return state, beliefs


BASE: Pieces = {
    "0:62": (0, "flag"),
    "0:51": (0, "general"),
    "1:62": (1, "flag"),
    "1:11": (1, "captain"),
}


def ranks(beliefs: Beliefs, station: str) -> set[str]:
    return {r.value for r in beliefs.pieces[station].weights}


def test_layout_priors() -> None:
    _, beliefs = start({**BASE, "1:52": (1, "landmine"), "1:64": (1, "major")})
    front = ranks(beliefs, "1:11")
    assert not {"landmine", "flag", "bomb"} & front and "field_marshal" in front
    assert "landmine" in ranks(beliefs, "1:52") and "flag" not in ranks(beliefs, "1:52")
    assert "flag" in ranks(beliefs, "1:62")
    assert 0 not in {g.seat for g in beliefs.pieces.values()}  # only enemy pieces


def test_bombs_are_likeliest_right_behind_the_front_line() -> None:
    """Rows 2 and 3, where a bomb meets the piece that has just taken one of the front row's;
    none in the front row."""
    variant = engine.get_variant("siguo")
    board = variant.board

    def bomb(station: str) -> float:
        weights = layout_prior(variant, board.station(station))
        return weights.get(Rank.BOMB, 0.0) / sum(weights.values())

    assert bomb("1:11") == 0.0
    assert bomb("1:21") > 2 * bomb("1:41") and bomb("1:35") > 2 * bomb("1:55")
    assert bomb("1:41") > 0.0


def test_a_piece_that_moved_is_no_mine_and_one_that_turned_is_an_engineer() -> None:
    pieces = {**BASE, "1:51": (1, "engineer"), "1:54": (1, "major")}
    state, beliefs = start(pieces, host=1)
    state, events = act(state, engine.Move(1, "1:54", "1:44"))
    follow(beliefs, state, events)
    assert "landmine" not in ranks(beliefs, "1:44") and "flag" not in ranks(beliefs, "1:44")
    assert "major" in ranks(beliefs, "1:44")
    state, events = act(state, engine.Move(0, "0:51", "0:52"))
    follow(beliefs, state, events)
    state, events = act(state, engine.Move(1, "1:51", "1:35"))  # along row 5, then turns
    follow(beliefs, state, events)
    assert ranks(beliefs, "1:35") == {"engineer"}


def test_a_fight_bounds_the_unknown_rank() -> None:
    pieces = {**BASE, "1:52": (1, "landmine")}
    state, beliefs = start({**pieces, "0:51": (0, "general"), "1:15": (1, "field_marshal")})
    state, events = act(state, engine.Move(0, "0:51", "1:15"))  # our general loses
    follow(beliefs, state, events)
    assert ranks(beliefs, "1:15") <= {"field_marshal", "landmine"}


def test_an_attacker_that_beat_ours_outranks_it() -> None:
    pieces: Pieces = {**BASE, "0:41": (0, "captain"), "1:15": (1, "colonel")}
    state, beliefs = start(pieces, host=1)
    state, events = act(state, engine.Move(1, "1:15", "0:11"))
    follow(beliefs, state, events)
    state, events = act(state, engine.Move(0, "0:51", "0:52"))
    follow(beliefs, state, events)
    state, events = act(state, engine.Move(1, "0:11", "0:21"))
    follow(beliefs, state, events)
    state, events = act(state, engine.Move(0, "0:52", "0:51"))
    follow(beliefs, state, events)
    state, events = act(state, engine.Move(1, "0:21", "0:31"))
    follow(beliefs, state, events)
    state, events = act(state, engine.Move(0, "0:51", "0:52"))
    follow(beliefs, state, events)
    state, events = act(state, engine.Move(1, "0:31", "0:41"))  # takes our captain
    follow(beliefs, state, events)
    strength = {r.value: s for r, s in engine.pieces.OFFICER_STRENGTH.items()}
    assert all(strength[r] > strength["captain"] for r in ranks(beliefs, "0:41") if r in strength)
    assert "bomb" not in ranks(beliefs, "0:41")  # a bomb would have died too


def test_stock_counting_removes_a_rank_seen_everywhere() -> None:
    pieces: Pieces = {**BASE, "1:51": (1, "major")}
    state, beliefs = start(pieces)
    beliefs.pieces["1:51"].weights = {Rank.FIELD_MARSHAL: 1.0}  # as if scouted
    beliefs.count_stock()
    assert "field_marshal" not in ranks(beliefs, "1:11")
    assert "field_marshal" not in ranks(beliefs, "1:62")


def test_beliefs_never_contradict_the_truth_in_random_games() -> None:
    for seed in range(6):
        rng = random.Random(seed)
        state = engine.new_game("siguo", seed=seed)
        beliefs = {s: Beliefs("siguo", s) for s in state.variant.seats}
        now = 0.0
        for _ in range(600):
            if state.phase == "finished":
                break
            now += 1
            action = choose_action(state, rng, min(now, state.deadline))
            try:
                state, events = engine.apply(state, action)
            except engine.EngineError:
                continue
            if state.phase != "playing":
                continue
            for seat, b in beliefs.items():
                follow(b, state, events)
                for station, guess in b.pieces.items():
                    piece = state.board_position.piece_at(station)
                    assert piece is not None and piece.seat == guess.seat
                    assert piece.rank in guess.weights, (seat, station, piece, guess.weights)


def test_once_a_flag_is_shown_no_other_piece_of_its_seat_is_a_flag() -> None:
    """乱战 counts no stock (armies are dealt), yet a seat's flags are shown all at once: seat 1
    has no 司令, so its flag on 1:62 is shown from the start, and 1:64 holds no flag."""
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "major"),
        "1:62": (1, "flag"),
        "1:64": (1, "landmine"),
        "1:51": (1, "major"),
        "2:62": (2, "flag"),
        "2:51": (2, "major"),
        "3:62": (3, "flag"),
        "3:51": (3, "field_marshal"),  # seat 3's flag stays hidden
        "3:64": (3, "landmine"),
    }
    beliefs = Beliefs("luanzhan", 0)
    beliefs.update(engine.view(setup("luanzhan", pieces), 0))
    assert ranks(beliefs, "1:62") == {"flag"}
    assert "flag" not in ranks(beliefs, "1:64") and "landmine" in ranks(beliefs, "1:64")
    assert "flag" in ranks(beliefs, "3:62") and "flag" in ranks(beliefs, "3:64")


@pytest.mark.parametrize("variant", ["siguo", "liangguo", "luanzhan", "sandayi", "sanguo"])
def test_in_whole_games_a_seat_knows_its_flag_is_shown_exactly_when_an_enemy_sees_it(
    variant: str,
) -> None:
    """Easy bots play whole games (dealt hands, 三打一's idle flags shown from the start, flags
    raised, 司令 lost); after every step of play each live seat's ``own_flag_shown`` is whether
    an enemy's view shows that seat's flag or the flag it raised."""
    checked: Counter[bool] = Counter()

    def watch(before: GameState, action: Action, state: GameState, events: list[Event]) -> None:
        if state.phase != "playing":
            return
        for seat in state.variant.seats:
            if state.seats[seat].elimination is not None:
                continue
            enemies = [s for s in state.variant.seats if state.teams[s] != state.teams[seat]]
            seen = any(enemy_sees_flag(engine.view(state, e), seat) for e in enemies)
            assert own_flag_shown(engine.view(state, seat)) == seen, (seat, state.total_moves)
            checked[seen] += 1

    for seed in range(3):
        players = {s: Bot(variant, s, "easy") for s in engine.get_variant(variant).seats}
        play(variant, seed, players, watch=watch)
    assert checked[False] > 0
    assert checked[True] > 0 or variant == "sanguo"  # 三国 never shows a flag


def enemy_sees_flag(view: dict[str, Any], seat: int) -> bool:
    raised = view["seats"][seat].get("flag_raised") is not None
    return raised or any(p.get("seat") == seat and p.get("rank") == "flag" for p in view["pieces"])


def test_our_pieces_that_won_a_fight_are_known_to_have_shown_their_strength() -> None:
    """``proven``: a piece of ours that beat an attacker or took a piece (whose owner knows now
    that it is above his), on the station where it stands, followed as it moves; the others
    are not."""
    pieces: Pieces = {
        **BASE,
        "1:15": (1, "captain"),
        "0:15": (0, "colonel"),
        "0:21": (0, "major"),
    }
    state, beliefs = start(pieces)
    for move in (
        engine.Move(0, "0:15", "1:11"),  # takes their captain
        engine.Move(1, "1:15", "0:11"),
        engine.Move(0, "1:11", "1:12"),  # and moves on
        engine.Move(1, "0:11", "0:21"),  # their captain runs into our major
    ):
        state, events = act(state, move)
        follow(beliefs, state, events)
    assert beliefs.proven == {"1:12", "0:21"}
