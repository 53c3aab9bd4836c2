"""The game state machine (docs/rules.md §5-§8): scripted games that hit every rule."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import engine
from engine import (
    AnswerProposal,
    Deadline,
    Escape,
    Move,
    PlaceLayout,
    ProposeDraw,
    Surrender,
    Timeout,
)
from tests.engine.game_helpers import Pieces, act, kinds, move, ranks_seen, setup

# Four seats each with a flag and one piece that can shuffle along its row 5.
QUIET: Pieces = {
    "0:62": (0, "flag"),
    "0:51": (0, "major"),
    "1:62": (1, "flag"),
    "1:51": (1, "major"),
    "2:62": (2, "flag"),
    "2:51": (2, "major"),
    "3:62": (3, "flag"),
    "3:51": (3, "major"),
}


def shuffle(state: engine.GameState, now: float = 1.0) -> engine.GameState:
    """The seat to move shuffles its major between row 5 columns 1 and 2."""
    seat = state.to_move
    here = f"{seat}:51" if state.board_position.piece_at(f"{seat}:51") else f"{seat}:52"
    there = f"{seat}:52" if here.endswith("51") else f"{seat}:51"
    return move(state, here, there, now)


# --- deployment -------------------------------------------------------------------------------


def test_play_starts_when_every_seat_confirms() -> None:
    state = engine.new_game("siguo", seed=1, host=2, now=100.0)
    assert state.phase == "deploying" and state.deadline == 190.0
    for seat in range(4):
        layout = engine.auto_layout("siguo", seat, seat)
        state, events = act(state, PlaceLayout(seat, layout, now=110.0))
        assert "deployed" in kinds(events)
    assert state.phase == "playing"
    assert state.to_move == 2 and state.started_at == 110.0 and state.deadline == 140.0
    assert kinds(events)[-2:] == ["game_started", "turn"]


def test_an_illegal_layout_cannot_be_confirmed_but_can_be_saved() -> None:
    state = engine.new_game("siguo", seed=1)
    layout: dict[str, str] = dict(engine.auto_layout("siguo", 0, 1))
    flag = next(s for s, r in layout.items() if r == "flag")
    layout[flag], layout["0:11"] = layout["0:11"], "flag"
    with pytest.raises(engine.IllegalLayout) as error:
        act(state, PlaceLayout(0, layout))
    assert [p.code for p in error.value.problems] == ["flag_not_in_hq"]
    saved, events = act(state, PlaceLayout(0, layout, confirm=False))
    assert saved.confirmed == frozenset() and events[0].audience == frozenset({0})
    assert engine.view(saved, 0)["layout"] == layout
    assert engine.view(saved, 1)["layout"] is None
    assert engine.view(saved, None)["layout"] is None


def test_the_deploy_deadline_completes_drafts_automatically() -> None:
    state = engine.new_game("siguo", seed=7, now=0.0)
    state, _ = act(state, PlaceLayout(0, engine.auto_layout("siguo", 0, 3), now=5.0))
    draft = {"1:11": "bomb", "1:62": "flag", "1:52": "landmine"}  # a bomb in row 1 is illegal
    state, _ = act(state, PlaceLayout(1, draft, confirm=False, now=6.0))
    with pytest.raises(engine.IllegalAction, match="runs until 90"):
        act(state, Deadline(now=60.0))
    with pytest.raises(engine.IllegalAction, match="ran out at 90"):
        act(state, PlaceLayout(2, engine.auto_layout("siguo", 2, 3), now=91.0))
    state, events = act(state, Deadline(now=90.0))
    assert kinds(events).count("auto_deployed") == 3
    assert state.phase == "playing" and state.started_at == 90.0
    seat1 = {sid: p.rank.value for sid, p in state.layouts[1].items()}
    assert engine.deployment_problems("siguo", 1, seat1) == []
    assert seat1["1:62"] == "flag" and seat1["1:52"] == "landmine"  # legal parts were kept
    assert seat1.get("1:11") != "bomb"
    seat0 = {sid: p.rank for sid, p in state.layouts[0].items()}
    assert seat0 == engine.auto_layout("siguo", 0, 3)


def test_a_draft_is_held_to_the_board_s_size() -> None:
    state = engine.new_game("siguo", seed=7, now=0.0)
    most = len(engine.get_board("siguo").stations)
    junk = {f"0:{n}": "bomb" for n in range(most + 1)}
    with pytest.raises(engine.MalformedInput, match=f"at most {most} stations"):
        act(state, PlaceLayout(0, junk, confirm=False, now=1.0))
    del junk["0:0"]
    saved, _ = act(state, PlaceLayout(0, junk, confirm=False, now=1.0))  # as many: kept
    assert len(saved.drafts[0] or {}) == most


def test_a_confirmed_layout_is_final() -> None:
    state = engine.new_game("liangguo", seed=1)
    state, _ = act(state, PlaceLayout(0, engine.auto_layout("liangguo", 0, 1)))
    with pytest.raises(engine.IllegalAction, match="already confirmed"):
        act(state, PlaceLayout(0, engine.auto_layout("liangguo", 0, 2)))


# --- turns, moves and errors --------------------------------------------------------------------


def test_host_first_then_clockwise_skipping_nobody() -> None:
    state = setup("siguo", QUIET, host=2)
    order = []
    for _ in range(5):
        order.append(state.to_move)
        state = shuffle(state)
    assert order == [2, 3, 0, 1, 2]


def test_counter_clockwise_option() -> None:
    state = setup("siguo", QUIET, host=2, turn_direction="counter_clockwise")
    order = []
    for _ in range(4):
        order.append(state.to_move)
        state = shuffle(state)
    assert order == [2, 1, 0, 3]


def test_bad_actions_raise_typed_errors_and_change_nothing() -> None:
    pieces: Pieces = {**QUIET, "0:52": (0, "captain"), "0:42": (1, "captain")}
    state = setup("siguo", pieces)
    before = state
    cases: list[tuple[engine.Action, type[Exception], str]] = [
        (Move(1, "1:51", "1:52"), engine.NotYourTurn, "seat 0's turn"),
        (Move(0, "0:51", "0:52"), engine.IllegalAction, "not a legal move"),  # own piece
        (Move(0, "0:51", "0:42"), engine.IllegalAction, "not a legal move"),  # occupied camp
        (Move(0, "0:62", "0:63"), engine.IllegalAction, "not a legal move"),  # flag
        (Move(0, "1:51", "1:52"), engine.IllegalAction, "no piece to move on 1:51"),
        (Move(0, "0:99", "0:52"), engine.MalformedInput, "no station"),
        (Move(7, "0:51", "0:41"), engine.MalformedInput, "no seat 7"),
        (Move(0, "0:51", "0:41", now=31.0), engine.IllegalAction, "clock ran out"),
        (Timeout(now=29.0), engine.IllegalAction, "runs until 30"),
        (PlaceLayout(0, {}), engine.IllegalAction, "while the game is playing"),
        (AnswerProposal(1, True), engine.IllegalAction, "no proposal"),
    ]
    for action, error, message in cases:
        with pytest.raises(error, match=message):
            act(state, action)
        assert state == before
    with pytest.raises(engine.MalformedInput, match="not an action"):
        engine.apply(state, "move")  # type: ignore[arg-type]


def test_moving_into_the_hq_locks_the_piece() -> None:
    pieces: Pieces = {**QUIET, "1:52": (0, "captain")}
    pieces.pop("1:62")
    pieces["1:64"] = (1, "flag")
    state = setup("siguo", pieces)
    state = move(state, "1:52", "1:62")  # an empty enemy HQ
    for _ in range(3):
        state = shuffle(state)
    with pytest.raises(engine.IllegalAction):
        move(state, "1:62", "1:52")


# --- flag capture, elimination, team victory ----------------------------------------------------


def test_flag_capture_eliminates_and_the_team_wins_when_both_are_out() -> None:
    pieces: Pieces = {**QUIET, "1:52": (0, "general"), "3:61": (0, "major")}
    state = setup("siguo", pieces)
    state, events = act(state, Move(0, "1:52", "1:62", now=3.0))
    assert kinds(events)[:2] == ["moved", "eliminated"]
    assert events[1].data == {"seat": 1, "reason": "flag_captured", "victor": 0}
    assert not any(p.seat == 1 for p in state.board_position.pieces().values())
    assert state.to_move == 2  # seat 1 is skipped from now on
    state = shuffle(state)  # seat 2
    state = shuffle(state)  # seat 3
    state, events = act(state, Move(0, "3:61", "3:62", now=9.0))
    assert state.phase == "finished" and "game_over" in kinds(events)
    result = state.result
    assert result is not None and result.reason == "elimination" and result.winners == (0, 2)
    assert [r.outcome for r in result.seats] == ["win", "loss", "win", "loss"]
    assert [r.points for r in result.seats] == [1, -1, 1, -1]
    assert result.points_unit == "stake"
    assert [r.moves for r in result.seats] == [2, 0, 1, 1]
    out = {r.seat: r.elimination for r in result.seats if r.elimination}
    assert (out[1].order, out[1].victor, out[3].order, out[3].victor) == (1, 0, 2, 0)
    with pytest.raises(engine.IllegalAction, match="over"):
        act(state, Timeout(now=100.0))


@pytest.mark.parametrize(("bomb_takes_flag", "survivor"), [(False, None), (True, "bomb")])
def test_a_bomb_on_the_flag_captures_it_either_way(bomb_takes_flag: bool, survivor: str) -> None:
    pieces: Pieces = {**QUIET, "1:52": (0, "bomb")}
    state = setup("siguo", pieces, bomb_takes_flag=bomb_takes_flag)
    state, events = act(state, Move(0, "1:52", "1:62"))
    assert events[0].data["outcome"] == ("attacker" if bomb_takes_flag else "both")
    assert state.seats[1].elimination is not None
    piece = state.board_position.piece_at("1:62")
    assert (piece.rank if piece else None) == survivor


def test_a_failed_attack_on_the_last_live_piece_eliminates_the_attacker() -> None:
    pieces: Pieces = {**QUIET, "1:51": (1, "lieutenant"), "1:41": (0, "landmine")}
    state = setup("siguo", pieces, host=1)
    state, events = act(state, Move(1, "1:51", "1:41"))
    assert events[0].data["outcome"] == "defender"
    eliminated = next(e for e in events if e.kind == "eliminated")
    assert eliminated.data == {"seat": 1, "reason": "no_live_pieces", "victor": 0}


def test_only_immobile_pieces_left_eliminates() -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "bomb"),
        "1:62": (1, "flag"),
        "1:61": (1, "landmine"),
        "0:41": (1, "captain"),
        "2:62": (2, "flag"),
        "2:51": (2, "major"),
        "3:62": (3, "flag"),
        "3:51": (3, "major"),
    }
    state = setup("siguo", pieces)
    state, events = act(state, Move(0, "0:51", "0:41"))  # bomb trades with the last captain
    out = {e.data["seat"]: e.data for e in events if e.kind == "eliminated"}
    # seat 1 has only a flag and a landmine left; seat 0 lost its last live piece too
    assert out[1]["reason"] == "no_live_pieces" and out[1]["victor"] == 0
    assert out[0]["reason"] == "no_live_pieces" and out[0]["victor"] == 1
    assert state.phase == "playing" and state.to_move == 2  # partners 2 and 3 play on


def test_simultaneous_end_goes_to_the_mover_s_team() -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "1:52": (0, "bomb"),
        "1:62": (1, "flag"),
        "1:53": (1, "major"),
        "2:62": (2, "flag"),
        "3:62": (3, "flag"),
    }
    state, events = engine.start_from("siguo", pieces, seed=1)
    assert [e.data["seat"] for e in events if e.kind == "eliminated"] == [2, 3]
    state, events = act(state, Move(0, "1:52", "1:53"))  # bomb vs major: both removed
    assert state.result is not None and state.result.winners == (0, 2)
    assert state.seats[0].alive and not state.seats[1].alive


# --- 司令 death reveals the flag ------------------------------------------------------------------


def marshal_trade(variant: str) -> engine.GameState:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "bomb"),
        "1:62": (1, "flag"),
        "0:41": (1, "field_marshal"),
        "1:51": (1, "major"),
        "2:62": (2, "flag"),
        "2:51": (2, "major"),
    }
    if variant == "siguo":
        pieces.update({"3:62": (3, "flag"), "3:51": (3, "major")})
    state = setup(variant, pieces, host=1)
    return act(state, Move(1, "0:41", "0:51"))[0]  # 司令 attacks a bomb: both removed


def test_marshal_death_reveals_the_flag_to_everyone() -> None:
    state = marshal_trade("siguo")
    for viewer in (0, 2, 3, None):
        assert ranks_seen(state, viewer).get("1:62") == "flag"
    assert ranks_seen(state, 0).get("1:51") is None


def test_no_flag_reveal_in_sanguo() -> None:
    state = marshal_trade("sanguo")
    for viewer in (0, 2, None):
        assert "1:62" not in ranks_seen(state, viewer)


# --- skips ----------------------------------------------------------------------------------------


def test_timeouts_count_and_eliminate_at_the_limit() -> None:
    state = setup("siguo", QUIET)
    state, events = act(state, Timeout(now=30.0))
    assert events[0].data == {"seat": 0, "reason": "timeout", "skips": 1}
    assert state.to_move == 1 and state.deadline == 60.0
    while state.phase == "playing":
        state, _ = act(state, Timeout(now=state.deadline))
    result = state.result
    assert result is not None and result.winners == (1, 3)
    assert [s.skips for s in state.seats] == [5, 5, 5, 4]
    out = [r.elimination for r in result.seats]
    assert [e.reason if e else None for e in out] == ["skips", "skips", "skips", None]


def test_timeouts_to_the_limit_count_as_an_escape_when_the_rule_says_so() -> None:
    state = setup("siguo", QUIET, max_skips=2, timeouts_are_escape=True)
    for _ in range(5):
        state, _ = act(state, Timeout(now=state.deadline))
    elimination = state.seats[0].elimination
    assert elimination is not None and elimination.reason == "escape"


def test_a_seat_without_a_legal_move_is_skipped_and_that_counts() -> None:
    pieces: Pieces = {**QUIET}
    del pieces["1:51"]
    pieces["0:64"] = (1, "captain")  # alive, but locked in an HQ
    state = setup("siguo", pieces)
    state, events = act(state, Move(0, "0:51", "0:52"))
    assert {"kind": "skipped", "seat": 1, "reason": "no_legal_move", "skips": 1} in [
        {"kind": e.kind, **e.data} for e in events
    ]
    assert state.to_move == 2
    for _ in range(12):
        state = shuffle(state)
    assert state.seats[1].elimination is not None
    assert state.seats[1].elimination.reason == "skips"


def test_blocked_is_defeat_eliminates_at_once() -> None:
    pieces: Pieces = {**QUIET}
    del pieces["1:51"]
    pieces["0:64"] = (1, "captain")
    state = setup("siguo", pieces, blocked_is_defeat=True)
    state, _ = act(state, Move(0, "0:51", "0:52"))
    assert state.seats[1].elimination is not None
    assert state.seats[1].elimination.reason == "blocked"


# --- draws ----------------------------------------------------------------------------------------


def test_forty_moves_without_combat_draw() -> None:
    state = setup("liangguo", {k: v for k, v in QUIET.items() if k[0] in "01"})
    for n in range(40):
        assert state.phase == "playing", n
        state = shuffle(state, now=1.0 + n)
    result = state.result
    assert result is not None and result.reason == "no_capture"
    assert [(r.outcome, r.points) for r in result.seats] == [("draw", 0), ("draw", 0)]


def test_combat_resets_the_no_capture_count() -> None:
    pieces: Pieces = {k: v for k, v in QUIET.items() if k[0] in "01"}
    pieces["0:41"] = (0, "engineer")
    pieces["1:21"] = (1, "landmine")
    state = setup("liangguo", pieces, no_capture_plies=6)
    for _ in range(4):
        state = shuffle(state)
    assert state.quiet_moves == 4
    state = move(state, "0:41", "1:21")  # the engineer flies across and digs the mine
    assert state.quiet_moves == 0
    for _ in range(5):
        state = shuffle(state)
    assert state.phase == "playing"
    state = shuffle(state)
    assert state.result is not None and state.result.reason == "no_capture"


def test_draw_by_agreement_needs_everyone_still_in_the_game() -> None:
    state = setup("siguo", QUIET)
    state, events = act(state, ProposeDraw(2))
    assert events[0].data == {"proposal": "draw", "seat": 2, "waiting": [0, 1, 3]}
    for seat in (0, 1):
        state, _ = act(state, AnswerProposal(seat, True))
        assert state.phase == "playing"
    with pytest.raises(engine.IllegalAction, match="no proposal waiting for seat 1"):
        act(state, AnswerProposal(1, True))
    state, events = act(state, AnswerProposal(3, True))
    result = state.result
    assert result is not None and result.reason == "agreement"
    assert all(r.outcome == "draw" and r.points == 0 for r in result.seats)


def test_a_declined_or_stale_proposal_lapses_and_each_player_has_three() -> None:
    state = setup("siguo", QUIET)
    state, _ = act(state, ProposeDraw(1))
    with pytest.raises(engine.IllegalAction, match="another proposal"):
        act(state, ProposeDraw(2))
    state, events = act(state, AnswerProposal(3, False))
    assert state.proposal is None and kinds(events) == ["proposal_declined"]
    state, _ = act(state, ProposeDraw(1))
    state = shuffle(state)  # the turn passes: the proposal lapses
    assert state.proposal is None
    state, _ = act(state, ProposeDraw(1))
    state, _ = act(state, AnswerProposal(0, False))
    with pytest.raises(engine.IllegalAction, match="used all 3"):
        act(state, ProposeDraw(1))
    assert engine.view(state, 1)["seats"][1]["proposals_left"] == 0


def test_eliminated_partners_answer_and_may_propose() -> None:
    pieces: Pieces = {**QUIET, "1:52": (0, "general")}
    state = setup("siguo", pieces)
    state = move(state, "1:52", "1:62")  # seat 1 is out, seat 3 plays on
    state, events = act(state, ProposeDraw(1))
    assert events[0].data["waiting"] == [0, 2, 3]


# --- surrender and escape -------------------------------------------------------------------------


def test_surrender_is_invalid_in_the_first_90_seconds() -> None:
    state = setup("siguo", QUIET)
    with pytest.raises(engine.IllegalAction, match="first 90 s"):
        act(state, Surrender(1, now=89.0))
    state, events = act(state, Surrender(1, now=90.0))
    assert kinds(events)[:2] == ["surrendered", "eliminated"]
    assert state.phase == "playing" and state.seats[3].alive
    state, _ = act(state, Surrender(0, now=95.0))  # the seat to move: the turn passes on
    assert state.to_move == 2


def test_surrender_of_the_last_of_a_team_loses_the_game() -> None:
    state = setup("liangguo", {k: v for k, v in QUIET.items() if k[0] in "01"})
    state, _ = act(state, Surrender(1, now=100.0))
    result = state.result
    assert result is not None and result.winners == (0,)
    assert [(r.outcome, r.points) for r in result.seats] == [("win", 1), ("loss", -1)]


def test_surrender_with_the_partner_s_consent() -> None:
    state = setup("siguo", QUIET, surrender_needs_partner=True)
    state, events = act(state, Surrender(1, now=100.0))
    assert events[0].data == {"proposal": "surrender", "seat": 1, "waiting": [3]}
    state, _ = act(state, AnswerProposal(3, True, now=101.0))
    assert state.result is not None and state.result.winners == (0, 2)


def test_no_surrender_in_sanguo() -> None:
    state = setup("sanguo", {k: v for k, v in QUIET.items() if k[0] in "012"})
    with pytest.raises(engine.IllegalAction, match="no surrender"):
        act(state, Surrender(1, now=500.0))


def test_an_escape_with_the_partner_still_in_ends_the_game_unscored() -> None:
    state = setup("siguo", QUIET)
    state, _ = act(state, Escape(1, now=10.0))
    result = state.result
    assert result is not None and result.reason == "escape" and result.winners == ()
    assert [(r.outcome, r.points) for r in result.seats] == [
        ("unscored", 0),
        ("escape", -2),
        ("unscored", 0),
        ("unscored", 0),
    ]


def test_an_escape_after_the_partner_lost_gives_the_opponents_the_game() -> None:
    pieces: Pieces = {**QUIET, "3:52": (0, "general")}
    state = setup("siguo", pieces)
    state = move(state, "3:52", "3:62")
    state, _ = act(state, Escape(1, now=10.0))
    result = state.result
    assert result is not None and result.winners == (0, 2)
    assert [(r.outcome, r.points) for r in result.seats] == [
        ("win", 1),
        ("escape", -2),
        ("win", 1),
        ("loss", -1),
    ]


def test_an_escape_while_deploying_ends_the_game() -> None:
    state = engine.new_game("siguo", seed=1)
    state, _ = act(state, Escape(2, now=3.0))
    assert state.result is not None
    assert [r.points for r in state.result.seats] == [0, 0, -2, 0]


# --- 三国 ----------------------------------------------------------------------------------------

SANGUO: Pieces = {
    "0:62": (0, "flag"),
    "1:21": (0, "bomb"),
    "1:62": (1, "flag"),
    "1:31": (1, "major"),
    "2:62": (2, "flag"),
    "2:51": (2, "captain"),
}


def test_sanguo_first_strike_the_defender_goes_out_first() -> None:
    state = setup("sanguo", SANGUO)
    state, events = act(state, Move(0, "1:21", "1:31"))
    assert [e.data["seat"] for e in events if e.kind == "eliminated"] == [1, 0]
    result = state.result
    assert result is not None and result.winners == (2,) and result.points_unit == "raw"
    # seat 1 first out: -X, its victor seat 0 +X; seat 0 second out: -Y; seat 2 +Z
    assert [r.points for r in result.seats] == [0, -2, 6]
    assert [r.outcome for r in result.seats] == ["loss", "loss", "win"]


def test_sanguo_first_strike_wins_when_nobody_else_is_left() -> None:
    pieces = {**SANGUO}
    del pieces["2:51"]  # seat 2 has no live piece and goes out at once
    state = setup("sanguo", pieces)
    state, _ = act(state, Move(0, "1:21", "1:31"))
    result = state.result
    assert result is not None and result.winners == (0,)
    assert [r.points for r in result.seats] == [6, -2, -2]  # seat 2 went out with no victor


def test_sanguo_alternative_scoring_table() -> None:
    state = setup("sanguo", SANGUO, score_y=4)
    state, _ = act(state, Move(0, "1:21", "1:31"))
    assert state.result is not None
    assert [r.points for r in state.result.seats] == [-2, -2, 6]


def test_sanguo_escape_then_a_duel() -> None:
    pieces = {**SANGUO, "0:51": (0, "general")}
    state = setup("sanguo", pieces)
    state, _ = act(state, Escape(2, now=5.0))
    assert state.phase == "playing"
    state = move(state, "1:21", "1:31", now=6.0)  # seat 1 is out; seat 0 still has a general
    result = state.result
    assert result is not None and result.winners == (0,)
    assert [r.points for r in result.seats] == [2, -2, -6]  # duel ±X, escaper -Z


def test_sanguo_any_movable_piece_takes_a_flag_and_a_bomb_takes_it_too() -> None:
    state = setup("sanguo", {**SANGUO, "1:52": (0, "bomb")})
    state, events = act(state, Move(0, "1:52", "1:62"))
    assert events[0].data["outcome"] == "attacker"
    assert state.seats[1].elimination is not None


# --- scouting and information modes -------------------------------------------------------------


def scouting_game(mode: str, **options: Any) -> engine.GameState:
    pieces: Pieces = {**QUIET, "1:41": (0, "engineer"), "1:31": (1, "general")}
    state = setup("siguo", pieces, engineer_scouting=mode, **options)
    return move(state, "1:41", "1:31")  # the engineer attacks the general and dies


@pytest.mark.parametrize(
    ("mode", "who_sees"),
    [("off", {1}), ("all", {0, 1, 2, 3, None}), ("team", {0, 1, 2})],
)
def test_engineer_scouting_reveals_to_the_right_viewers(mode: str, who_sees: set[object]) -> None:
    state = scouting_game(mode)
    for viewer in (0, 1, 2, 3, None):
        assert (ranks_seen(state, viewer).get("1:31") == "general") == (viewer in who_sees)
    state = move(state, "1:31", "1:41")  # seat 1's general moves: the reveal follows it
    for viewer in (0, 1, 2, 3, None):
        assert (ranks_seen(state, viewer).get("1:41") == "general") == (viewer in who_sees)


def test_scouting_event_audience() -> None:
    pieces: Pieces = {**QUIET, "1:41": (0, "engineer"), "1:31": (1, "general")}
    state = setup("siguo", pieces, engineer_scouting="team")
    _, events = act(state, Move(0, "1:41", "1:31"))
    scouted = next(e for e in events if e.kind == "scouted")
    assert scouted.for_viewer(2) == {
        "kind": "scouted",
        "station": "1:31",
        "seat": 1,
        "rank": "general",
    }
    seen_by_3 = scouted.for_viewer(3)
    assert seen_by_3 is not None and "rank" not in seen_by_3
    moved = events[0]
    assert moved.for_viewer(0) == {
        "kind": "moved",
        "seat": 0,
        "origin": "1:41",
        "target": "1:31",
        "outcome": "defender",
        "defender": 1,
        "rank": "engineer",
    }
    public = {k: v for k, v in moved.for_viewer(0).items() if k != "rank"}  # type: ignore[union-attr]
    assert moved.for_viewer(1) == {**public, "defender_rank": "general"}
    assert moved.for_viewer(None) == public


@pytest.mark.parametrize(
    ("information", "seen_by_0"),
    [("hidden", {0}), ("partners_open", {0, 2}), ("open", {0, 1, 2, 3})],
)
def test_information_modes(information: str, seen_by_0: set[int]) -> None:
    state = setup("siguo", QUIET, information=information)
    seen = ranks_seen(state, 0)
    assert {int(sid[0]) for sid in seen} == seen_by_0
    spectator = ranks_seen(state, None)
    assert spectator == ({} if information != "open" else ranks_seen(state, 1))


def test_everything_is_revealed_when_the_game_ends() -> None:
    state = setup("siguo", QUIET)
    state, events = act(state, Escape(3, now=1.0))
    left = state.board_position.pieces()
    assert len(left) == len(QUIET) - 2  # the escaper's flag and major left the board
    assert ranks_seen(state, None) == {sid: p.rank for sid, p in left.items()}
    game_over = events[-1].for_viewer(None)
    assert game_over is not None and len(game_over["pieces"]) == len(left)
    assert game_over["layouts"][3] == {"3:62": "flag", "3:51": "major"}


def test_legal_moves_are_in_the_view_of_the_seat_to_move_only() -> None:
    state = setup("siguo", QUIET)
    pieces = {s: (p.seat, p.rank.value) for s, p in state.board_position.pieces().items()}
    expected = engine.destinations("siguo", pieces, "0:51")
    legal = engine.view(state, 0)["legal_moves"]
    assert list(legal) == ["0:51"] and set(legal["0:51"]) == expected
    for viewer in (1, 2, 3, None):
        assert "legal_moves" not in engine.view(state, viewer)


def test_view_of_an_unknown_seat_is_malformed() -> None:
    with pytest.raises(engine.MalformedInput):
        engine.view(setup("siguo", QUIET), 4)


def test_rule_options_are_checked() -> None:
    with pytest.raises(engine.MalformedInput, match="unknown rule option"):
        engine.new_game("siguo", seed=1, options={"speed": 3})
    with pytest.raises(engine.MalformedInput, match="move_seconds"):
        engine.new_game("siguo", seed=1, options={"move_seconds": -1})
    with pytest.raises(engine.MalformedInput, match="information"):
        engine.new_game("siguo", seed=1, options={"information": "glass"})
    state = engine.new_game("siguo", seed=1, options={"no_capture_plies": None, "max_skips": 3})
    assert state.rules.no_capture_plies is None and state.rules.max_skips == 3


def test_a_game_takes_rules_already_parsed() -> None:
    rules = engine.get_variant("siguo").rules_with({"move_seconds": 45})
    state = engine.new_game("siguo", seed=1, rules=rules)
    assert state.rules is rules
    assert state == engine.new_game("siguo", seed=1, options={"move_seconds": 45})
    started, _ = engine.start_from("siguo", QUIET, seed=1, rules=rules)
    assert started.rules is rules and engine.record_of(started).options == rules.to_dict()
    with pytest.raises(engine.MalformedInput, match="not both"):
        engine.new_game("siguo", seed=1, options={}, rules=rules)


def test_a_variant_s_fixed_rules_win_over_options_and_parsed_rules() -> None:
    fanqi = engine.get_variant("fanqi")
    assert fanqi.fixed == {"blocked_is_defeat"}
    assert fanqi.rules_with({"blocked_is_defeat": False}).blocked_is_defeat is True
    loose = dataclasses.replace(fanqi.rules, blocked_is_defeat=False)
    for state in (
        engine.new_game("fanqi", seed=1, options={"blocked_is_defeat": False}),
        engine.new_game("fanqi", seed=1, rules=loose),
    ):
        assert state.rules == fanqi.rules
    # where no variant fixes it, it is an option like any other
    assert engine.new_game("siguo", seed=1, rules=loose).rules.blocked_is_defeat is False


# --- whole games, every variant ---------------------------------------------------------------

VARIANTS = ["siguo", "liangguo", "sanguo"]


def seats_of(variant: str) -> tuple[int, ...]:
    return engine.get_variant(variant).seats


def opponents(variant: str, seat: int) -> list[int]:
    teams = engine.get_variant(variant).teams
    return [s for s in seats_of(variant) if teams[s] != teams[seat]]


def quiet(variant: str) -> Pieces:
    return {sid: p for sid, p in QUIET.items() if p[0] in seats_of(variant)}


def play_until_over(state: engine.GameState, choose: object) -> engine.GameState:
    for _ in range(200):
        if state.phase == "finished":
            return state
        state = choose(state)  # type: ignore[operator]
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_whole_game_to_flag_captures(variant: str) -> None:
    pieces = quiet(variant)
    for opponent in opponents(variant, 0):
        pieces[f"{opponent}:61"] = (0, "general")  # next to the opponent's flag in its HQ

    def choose(state: engine.GameState) -> engine.GameState:
        if state.to_move == 0:
            target = next(f"{o}:62" for o in opponents(variant, 0) if state.seats[o].alive)
            return move(state, f"{target[0]}:61", target)
        return shuffle(state)

    state = play_until_over(setup(variant, pieces), choose)
    result = state.result
    assert result is not None and result.reason == "elimination"
    assert 0 in result.winners and not set(opponents(variant, 0)) & set(result.winners)
    for o in opponents(variant, 0):
        elimination = state.seats[o].elimination
        assert elimination is not None and elimination.reason == "flag_captured"
        assert elimination.victor == 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_whole_game_to_no_movable_pieces(variant: str) -> None:
    pieces = quiet(variant)
    for o in opponents(variant, 0):
        pieces[f"{o}:51"] = (o, "lieutenant")  # its only live piece ...
        pieces[f"{o}:41"] = (0, "landmine")  # ... which will run into a landmine

    def choose(state: engine.GameState) -> engine.GameState:
        seat = state.to_move
        if seat in opponents(variant, 0):
            return move(state, f"{seat}:51", f"{seat}:41")
        return shuffle(state)

    state = play_until_over(setup(variant, pieces), choose)
    assert state.result is not None and 0 in state.result.winners
    for o in opponents(variant, 0):
        elimination = state.seats[o].elimination
        assert elimination is not None and elimination.reason == "no_live_pieces"
        assert elimination.victor == 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_whole_game_to_skips(variant: str) -> None:
    state = setup(variant, quiet(variant), host=1)

    def choose(state: engine.GameState) -> engine.GameState:
        if state.to_move == 0:
            return shuffle(state, now=state.deadline - 1)
        return act(state, Timeout(now=state.deadline))[0]

    state = play_until_over(state, choose)
    assert state.result is not None and 0 in state.result.winners
    for o in opponents(variant, 0):
        elimination = state.seats[o].elimination
        assert elimination is not None and elimination.reason == "skips"
        assert state.seats[o].skips == state.seats[o].timeouts == 5


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_whole_game_to_the_no_capture_draw(variant: str) -> None:
    state = play_until_over(setup(variant, quiet(variant)), shuffle)
    assert state.result is not None and state.result.reason == "no_capture"
    assert state.total_moves == 40
    assert {r.outcome for r in state.result.seats} == {"draw"}


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_whole_game_to_a_draw_by_agreement(variant: str) -> None:
    state = setup(variant, quiet(variant))
    for _ in range(7):
        state = shuffle(state)
    proposer = state.to_move
    assert proposer is not None
    state, _ = act(state, ProposeDraw(proposer, now=50.0))
    for seat in seats_of(variant):
        if seat != proposer:
            state, _ = act(state, AnswerProposal(seat, True, now=51.0))
    assert state.result is not None and state.result.reason == "agreement"
    assert all(r.points == 0 for r in state.result.seats)


def test_a_paused_game_stands_still_and_its_clocks_move_on() -> None:
    state = setup("siguo", QUIET)
    assert state.deadline == 30.0
    state, events = act(state, engine.Pause(now=10.0))
    assert kinds(events) == ["paused"] and state.paused_since == 10.0
    for action in (Move(0, "0:51", "0:52", now=11.0), Timeout(now=40.0), ProposeDraw(1)):
        with pytest.raises(engine.GamePaused, match="paused"):
            act(state, action)
    state, events = act(state, engine.Resume(now=25.0))
    assert state.paused_since is None and state.deadline == 45.0  # 15 s stood still
    with pytest.raises(engine.IllegalAction, match="not paused"):
        act(state, engine.Resume(now=26.0))
    state = move(state, "0:51", "0:52", now=44.0)  # still in time
    assert state.to_move == 1


def test_a_resume_s_bonus_moves_the_clocks_on_without_a_future_time() -> None:
    state = setup("siguo", QUIET)
    state, _ = act(state, engine.Pause(now=10.0))
    state, _ = act(state, engine.Resume(now=12.0, bonus=10.0))  # a restart's grace
    assert state.deadline == 30.0 + 2.0 + 10.0
    resumed = engine.action_to_dict(state.log[-1])
    assert resumed == {"type": "resume", "now": 12.0, "bonus": 10.0}
    assert engine.action_from_dict(resumed) == state.log[-1]
    for bad in (-1, 3601, float("nan"), True, "10"):
        with pytest.raises(engine.MalformedInput, match="bonus"):
            engine.action_from_dict({"type": "resume", "now": 12.0, "bonus": bad})


def test_an_escape_is_possible_while_paused() -> None:
    state = setup("sanguo", {k: v for k, v in QUIET.items() if k[0] in "012"})
    state, _ = act(state, engine.Pause(now=5.0))
    state, _ = act(state, Escape(1, now=6.0))
    assert state.seats[1].elimination is not None and state.phase == "playing"
