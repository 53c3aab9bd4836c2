"""乱战四国 (docs/rules.md §9.2, with §4, §5, §7, §8 and §11): the colour pick, hidden hands,
redeals, the deployment relaxations for dealt hands, the combat options, the flag regimes and
escapes."""

from __future__ import annotations

import contextlib
from collections import Counter
from functools import cache
from typing import Any

import pytest

import engine
from engine import (
    AnswerRedeal,
    Deadline,
    Escape,
    Event,
    GameState,
    Move,
    PickColour,
    PlaceLayout,
    RaiseFlag,
    Rank,
    Timeout,
)
from engine.deal import DealtPiece, deal_luanzhan
from tests.engine.game_helpers import act, kinds, move, ranks_seen

RANK_KEYS = {r.value for r in Rank}
STRONG = {Rank.FIELD_MARSHAL, Rank.GENERAL, Rank.MAJOR_GENERAL}  # 司令, 军长, 师长


def start(pieces: dict[str, tuple[Any, ...]], host: int = 0, **options: Any) -> GameState:
    state, _ = engine.start_from("luanzhan", pieces, seed="lz", host=host, options=options)
    return state


def start_events(pieces: dict[str, tuple[Any, ...]], **options: Any) -> list[Event]:
    return engine.start_from("luanzhan", pieces, seed="lz", options=options)[1]


def pass_turn(state: GameState, now: float = 1.0) -> GameState:
    """The seat to move shuffles its piece between row 5 and row 4 of column 1."""
    seat = state.to_move
    a, b = f"{seat}:51", f"{seat}:41"
    here, there = (a, b) if state.board_position.piece_at(a) else (b, a)
    return move(state, here, there, now)


def pass_others(state: GameState) -> GameState:
    """Seats 1, 2 and 3 (those still in) pass, so that seat 0 is to move again."""
    while state.to_move != 0:
        state = pass_turn(state)
    return state


# --- the colour pick (§9.2 step 1) ---------------------------------------------------------------


def pick_all(state: GameState, colours: dict[int, int], now: float = 1.0) -> GameState:
    """Every picker in order takes the colour ``colours`` gives it."""
    for seat in state.deal.order:
        state, _ = act(state, PickColour(seat, colours[seat], now=now))
    return state


@pytest.mark.parametrize("host", range(4))
def test_pick_order_is_reverse_turn_order_without_the_host(host: int) -> None:
    state = engine.new_game("luanzhan", seed="p", host=host, now=0.0)
    expected = [(host + 3) % 4, (host + 2) % 4, (host + 1) % 4]
    assert state.phase == "picking"
    assert list(state.deal.order) == expected
    assert state.deal.waiting == {expected[0]}
    deal = engine.view(state, None)["deal"]
    assert deal["order"] == expected and deal["waiting"] == [expected[0]]


def test_the_host_gets_the_last_colour() -> None:
    state = engine.new_game("luanzhan", seed="p", host=1, now=0.0)
    state = pick_all(state, {0: 3, 3: 1, 2: 0})
    assert state.deal.picks == (3, 2, 0, 1)
    assert engine.view(state, 3)["deal"]["picks"] == [3, 2, 0, 1]
    assert state.phase == "redealing"


def test_the_pick_events_are_public() -> None:
    state = engine.new_game("luanzhan", seed="p", host=0, now=0.0)
    state, _ = act(state, PickColour(3, 2, now=1.0))
    state, _ = act(state, PickColour(2, 0, now=1.0))
    state, events = act(state, PickColour(1, 3, now=1.0))
    picked = [e.for_viewer(None) for e in events if e.kind == "colour_picked"]
    assert picked == [
        {"kind": "colour_picked", "seat": 1, "colour": 3},
        {"kind": "colour_picked", "seat": 0, "colour": 1},
    ]


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_picking_out_of_turn_is_not_your_turn(seat: int) -> None:
    state = engine.new_game("luanzhan", seed="p", host=0, now=0.0)
    with pytest.raises(engine.NotYourTurn):
        act(state, PickColour(seat, 0, now=1.0))


def test_the_host_never_picks() -> None:
    state = engine.new_game("luanzhan", seed="p", host=0, now=0.0)
    state, _ = act(state, PickColour(3, 0, now=1.0))
    state, _ = act(state, PickColour(2, 1, now=1.0))
    with pytest.raises(engine.NotYourTurn):
        act(state, PickColour(0, 2, now=1.0))


def test_a_taken_colour_is_refused() -> None:
    state = engine.new_game("luanzhan", seed="p", host=0, now=0.0)
    state, _ = act(state, PickColour(3, 2, now=1.0))
    with pytest.raises(engine.IllegalAction, match="taken"):
        act(state, PickColour(2, 2, now=1.0))
    state, _ = act(state, PickColour(2, 3, now=1.0))
    assert state.deal.picks[2] == 3


def test_a_colour_outside_0_to_3_is_malformed() -> None:
    state = engine.new_game("luanzhan", seed="p", host=0, now=0.0)
    with pytest.raises(engine.MalformedInput):
        act(state, PickColour(3, 4, now=1.0))


def test_the_pick_deadline_picks_a_free_colour_for_the_picker() -> None:
    state = engine.new_game("luanzhan", seed="p", host=0, now=0.0)
    state, _ = act(state, PickColour(3, 2, now=5.0))
    assert state.deadline == 35.0
    with pytest.raises(engine.IllegalAction):
        act(state, Deadline(now=34.0))
    after, events = act(state, Deadline(now=35.0))
    colour = after.deal.picks[2]
    assert colour in (0, 1, 3)
    assert after.deal.waiting == {1}
    assert events[0].data == {"seat": 2, "colour": colour}
    assert act(state, Deadline(now=35.0))[0].deal.picks == after.deal.picks  # seeded


def test_hands_are_unknown_while_picking() -> None:
    state = engine.new_game("luanzhan", seed="p", host=0, now=0.0)
    state, events = act(state, PickColour(3, 0, now=1.0))
    assert "hand" not in kinds(events)
    assert all(engine.view(state, v)["deal"]["hand"] is None for v in (0, 1, 2, 3, None))


def test_each_seat_gets_the_hand_paired_with_its_colour() -> None:
    state = engine.new_game("luanzhan", seed="p", host=0, now=0.0)
    state = pick_all(state, {3: 1, 2: 3, 1: 0})
    dealt = deal_luanzhan("p", 0)
    for seat, colour in enumerate((2, 0, 3, 1)):
        hand = state.deal.hands[seat]
        assert hand == dealt.hand_for(colour)
        assert hand[0] == (Rank.ENGINEER, colour)


# --- hidden hands, public colours (§8) -----------------------------------------------------------


def rank_keys_in(data: Any) -> list[str]:
    """Every string in JSON-like ``data`` that is a rank key."""
    if isinstance(data, str):
        return [data] if data in RANK_KEYS else []
    if isinstance(data, dict):
        return [k for v in data.values() for k in rank_keys_in(v)]
    if isinstance(data, list | tuple):
        return [k for v in data for k in rank_keys_in(v)]
    return []


def to_deploying(seed: str) -> tuple[GameState, list[Event]]:
    """A game through the pick and the redeal window (nobody asks), with every event."""
    state = engine.new_game("luanzhan", seed=seed, host=0, now=0.0)
    events: list[Event] = []
    for seat, colour in ((3, 2), (2, 0), (1, 3)):
        state, evs = act(state, PickColour(seat, colour, now=1.0))
        events += evs
    for seat in range(4):
        state, evs = act(state, AnswerRedeal(seat, False, now=2.0))
        events += evs
    assert state.phase == "deploying"
    return state, events


@pytest.mark.parametrize("phase", ["redealing", "deploying"])
@pytest.mark.parametrize("viewer", [0, 1, 2, 3, None])
def test_views_show_a_hand_to_its_seat_only(viewer: int | None, phase: str) -> None:
    state, _ = to_deploying("h")
    if phase == "redealing":
        state = pick_all(engine.new_game("luanzhan", seed="h", host=0), {3: 2, 2: 0, 1: 3})
    assert state.phase == phase
    seen = engine.view(state, viewer)
    seen["deal"].pop("may_ask_redeal", None)
    hand = seen["deal"].pop("hand")
    if viewer is None:
        assert hand is None
    else:
        own = state.deal.hands[viewer]
        assert own is not None
        assert hand == [{"rank": r.value, "army": a} for r, a in own]
    assert rank_keys_in(seen) == []


@pytest.mark.parametrize("viewer", [0, 1, 2, 3, None])
def test_hand_events_go_to_their_seat_only(viewer: int | None) -> None:
    state, events = to_deploying("h")
    for seat in range(4):
        state, evs = act(state, PlaceLayout(seat, auto(state, seat), now=3.0))
        events += evs
    assert state.phase == "playing"
    hands = [e for e in events if e.kind == "hand"]
    assert sorted(e.data["seat"] for e in hands) == [0, 1, 2, 3]
    for e in events:
        shown = e.for_viewer(viewer)
        if e.kind == "hand":
            assert (shown is not None) == (e.data["seat"] == viewer)
        else:
            assert shown is None or rank_keys_in(shown) == [], shown


def auto(state: GameState, seat: int) -> dict[str, str]:
    return engine.auto_layout("luanzhan", seat, 11, hand=state.deal.hands[seat])


def test_a_redeal_answer_is_not_shown_to_anyone() -> None:
    state, _ = redeal_window(weak_seed(1))
    _, events = act(state, AnswerRedeal(3, True, now=2.0))
    for viewer in (0, 1, 2, 3, None):
        assert [e.for_viewer(viewer) for e in events] == [{"kind": "redeal_answered", "seat": 3}]


def test_redeal_eligibility_is_about_the_viewer_s_own_hand_only() -> None:
    state, _ = redeal_window(weak_seed(1))
    assert engine.view(state, 3)["deal"]["may_ask_redeal"] is True
    assert "may_ask_redeal" not in engine.view(state, None)["deal"]
    for seat in range(4):
        hand = state.deal.hands[seat]
        assert hand is not None
        assert engine.view(state, seat)["deal"]["may_ask_redeal"] == weak(hand[1:])


def test_piece_colours_are_public_in_the_play_view() -> None:
    pieces: dict[str, tuple[Any, ...]] = {
        **OTHERS,
        "1:62": (1, "flag", 3),
        "1:31": (1, "general", 2),
        "1:51": (1, "major", 0),
    }
    state = start(pieces)
    for viewer in (0, 2, 3, None):
        seen = {p["station"]: p for p in engine.view(state, viewer)["pieces"]}
        assert seen["1:31"]["army"] == 2 and seen["1:31"]["seat"] == 1
        assert seen["1:51"]["army"] == 0 and seen["1:51"]["seat"] == 1
        assert "rank" not in seen["1:31"]


def test_dealt_colours_reach_the_board() -> None:
    state, _ = to_deploying("c")
    for seat in range(4):
        state, _ = act(state, PlaceLayout(seat, auto(state, seat), now=3.0))
    on_board = Counter((p["seat"], p["army"]) for p in engine.view(state, None)["pieces"])
    dealt: Counter[tuple[int, int]] = Counter()
    for seat in range(4):
        hand = state.deal.hands[seat]
        assert hand is not None
        dealt.update((seat, a) for _, a in hand if a is not None)
    assert on_board == dealt


# --- redeals (§9.2 step 2) -----------------------------------------------------------------------


def weak(hand: tuple[DealtPiece, ...]) -> bool:
    return not STRONG & {rank for rank, _ in hand}


@cache
def weak_seed(deals: int) -> str:
    """A seed whose first ``deals`` deals each hold a hand with no 司令, 军长 or 师长."""
    for n in range(20_000):
        seed = f"s{n}"
        if all(any(weak(h) for h in deal_luanzhan(seed, d).hands) for d in range(deals)):
            return seed
    raise AssertionError("no such seed")


@cache
def strong_seed() -> str:
    """A seed whose first deal holds no weak hand at all."""
    for n in range(1000):
        if not any(weak(h) for h in deal_luanzhan(f"strong-{n}", 0).hands):
            return f"strong-{n}"
    raise AssertionError("no such seed")


def picks_giving(colour: int) -> dict[int, int]:
    """Picks (host 0) that give ``colour`` to seat 3, the first picker."""
    rest = [c for c in range(4) if c != colour]
    return {3: colour, 2: rest[0], 1: rest[1]}


def weak_colour(seed: str, number: int) -> int:
    return next(c for c, h in enumerate(deal_luanzhan(seed, number).hands) if weak(h))


def redeal_window(seed: str, number: int = 0) -> tuple[GameState, int]:
    """A game in its redeal window where seat 3 holds a weak hand; returns the weak colour."""
    state = engine.new_game("luanzhan", seed=seed, host=0, now=0.0)
    colour = weak_colour(seed, number)
    state = pick_all(state, picks_giving(colour))
    assert state.phase == "redealing"
    return state, colour


def test_a_weak_hand_may_ask_for_a_redeal() -> None:
    state, _ = redeal_window(weak_seed(1))
    hand = state.deal.hands[3]
    assert hand is not None and weak(hand[1:])
    state, events = act(state, AnswerRedeal(3, True, now=2.0))
    assert kinds(events) == ["redeal_answered"]
    assert state.deal.waiting == {0, 1, 2}


def test_a_hand_with_a_strong_officer_may_not_ask_for_a_redeal() -> None:
    seed = strong_seed()
    state = pick_all(engine.new_game("luanzhan", seed=seed, host=0, now=0.0), picks_giving(0))
    assert engine.view(state, 3)["deal"]["may_ask_redeal"] is False
    with pytest.raises(engine.IllegalAction):
        act(state, AnswerRedeal(3, True, now=2.0))
    state, _ = act(state, AnswerRedeal(3, False, now=2.0))  # keeping the deal is fine
    assert state.deal.waiting == {0, 1, 2}


def test_everyone_answers_once() -> None:
    state, _ = redeal_window(weak_seed(1))
    state, _ = act(state, AnswerRedeal(0, False, now=2.0))
    with pytest.raises(engine.IllegalAction):
        act(state, AnswerRedeal(0, False, now=2.0))


def test_a_redeal_deals_anew() -> None:
    seed = weak_seed(1)
    state, _ = redeal_window(seed)
    old_hands = state.deal.hands
    state, _ = act(state, AnswerRedeal(3, True, now=2.0))
    for seat in (0, 1, 2):
        state, events = act(state, AnswerRedeal(seat, False, now=3.0))
    assert "redealt" in kinds(events)
    assert state.phase == "picking"
    assert (state.deal.number, state.deal.redeals) == (1, 1)
    assert state.deal.picks == (None,) * 4 and state.deal.waiting == {3}
    state = pick_all(state, {3: 0, 2: 1, 1: 2}, now=4.0)
    dealt = deal_luanzhan(seed, 1)
    assert state.deal.hands == tuple(dealt.hand_for(c) for c in (3, 2, 1, 0))
    assert state.deal.hands != old_hands


def test_nobody_asking_keeps_the_deal() -> None:
    state, _ = redeal_window(weak_seed(1))
    hands = state.deal.hands
    for seat in range(4):
        state, _ = act(state, AnswerRedeal(seat, False, now=2.0))
    assert state.phase == "deploying"
    assert (state.deal.number, state.deal.redeals) == (0, 0)
    assert state.deal.hands == hands


def test_the_redeal_deadline_answers_no() -> None:
    state, _ = redeal_window(weak_seed(1))
    state, _ = act(state, AnswerRedeal(1, False, now=2.0))
    with pytest.raises(engine.IllegalAction):
        act(state, Deadline(now=state.deadline - 1))
    state, events = act(state, Deadline(now=state.deadline))
    assert kinds(events).count("redeal_answered") == 3
    assert state.phase == "deploying" and state.deal.number == 0


def test_at_most_three_redeals() -> None:
    seed = weak_seed(3)
    state = engine.new_game("luanzhan", seed=seed, host=0, now=0.0)
    for number in range(3):
        assert state.deal.number == number
        state = pick_all(state, picks_giving(weak_colour(seed, number)))
        assert state.phase == "redealing"
        for seat in range(4):
            state, _ = act(state, AnswerRedeal(seat, seat == 3, now=2.0))
    assert state.phase == "picking" and state.deal.redeals == 3
    state = pick_all(state, {3: 0, 2: 1, 1: 2})
    assert state.phase == "deploying"  # no fourth redeal window
    assert state.deal.number == 3
    assert state.deal.hands == tuple(deal_luanzhan(seed, 3).hand_for(c) for c in (3, 2, 1, 0))
    with pytest.raises(engine.IllegalAction):
        act(state, AnswerRedeal(3, True, now=3.0))


# --- deployment with dealt hands (§9.2 step 3) ---------------------------------------------------

# Seat 0, a standard army (row 1 is the front row, column 1 the owner's left):
#   连 旅 连 排 团
#   师 ＋ 师 ＋ 军
#   营 团 ＋ 司 营
#   排 ＋ 工 ＋ 旅
#   炸 炸 工 雷 工
#   排 连 雷 旗 雷
LAYOUT = {
    "0:11": "captain",
    "0:12": "brigadier",
    "0:13": "captain",
    "0:14": "lieutenant",
    "0:15": "colonel",
    "0:21": "major_general",
    "0:23": "major_general",
    "0:25": "general",
    "0:31": "major",
    "0:32": "colonel",
    "0:34": "field_marshal",
    "0:35": "major",
    "0:41": "lieutenant",
    "0:43": "engineer",
    "0:45": "brigadier",
    "0:51": "bomb",
    "0:52": "bomb",
    "0:53": "engineer",
    "0:54": "landmine",
    "0:55": "engineer",
    "0:61": "lieutenant",
    "0:62": "captain",
    "0:63": "landmine",
    "0:64": "flag",
    "0:65": "landmine",
}


def hand_of(ranks: dict[str, str], colours: dict[str, int] | None = None) -> list[DealtPiece]:
    """A hand holding the pieces of a layout, all of colour 0 unless ``colours`` says."""
    colours = colours or {}
    return [(Rank(r.split("/")[0]), colours.get(sid, 0)) for sid, r in ranks.items()]


def changed(base: dict[str, str] | None = None, **changes: str) -> dict[str, str]:
    """``base`` (LAYOUT) with some stations changed: ``changed(s0_41="landmine")`` sets 0:41."""
    out = dict(LAYOUT if base is None else base)
    for key, rank in changes.items():
        out[key.replace("s0_", "0:")] = rank
    return out


def codes(layout: dict[str, str], hand: list[DealtPiece]) -> list[str]:
    return [p.code.value for p in engine.layout_problems("luanzhan", 0, layout, hand=hand)]


def test_a_standard_hand_deploys_as_in_siguo() -> None:
    assert codes(LAYOUT, hand_of(LAYOUT)) == []


# LAYOUT with five landmines, all in rows 5-6 (0:61 and the HQ 0:62 hold the extra two).
FIVE_MINES = changed(s0_61="landmine", s0_62="landmine")


def mines(layout: dict[str, str]) -> int:
    return Counter(layout.values())["landmine"]


def test_with_six_landmines_one_may_stand_in_row_4() -> None:
    layout = changed(FIVE_MINES, s0_41="landmine")
    assert mines(layout) == 6
    assert codes(layout, hand_of(layout)) == []


def test_with_six_landmines_two_in_row_4_are_too_many() -> None:
    layout = changed(FIVE_MINES, s0_41="landmine", s0_45="landmine", s0_63="brigadier")
    assert mines(layout) == 6
    problems = engine.layout_problems("luanzhan", 0, layout, hand=hand_of(layout))
    assert [p.code for p in problems] == ["landmine_outside_back_rows"]
    assert set(problems[0].stations) == {"0:41", "0:45"}


def test_with_seven_landmines_two_may_stand_in_row_4() -> None:
    layout = changed(FIVE_MINES, s0_41="landmine", s0_45="landmine")
    assert mines(layout) == 7
    assert codes(layout, hand_of(layout)) == []


def test_with_five_landmines_none_may_stand_in_row_4() -> None:
    layout = changed(s0_41="landmine", s0_61="landmine")
    assert mines(layout) == 5
    problems = engine.layout_problems("luanzhan", 0, layout, hand=hand_of(layout))
    assert [(p.code, p.stations) for p in problems] == [("landmine_outside_back_rows", ("0:41",))]


def test_extra_landmines_still_stay_out_of_rows_1_to_3() -> None:
    layout = changed(FIVE_MINES, s0_31="landmine")
    assert mines(layout) == 6
    problems = engine.layout_problems("luanzhan", 0, layout, hand=hand_of(layout))
    assert [(p.code, p.stations) for p in problems] == [("landmine_outside_back_rows", ("0:31",))]


def test_a_hand_without_a_flag_needs_no_flag() -> None:
    layout = changed(s0_64="captain")
    assert codes(layout, hand_of(layout)) == []


def test_a_hand_without_a_flag_may_put_anything_in_the_hqs() -> None:
    layout = changed(s0_64="bomb", s0_62="landmine", s0_52="lieutenant", s0_63="captain")
    assert codes(layout, hand_of(layout)) == []


TWO_FLAGS = hand_of(changed(s0_14="flag"), {"0:14": 1})  # a lieutenant dealt as a second flag


def test_two_flags_one_in_an_hq_the_other_becomes_a_general() -> None:
    assert codes(changed(s0_14="general"), TWO_FLAGS) == []


def test_two_flags_may_stand_in_both_hqs() -> None:
    assert codes(changed(s0_62="flag", s0_14="captain"), TWO_FLAGS) == []


def test_two_flags_need_at_least_one_flag_placed() -> None:
    layout = changed(s0_64="general", s0_14="general")
    assert "missing_pieces" in codes(layout, TWO_FLAGS)


def test_an_extra_flag_is_a_general_not_a_second_lieutenant() -> None:
    layout = changed(s0_14="lieutenant")
    assert codes(layout, TWO_FLAGS) == ["too_many_pieces", "missing_pieces"]


THREE_FLAGS = hand_of(changed(s0_14="flag", s0_41="flag"), {"0:14": 1, "0:41": 2})


def test_three_flags_two_in_the_hqs_and_the_third_a_general() -> None:
    layout = changed(s0_62="flag", s0_14="captain", s0_41="general")
    assert codes(layout, THREE_FLAGS) == []


def test_three_flags_one_in_an_hq_and_two_generals() -> None:
    layout = changed(s0_14="general", s0_41="general")
    assert codes(layout, THREE_FLAGS) == []


def test_no_more_than_two_flags_are_kept() -> None:
    layout = changed(s0_62="flag", s0_14="captain", s0_41="flag")
    problems = engine.layout_problems("luanzhan", 0, layout, hand=THREE_FLAGS)
    found = {p.code.value: p.stations for p in problems}
    assert "too_many_pieces" in found and "0:41" in found["too_many_pieces"]


def test_a_flag_stays_in_an_hq() -> None:
    layout = changed(s0_64="general", s0_14="flag")
    assert "flag_not_in_hq" in codes(layout, TWO_FLAGS)


GENERAL_OF_2 = hand_of(LAYOUT, {"0:25": 2})  # the hand's only 军长 is of colour 2


def test_a_piece_s_colour_may_be_chosen_from_the_hand() -> None:
    assert codes(changed(s0_25="general/2"), GENERAL_OF_2) == []
    assert codes(changed(s0_25="general"), GENERAL_OF_2) == []


def test_a_colour_the_hand_does_not_have_is_refused() -> None:
    problems = engine.layout_problems("luanzhan", 0, changed(s0_25="general/3"), hand=GENERAL_OF_2)
    assert [(p.code, p.stations) for p in problems] == [("colour_not_in_hand", ("0:25",))]


def test_a_colour_is_refused_once_the_hand_s_pieces_of_it_are_used() -> None:
    layout = changed(s0_11="captain/0", s0_13="captain/0", s0_62="captain/0")
    assert codes(layout, hand_of(LAYOUT, {"0:62": 3})) == ["colour_not_in_hand"]


def test_a_converted_flag_keeps_its_colour() -> None:
    assert codes(changed(s0_64="flag/0", s0_14="general/1"), TWO_FLAGS) == []
    assert codes(changed(s0_64="flag/1", s0_14="general/0"), TWO_FLAGS) == []
    assert codes(changed(s0_64="flag/0", s0_14="general/3"), TWO_FLAGS) == ["colour_not_in_hand"]


def test_a_confirmed_layout_must_fit_the_dealt_hand() -> None:
    state, _ = to_deploying("d")
    hand = state.deal.hands[0]
    assert hand is not None and Counter(r for r, _ in hand) != Counter(
        Rank(r) for r in LAYOUT.values()
    )
    with pytest.raises(engine.IllegalLayout):
        act(state, PlaceLayout(0, LAYOUT, now=3.0))
    state, events = act(state, PlaceLayout(0, auto(state, 0), now=3.0))
    assert kinds(events) == ["deployed"]


def test_a_chosen_colour_is_the_colour_on_the_board() -> None:
    state, _ = to_deploying("d")
    hand = state.deal.hands[0]
    assert hand is not None
    layout = auto(state, 0)
    by_rank: dict[Rank, set[int]] = {}
    for rank, army in hand:
        assert army is not None  # 乱战 pieces all have a colour
        by_rank.setdefault(rank, set()).add(army)
    rank = next(r for r, cs in by_rank.items() if len(cs) > 1 and r != Rank.FLAG)
    colour = max(by_rank[rank])
    station = next(s for s, r in layout.items() if r == rank.value)
    layout[station] = f"{rank.value}/{colour}"
    state, _ = act(state, PlaceLayout(0, layout, now=3.0))
    state, _ = act(state, Deadline(now=state.deadline))
    assert state.layouts[0][station].colour == colour
    seen = {p["station"]: p for p in engine.view(state, 1)["pieces"]}
    assert seen[station]["army"] == colour


# --- combat options (§4, §9.2 step 4) ------------------------------------------------------------

# Seats 0, 2 and 3 each hold a flag and a piece that passes; seat 1 a piece that passes.
OTHERS: dict[str, tuple[Any, ...]] = {
    "0:62": (0, "flag"),
    "0:51": (0, "major"),
    "1:51": (1, "major"),
    "2:62": (2, "flag"),
    "2:51": (2, "major"),
    "3:62": (3, "flag"),
    "3:51": (3, "major"),
}


def position(**seat1: tuple[Any, ...]) -> dict[str, tuple[Any, ...]]:
    """OTHERS plus pieces given as ``s1_62=(1, "flag")`` for station ``1:62``."""
    return {**OTHERS, **{k.replace("s1_", "1:"): v for k, v in seat1.items()}}


def test_an_officer_hitting_a_mine_dies_with_it() -> None:
    state = start(position(s1_64=(1, "flag"), s1_53=(1, "landmine"), s1_43=(0, "field_marshal")))
    state, events = act(state, Move(0, "1:43", "1:53", now=1.0))
    assert events[0].data["outcome"] == "both"
    board = state.board_position
    assert board.piece_at("1:53") is None and board.piece_at("1:43") is None


def test_mine_trades_is_a_table_option() -> None:
    state = start(
        position(s1_64=(1, "flag"), s1_53=(1, "landmine"), s1_43=(0, "field_marshal")),
        mine_trades=False,
    )
    state, events = act(state, Move(0, "1:43", "1:53", now=1.0))
    assert events[0].data["outcome"] == "defender"


def test_an_engineer_digs_a_mine() -> None:
    state = start(position(s1_64=(1, "flag"), s1_53=(1, "landmine"), s1_43=(0, "engineer")))
    state, events = act(state, Move(0, "1:43", "1:53", now=1.0))
    assert events[0].data["outcome"] == "attacker"
    piece = state.board_position.piece_at("1:53")
    assert piece is not None and (piece.seat, piece.rank) == (0, "engineer")


def test_an_engineer_digs_a_field_marshal_out_of_an_hq() -> None:
    state = start(position(s1_64=(1, "flag"), s1_62=(1, "field_marshal"), s1_52=(0, "engineer")))
    state, events = act(state, Move(0, "1:52", "1:62", now=1.0))
    assert events[0].data["outcome"] == "attacker"
    piece = state.board_position.piece_at("1:62")
    assert piece is not None and (piece.seat, piece.rank) == (0, "engineer")
    assert state.seats[1].elimination is None  # 1:62 was not the flag


def test_without_hq_dig_the_field_marshal_wins() -> None:
    state = start(
        position(s1_64=(1, "flag"), s1_62=(1, "field_marshal"), s1_52=(0, "engineer")),
        hq_dig=False,
    )
    state, events = act(state, Move(0, "1:52", "1:62", now=1.0))
    assert events[0].data["outcome"] == "defender"


@pytest.mark.parametrize(
    ("attacker", "defender"),
    [("general", "landmine"), ("lieutenant", "bomb"), ("bomb", "captain")],
)
def test_hq_dig_comes_before_every_other_combat_rule(attacker: str, defender: str) -> None:
    state = start(position(s1_64=(1, "flag"), s1_62=(1, defender), s1_52=(0, attacker)))
    state, events = act(state, Move(0, "1:52", "1:62", now=1.0))
    assert events[0].data["outcome"] == "attacker"
    piece = state.board_position.piece_at("1:62")
    assert piece is not None and (piece.seat, piece.rank) == (0, attacker)


def test_hq_dig_only_applies_in_an_hq() -> None:
    state = start(position(s1_64=(1, "flag"), s1_53=(1, "field_marshal"), s1_43=(0, "engineer")))
    state, events = act(state, Move(0, "1:43", "1:53", now=1.0))
    assert events[0].data["outcome"] == "defender"


@pytest.mark.parametrize("hq_dig", [True, False])
def test_a_bomb_takes_the_flag_and_survives(hq_dig: bool) -> None:
    state = start(position(s1_62=(1, "flag"), s1_52=(0, "bomb")), hq_dig=hq_dig)
    state, events = act(state, Move(0, "1:52", "1:62", now=1.0))
    assert events[0].data["outcome"] == "attacker"
    piece = state.board_position.piece_at("1:62")
    assert piece is not None and (piece.seat, piece.rank) == (0, "bomb")
    elimination = state.seats[1].elimination
    assert elimination is not None and (elimination.reason, elimination.victor) == (
        "flag_captured",
        0,
    )


# --- scouting (§4 engineer_scouting "team") ------------------------------------------------------


def scouted() -> tuple[GameState, list[Event]]:
    """Seat 0's engineer attacks seat 1's general on 1:53 and is removed."""
    state = start(position(s1_64=(1, "flag"), s1_53=(1, "general"), s1_43=(0, "engineer")))
    return act(state, Move(0, "1:43", "1:53", now=1.0))


def test_scouting_reveals_to_the_engineer_s_team() -> None:
    state, _ = scouted()
    assert ranks_seen(state, 0)["1:53"] == "general"
    assert ranks_seen(state, 2)["1:53"] == "general"


def test_scouting_hides_from_the_other_team_and_spectators() -> None:
    state, _ = scouted()
    assert "1:53" not in ranks_seen(state, 3)
    assert "1:53" not in ranks_seen(state, None)


def test_the_scouted_event_carries_the_rank_to_the_team_only() -> None:
    _, events = scouted()
    (event,) = [e for e in events if e.kind == "scouted"]
    shown = {v: event.for_viewer(v) for v in (0, 1, 2, 3, None)}
    assert all(s is not None for s in shown.values())
    assert {v for v, s in shown.items() if s is not None and "rank" in s} <= {0, 1, 2}
    assert shown[0] is not None and shown[0]["rank"] == "general"
    assert shown[2] is not None and shown[2]["rank"] == "general"


# --- defeat conditions (§9.2 step 5) -------------------------------------------------------------

ATTACKERS: dict[str, tuple[Any, ...]] = {"1:52": (0, "engineer"), "1:54": (0, "engineer")}


def defending(**seat1: tuple[Any, ...]) -> GameState:
    """Seat 1's pieces as given; seat 0's engineers next to both of seat 1's HQs."""
    return start({**position(**seat1), **ATTACKERS})


def take(state: GameState, hq: str) -> tuple[GameState, list[Event]]:
    """Seat 0 attacks seat 1's HQ ``hq`` ("1:62" or "1:64") from the station in front of it."""
    state = pass_others(state)
    return act(state, Move(0, hq.replace(":6", ":5"), hq, now=1.0))


def out(state: GameState, seat: int = 1) -> str | None:
    elimination = state.seats[seat].elimination
    return None if elimination is None else elimination.reason.value


def test_one_flag_captured_eliminates() -> None:
    state = defending(s1_62=(1, "flag"), s1_64=(1, "captain"), s1_31=(1, "field_marshal"))
    state, events = take(state, "1:62")
    assert kinds(events)[:2] == ["moved", "eliminated"]
    assert events[1].data == {"seat": 1, "reason": "flag_captured", "victor": 0}


def test_one_flag_taking_the_other_hq_does_not_eliminate() -> None:
    state = defending(s1_62=(1, "flag"), s1_64=(1, "captain"), s1_31=(1, "field_marshal"))
    state, _ = take(state, "1:64")
    assert out(state) is None
    assert engine.view(state, None)["seats"][1]["hqs_taken"] == ["1:64"]


def test_two_flags_one_hq_taken_does_not_eliminate() -> None:
    state = defending(s1_62=(1, "flag"), s1_64=(1, "flag"), s1_31=(1, "field_marshal"))
    state, _ = take(state, "1:62")
    assert out(state) is None


def test_two_flags_both_hqs_taken_eliminates() -> None:
    state = defending(s1_62=(1, "flag"), s1_64=(1, "flag"), s1_31=(1, "field_marshal"))
    state, _ = take(state, "1:64")
    state, _ = take(state, "1:62")
    assert out(state) == "flag_captured"
    assert state.seats[1].elimination is not None and state.seats[1].elimination.victor == 0


@pytest.mark.parametrize("hq", ["1:62", "1:64"])
def test_no_flag_with_a_field_marshal_either_hq_eliminates(hq: str) -> None:
    state = defending(s1_62=(1, "captain"), s1_64=(1, "major"), s1_31=(1, "field_marshal"))
    state, _ = take(state, hq)
    assert out(state) == "flag_captured"


@pytest.mark.parametrize("hq", ["1:62", "1:64"])
def test_no_flag_and_no_field_marshal_one_hq_is_not_enough(hq: str) -> None:
    state = defending(s1_62=(1, "captain"), s1_64=(1, "major"), s1_31=(1, "general"))
    state, _ = take(state, hq)
    assert out(state) is None


def test_no_flag_and_no_field_marshal_both_hqs_eliminate() -> None:
    state = defending(s1_62=(1, "captain"), s1_64=(1, "major"), s1_31=(1, "general"))
    state, _ = take(state, "1:62")
    state, _ = take(state, "1:64")
    assert out(state) == "flag_captured"


# The last 司令 of a seat without a flag dies: seat 0's bomb in the camp 1:33 hits it on 1:43.
RAISER = {
    "s1_62": (1, "captain"),
    "s1_64": (1, "major"),
    "s1_43": (1, "field_marshal"),
    "s1_33": (0, "bomb"),
}


def marshal_killed(**extra: tuple[Any, ...]) -> tuple[GameState, list[Event]]:
    state = defending(**{**RAISER, **extra})
    return act(state, Move(0, "1:33", "1:43", now=10.0))


def test_the_last_field_marshal_s_death_makes_the_flag_due() -> None:
    state, events = marshal_killed()
    assert events[0].data["outcome"] == "both"
    (due,) = [e for e in events if e.kind == "raise_flag_due"]
    assert due.for_viewer(None) == {"kind": "raise_flag_due", "seat": 1, "deadline": 40.0}
    assert state.watches[1].raise_by == 40.0
    assert engine.view(state, None)["seats"][1]["raise_flag_by"] == 40.0


def test_no_flag_is_due_while_another_field_marshal_lives() -> None:
    state, events = marshal_killed(s1_31=(1, "field_marshal"))
    assert "raise_flag_due" not in kinds(events)
    assert state.watches[1].raise_by is None


def test_while_the_raise_is_pending_either_hq_still_eliminates() -> None:
    # docs/rules.md is silent on the pending window; the engine keeps the 司令 rule until the raise.
    state, _ = marshal_killed()
    state, _ = take(state, "1:64")
    assert out(state) == "flag_captured"


def test_raising_the_flag_reveals_the_hq_occupant_to_all() -> None:
    state, _ = marshal_killed()
    state, events = act(state, RaiseFlag(1, "1:64", now=12.0))  # on seat 1's own turn or not
    assert [e.for_viewer(3) for e in events] == [
        {"kind": "flag_raised", "seat": 1, "station": "1:64", "rank": "major"}
    ]
    for viewer in (0, 2, 3, None):
        assert ranks_seen(state, viewer)["1:64"] == "major"
    assert engine.view(state, None)["seats"][1]["flag_raised"] == "1:64"
    assert state.watches[1].raise_by is None


def test_raising_on_another_player_s_turn() -> None:
    state, _ = marshal_killed()
    state = pass_turn(state)  # seat 1 moves on
    assert state.to_move == 2
    state, _ = act(state, RaiseFlag(1, "1:62", now=12.0))
    assert state.watches[1].raised is not None


def test_after_raising_the_other_hq_does_not_eliminate() -> None:
    state, _ = marshal_killed()
    state, _ = act(state, RaiseFlag(1, "1:64", now=12.0))
    state, _ = take(state, "1:62")
    assert out(state) is None


def test_after_raising_the_raised_hq_eliminates() -> None:
    state, _ = marshal_killed()
    state, _ = act(state, RaiseFlag(1, "1:64", now=12.0))
    state, _ = take(state, "1:62")
    state, _ = take(state, "1:64")
    assert out(state) == "flag_captured"


def test_raising_is_refused_when_no_flag_is_due() -> None:
    state = defending(**RAISER)
    with pytest.raises(engine.IllegalAction):
        act(state, RaiseFlag(1, "1:62", now=1.0))


def test_raising_needs_one_of_the_seat_s_hqs() -> None:
    state, _ = marshal_killed()
    for station in ("1:52", "0:62", "3:64"):
        with pytest.raises(engine.IllegalAction):
            act(state, RaiseFlag(1, station, now=12.0))


def test_the_flag_can_be_raised_once() -> None:
    state, _ = marshal_killed()
    state, _ = act(state, RaiseFlag(1, "1:64", now=12.0))
    with pytest.raises(engine.IllegalAction):
        act(state, RaiseFlag(1, "1:62", now=13.0))


def test_the_raise_deadline_raises_a_held_hq() -> None:
    state, _ = marshal_killed()
    with pytest.raises(engine.IllegalAction):
        act(state, Deadline(now=39.0))
    state, events = act(state, Deadline(now=40.0))
    (raised,) = [e.for_viewer(None) for e in events if e.kind == "flag_raised"]
    assert raised is not None and raised["seat"] == 1
    assert raised["station"] in ("1:62", "1:64")
    assert raised["rank"] == {"1:62": "captain", "1:64": "major"}[raised["station"]]
    assert engine.view(state, None)["seats"][1]["flag_raised"] == raised["station"]
    other = "1:62" if raised["station"] == "1:64" else "1:64"
    state, _ = take(state, other)
    assert out(state) is None
    state, _ = take(state, raised["station"])
    assert out(state) == "flag_captured"


def test_the_raise_deadline_is_seeded() -> None:
    state, _ = marshal_killed()
    first = act(state, Deadline(now=40.0))[0].watches[1].raised
    assert act(state, Deadline(now=45.0))[0].watches[1].raised == first


def out_while_due() -> GameState:
    """Seat 1's flag is due (its last 司令 died) when seat 0 digs 1:64: seat 1 is out."""
    state, _ = marshal_killed()
    state, _ = take(state, "1:64")
    assert out(state) == "flag_captured"
    return state


def test_an_eliminated_seat_cannot_raise_its_flag() -> None:
    state = out_while_due()
    with pytest.raises(engine.IllegalAction):
        act(state, RaiseFlag(1, "1:62", now=12.0))


def test_a_late_raise_never_reveals_a_piece_entering_the_hq() -> None:
    state = out_while_due()
    with contextlib.suppress(engine.IllegalAction):  # refusing the raise is a fix too
        state, _ = act(state, RaiseFlag(1, "1:62", now=12.0))
    state = pass_others(state)
    state, _ = act(state, Move(0, "1:52", "1:62", now=13.0))  # seat 0's engineer enters
    assert "1:62" not in ranks_seen(state, 3)
    assert "1:62" not in ranks_seen(state, None)


# --- flag reveals (§9.2 step 5) ------------------------------------------------------------------


def test_a_flag_without_a_field_marshal_is_revealed_at_the_start() -> None:
    events = start_events(position(s1_62=(1, "flag"), s1_64=(1, "captain")))
    revealed = [e.for_viewer(None) for e in events if e.kind == "flag_revealed"]
    assert {"kind": "flag_revealed", "seat": 1, "station": "1:62"} in revealed
    state = start(position(s1_62=(1, "flag"), s1_64=(1, "captain")))
    for viewer in (0, 2, 3, None):
        assert ranks_seen(state, viewer)["1:62"] == "flag"


def test_a_flag_with_a_field_marshal_stays_hidden_at_the_start() -> None:
    pieces = position(s1_62=(1, "flag"), s1_64=(1, "captain"), s1_31=(1, "field_marshal"))
    events = start_events(pieces)
    assert not [e for e in events if e.kind == "flag_revealed" and e.data["seat"] == 1]
    assert "1:62" not in ranks_seen(start(pieces), None)


def test_both_flags_are_revealed_when_the_last_field_marshal_dies() -> None:
    state, events = marshal_killed(s1_62=(1, "flag"), s1_64=(1, "flag"))
    revealed = sorted(e.data["station"] for e in events if e.kind == "flag_revealed")
    assert revealed == ["1:62", "1:64"]
    assert "raise_flag_due" not in kinds(events)
    for viewer in (0, 3, None):
        seen = ranks_seen(state, viewer)
        assert (seen["1:62"], seen["1:64"]) == ("flag", "flag")


def test_flags_stay_hidden_while_a_field_marshal_lives() -> None:
    state, events = marshal_killed(s1_62=(1, "flag"), s1_64=(1, "flag"), s1_31=(1, "field_marshal"))
    assert "flag_revealed" not in kinds(events)
    assert "1:62" not in ranks_seen(state, 3)


def test_one_flag_is_revealed_when_the_last_field_marshal_dies() -> None:
    state, events = marshal_killed(s1_62=(1, "flag"))
    assert [e.data["station"] for e in events if e.kind == "flag_revealed"] == ["1:62"]
    assert ranks_seen(state, None)["1:62"] == "flag"


# --- escapes (§11 lianzhong, §6.2 timeouts_are_escape) -------------------------------------------


def played(moves: int) -> GameState:
    """Everyone passes in turn for ``moves`` moves (the no-capture draw is off)."""
    state = start(position(s1_62=(1, "flag")), no_capture_plies=None)
    for _ in range(moves):
        state = pass_turn(state)
    assert state.total_moves == moves
    return state


def points(state: GameState) -> list[int]:
    assert state.result is not None
    return [r.points for r in state.result.seats]


def test_an_escape_before_15_rounds_scores_only_the_escaper() -> None:
    state = played(57)
    assert state.seats[1].moves == 14  # seat 1's fifteenth turn has not come yet
    state, _ = act(state, Escape(1, now=2.0))
    assert state.phase == "finished"
    assert state.result is not None and state.result.reason == "escape"
    assert state.result.winners == ()
    assert points(state) == [0, -2, 0, 0]
    assert [r.outcome for r in state.result.seats] == ["unscored", "escape", "unscored", "unscored"]


def test_an_escape_after_15_rounds_gives_the_opponents_the_game() -> None:
    state = played(58)
    assert state.seats[1].moves == 15
    state, _ = act(state, Escape(1, now=2.0))
    assert state.phase == "finished"
    assert state.result is not None and state.result.winners == (0, 2)
    assert points(state) == [1, -2, 1, 0]  # the escaper's partner scores 0
    assert [r.outcome for r in state.result.seats][:3] == ["win", "escape", "win"]


def test_an_escape_before_15_rounds_scores_nobody_else_even_if_the_partner_is_out() -> None:
    state = start(position(s1_62=(1, "flag"), s1_52=(0, "engineer")))
    state, _ = act(state, Move(0, "1:52", "1:62", now=1.0))  # seat 1 is out
    assert out(state) == "flag_captured"
    state = pass_turn(state)  # seat 2
    state, _ = act(state, Escape(3, now=2.0))
    assert state.result is not None and state.total_moves == 2
    assert state.result.winners == ()
    assert points(state) == [0, 0, 0, -2]


def test_rounds_are_the_escapers_turns_not_moves_over_seats() -> None:
    """Seat 1 is out at once and seat 2 lets its turns run out: far fewer moves than 15 × 4
    are made before seat 3 has had its 15 turns, and then its escape gives 0 and 2 the game."""
    state = start(position(s1_62=(1, "flag"), s1_52=(0, "engineer")), no_capture_plies=None)
    state, _ = act(state, Move(0, "1:52", "1:62", now=1.0))
    assert out(state) == "flag_captured"
    while state.seats[3].moves < 15:
        if state.to_move == 2 and state.seats[2].skips < 4:
            state, _ = act(state, Timeout(now=state.deadline))  # a turn, though no move
        else:
            state = pass_turn(state)
    assert state.total_moves < 15 * 4 and state.seats[2].skips == 4
    state, _ = act(state, Escape(3, now=2.0))
    assert state.result is not None and state.result.winners == (0, 2)
    assert points(state) == [1, 0, 1, -2]


def test_skipped_turns_count_as_the_escapers_rounds() -> None:
    state = start(position(s1_62=(1, "flag")), no_capture_plies=None)
    while state.seats[2].moves + state.seats[2].skips < 15:
        if state.to_move == 2 and state.seats[2].skips < 4:
            state, _ = act(state, Timeout(now=state.deadline))
        else:
            state = pass_turn(state)
    assert state.seats[2].moves == 11
    state, _ = act(state, Escape(2, now=2.0))
    assert state.result is not None and state.result.winners == (1, 3)


def test_timeouts_to_the_skip_limit_are_an_escape() -> None:
    state = start(position(s1_62=(1, "flag")))
    for _ in range(50):
        if state.phase != "playing":
            break
        state, events = act(state, Timeout(now=state.deadline))
    assert out(state, 0) == "escape"
    assert state.seats[0].timeouts == 5
    assert [e.data for e in events if e.kind == "eliminated"] == [
        {"seat": 0, "reason": "escape", "victor": None}
    ]
    assert state.result is not None and state.result.reason == "escape"
    assert points(state) == [-2, 0, 0, 0]  # no moves were played: nobody else scores


def test_timeouts_to_the_skip_limit_after_15_rounds_give_the_opponents_the_game() -> None:
    state = played(60)
    while state.phase == "playing":
        state, _ = act(state, Timeout(now=state.deadline))
    assert out(state, 0) == "escape"
    assert state.result is not None and state.result.winners == (1, 3)
    assert points(state) == [-2, 1, 0, 1]


def test_forced_skips_to_the_limit_are_not_an_escape() -> None:
    pieces = position(s1_62=(1, "flag"))
    pieces.pop("0:51")
    pieces["0:64"] = (0, "captain")  # locked in its HQ: seat 0 can never move
    state = start(pieces)
    for _ in range(40):
        if out(state, 0) is not None:
            break
        state = pass_turn(state)
    assert out(state, 0) == "skips"
    assert state.phase == "playing"  # seat 2 plays on
    assert state.seats[0].timeouts == 0
