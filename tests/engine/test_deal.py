"""Provably fair deals (docs/rules.md §9.2 step 1, §9.3 step 2, §9.6): commitments, composition,
determinism, and that anyone holding the revealed seed can re-derive every hand of a game."""

from __future__ import annotations

from collections import Counter

import pytest

import engine
from engine import AnswerRedeal, Escape, PickColour, Rank
from engine.deal import (
    DealtPiece,
    LuanzhanDeal,
    commitment,
    deal_fanqi,
    deal_luanzhan,
    deal_sandayi,
    verify,
)

# docs/rules.md §1: one standard army of 25 pieces, written out independently of the engine.
ARMY = {
    Rank.FIELD_MARSHAL: 1,
    Rank.GENERAL: 1,
    Rank.MAJOR_GENERAL: 2,
    Rank.BRIGADIER: 2,
    Rank.COLONEL: 2,
    Rank.MAJOR: 2,
    Rank.CAPTAIN: 3,
    Rank.LIEUTENANT: 3,
    Rank.ENGINEER: 3,
    Rank.LANDMINE: 3,
    Rank.BOMB: 2,
    Rank.FLAG: 1,
}
SPECIALS: Counter[DealtPiece] = Counter(
    {(Rank.SUPREME_MARSHAL, None): 1, (Rank.FORTRESS, None): 1, (Rank.MISSILE, None): 1}
)


def armies(colours: range) -> Counter[DealtPiece]:
    """Every piece of the standard armies of ``colours``, as (rank, colour)."""
    return Counter({(rank, c): n for c in colours for rank, n in ARMY.items()})


# --- commitment ----------------------------------------------------------------------------------


def test_commitment_is_a_sha256_hex_digest() -> None:
    published = commitment("table-7/game-42")
    assert len(published) == 64 and int(published, 16) >= 0
    assert commitment("table-7/game-42") == published


def test_verify_accepts_the_committed_seed() -> None:
    assert verify("table-7/game-42", commitment("table-7/game-42"))


def test_verify_rejects_a_wrong_seed() -> None:
    published = commitment("table-7/game-42")
    assert not verify("table-7/game-43", published)
    assert not verify("", published)


def test_different_seeds_have_different_commitments() -> None:
    assert commitment("a") != commitment("b")


# --- determinism ---------------------------------------------------------------------------------


def test_the_same_seed_deals_the_same_luanzhan_hands() -> None:
    assert deal_luanzhan("s", 0) == deal_luanzhan("s", 0)
    assert deal_luanzhan("s", 2) == deal_luanzhan("s", 2)


def test_different_seeds_or_deal_numbers_deal_differently() -> None:
    assert deal_luanzhan("s", 0).hands != deal_luanzhan("t", 0).hands
    assert deal_luanzhan("s", 0).hands != deal_luanzhan("s", 1).hands


def test_the_same_seed_deals_the_same_sandayi_hands_and_bottom() -> None:
    assert deal_sandayi("s", 1) == deal_sandayi("s", 1)
    assert deal_sandayi("s", 0).hands != deal_sandayi("t", 0).hands
    assert deal_sandayi("s", 0).hands != deal_sandayi("s", 1).hands


def test_the_same_seed_lays_out_the_same_fanqi_board() -> None:
    stations = fanqi_stations()
    assert deal_fanqi("s", stations) == deal_fanqi("s", stations)
    assert deal_fanqi("s", stations) != deal_fanqi("t", stations)


# --- 乱战 ----------------------------------------------------------------------------------------


def test_luanzhan_deals_four_hands_of_24() -> None:
    dealt = deal_luanzhan("x", 0)
    assert dealt.number == 0
    assert [len(hand) for hand in dealt.hands] == [24, 24, 24, 24]


def test_luanzhan_hands_are_four_armies_minus_one_engineer_of_each_colour() -> None:
    dealt = deal_luanzhan("x", 0)
    pieces = Counter(p for hand in dealt.hands for p in hand)
    expected = armies(range(4)) - Counter({(Rank.ENGINEER, c): 1 for c in range(4)})
    assert sum(pieces.values()) == 96
    assert pieces == expected


def test_luanzhan_hands_mix_the_colours() -> None:
    dealt = deal_luanzhan("x", 0)
    assert all(len({colour for _, colour in hand}) > 1 for hand in dealt.hands)


@pytest.mark.parametrize("colour", range(4))
def test_hand_for_adds_the_set_aside_engineer_of_the_colour(colour: int) -> None:
    dealt = deal_luanzhan("x", 3)
    hand = dealt.hand_for(colour)
    assert len(hand) == 25
    assert hand[0] == (Rank.ENGINEER, colour)
    assert hand[1:] == dealt.hands[colour]


def test_the_four_full_hands_are_the_four_armies() -> None:
    dealt = deal_luanzhan("y", 1)
    pieces = Counter(p for c in range(4) for p in dealt.hand_for(c))
    assert pieces == armies(range(4))


# --- 三打一 --------------------------------------------------------------------------------------


def test_sandayi_deals_four_hands_of_20() -> None:
    dealt = deal_sandayi("x", 0)
    assert [len(hand) for hand in dealt.hands] == [20, 20, 20, 20]


def test_sandayi_hands_and_bottom_are_four_armies_and_the_three_specials() -> None:
    dealt = deal_sandayi("x", 0)
    in_hands = Counter(p for hand in dealt.hands for p in hand)
    bottom = Counter(dealt.bottom)
    assert len(dealt.bottom) == 23
    assert bottom & SPECIALS == SPECIALS
    assert sum((bottom - SPECIALS).values()) == 20
    assert in_hands + (bottom - SPECIALS) == armies(range(4))
    assert not any(colour is None for hand in dealt.hands for _, colour in hand)


def test_sandayi_banker_keeps_19_of_the_bottom() -> None:
    dealt = deal_sandayi("x", 0)
    kept = Counter(dealt.kept)
    assert len(dealt.kept) == 19
    assert not kept - Counter(dealt.bottom)  # a sub-multiset of the bottom


def test_sandayi_kept_pieces_vary_with_the_seed() -> None:
    assert Counter(deal_sandayi("x", 0).kept) != Counter(deal_sandayi("z", 0).kept)


# --- 翻棋 ----------------------------------------------------------------------------------------


def fanqi_stations() -> list[str]:
    board = engine.get_board("liangguo")
    return [s for s in board.stations if board.station(s).kind != "camp"]


def test_fanqi_covers_the_50_non_camp_stations() -> None:
    stations = fanqi_stations()
    placed = deal_fanqi("x", stations)
    assert len(stations) == 50
    assert sorted(placed) == sorted(stations)


def test_fanqi_places_two_standard_armies() -> None:
    placed = deal_fanqi("x", fanqi_stations())
    assert Counter(placed.values()) == armies(range(2))


def test_fanqi_needs_exactly_50_stations() -> None:
    with pytest.raises(engine.MalformedInput):
        deal_fanqi("x", fanqi_stations()[:49])


# --- anyone can re-derive the deal of a game -----------------------------------------------------


def pick_all(state: engine.GameState, colours: dict[int, int]) -> engine.GameState:
    """Every picker in order takes the colour ``colours`` gives it."""
    for seat in state.deal.order:
        state, _ = engine.apply(state, PickColour(seat, colours[seat], now=1.0))
    return state


def test_luanzhan_hands_in_the_game_are_the_re_derived_deal() -> None:
    state = engine.new_game("luanzhan", seed="fair-1", host=2, now=0.0)
    state = pick_all(state, {1: 3, 0: 1, 3: 0})  # host 2 gets colour 2
    picks = state.deal.picks
    assert picks == (1, 3, 2, 0)
    dealt = deal_luanzhan("fair-1", state.deal.number)
    for seat in range(4):
        colour = picks[seat]
        assert colour is not None
        assert state.deal.hands[seat] == dealt.hand_for(colour)
        own = engine.view(state, seat)["deal"]["hand"]
        assert own == [{"rank": r.value, "army": a} for r, a in dealt.hand_for(colour)]


def by_deadlines(state: engine.GameState) -> engine.GameState:
    """Let every deadline pass (random picks, no redeal, automatic layouts) until play starts."""
    while state.phase != "playing":
        state, _ = engine.apply(state, engine.Deadline(now=state.deadline))
    return state


def test_the_revealed_seed_matches_the_commitment_shown_during_the_game() -> None:
    state = engine.new_game("luanzhan", seed="fair-2", host=0, now=0.0)
    shown = engine.view(state, None)["commitment"]
    assert engine.view(state, None)["seed"] is None
    state = by_deadlines(state)
    assert engine.view(state, 1)["seed"] is None
    assert engine.view(state, 1)["commitment"] == shown
    state, _ = engine.apply(state, Escape(1, now=state.deadline - 1))
    assert state.phase == "finished"
    seed = engine.view(state, None)["seed"]
    assert seed == "fair-2"
    assert verify(seed, shown)
    dealt = deal_luanzhan(seed, state.deal.number)
    picks = [c for c in state.deal.picks if c is not None]
    assert sorted(picks) == [0, 1, 2, 3]
    assert [state.deal.hands[s] for s in range(4)] == [dealt.hand_for(c) for c in picks]


def test_the_seed_is_in_the_game_over_event() -> None:
    state = by_deadlines(engine.new_game("luanzhan", seed="fair-5", host=3, now=0.0))
    state, events = engine.apply(state, Escape(0, now=state.deadline - 1))
    (over,) = [e.for_viewer(None) for e in events if e.kind == "game_over"]
    assert over is not None and verify(over["seed"], state.commitment)


def test_the_seed_is_revealed_when_an_escape_ends_the_game_while_picking() -> None:
    state = engine.new_game("luanzhan", seed="fair-6", host=0, now=0.0)
    shown = engine.view(state, 2)["commitment"]
    state = pick_all(state, {3: 2, 2: 0, 1: 1})
    state, _ = engine.apply(state, Escape(1, now=2.0))
    assert state.phase == "finished"
    seed = engine.view(state, 2)["seed"]
    assert seed == "fair-6" and verify(seed, shown)


def test_a_redealt_game_re_derives_with_the_deal_number() -> None:
    seed = weak_seed()
    state = engine.new_game("luanzhan", seed=seed, host=0, now=0.0)
    weak = weak_colour(deal_luanzhan(seed, 0))
    state = pick_all(state, {3: weak, **others(weak)})
    for seat in range(4):
        state, _ = engine.apply(state, AnswerRedeal(seat, seat == 3, now=2.0))
    assert state.phase == "picking" and state.deal.number == 1
    state = pick_all(state, {3: 0, 2: 1, 1: 2})
    dealt = deal_luanzhan(seed, 1)
    assert [state.deal.hands[s] for s in range(4)] == [dealt.hand_for(c) for c in (3, 2, 1, 0)]


def test_sandayi_hands_while_bidding_are_the_re_derived_deal() -> None:
    state = engine.new_game("sandayi", seed="fair-3", host=1, now=0.0)
    assert state.phase == "bidding"
    dealt = deal_sandayi("fair-3", 0)
    assert state.deal.hands == dealt.hands
    for seat in range(4):
        own = engine.view(state, seat)["deal"]["hand"]
        assert own == [{"rank": r.value, "army": a} for r, a in dealt.hands[seat]]


def test_sandayi_redeal_after_four_passes_uses_the_next_deal_number() -> None:
    state = engine.new_game("sandayi", seed="fair-4", host=0, now=0.0)
    for _ in range(4):
        (seat,) = state.deal.waiting
        state, _ = engine.apply(state, engine.Bid(seat, 0, now=1.0))
    assert state.phase == "bidding" and state.deal.number == 1
    assert state.deal.hands == deal_sandayi("fair-4", 1).hands


# --- helpers for seeds with weak hands -----------------------------------------------------------

STRONG = {Rank.FIELD_MARSHAL, Rank.GENERAL, Rank.MAJOR_GENERAL}


def weak_colour(dealt: LuanzhanDeal) -> int:
    """The first colour whose 24 dealt pieces hold no 司令, 军长 or 师长."""
    return next(c for c, hand in enumerate(dealt.hands) if not STRONG & {r for r, _ in hand})


def weak_seed() -> str:
    for n in range(10_000):
        dealt = deal_luanzhan(f"weak-{n}", 0)
        if any(not STRONG & {r for r, _ in hand} for hand in dealt.hands):
            return f"weak-{n}"
    raise AssertionError("no seed with a weak hand")


def others(colour: int) -> dict[int, int]:
    """Picks for seats 2 and 1 (host 0) of the colours other than ``colour`` (seat 3's)."""
    rest = [c for c in range(4) if c != colour]
    return {2: rest[0], 1: rest[1]}
