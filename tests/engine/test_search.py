"""Determinized search: guessed positions keep armies whole; worths follow the material."""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

import pytest

import engine
from engine import search
from engine.beliefs import Beliefs
from engine.deployment import auto_layout
from engine.pieces import STANDARD_ARMY
from engine.search import (
    CLOSE,
    ENEMY_SIGHT,
    EXPOSED,
    FEAR,
    LOCKED,
    PRESS,
    PRESS_FAR,
    REACH,
    RISK,
    SHOWN,
    STRANDED,
    VALUE,
    expected_gains,
    sample_ranks,
)
from tests.engine.game_helpers import Pieces, setup

# three more pieces of seat 0 that can move, far from the action: no seat of ours is short of
# them, and its 司令 is alive (its death would show the flag: the threats to it would weigh FEAR)
RESERVE: Pieces = {"0:21": (0, "colonel"), "0:23": (0, "field_marshal"), "0:25": (0, "colonel")}


@pytest.mark.parametrize("seed", range(40))
def test_guessed_positions_keep_every_army_whole(seed: int) -> None:
    pieces = {
        sid: (seat, rank)
        for seat in (0, 1)
        for sid, rank in auto_layout("liangguo", seat, seed).items()
    }
    state, _ = engine.start_from("liangguo", pieces, seed="t", host=0)
    view = engine.view(state, 0)
    beliefs = Beliefs("liangguo", 0)
    beliefs.update(view)
    guesses = beliefs.table()
    sample = sample_ranks(view, guesses, random.Random(seed))
    assert set(sample) == set(pieces)
    theirs = Counter(rank for seat, rank in sample.values() if seat == 1)
    assert theirs == Counter({rank.value: n for rank, n in STANDARD_ARMY.items()})
    for station, (seat, rank) in sample.items():
        if seat == 0:  # its own pieces as they are
            assert rank == pieces[station][1]
        else:  # only ranks the beliefs allow: the flag in an HQ, no landmine up front
            assert guesses[station].get(rank, 0) > 0


def test_a_certain_guess_is_kept() -> None:
    pieces: Pieces = {"0:62": (0, "flag"), "0:51": (0, "general"), "1:62": (1, "flag")}
    pieces.update({"1:15": (1, "captain"), "1:14": (1, "major")})
    view = engine.view(setup("liangguo", pieces), 0)
    guesses = {"1:15": {"bomb": 1.0}, "1:62": {"flag": 0.5, "landmine": 0.5}}
    for seed in range(20):
        sample = sample_ranks(view, guesses, random.Random(seed))
        assert sample["1:15"] == (1, "bomb")
        assert sample["1:62"][1] in ("flag", "landmine")


def test_a_sure_capture_is_worth_the_piece_taken() -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "general"),
        "1:62": (1, "flag"),
        "1:15": (1, "captain"),
        "1:14": (1, "major"),  # cannot take the general back
        **RESERVE,
    }
    view = engine.view(setup("liangguo", pieces, information="open"), 0)
    gains = expected_gains(view, {}, random.Random(1), [("0:51", "1:15")], samples=4)
    assert gains == {("0:51", "1:15"): VALUE["captain"]}


def test_a_gamble_costs_its_spread_times_the_risk_taken() -> None:
    """A move that wins on some guesses and loses on others is worth its mean less ``risk``
    times its spread: the bolder the level (hard takes a third), the more it is worth."""
    pieces: Pieces = {"0:62": (0, "flag"), "0:51": (0, "general"), "1:62": (1, "flag")}
    pieces.update({"1:15": (1, "captain"), "1:14": (1, "major"), **RESERVE})
    view = engine.view(setup("liangguo", pieces), 0)
    guesses = {"1:15": {"captain": 0.5, "bomb": 0.5}}
    move = ("0:51", "1:15")
    worth = {
        risk: expected_gains(view, guesses, random.Random(1), [move], 40, risk=risk)[move]
        for risk in (0.0, RISK / 2, RISK)
    }
    assert worth[0.0] > worth[RISK / 2] > worth[RISK]
    assert worth[RISK / 2] == pytest.approx((worth[0.0] + worth[RISK]) / 2)


def test_a_piece_that_will_be_taken_back_is_marked_down() -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "general"),
        "1:62": (1, "flag"),
        "1:15": (1, "captain"),
        "1:14": (1, "field_marshal"),  # takes the general back on 1:15
        **RESERVE,
    }
    view = engine.view(setup("liangguo", pieces, information="open"), 0)
    gains = expected_gains(view, {}, random.Random(1), [("0:51", "1:15")], samples=4, rounds=1)
    # in full, not ENEMY_SIGHT of it: the winner has shown it beat the captain, and their 司令
    # beats whatever beats a captain (an answer on a piece that did not just win counts
    # ENEMY_SIGHT of it: test_an_enemy_s_answer_into_an_hq_counts_its_winner_stuck_there)
    expected = VALUE["captain"] - VALUE["general"]
    assert gains[("0:51", "1:15")] == pytest.approx(expected)


@pytest.mark.parametrize("shown", [False, True])
def test_losing_the_last_field_marshal_costs_the_flag_it_shows(shown: bool) -> None:
    """Our 司令 hits a bomb, our bomb their 司令: each 司令 costs its value and, while it is its
    seat's last and the flag is hidden, ``SHOWN`` more; once the flag is shown, its value
    only. A second 司令 of the same seat would still hide the flag (乱战's hands)."""
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "field_marshal"),
        "0:53": (0, "bomb"),
        "1:62": (1, "flag"),
        "1:15": (1, "bomb"),
        "1:13": (1, "field_marshal"),
        **RESERVE,
        "0:23": (0, "colonel"),  # (not the reserve's 司令: ours on 0:51 is the last)
    }
    view = engine.view(setup("liangguo", pieces), 0)
    if shown:  # their flag shown (as a scout's or a 司令's death shows it): theirs shows no more
        for p in view["pieces"]:
            if p["station"] == "1:62":
                p["rank"] = "flag"
    guesses = {"1:15": {"bomb": 1.0}, "1:13": {"field_marshal": 1.0}, "1:62": {"flag": 1.0}}
    ours, theirs = ("0:51", "1:15"), ("0:53", "1:13")
    gains = expected_gains(view, guesses, random.Random(1), [ours, theirs], samples=2)
    assert gains[ours] == pytest.approx(VALUE["bomb"] - VALUE["field_marshal"] - SHOWN)
    assert SHOWN > 0
    extra = 0.0 if shown else SHOWN
    assert gains[theirs] == pytest.approx(VALUE["field_marshal"] + extra - VALUE["bomb"])


def test_winning_into_an_hq_that_holds_no_flag_locks_the_winner() -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "general"),
        "1:64": (1, "flag"),
        "1:62": (1, "captain"),
        "1:52": (1, "landmine"),
        **RESERVE,
    }
    view = engine.view(setup("liangguo", pieces, information="open"), 0)
    view["legal_moves"] = {"0:51": ["1:62"]}
    gains = expected_gains(view, {}, random.Random(1), [("0:51", "1:62")], samples=2)
    # the captain was stuck in that HQ too: worth as little as the winner keeps
    expected = (1 - LOCKED) * VALUE["captain"] - LOCKED * VALUE["general"]
    assert gains[("0:51", "1:62")] == pytest.approx(expected)


def test_an_enemy_s_answer_into_an_hq_counts_its_winner_stuck_there() -> None:
    """The enemy general may take our captain in our HQ 0:64 (and stay there for good) or our
    lieutenant on 0:55: it takes the lieutenant, and from there the rail brings it onto our
    colonel beside the flag (a move from the flag: ``REACH``). On 0:65 it was not two steps
    from there (``CLOSE``): the way through the HQ 0:64 is none (a piece would stay there)."""
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:61": (0, "landmine"),
        "0:63": (0, "landmine"),
        "0:52": (0, "colonel"),
        "0:64": (0, "captain"),
        "0:55": (0, "lieutenant"),
        "0:65": (1, "general"),
        "1:62": (1, "flag"),
        **RESERVE,
    }
    view = engine.view(setup("liangguo", pieces, information="open"), 0)
    quiet = ("0:21", "0:11")
    gains = expected_gains(view, {}, random.Random(1), [quiet], samples=2)
    assert gains[quiet] == pytest.approx(-ENEMY_SIGHT * VALUE["lieutenant"] - REACH)
    # had the lieutenant won a fight, the enemy would know it for what it is: counted in full
    gains = expected_gains(view, {}, random.Random(1), [quiet], samples=2, proven={"0:55"})
    assert gains[quiet] == pytest.approx(-VALUE["lieutenant"] - REACH)


def test_guessed_positions_follow_the_layout_rules_without_beliefs() -> None:
    """With no beliefs to go by, a hidden piece gets a rank that may stand where it stands."""
    pieces = {
        sid: (seat, rank)
        for seat in (0, 1)
        for sid, rank in auto_layout("liangguo", seat, 7).items()
    }
    view = engine.view(engine.start_from("liangguo", pieces, seed="t", host=0)[0], 0)
    board = engine.get_board("liangguo")
    for seed in range(40):
        for station, (_, rank) in sample_ranks(view, {}, random.Random(seed)).items():
            row = board.station(station).row
            assert rank != "flag" or board.station(station).kind == "hq"
            assert rank != "landmine" or row in (5, 6)
            assert rank != "bomb" or row != 1


def test_a_seat_whose_flag_is_shown_has_no_other_flag_in_guessed_positions() -> None:
    """乱战 (no stock to count): seat 1 has no 司令, so its flag on 1:62 is shown from the
    start; a guess that still allows a flag on 1:64 is not followed there."""
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "major"),
        "1:62": (1, "flag"),
        "1:64": (1, "landmine"),
        "1:51": (1, "major"),
        "2:62": (2, "flag"),
        "2:51": (2, "major"),
        "3:62": (3, "flag"),
        "3:51": (3, "major"),
    }
    view = engine.view(setup("luanzhan", pieces), 0)
    guesses = {"1:64": {"flag": 0.5, "landmine": 0.5}}
    for seed in range(20):
        assert sample_ranks(view, guesses, random.Random(seed))["1:64"] == (1, "landmine")


@pytest.mark.parametrize("marshal", [True, False])
def test_an_enemy_stepping_next_to_the_flag_is_counted(marshal: bool) -> None:
    """The lieutenant in the camp may step next to our flag (``REACH`` and ``CLOSE`` now):
    blocking 0:52 with the colonel ends the reach; another move lets it step there
    (``EXPOSED``). Once our 司令 is dead (or the flag raised), the enemies know where our flag
    is, and every threat to it weighs ``FEAR`` times more."""
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:61": (0, "landmine"),
        "0:63": (0, "landmine"),
        "0:51": (0, "colonel"),
        "0:15": (0, "major"),
        "0:42": (1, "lieutenant"),  # in a camp: safe, and one step from 0:52
        "1:62": (1, "flag"),
        **RESERVE,
    }
    if not marshal:
        pieces["0:23"] = (0, "colonel")
    view = engine.view(setup("liangguo", pieces, information="open"), 0)
    block, elsewhere = ("0:51", "0:52"), ("0:15", "0:14")
    gains = expected_gains(view, {}, random.Random(1), [block, elsewhere], samples=2)
    fear = 1.0 if marshal else FEAR
    assert FEAR > 1
    assert gains[block] == pytest.approx(fear * REACH)
    assert gains[elsewhere] == pytest.approx(-fear * (EXPOSED - REACH - CLOSE))


@pytest.mark.parametrize("guarded", [True, False])
def test_an_enemy_does_not_take_a_piece_it_would_lose_at_once(guarded: bool) -> None:
    """The enemy general on 0:43 may take our colonel on 0:53; with our 司令 beside it on 0:54
    it would be taken back at once (worth 8 to us, 4 to them), so it does not."""
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:61": (0, "landmine"),
        "0:63": (0, "landmine"),
        "0:52": (0, "landmine"),
        "0:53": (0, "colonel"),
        "0:43": (1, "general"),
        "1:62": (1, "flag"),
        **RESERVE,
        "0:54" if guarded else "0:35": (0, "field_marshal"),  # (0:35: no way to 0:53)
    }
    del pieces["0:23"]
    view = engine.view(setup("liangguo", pieces, information="open"), 0)
    quiet = ("0:21", "0:11")
    gains = expected_gains(view, {}, random.Random(1), [quiet], samples=2)
    lost = 0.0 if guarded else ENEMY_SIGHT * VALUE["colonel"]
    assert gains[quiet] == pytest.approx(-lost)


def test_losing_the_last_pieces_that_can_move_costs_more() -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "general"),
        "1:62": (1, "flag"),
        "1:15": (1, "captain"),
        "1:14": (1, "field_marshal"),  # takes the general back on 1:15
    }
    view = engine.view(setup("liangguo", pieces, information="open"), 0)
    gains = expected_gains(view, {}, random.Random(1), [("0:51", "1:15")], samples=2)
    # the general was seat 0's only piece that can move: two short of three, then three (the
    # answer on the winner in full, as in test_a_piece_that_will_be_taken_back_is_marked_down)
    expected = VALUE["captain"] - VALUE["general"] - STRANDED
    assert gains[("0:51", "1:15")] == pytest.approx(expected)


@pytest.mark.parametrize("seed", range(20))
def test_every_army_with_an_unseen_flag_gets_one_in_an_hq(seed: int) -> None:
    """The flag is on exactly one of a seat's hidden pieces, never on a station the beliefs
    rule out: here 1:62 cannot be it, so 1:64 always is."""
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "general"),
        "1:62": (1, "landmine"),
        "1:64": (1, "flag"),
        "1:15": (1, "captain"),
    }
    view = engine.view(setup("liangguo", pieces), 0)
    guesses = {"1:62": {"landmine": 0.5, "major": 0.5}}
    sample = sample_ranks(view, guesses, random.Random(seed))
    assert sample["1:64"] == (1, "flag")
    assert [r for s, r in sample.values() if s == 1].count("flag") == 1


def test_an_enemy_two_steps_from_our_flag_costs_close() -> None:
    """The enemy major on 0:33 is two steps from 0:52 beside our flag (``CLOSE``); taking it
    with our general ends that."""
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:61": (0, "landmine"),
        "0:63": (0, "landmine"),
        "0:52": (0, "landmine"),
        "0:43": (0, "general"),
        "0:33": (1, "major"),
        "1:62": (1, "flag"),
        **RESERVE,
    }
    view = engine.view(setup("liangguo", pieces, information="open"), 0)
    take, quiet = ("0:43", "0:33"), ("0:21", "0:11")
    gains = expected_gains(view, {}, random.Random(1), [take, quiet], samples=2)
    assert gains[take] == pytest.approx(VALUE["major"] + CLOSE)
    assert gains[quiet] == 0.0


def test_a_threat_to_an_enemy_flag_is_worth_press() -> None:
    """Our colonel steps onto 1:52, beside the enemy flag on 1:62 (guarded by landmines on
    1:61 and 1:63, nothing of theirs can take it back): worth ``PRESS`` times ``EXPOSED``,
    less what it was worth a move from there (``PRESS_FAR`` of ``REACH``)."""
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:61": (0, "landmine"),
        "0:63": (0, "landmine"),
        "0:52": (0, "landmine"),
        "1:62": (1, "flag"),
        "1:61": (1, "landmine"),
        "1:63": (1, "landmine"),
        "1:42": (0, "colonel"),  # in their camp: a step from 1:52
        "1:15": (1, "lieutenant"),  # far away
        **RESERVE,
    }
    view = engine.view(setup("liangguo", pieces, information="open"), 0)
    step = ("1:42", "1:52")
    gains = expected_gains(view, {}, random.Random(1), [step], samples=2)
    assert gains[step] == pytest.approx(PRESS * (EXPOSED - PRESS_FAR * REACH))


def test_with_time_the_search_draws_more_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a deadline exactly ``samples`` positions; with one, more while there is time
    (an anytime search), but never more than ``most``."""
    drawn = []
    real = search.sample_ranks

    def counting(*args: Any) -> dict[str, tuple[int, str]]:
        drawn.append(1)
        return real(*args)

    monkeypatch.setattr(search, "sample_ranks", counting)
    pieces: Pieces = {"0:62": (0, "flag"), "0:51": (0, "general"), "1:62": (1, "flag")}
    pieces.update({"1:15": (1, "captain"), **RESERVE})
    view = engine.view(setup("liangguo", pieces), 0)
    move = [("0:51", "1:15")]
    expected_gains(view, {}, random.Random(1), move, samples=3)
    assert len(drawn) == 3
    drawn.clear()
    expected_gains(view, {}, random.Random(1), move, samples=3, until=time.time() + 60, most=50)
    assert len(drawn) == 50
    drawn.clear()
    expected_gains(view, {}, random.Random(1), move, samples=3, until=time.time() - 1, most=50)
    assert len(drawn) == 3  # out of time: the minimum still
