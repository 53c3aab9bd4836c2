"""自动布局 of dealt hands (乱战 docs/rules.md §9.2 step 3, 三打一 §9.3 step 5): every hand the
platform deals is laid out legally whatever the player's draft holds, and a hand no layout can
hold is refused as malformed, never an ``IndexError`` (#25 point 5)."""

from __future__ import annotations

import random

import pytest

import engine
from engine import MalformedInput, Rank
from engine.deal import IDLE_LIEUTENANTS, deal_luanzhan, deal_sandayi
from engine.deployment import deploy_stations
from tests.soak import soak

LUANZHAN = engine.get_variant("luanzhan")
SANDAYI = engine.get_variant("sandayi")


def hand_of(*counts: tuple[Rank, int], colour: int = 0) -> list[tuple[Rank, int | None]]:
    return [(rank, colour) for rank, n in counts for _ in range(n)]


def legal(variant: str, seat: int, layout: dict[str, str], **deal: object) -> bool:
    return engine.layout_problems(variant, seat, layout, **deal) == []  # type: ignore[arg-type]


def hqs(variant: engine.Variant, seat: int) -> list[str]:
    stations = deploy_stations(variant.board, seat, False)
    return [s for s in stations if variant.board.station(s).kind == "hq"]


# 12 landmines (all four armies') and two flags: two flags in both HQs leave 8 back-row
# stations and 3 in row 4 for 12 landmines, so the draft's second flag becomes a 军长
TWELVE_MINES = hand_of((Rank.LANDMINE, 12), (Rank.FLAG, 2), (Rank.ENGINEER, 6), (Rank.CAPTAIN, 5))


def test_two_flags_in_the_draft_give_way_when_the_landmines_need_the_room() -> None:
    draft = dict.fromkeys(hqs(LUANZHAN, 0), "flag")
    layout = engine.auto_layout("luanzhan", 0, 3, draft, hand=TWELVE_MINES)
    assert legal("luanzhan", 0, layout, hand=TWELVE_MINES)
    assert list(layout.values()).count("flag") == 1  # the other became a 军长
    assert list(layout.values()).count("general") == 1
    assert list(layout.values()).count("landmine") == 12


def test_a_draft_s_row_4_landmine_counts_against_the_allowance_when_pieces_move() -> None:
    # six landmines: one may stand in row 4. The draft has one there and a 炸弹 on the other
    # row-4 station the landmines could take; its back rows are full of officers
    hand = hand_of(
        (Rank.LANDMINE, 6), (Rank.FLAG, 1), (Rank.BOMB, 2), (Rank.ENGINEER, 8), (Rank.MAJOR, 8)
    )
    draft = {"0:43": "landmine", "0:41": "bomb", "0:45": "major"}
    for sid in ("0:51", "0:52", "0:53", "0:54", "0:55", "0:61", "0:63", "0:65"):
        draft[sid] = "major" if sid != "0:65" else "engineer"
    for seed in range(40):
        layout = engine.auto_layout("luanzhan", 0, seed, draft, hand=hand)
        assert legal("luanzhan", 0, layout, hand=hand), (seed, layout)
        assert sum(1 for s, k in layout.items() if k == "landmine" and s[2] == "4") <= 1


def test_colour_choices_are_checked_against_the_flags_finally_kept() -> None:
    # flags of colours 1, 2, 3 and a dealt 军长 of colour 2: the draft asks for two 军长 of
    # colour 2 (one dealt, one a flag turned 军长) while naming two flags, neither in an HQ.
    # Two flags are kept (the lowest colours, 1 and 2), so only one 军长 is of colour 2
    hand = [
        (Rank.ENGINEER, 0),
        *hand_of((Rank.LANDMINE, 3), (Rank.ENGINEER, 2), (Rank.MAJOR, 9), colour=0),
        (Rank.FLAG, 1),
        (Rank.FLAG, 2),
        (Rank.FLAG, 3),
        (Rank.GENERAL, 2),
        *hand_of((Rank.CAPTAIN, 6), colour=1),
    ]
    draft = {"0:15": "general/2", "0:25": "general/2", "0:31": "flag", "0:21": "flag"}
    layout = engine.auto_layout("luanzhan", 0, 1, draft, hand=hand)
    assert legal("luanzhan", 0, layout, hand=hand), layout


@pytest.mark.parametrize(
    "hand",
    [
        hand_of((Rank.MAJOR, 30)),  # more pieces than the arm has stations
        hand_of((Rank.LANDMINE, 14), (Rank.FLAG, 1), (Rank.MAJOR, 10)),  # no room for them
    ],
    ids=["too_many_pieces", "too_many_landmines"],
)
def test_a_hand_no_layout_can_hold_is_malformed(hand: list[tuple[Rank, int | None]]) -> None:
    with pytest.raises(MalformedInput, match="no layout holds this hand"):
        engine.auto_layout("luanzhan", 0, 0, hand=hand)


def adversarial_draft(
    rng: random.Random,
    variant: engine.Variant,
    seat: int,
    hand: list[tuple[Rank, int | None]],
    banker: bool,
) -> dict[str, str]:
    """Pieces of the hand (with or without their colours) on most stations, flags in HQs."""
    stations = deploy_stations(variant.board, seat, banker)
    draft = {}
    for sid in stations:
        if rng.random() < 0.7:
            rank, colour = rng.choice(hand)
            use_colour = colour is not None and rng.random() < 0.5
            draft[sid] = f"{rank.value}/{colour}" if use_colour else rank.value
        if variant.board.station(sid).kind == "hq" and rng.random() < 0.5:
            draft[sid] = "flag"
    return draft


@pytest.mark.parametrize("deal", range(soak(60, 2000)))
def test_every_dealt_luanzhan_hand_is_laid_out_around_any_draft(deal: int) -> None:
    rng = random.Random(deal)
    dealt = deal_luanzhan(f"lz-{deal}")
    for colour in range(4):
        hand = [(Rank.ENGINEER, colour), *dealt.hands[colour]]
        draft = adversarial_draft(rng, LUANZHAN, colour, hand, False)
        for partial in (draft, {}):
            layout = engine.auto_layout("luanzhan", colour, deal, partial, hand=hand)
            assert legal("luanzhan", colour, layout, hand=hand), (deal, colour, partial)


@pytest.mark.parametrize("deal", range(soak(40, 1500)))
def test_every_dealt_sandayi_hand_is_laid_out_around_any_draft(deal: int) -> None:
    rng = random.Random(deal)
    dealt = deal_sandayi(f"sd-{deal}")
    banker = deal % 4
    for seat, dealt_hand in enumerate(dealt.hands):
        is_banker = seat == banker
        extra = dealt.kept if is_banker else ((Rank.LIEUTENANT, None),) * IDLE_LIEUTENANTS
        hand: list[tuple[Rank, int | None]] = [(rank, None) for rank, _ in (*dealt_hand, *extra)]
        draft = adversarial_draft(rng, SANDAYI, seat, hand, is_banker)
        for partial in (draft, {}):
            layout = engine.auto_layout("sandayi", seat, deal, partial, hand=hand, banker=is_banker)
            assert legal("sandayi", seat, layout, hand=hand, banker=is_banker), (deal, seat)
