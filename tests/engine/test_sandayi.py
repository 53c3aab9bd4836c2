"""三打一 (docs/rules.md §9.3, with §4, §6-§8, §10, §11): bidding, the banker's and the idle
players' armies, deployment, play, the contract, surrender, draws, scoring, escapes and what
each viewer may see."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

import engine
from engine import (
    AnswerProposal,
    Bid,
    Deadline,
    Escape,
    GameState,
    Move,
    PlaceLayout,
    ProposeDraw,
    Surrender,
    Timeout,
)
from engine.deal import deal_sandayi
from engine.game import moves_of
from engine.movement import mask_ids, move_tables
from engine.outcome import Elimination, EliminationReason, EndReason, score
from engine.sandayi import Setup
from engine.sandayi import points as sandayi_points
from tests.engine.game_helpers import Pieces, act, kinds, move, ranks_seen
from tests.engine.leaks import ranks_in

SPECIALS = {"supreme_marshal", "fortress", "missile"}
VIEWERS: list[int | None] = [0, 1, 2, 3, None]
CENTRE = [f"c:{r}{c}" for r in (1, 2, 3) for c in (1, 2, 3)]
CAMPS = {"22", "24", "33", "42", "44"}  # local row and column of an arm's camps

# Every seat has a flag in its left HQ and a major that shuffles along its row 5.
QUIET: Pieces = {
    **{f"{s}:62": (s, "flag") for s in range(4)},
    **{f"{s}:51": (s, "major") for s in range(4)},
}


def sandayi(
    pieces: Pieces, banker: int = 0, contract: int = 1, **options: Any
) -> tuple[GameState, list[engine.Event]]:
    """A 三打一 game in play from a set-up position at time 0, the banker to move."""
    return engine.start_from(
        "sandayi",
        pieces,
        seed="test",
        setup=Setup(banker=banker, contract=contract),
        options=options,
        now=0.0,
    )


def game(pieces: Pieces, banker: int = 0, contract: int = 1, **options: Any) -> GameState:
    return sandayi(pieces, banker, contract, **options)[0]


def shuffle(state: GameState, now: float = 1.0) -> GameState:
    """The seat to move shuffles its major between row 5 columns 1 and 2."""
    seat = state.to_move
    here = f"{seat}:51" if state.board_position.piece_at(f"{seat}:51") else f"{seat}:52"
    there = f"{seat}:52" if here.endswith("51") else f"{seat}:51"
    return move(state, here, there, now)


def shuffled(state: GameState, moves: int) -> GameState:
    for _ in range(moves):
        state = shuffle(state)
    return state


def points(state: GameState) -> list[int]:
    assert state.result is not None
    return [r.points for r in state.result.seats]


def bid_to(seed: int | str, banker: int, level: int = 1, host: int = 0) -> GameState:
    """A new game whose bidding makes ``banker`` the banker at ``level`` (the others pass)."""
    state = engine.new_game("sandayi", seed=seed, host=host, now=0.0)
    while state.phase == "bidding":
        seat = min(state.deal.waiting)
        state, _ = act(state, Bid(seat, level if seat == banker else 0, now=1.0))
    assert state.deal.banker == banker
    return state


def hand_of(state: GameState, seat: int) -> tuple[tuple[engine.Rank, int | None], ...]:
    hand = state.deal.hands[seat]
    assert hand is not None
    return hand


def problems(state: GameState, seat: int, layout: dict[str, str]) -> list[str]:
    return engine.deployment_problems(
        "sandayi", seat, layout, hand=hand_of(state, seat), banker=seat == state.deal.banker
    )


def legal_layout(state: GameState, seat: int, seed: int = 1) -> dict[str, str]:
    return engine.auto_layout(
        "sandayi", seat, seed, hand=hand_of(state, seat), banker=seat == state.deal.banker
    )


def put(layout: dict[str, str], rank: str, station: str) -> dict[str, str]:
    """The layout with a piece of ``rank`` swapped onto ``station``."""
    out = dict(layout)
    source = next(s for s, r in out.items() if r == rank and s != station)
    out[source], out[station] = out[station], rank
    return out


# --- bidding (docs/rules.md §9.3 step 3) ----------------------------------------------------------


def test_bidding_starts_with_the_host_then_counter_clockwise() -> None:
    state = engine.new_game("sandayi", seed=1, host=1, now=10.0)
    assert state.phase == "bidding"
    assert state.deal.order == (1, 0, 3, 2)
    assert state.deal.waiting == frozenset({1})
    order = []
    for _ in range(3):
        seat = min(state.deal.waiting)
        order.append(seat)
        state, _ = act(state, Bid(seat, 0, now=11.0))
    assert order + [min(state.deal.waiting)] == [1, 0, 3, 2]


def test_the_first_bidder_rotates_counter_clockwise_with_every_redeal() -> None:
    state = engine.new_game("sandayi", seed=1, host=1)
    firsts = []
    for number in range(3):
        assert state.deal.number == number
        firsts.append(state.deal.order[0])
        assert state.deal.order == tuple((firsts[-1] - k) % 4 for k in range(4))
        for seat in state.deal.order:
            state, _ = act(state, Bid(seat, 0))
    assert firsts == [1, 0, 3]
    assert state.deal.order[0] == 2 and state.deal.number == 3


def test_four_passes_redeal_new_hands() -> None:
    state = engine.new_game("sandayi", seed=9, host=0)
    assert state.deal.hands == deal_sandayi("9", 0).hands
    for seat in state.deal.order:
        state, events = act(state, Bid(seat, 0))
    assert "redealt" in kinds(events) and state.phase == "bidding"
    assert state.deal.number == 1 and state.deal.bids == (None,) * 4
    assert state.deal.hands == deal_sandayi("9", 1).hands != deal_sandayi("9", 0).hands


def test_a_bid_must_be_higher_than_the_highest_so_far() -> None:
    state = engine.new_game("sandayi", seed=1, host=0)  # order 0, 3, 2, 1
    state, _ = act(state, Bid(0, 2))
    for level in (1, 2):
        with pytest.raises(engine.IllegalAction, match="higher"):
            act(state, Bid(3, level))
    state, _ = act(state, Bid(3, 0))  # a pass is always allowed
    state, _ = act(state, Bid(2, 0))
    with pytest.raises(engine.IllegalAction, match="higher"):
        act(state, Bid(1, 2))
    state, _ = act(state, Bid(1, 0))
    assert state.deal.banker == 0 and state.deal.contract == 2


def test_the_highest_bidder_becomes_the_banker() -> None:
    state = engine.new_game("sandayi", seed=1, host=2)  # order 2, 1, 0, 3
    for seat, level in [(2, 1), (1, 0), (0, 2), (3, 0)]:
        state, events = act(state, Bid(seat, level))
    assert state.phase == "deploying"
    assert state.deal.banker == 0 and state.deal.contract == 2
    assert state.teams == (0, 1, 1, 1)
    assert next(e.data for e in events if e.kind == "banker") == {"seat": 0, "contract": 2}


def test_bidding_errors_are_typed() -> None:
    state = engine.new_game("sandayi", seed=1, host=0)
    with pytest.raises(engine.NotYourTurn):
        act(state, Bid(1, 1))
    for level in (4, -1, True):
        with pytest.raises(engine.MalformedInput):
            act(state, Bid(0, level))
    with pytest.raises(engine.IllegalAction):
        act(state, Move(0, "0:51", "0:41"))


def test_a_bid_of_three_ends_the_bidding_at_once() -> None:
    state = engine.new_game("sandayi", seed=1, host=0)
    state, _ = act(state, Bid(0, 0))
    state, _ = act(state, Bid(3, 3))
    assert state.phase == "deploying"
    assert state.deal.banker == 3 and state.deal.contract == 3
    assert state.deal.bids == (0, None, None, 3)
    with pytest.raises(engine.IllegalAction):
        act(state, Bid(2, 0))


def test_the_deadline_passes_for_the_current_bidder() -> None:
    state = engine.new_game("sandayi", seed=1, host=0, now=100.0)
    assert state.deadline == 120.0  # 20 s per bid
    with pytest.raises(engine.IllegalAction):
        act(state, Deadline(now=119.0))
    state, events = act(state, Deadline(now=120.0))
    assert events[0].data == {"seat": 0, "level": 0}
    assert state.deal.bids[0] == 0 and state.deal.waiting == frozenset({3})
    state, _ = act(state, Bid(3, 1, now=125.0))
    assert state.deadline == 145.0
    state, _ = act(state, Deadline(now=145.0))
    state, _ = act(state, Deadline(now=state.deadline))
    assert state.deal.banker == 3 and state.deal.contract == 1


# --- hands (docs/rules.md §9.3 steps 1, 2, 4) -----------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_the_banker_gets_its_twenty_plus_nineteen_of_the_bottom(seed: int) -> None:
    state = bid_to(seed, banker=2)
    dealt = deal_sandayi(str(seed), 0)
    assert len(dealt.bottom) == 23 and {r.value for r, _ in dealt.bottom} >= SPECIALS
    assert len(dealt.kept) == 19 and not Counter(dealt.kept) - Counter(dealt.bottom)
    hand = hand_of(state, 2)
    assert len(hand) == 39
    ranks = Counter(r for r, _ in hand)
    assert ranks == Counter(r for r, _ in dealt.hands[2]) + Counter(r for r, _ in dealt.kept)
    # every piece plays in its holder's colour, so colours tell no piece from another
    assert {army for _, army in hand} == {None}


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_each_idle_gets_its_twenty_plus_five_lieutenants(seed: int) -> None:
    state = bid_to(seed, banker=2)
    dealt = deal_sandayi(str(seed), 0)
    for seat in (0, 1, 3):
        hand = hand_of(state, seat)
        assert len(hand) == 25
        dealt_ranks = Counter(r for r, _ in dealt.hands[seat])
        assert Counter(r for r, _ in hand) - dealt_ranks == Counter({engine.Rank.LIEUTENANT: 5})
        assert {army for _, army in hand} == {None}


@pytest.mark.parametrize("seed", range(8))
def test_the_special_pieces_are_the_banker_s_only(seed: int) -> None:
    banker = seed % 4
    state = bid_to(seed, banker=banker)
    kept = deal_sandayi(str(seed), 0).kept
    for seat in range(4):
        specials = sorted(r.value for r, _ in hand_of(state, seat) if r in SPECIALS)
        if seat == banker:
            assert specials == sorted(r.value for r, _ in kept if r in SPECIALS)
        else:
            assert specials == []


def test_hands_are_private() -> None:
    state = engine.new_game("sandayi", seed=4, host=0)
    for seat in state.deal.order:
        state, events = act(state, Bid(seat, 1 if seat == 2 else 0))
    for event in (e for e in events if e.kind == "hand"):
        seat = event.data["seat"]
        assert [v for v in VIEWERS if event.for_viewer(v) is not None] == [seat]
    assert len(engine.view(state, 2)["deal"]["hand"]) == 39
    assert len(engine.view(state, 1)["deal"]["hand"]) == 25
    assert engine.view(state, None)["deal"]["hand"] is None


# --- deployment (docs/rules.md §9.3 step 5) -------------------------------------------------------


def test_the_banker_deploys_39_pieces_over_its_whole_arm_and_the_centre() -> None:
    state = bid_to(3, banker=1)
    layout = legal_layout(state, 1)
    board = engine.get_board("siguo")
    assert set(layout) == set(board.arm(1)) | set(CENTRE) and len(layout) == 39
    assert problems(state, 1, layout) == []
    state, _ = act(state, PlaceLayout(1, layout, now=5.0))
    assert state.confirmed == frozenset({1})
    for seat in (0, 2, 3):
        state, _ = act(state, PlaceLayout(seat, legal_layout(state, seat), now=6.0))
    position = state.board_position
    camps = [s for s in board.arm(1) if board.station(s).kind == "camp"]
    for sid in [*camps, *CENTRE, "1:62", "1:64"]:
        piece = position.piece_at(sid)
        assert piece is not None and piece.seat == 1, sid


def test_the_banker_must_fill_every_station_of_its_arm_and_the_centre() -> None:
    state = bid_to(3, banker=1)
    layout = legal_layout(state, 1)
    del layout["c:22"]
    codes = problems(state, 1, layout)
    assert "empty_station" in codes and "missing_pieces" in codes


@pytest.mark.parametrize("station", ["c:22", "1:11", "1:33", "1:61"])
def test_a_banker_flag_outside_its_hqs_is_refused(station: str) -> None:
    state = bid_to(3, banker=1)
    layout = put(legal_layout(state, 1), "flag", station)
    assert problems(state, 1, layout) == ["flag_not_in_hq"]
    with pytest.raises(engine.IllegalLayout) as error:
        act(state, PlaceLayout(1, layout))
    assert [p.code for p in error.value.problems] == ["flag_not_in_hq"]
    assert error.value.problems[0].stations == (station,)


@pytest.mark.parametrize(
    ("rank", "station"),
    [
        ("landmine", "1:11"),
        ("landmine", "c:22"),
        ("landmine", "1:22"),
        ("bomb", "1:13"),
        ("bomb", "c:31"),
        ("bomb", "1:33"),
    ],
)
def test_banker_landmines_and_bombs_may_stand_anywhere(rank: str, station: str) -> None:
    state = bid_to(3, banker=1)
    layout = put(legal_layout(state, 1), rank, station)
    assert problems(state, 1, layout) == []


def test_a_banker_with_several_flags_keeps_one_or_two() -> None:
    state = bid_to(35, banker=3)
    assert sum(r == "flag" for r, _ in hand_of(state, 3)) >= 3
    one = legal_layout(state, 3)
    assert list(one.values()).count("flag") == 1 and problems(state, 3, one) == []
    hq = "3:64" if one.get("3:62") == "flag" else "3:62"
    two = dict(one)
    general = next(s for s, r in two.items() if r == "general" and s != hq)
    two[hq], two[general] = "flag", two[hq]
    assert problems(state, 3, two) == []
    three = dict(two)
    three[general] = "flag"
    assert "flag_not_in_hq" in problems(state, 3, three)


@pytest.mark.parametrize("station", ["2:11", "2:13", "2:35"])
def test_an_idle_landmine_outside_the_back_rows_is_refused(station: str) -> None:
    state = bid_to(3, banker=1)
    layout = put(legal_layout(state, 2), "landmine", station)
    assert problems(state, 2, layout) == ["landmine_outside_back_rows"]


def test_an_idle_bomb_in_row_one_is_refused() -> None:
    state = bid_to(1, banker=1)
    assert any(r == "bomb" for r, _ in hand_of(state, 3))
    layout = put(legal_layout(state, 3), "bomb", "3:12")
    assert problems(state, 3, layout) == ["bomb_in_front_row"]


def test_an_idle_deploys_neither_in_camps_nor_in_the_centre() -> None:
    state = bid_to(3, banker=1)
    layout = legal_layout(state, 2)
    assert set(layout) == {s for s in engine.get_board("siguo").arm(2) if s[2:] not in CAMPS}
    in_camp = dict(layout)
    in_camp["2:22"] = in_camp.pop("2:11")
    assert set(problems(state, 2, in_camp)) == {"piece_in_camp", "empty_station"}
    in_centre = dict(layout)
    in_centre["c:22"] = in_centre.pop("2:11")
    assert set(problems(state, 2, in_centre)) == {"outside_own_arm", "empty_station"}


def test_an_idle_with_more_than_five_landmines_may_use_row_four() -> None:
    state = bid_to(34, banker=0)
    assert sum(r == "landmine" for r, _ in hand_of(state, 2)) == 7  # 2 may stand in row 4
    layout = legal_layout(state, 2)
    for station in ("2:41", "2:43"):
        if layout[station] != "landmine":
            layout = put_from_back(layout, station)
    assert problems(state, 2, layout) == []
    assert problems(state, 2, put_from_back(layout, "2:45")) == ["landmine_outside_back_rows"]


def put_from_back(layout: dict[str, str], station: str) -> dict[str, str]:
    """Move a landmine from rows 5-6 onto ``station``."""
    out = dict(layout)
    source = next(s for s, r in out.items() if r == "landmine" and s[2] in "56")
    out[source], out[station] = out[station], "landmine"
    return out


def test_an_idle_without_a_flag_puts_any_two_pieces_in_its_hqs() -> None:
    state = bid_to(5, banker=3)
    assert not any(r == "flag" for r, _ in hand_of(state, 0))
    layout = legal_layout(state, 0)
    layout = put(layout, "engineer", "0:62")
    layout = put(layout, "lieutenant", "0:64")
    assert problems(state, 0, layout) == []


def test_an_idle_with_two_flags_keeps_one_or_both() -> None:
    state = bid_to(5, banker=3)
    assert sum(r == "flag" for r, _ in hand_of(state, 1)) == 2
    one = legal_layout(state, 1)
    assert list(one.values()).count("flag") == 1 and problems(state, 1, one) == []
    hq = "1:64" if one["1:62"] == "flag" else "1:62"
    two = dict(one)
    general = next(s for s, r in two.items() if r == "general")
    occupant, two[hq] = two[hq], "flag"
    if occupant == "landmine":  # keep the landmine in the back rows
        spot = next(
            s for s, r in two.items() if s[2] in "56" and r not in ("landmine", "flag", "general")
        )
        two[spot], occupant = "landmine", two[spot]
    two[general] = occupant
    assert problems(state, 1, two) == []


def test_play_starts_with_the_banker_once_everyone_deployed() -> None:
    state = bid_to(3, banker=2, level=2)
    assert state.phase == "deploying" and state.deadline == 91.0
    for seat in (2, 0, 1, 3):
        state, events = act(state, PlaceLayout(seat, legal_layout(state, seat), now=30.0))
    assert state.phase == "playing"
    assert state.to_move == 2 and state.deadline == 50.0
    assert "game_started" in kinds(events)
    assert [len(layout) for layout in state.layouts] == [25, 25, 39, 25]


# --- turns, clocks, skips, blocked seats (docs/rules.md §6.1, §6.2, §9.3 step 6) ------------------


def test_the_banker_moves_first_then_counter_clockwise() -> None:
    state = game(QUIET, banker=2)
    order = []
    for _ in range(6):
        order.append(state.to_move)
        state = shuffle(state)
    assert order == [2, 1, 0, 3, 2, 1]


def test_each_move_has_twenty_seconds() -> None:
    state = game(QUIET, banker=1)
    assert state.rules.move_seconds == 20 and state.deadline == 20.0
    state = move(state, "1:51", "1:52", now=7.0)
    assert state.to_move == 0 and state.deadline == 27.0
    with pytest.raises(engine.IllegalAction, match="clock ran out"):
        act(state, Move(0, "0:51", "0:52", now=27.5))
    with pytest.raises(engine.IllegalAction):
        act(state, Timeout(now=26.9))
    state, events = act(state, Timeout(now=27.0))
    assert events[0].data == {"seat": 0, "reason": "timeout", "skips": 1}
    assert state.to_move == 3 and state.deadline == 47.0


def test_three_timeouts_eliminate_and_play_goes_on() -> None:
    state = game(QUIET, contract=2)
    timeouts = 0
    while state.seats[3].alive:
        if state.to_move == 3:
            assert timeouts < 3
            state, events = act(state, Timeout(now=state.deadline))
            timeouts += 1
        else:
            state = shuffle(state, now=state.deadline - 1)
    assert timeouts == 3 and state.phase == "playing"
    elimination = state.seats[3].elimination
    assert elimination is not None and elimination.reason == "skips"
    assert "eliminated" in kinds(events) and state.to_move == 2
    assert not any(p.seat == 3 for p in state.board_position.pieces().values())


def test_an_idle_without_a_legal_move_is_eliminated_not_skipped() -> None:
    pieces = {**QUIET, "3:64": (3, "lieutenant")}  # locked in its HQ
    del pieces["3:51"]
    state = game(pieces, contract=2)
    state, events = act(state, Move(0, "0:51", "0:52", now=1.0))
    assert "skipped" not in kinds(events)
    assert events[1].data == {"seat": 3, "reason": "blocked", "victor": None}
    assert state.phase == "playing" and state.to_move == 2


def test_the_banker_without_a_legal_move_loses() -> None:
    pieces = {**QUIET, "3:54": (0, "general")}
    del pieces["0:51"]
    state = game(pieces, contract=2)
    state = move(state, "3:54", "3:64")  # into an empty HQ: its only live piece is stuck
    state = shuffled(state, 3)
    elimination = state.seats[0].elimination
    assert elimination is not None and elimination.reason == "blocked"
    assert state.result is not None and state.result.winners == (1, 2, 3)
    assert points(state) == [-6, 2, 2, 2]


def test_no_capture_rule_is_off() -> None:
    state = shuffled(game(QUIET), 60)
    assert state.rules.no_capture_plies is None
    assert state.phase == "playing" and state.quiet_moves == 60


# --- information (docs/rules.md §8, §9.3 step 7) --------------------------------------------------


def test_idle_flags_are_shown_to_everyone_when_play_starts() -> None:
    pieces = {**QUIET, "2:64": (2, "flag")}  # seat 2 keeps two flags
    state, events = sandayi(pieces, banker=0)
    revealed = sorted(e.data["station"] for e in events if e.kind == "flag_revealed")
    assert revealed == ["1:62", "2:62", "2:64", "3:62"]
    for viewer in VIEWERS:
        seen = ranks_seen(state, viewer)
        assert all(seen.get(s) == "flag" for s in revealed), viewer


def test_the_banker_s_flag_is_shown_to_nobody_else() -> None:
    state, events = sandayi(QUIET, banker=0)
    assert not any(e.kind == "flag_revealed" and e.data["seat"] == 0 for e in events)
    assert ranks_seen(state, 0)["0:62"] == "flag"
    for viewer in (1, 2, 3, None):
        assert "0:62" not in ranks_seen(state, viewer)


@pytest.mark.parametrize("marshal", ["field_marshal", "supreme_marshal"])
def test_the_banker_s_flag_stays_hidden_when_its_commander_dies(marshal: str) -> None:
    pieces = {**QUIET, "1:41": (0, marshal), "0:64": (0, "field_marshal"), "1:31": (1, "bomb")}
    if marshal == "field_marshal":
        del pieces["0:64"]
    state = game(pieces)
    state, events = act(state, Move(0, "1:41", "1:31"))
    assert "commander_died" in kinds(events) and "flag_revealed" not in kinds(events)
    state = shuffled(state, 3)
    for viewer in (1, 2, 3, None):
        assert "0:62" not in ranks_seen(state, viewer)


@pytest.mark.parametrize(
    ("attacker", "defender", "deaths"),
    [
        ("supreme_marshal", "field_marshal", [(1, "field_marshal")]),
        ("supreme_marshal", "bomb", [(0, "supreme_marshal")]),
        ("field_marshal", "field_marshal", [(0, "field_marshal"), (1, "field_marshal")]),
        ("field_marshal", "landmine", [(0, "field_marshal")]),
        ("missile", "field_marshal", [(1, "field_marshal")]),
        ("general", "general", []),
        ("bomb", "major_general", []),
    ],
)
def test_commander_deaths_are_announced_to_everyone_with_the_rank(
    attacker: str, defender: str, deaths: list[tuple[int, str]]
) -> None:
    state = game({**QUIET, "1:41": (0, attacker), "1:31": (1, defender)})
    _, events = act(state, Move(0, "1:41", "1:31"))
    announced = [e for e in events if e.kind == "commander_died"]
    assert [(e.data["seat"], e.data["rank"]) for e in announced] == deaths
    for event in announced:
        for viewer in VIEWERS:
            assert event.for_viewer(viewer) == {"kind": "commander_died", **event.data}


def test_an_idle_commander_killed_by_the_banker_is_announced_on_the_idle_s_attack() -> None:
    pieces = {**QUIET, "0:41": (3, "field_marshal"), "0:31": (0, "supreme_marshal")}
    state = shuffle(game(pieces))
    _, events = act(state, Move(3, "0:41", "0:31", now=2.0))
    announced = [e.data for e in events if e.kind == "commander_died"]
    assert announced == [{"seat": 3, "rank": "field_marshal"}]
    moved = events[0]
    for viewer in (1, 2, None):
        seen = moved.for_viewer(viewer)
        assert seen is not None and "rank" not in seen and "defender_rank" not in seen
    seen_by_3 = moved.for_viewer(3)
    assert seen_by_3 is not None and "defender_rank" not in seen_by_3


Step = tuple[engine.Action | None, list[engine.Event], GameState]


def random_game(seed: int, banker: int, level: int, max_moves: int) -> list[Step]:
    """A whole 三打一 game from the deal: bids, automatic layouts, then random legal moves.
    Returns (action, events, state after) for every step."""
    steps: list[Step] = []
    state = engine.new_game("sandayi", seed=seed, host=seed % 4, now=0.0)
    steps.append((None, [], state))
    rng = random.Random(seed)
    now = 0.0
    while state.phase == "bidding":
        seat = min(state.deal.waiting)
        action: engine.Action = Bid(seat, level if seat == banker else 0, now=now)
        state, events = act(state, action)
        steps.append((action, events, state))
    action = Deadline(now=state.deadline)
    state, events = act(state, action)
    steps.append((action, events, state))
    assert state.started_at is not None
    now = state.started_at
    table = move_tables(state.variant.board)
    while state.phase == "playing" and state.total_moves < max_moves:
        mover = state.to_move
        assert mover is not None
        options = [
            (origin, target)
            for origin, mask in moves_of(state, mover).items()
            for target in mask_ids(table, mask)
        ]
        origin, target = rng.choice(options)
        now += 1.0
        action = Move(mover, state.variant.board.stations[origin], target, now=now)
        state, events = act(state, action)
        steps.append((action, events, state))
    return steps


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_no_view_or_event_shows_others_a_banker_rank(seed: int) -> None:
    banker = seed % 4
    steps = random_game(seed, banker, level=1 + seed % 3, max_moves=250)
    assert steps[-1][2].total_moves > 50
    others: list[int | None] = [v for v in VIEWERS if v != banker]
    banker_combats = 0
    for _, events, state in steps:
        for event in events:
            if event.kind == "moved" and event.data["outcome"] is not None:
                banker_combats += banker in (event.data["seat"], event.data["defender"])
            for viewer in others:
                seen = event.for_viewer(viewer)
                if seen is None or event.kind in ("game_over", "commander_died"):
                    continue
                if event.kind == "hand":
                    assert seen["seat"] == viewer
                    continue
                if event.kind == "flag_raised":  # an idle's raised flag is public
                    assert seen["seat"] != banker
                    continue
                if event.kind == "moved":  # a seat sees the ranks of its own pieces
                    if seen["seat"] == viewer:
                        seen.pop("rank")
                    if viewer is not None and seen["defender"] == viewer:
                        seen.pop("defender_rank")
                assert ranks_in(seen) == [], (event.kind, viewer, seen)
        if state.phase == "finished":
            continue
        for viewer in others:
            seen_view = engine.view(state, viewer)
            # the 记牌 counts name the ranks a hand may hold, from the rules and the viewer's own
            # hand alone (tests/engine/test_tracker.py)
            rest = {
                k: v
                for k, v in seen_view.items()
                if k not in ("deal", "layout", "pieces", "tracker")
            }
            assert ranks_in(rest) == [], viewer
            for entry in seen_view.get("pieces", []):
                assert entry["seat"] != banker or "rank" not in entry, (viewer, entry)
    assert banker_combats > 10  # the banker's pieces fought often enough to matter


def test_the_four_bottom_pieces_left_out_never_appear() -> None:
    dealt = deal_sandayi("2", 0)
    left_out = Counter(dealt.bottom) - Counter(dealt.kept)
    assert sum(left_out.values()) == 4
    missing = {"supreme_marshal", "fortress"}
    assert {r.value for r, _ in left_out} >= missing  # this seed leaves both out
    steps = random_game(2, banker=1, level=1, max_moves=200)
    for _, events, state in steps:
        for event in events:
            for viewer in VIEWERS:
                seen = event.for_viewer(viewer)
                assert seen is None or not missing & set(ranks_in(seen)), (event.kind, viewer)
        for viewer in VIEWERS:  # the 记牌 counts apart: every rank a hand may hold, always
            seen_view = {k: v for k, v in engine.view(state, viewer).items() if k != "tracker"}
            assert not missing & set(ranks_in(seen_view)), viewer
    started = next(s for _, _, s in steps if s.position is not None)

    def key(rank: str, colour: int) -> tuple[str, int]:
        return ("flag|general" if rank in ("flag", "general") else rank, colour)

    on_board = Counter(
        (p.seat, *key(p.rank.value, p.colour)) for p in started.board_position.pieces().values()
    )
    hands = Counter(
        (seat, *key(r.value, seat if a is None else a))
        for seat in range(4)
        for r, a in hand_of(started, seat)
    )
    assert on_board == hands


# --- special pieces (docs/rules.md §4 steps 3, 5; §3.3; §9.3 step 6) ------------------------------


def test_a_missile_flies_like_an_engineer() -> None:
    with_missile = {**QUIET, "0:51": (0, "missile")}
    flight = engine.destinations("sandayi", with_missile, "0:51", teams=(0, 1, 1, 1))
    as_engineer = {**with_missile, "0:51": (0, "engineer")}
    assert flight == engine.destinations("sandayi", as_engineer, "0:51", teams=(0, 1, 1, 1))
    with pytest.raises(engine.IllegalAction):
        act(game(QUIET), Move(0, "0:51", "2:51"))  # a major cannot turn in the centre
    state, events = act(game(with_missile), Move(0, "0:51", "2:51"))
    assert events[0].data["outcome"] == "attacker"  # and the missile beats the major there
    piece = state.board_position.piece_at("2:51")
    assert piece is not None and piece.rank == "missile"


@pytest.mark.parametrize(
    ("defender", "outcome"),
    [
        ("field_marshal", "both"),
        ("general", "both"),
        ("major_general", "both"),
        ("brigadier", "both"),
        ("colonel", "both"),
        ("major", "attacker"),
        ("captain", "attacker"),
        ("lieutenant", "attacker"),
        ("engineer", "attacker"),
        ("landmine", "both"),
    ],
)
def test_a_missile_attacking(defender: str, outcome: str) -> None:
    state = game({**QUIET, "1:41": (0, "missile"), "1:31": (1, defender)})
    state, events = act(state, Move(0, "1:41", "1:31"))
    assert events[0].data["outcome"] == outcome
    piece = state.board_position.piece_at("1:31")
    survivor = {"attacker": "missile", "both": None}[outcome]
    assert (piece.rank if piece else None) == survivor


@pytest.mark.parametrize(
    ("attacker", "outcome"),
    [
        ("field_marshal", "both"),
        ("colonel", "both"),
        ("major", "defender"),
        ("engineer", "defender"),
        ("bomb", "both"),
    ],
)
def test_a_missile_attacked(attacker: str, outcome: str) -> None:
    state = shuffle(game({**QUIET, "3:31": (0, "missile"), "3:41": (3, attacker)}))
    state, events = act(state, Move(3, "3:41", "3:31", now=2.0))
    assert events[0].data["outcome"] == outcome


@pytest.mark.parametrize(
    ("attacker", "outcome"),
    [
        ("field_marshal", "defender"),
        ("general", "defender"),
        ("major", "defender"),
        ("engineer", "defender"),
        ("bomb", "both"),
    ],
)
def test_a_fortress_survives_every_attacker_but_a_bomb(attacker: str, outcome: str) -> None:
    state = shuffle(game({**QUIET, "c:22": (0, "fortress"), "c:21": (3, attacker)}))
    state, events = act(state, Move(3, "c:21", "c:22", now=2.0))
    assert events[0].data["outcome"] == outcome
    fortress = state.board_position.piece_at("c:22")
    if outcome == "defender":
        assert fortress is not None and (fortress.seat, fortress.rank) == (0, "fortress")
        assert state.board_position.piece_at("c:21") is None
    else:
        assert fortress is None


def test_a_fortress_never_moves() -> None:
    state = game({**QUIET, "c:22": (0, "fortress")})
    assert "c:22" not in engine.view(state, 0)["legal_moves"]
    with pytest.raises(engine.IllegalAction):
        act(state, Move(0, "c:22", "c:21"))


def test_a_banker_left_with_fortress_flag_and_mines_is_out() -> None:
    pieces = {
        **QUIET,
        "c:22": (0, "fortress"),
        "0:64": (0, "landmine"),
        "0:41": (3, "landmine"),
    }
    state = game(pieces, contract=3)
    state, events = act(state, Move(0, "0:51", "0:41"))  # its last live piece dies on a mine
    assert events[0].data["outcome"] == "defender"
    elimination = state.seats[0].elimination
    assert elimination is not None and elimination.reason == "no_live_pieces"
    assert elimination.victor == 3
    assert points(state) == [-9, 3, 3, 3]


# --- the contract and the banker's defeat (docs/rules.md §9.3 step 8) -----------------------------


def test_a_banker_who_bid_two_wins_at_the_second_elimination_not_the_first() -> None:
    pieces = {**QUIET, "1:61": (0, "general"), "2:61": (0, "general")}
    state = game(pieces, contract=2)
    state, events = act(state, Move(0, "1:61", "1:62", now=1.0))
    assert events[1].data == {"seat": 1, "reason": "flag_captured", "victor": 0}
    assert state.phase == "playing" and state.to_move == 3
    state = shuffled(state, 2)  # seats 3 and 2; seat 1 is out and skipped
    state, events = act(state, Move(0, "2:61", "2:62", now=2.0))
    assert state.phase == "finished" and "game_over" in kinds(events)
    result = state.result
    assert result is not None and result.reason == "elimination" and result.winners == (0,)
    assert [r.outcome for r in result.seats] == ["win", "loss", "loss", "loss"]
    assert points(state) == [6, -2, -2, -2]
    assert state.seats[3].alive


@pytest.mark.parametrize("contract", [1, 2, 3])
def test_the_banker_wins_exactly_at_its_contract(contract: int) -> None:
    pieces = {**QUIET, **{f"{s}:61": (0, "general") for s in (1, 2, 3)}}
    state = game(pieces, contract=contract)
    for n, idle in enumerate((1, 2, 3), start=1):
        while state.to_move != 0:
            state = shuffle(state)
        state = move(state, f"{idle}:61", f"{idle}:62")
        assert (state.phase == "finished") == (n == contract)
        if state.phase == "finished":
            break
    assert points(state) == [3 * contract, -contract, -contract, -contract]


def test_the_banker_loses_when_its_flag_is_captured() -> None:
    state = shuffle(game({**QUIET, "0:61": (3, "general")}, contract=3))
    state, events = act(state, Move(3, "0:61", "0:62", now=2.0))
    assert {"seat": 0, "reason": "flag_captured", "victor": 3} in [e.data for e in events]
    result = state.result
    assert result is not None and result.winners == (1, 2, 3)
    assert [r.outcome for r in result.seats] == ["loss", "win", "win", "win"]
    assert points(state) == [-9, 3, 3, 3]


@pytest.mark.parametrize("hqs", [("lieutenant", "lieutenant"), ("flag", "flag")])
def test_a_banker_with_no_flag_or_two_falls_when_both_hqs_are_taken(
    hqs: tuple[str, str],
) -> None:
    pieces = {
        **QUIET,
        "0:62": (0, hqs[0]),
        "0:64": (0, hqs[1]),
        "0:61": (3, "general"),
        "0:65": (2, "general"),
    }
    state = shuffle(game(pieces, contract=2))
    state, _ = act(state, Move(3, "0:61", "0:62", now=2.0))
    assert state.phase == "playing" and state.seats[0].alive
    state, events = act(state, Move(2, "0:65", "0:64", now=3.0))
    assert {"seat": 0, "reason": "flag_captured", "victor": 2} in [e.data for e in events]
    assert points(state) == [-6, 2, 2, 2]


def test_a_banker_with_one_flag_survives_losing_its_other_hq() -> None:
    pieces = {**QUIET, "0:64": (0, "lieutenant"), "0:65": (3, "general")}
    state = shuffle(game(pieces))
    state, _ = act(state, Move(3, "0:65", "0:64", now=2.0))
    assert state.phase == "playing" and state.seats[0].alive


def hq_raid(hqs: tuple[str, str], marshal: bool) -> list[bool]:
    """Idle seat 1 holds ``hqs`` in 1:62 / 1:64; the banker takes 1:64, then 1:62. Returns
    whether seat 1 is still in after each capture."""
    pieces = {
        **QUIET,
        "1:62": (1, hqs[0]),
        "1:64": (1, hqs[1]),
        "1:65": (0, "general"),
        "1:61": (0, "general"),
    }
    if marshal:
        pieces["1:35"] = (1, "field_marshal")
    state = game(pieces, contract=3)
    alive = []
    for origin, hq in (("1:65", "1:64"), ("1:61", "1:62")):
        while state.to_move != 0:
            state = shuffle(state)
        state = move(state, origin, hq)
        alive.append(state.seats[1].alive)
    return alive


@pytest.mark.parametrize(
    ("hqs", "marshal", "alive"),
    [
        (("flag", "flag"), False, [True, False]),  # two flags: both HQs
        (("lieutenant", "engineer"), False, [True, False]),  # no flag, no 司令: both HQs
        (("lieutenant", "engineer"), True, [False]),  # no flag, a 司令 alive: either HQ
        (("flag", "engineer"), True, [True, False]),  # one flag: only the flag
    ],
    ids=["two_flags", "no_flag_no_marshal", "no_flag_with_marshal", "one_flag"],
)
def test_idle_defeat_follows_the_flags_it_holds(
    hqs: tuple[str, str], marshal: bool, alive: list[bool]
) -> None:
    got = hq_raid(hqs, marshal)
    assert got[: len(alive)] == alive


def test_an_idle_without_a_flag_raises_one_when_its_last_marshal_dies() -> None:
    pieces = {
        **QUIET,
        "1:62": (1, "lieutenant"),
        "1:64": (1, "engineer"),
        "1:31": (1, "field_marshal"),
        "1:41": (0, "supreme_marshal"),
        "1:65": (0, "general"),
        "1:61": (0, "general"),
    }
    state, events = act(game(pieces, contract=3), Move(0, "1:41", "1:31"))
    assert "raise_flag_due" in kinds(events)
    state, events = act(state, engine.RaiseFlag(1, "1:64", now=2.0))
    for viewer in VIEWERS:
        assert events[0].for_viewer(viewer) == {
            "kind": "flag_raised",
            "seat": 1,
            "station": "1:64",
            "rank": "engineer",
        }
    while state.to_move != 0:
        state = shuffle(state)
    state = move(state, "1:61", "1:62")
    assert state.seats[1].alive  # not the raised flag
    while state.to_move != 0:
        state = shuffle(state)
    state = move(state, "1:65", "1:64")
    elimination = state.seats[1].elimination
    assert elimination is not None and elimination.reason == "flag_captured"


def test_the_banker_loses_after_three_timeouts() -> None:
    state = game(QUIET, contract=2)
    while state.phase == "playing":
        if state.to_move == 0:
            state, _ = act(state, Timeout(now=state.deadline))
        else:
            state = shuffle(state, now=state.deadline - 1)
    elimination = state.seats[0].elimination
    assert elimination is not None and elimination.reason == "skips"
    assert state.seats[0].timeouts == 3
    assert points(state) == [-6, 2, 2, 2]


# --- surrender and draws (docs/rules.md §6.3, §6.4, §9.3 step 8) ----------------------------------


def test_no_surrender_or_draw_proposal_before_fifty_moves() -> None:
    state = shuffled(game(QUIET), 49)
    for action in (Surrender(0, now=1.0), Surrender(2, now=1.0), ProposeDraw(1, now=1.0)):
        with pytest.raises(engine.IllegalAction, match="50"):
            act(state, action)
    assert all(s.proposals == 0 for s in state.seats)
    state = shuffle(state)
    for action in (Surrender(0, now=1.0), Surrender(2, now=1.0), ProposeDraw(1, now=1.0)):
        act(state, action)  # allowed from the 50th move on


def test_the_banker_s_surrender_is_immediate_and_loses() -> None:
    state = shuffled(game(QUIET, contract=2), 50)
    state, events = act(state, Surrender(0, now=2.0))
    assert kinds(events)[:2] == ["surrendered", "eliminated"]
    result = state.result
    assert result is not None and result.winners == (1, 2, 3)
    assert points(state) == [-6, 2, 2, 2]


def test_an_idle_surrender_needs_both_other_idles() -> None:
    state = shuffled(game(QUIET, contract=1), 50)
    state, events = act(state, Surrender(2, now=2.0))
    assert events[0].data == {"proposal": "surrender", "seat": 2, "waiting": [1, 3]}
    assert state.phase == "playing" and all(s.alive for s in state.seats)
    with pytest.raises(engine.IllegalAction):
        act(state, AnswerProposal(0, True, now=2.0))  # the banker has no say
    state, _ = act(state, AnswerProposal(3, True, now=2.0))
    assert state.phase == "playing" and state.seats[2].alive
    state, _ = act(state, AnswerProposal(1, True, now=3.0))
    result = state.result
    assert result is not None and result.winners == (0,)
    assert points(state) == [3, -1, -1, -1]


def test_a_declined_idle_surrender_is_cancelled() -> None:
    state = shuffled(game(QUIET), 50)
    state, _ = act(state, Surrender(2, now=2.0))
    state, _ = act(state, AnswerProposal(1, True, now=2.0))
    state, events = act(state, AnswerProposal(3, False, now=2.0))
    assert kinds(events) == ["proposal_declined"]
    assert state.proposal is None and state.phase == "playing"
    assert all(s.alive for s in state.seats)
    with pytest.raises(engine.IllegalAction):
        act(state, AnswerProposal(1, True, now=2.0))


def test_an_idle_surrender_asks_only_the_idles_still_in() -> None:
    pieces = {**QUIET, "1:52": (0, "general")}
    state = game(pieces, contract=2)
    state = move(state, "1:52", "1:62")
    state = shuffled(state, 50)
    state, events = act(state, Surrender(3, now=2.0))
    assert events[0].data["waiting"] == [2]
    state, _ = act(state, AnswerProposal(2, True, now=2.0))
    assert state.result is not None and state.result.winners == (0,)
    assert points(state) == [6, -2, -2, -2]


def test_five_requests_of_draw_and_surrender_together() -> None:
    state = shuffled(game(QUIET), 50)
    for n in range(5):
        if n % 2:
            state, _ = act(state, Surrender(1, now=2.0))
        else:
            state, _ = act(state, ProposeDraw(1, now=2.0))
        state, _ = act(state, AnswerProposal(2, False, now=2.0))
    assert engine.view(state, 1)["seats"][1]["proposals_left"] == 0
    for action in (ProposeDraw(1, now=3.0), Surrender(1, now=3.0)):
        with pytest.raises(engine.IllegalAction, match="all 5"):
            act(state, action)
    act(state, ProposeDraw(2, now=3.0))  # the limit is per player


def test_a_draw_by_agreement_needs_every_player_still_in() -> None:
    pieces = {**QUIET, "1:52": (0, "general")}
    state = move(game(pieces, contract=2), "1:52", "1:62")  # seat 1 is out
    state = shuffled(state, 50)
    state, events = act(state, ProposeDraw(2, now=2.0))
    assert events[0].data["waiting"] == [0, 3]  # the eliminated idle has no say
    with pytest.raises(engine.IllegalAction):
        act(state, AnswerProposal(1, True, now=2.0))
    state, _ = act(state, AnswerProposal(0, True, now=2.0))
    assert state.phase == "playing"
    state, _ = act(state, AnswerProposal(3, True, now=2.0))
    result = state.result
    assert result is not None and result.reason == "agreement"
    assert points(state) == [0, 0, 0, 0]  # N = 2 with one idle out


def test_the_move_limit_draws_and_the_option_is_honoured() -> None:
    assert engine.new_game("sandayi", seed=1).rules.max_total_moves == 500
    state = game(QUIET, contract=3, max_total_moves=6)
    assert state.rules.max_total_moves == 6
    state = shuffled(state, 5)
    assert state.phase == "playing"
    state = shuffle(state)
    result = state.result
    assert result is not None and result.reason == "move_limit" and state.total_moves == 6
    assert [r.outcome for r in result.seats] == ["draw"] * 4
    assert points(state) == [-6, 2, 2, 2]  # N = 3, nobody out


def test_a_draw_with_one_idle_out_of_a_contract_of_two_moves_no_points() -> None:
    pieces = {**QUIET, "1:52": (0, "general")}
    state = move(game(pieces, contract=2, max_total_moves=8), "1:52", "1:62")
    state = shuffled(state, 7)
    assert state.result is not None and state.result.reason == "move_limit"
    assert points(state) == [0, 0, 0, 0]


def test_the_full_500_move_draw() -> None:
    state = shuffled(game(QUIET, contract=1), 499)
    assert state.phase == "playing"
    state = shuffle(state)
    assert state.result is not None and state.result.reason == "move_limit"
    assert points(state) == [0, 0, 0, 0]


# --- scoring (docs/rules.md §9.3 step 9) ----------------------------------------------------------

RULES = engine.get_variant("sandayi").rules


def scored(
    banker: int,
    contract: int,
    out: dict[int, EliminationReason],
    reason: EndReason,
    winners: tuple[int, ...],
) -> list[int]:
    eliminations = [
        None if seat not in out else Elimination(out[seat], None, 1 + sorted(out).index(seat), 10)
        for seat in range(4)
    ]
    teams = [0 if s == banker else 1 for s in range(4)]
    points = sandayi_points(eliminations, reason, winners, banker, contract)
    result = score(RULES, teams, eliminations, [5] * 4, reason, winners, points=points)
    return [r.points for r in result.seats]


FLAG = EliminationReason.FLAG_CAPTURED
IDLES_OF_2 = (0, 1, 3)  # the banker sits at seat 2 in the table below


@pytest.mark.parametrize(
    ("contract", "reason", "out", "banker_points", "idle_points"),
    [
        # the banker wins: +3N, each idle -N
        (1, EndReason.ELIMINATION, {0: FLAG}, 3, -1),
        (2, EndReason.ELIMINATION, {0: FLAG, 3: FLAG}, 6, -2),
        (3, EndReason.ELIMINATION, {0: FLAG, 1: FLAG, 3: FLAG}, 9, -3),
        # the banker loses: -3N, each idle +N
        (1, EndReason.ELIMINATION, {2: FLAG}, -3, 1),
        (2, EndReason.ELIMINATION, {2: FLAG, 1: FLAG}, -6, 2),
        (3, EndReason.ELIMINATION, {2: FLAG, 1: FLAG, 3: FLAG}, -9, 3),
        # draws
        (1, EndReason.MOVE_LIMIT, {}, 0, 0),
        (2, EndReason.MOVE_LIMIT, {}, -3, 1),
        (2, EndReason.MOVE_LIMIT, {1: FLAG}, 0, 0),
        (3, EndReason.MOVE_LIMIT, {}, -6, 2),
        (3, EndReason.MOVE_LIMIT, {0: FLAG}, -3, 1),
        (3, EndReason.MOVE_LIMIT, {0: FLAG, 3: EliminationReason.SKIPS}, 0, 0),
        (3, EndReason.AGREEMENT, {}, -6, 2),
        (2, EndReason.AGREEMENT, {3: EliminationReason.BLOCKED}, 0, 0),
    ],
    ids=[
        "win-N1",
        "win-N2",
        "win-N3",
        "loss-N1",
        "loss-N2",
        "loss-N3",
        "draw-N1",
        "draw-N2-none_out",
        "draw-N2-one_out",
        "draw-N3-none_out",
        "draw-N3-one_out",
        "draw-N3-two_out",
        "agreed-N3-none_out",
        "agreed-N2-one_out",
    ],
)
def test_the_scoring_table(
    contract: int,
    reason: EndReason,
    out: dict[int, EliminationReason],
    banker_points: int,
    idle_points: int,
) -> None:
    if reason.is_draw:
        winners: tuple[int, ...] = ()
    else:
        winners = IDLES_OF_2 if 2 in out else (2,)
    got = scored(2, contract, out, reason, winners)
    assert got[2] == banker_points
    assert [got[s] for s in IDLES_OF_2] == [idle_points] * 3


@pytest.mark.parametrize(
    ("contract", "out", "reason", "winners", "expected"),
    [
        # an idle escaper out of a contract of 2 the banker then met: -2 more
        (2, {1: "escape", 3: "flag"}, EndReason.ELIMINATION, (0,), [6, -4, -2, -2]),
        # the banker escapes
        (1, {0: "escape"}, EndReason.ESCAPE, (1, 2, 3), [-5, 1, 1, 1]),
        (3, {0: "escape"}, EndReason.ESCAPE, (1, 2, 3), [-11, 3, 3, 3]),
        # an escape meets a contract of 1 at once
        (1, {2: "escape"}, EndReason.ESCAPE, (0,), [3, -1, -3, -1]),
        # escapes before a draw count as idles out, and cost 2 more
        (3, {2: "escape"}, EndReason.MOVE_LIMIT, (), [-3, 1, -1, 1]),
        (2, {2: "escape"}, EndReason.MOVE_LIMIT, (), [0, 0, -2, 0]),
    ],
)
def test_an_escape_costs_two_more_on_top(
    contract: int,
    out: dict[int, str],
    reason: EndReason,
    winners: tuple[int, ...],
    expected: list[int],
) -> None:
    reasons = {
        s: EliminationReason.ESCAPE if r == "escape" else EliminationReason.FLAG_CAPTURED
        for s, r in out.items()
    }
    assert scored(0, contract, reasons, reason, winners) == expected


def test_an_idle_escape_eliminates_it_and_play_goes_on() -> None:
    pieces = {**QUIET, "1:52": (0, "general")}
    state = game(pieces, contract=2)
    state, events = act(state, Escape(2, now=0.5))
    assert kinds(events)[:2] == ["escaped", "eliminated"]
    elimination = state.seats[2].elimination
    assert elimination is not None and elimination.reason == "escape"
    assert state.phase == "playing" and state.to_move == 0
    state = move(state, "1:52", "1:62")  # the second idle out: the contract is met
    result = state.result
    assert result is not None and result.winners == (0,)
    assert [r.outcome for r in result.seats] == ["win", "loss", "escape", "loss"]
    assert points(state) == [6, -2, -4, -2]


def test_an_escaper_gone_for_good_does_not_block_a_draw() -> None:
    state, _ = act(game(QUIET, contract=2), Escape(2, now=0.5))
    state = shuffled(state, 50)
    state, events = act(state, ProposeDraw(0, now=2.0))
    assert events[0].data["waiting"] == [1, 3]
    for seat in (1, 3):
        state, _ = act(state, AnswerProposal(seat, True, now=2.0))
    result = state.result
    assert result is not None and result.reason == "agreement"
    assert points(state)[2] < 0  # the escape stays scored


def test_an_idle_escape_can_meet_the_contract() -> None:
    state, _ = act(game(QUIET, contract=1), Escape(3, now=0.5))
    result = state.result
    assert result is not None and result.winners == (0,)
    assert points(state) == [3, -1, -1, -3]


def test_the_banker_s_escape_loses_three_n_and_two_more() -> None:
    state, _ = act(game(QUIET, contract=2), Escape(0, now=0.5))
    result = state.result
    assert result is not None and result.winners == (1, 2, 3)
    assert [r.outcome for r in result.seats] == ["escape", "win", "win", "win"]
    assert points(state) == [-8, 2, 2, 2]


def test_an_escape_before_a_move_limit_draw() -> None:
    state = game(QUIET, contract=3, max_total_moves=6)
    state, _ = act(state, Escape(2, now=0.5))
    state = shuffled(state, 6)
    assert state.result is not None and state.result.reason == "move_limit"
    assert points(state) == [-3, 1, -1, 1]


def test_an_idle_escape_while_deploying_does_not_make_the_banker_lose() -> None:
    state = bid_to(3, banker=1, level=1)
    assert state.phase == "deploying"
    state, _ = act(state, Escape(0, now=5.0))
    result = state.result
    assert result is not None
    got = points(state)
    assert got[1] >= 0  # the banker was not eliminated, so it cannot have lost
    assert got[0] <= -2  # the escaper loses 2 on top of a result that is not a win
    assert all(got[s] <= 0 for s in (2, 3))  # the idle side did not win
