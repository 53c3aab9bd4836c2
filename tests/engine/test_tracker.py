"""记牌 (``engine.tracker``): the counts every view carries, checked at every step of random games
of every variant against a plain reference that sees only what its viewer was sent
(``tests.engine.tracker_reference``) and against the truth (never more dead than died, totals
never fewer than the army had), and in games set up by hand."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

import engine
from engine import GameState, arena
from engine.arena import RandomPlayer
from engine.tracker import OWN
from tests.engine.game_helpers import setup
from tests.engine.test_random_games import MAX_ACTIONS, choose_action, new_random_game
from tests.engine.tracker_reference import ReferenceTracker
from tests.soak import soak

GAMES = {variant: soak(2, 12) for variant in engine.VARIANTS}


def truth(state: GameState, viewer: int | None) -> Counter[tuple[int, str]]:
    """The pieces on the board by the army a viewer counts them in, and rank."""
    assert state.position is not None
    out: Counter[tuple[int, str]] = Counter()
    for piece in state.position.cells:
        if piece is not None:
            own = state.flip is None and viewer is not None and piece.seat == viewer
            out[OWN if own else piece.colour, piece.rank.value] += 1
    return out


def rows(counts: dict[str, Any]) -> dict[int, dict[str, dict[str, int]]]:
    """The compact counts by army and rank: ``{"total", "dead", "at_most"}`` (0 or 1)."""
    out = {}
    for army in counts["armies"]:
        at_most = army.get("at_most", [0] * len(counts["ranks"]))
        out[army["army"]] = {
            rank: {"total": total, "dead": dead, "at_most": bound}
            for rank, total, dead, bound in zip(
                counts["ranks"], army["total"], army["dead"], at_most, strict=True
            )
        }
    return out


def check_sound(counts: dict[str, Any], first: Counter[Any], now: Counter[Any]) -> None:
    assert all(any(a["total"][i] for a in counts["armies"]) for i in range(len(counts["ranks"]))), (
        "a rank no army has"
    )
    for army, ranks in rows(counts).items():
        for rank, row in ranks.items():
            had = first[army, rank]
            assert row["dead"] <= had - now[army, rank], (army, rank, row)
            if row["at_most"]:
                assert had <= row["total"], (army, rank, row, had)
            else:
                assert had == row["total"], (army, rank, row, had)


@pytest.mark.parametrize("variant", sorted(GAMES))
def test_counts_equal_the_reference_and_never_claim_too_much(variant: str) -> None:
    proven = play_against_the_reference(variant, range(GAMES[variant]), "tracker")
    assert proven, "random games prove some deaths"


@pytest.mark.parametrize("seed", [67, 177, 192, 396])
def test_a_flag_shown_as_its_seat_goes_out_and_a_game_over_before_play(seed: int) -> None:
    """Games where a 司令's death shows the flag in the very action its seat goes out (the flag
    leaves the board proven: a known death), and one that ends by an escape before play (no
    counts at all)."""
    play_against_the_reference("siguo", [seed], "tracker-x")


def play_against_the_reference(variant: str, seeds: Any, name: str) -> Counter[str]:
    """Random games of ``variant`` (their rng named ``name``), each view's counts at every
    step held to the reference and to the truth; the deaths proven, by rank."""
    proven: Counter[str] = Counter()
    for seed in seeds:
        rng = random.Random(f"{name}/{variant}/{seed}")
        state = new_random_game(variant, seed, rng, now=0.0)
        viewers: list[int | None] = [*state.variant.seats, None]
        references = {v: ReferenceTracker(variant, v, state.rules) for v in viewers}
        first: dict[int | None, Counter[Any]] = {}
        now = 0.0
        for _ in range(MAX_ACTIONS):
            if state.phase == "finished":
                break
            now += rng.uniform(0.5, 6.0)
            try:
                state, events = engine.apply(
                    state, choose_action(state, rng, min(now, state.deadline))
                )
            except engine.EngineError:
                continue
            for viewer in viewers:
                view = engine.view(state, viewer)
                reference = references[viewer]
                reference.follow([e for x in events if (e := x.for_viewer(viewer))], view)
                assert view.get("tracker") == reference.counts(), (seed, viewer, events)
                if view.get("tracker") is None:
                    continue
                first.setdefault(viewer, truth(state, viewer))
                check_sound(view["tracker"], first[viewer], truth(state, viewer))
        for viewer in viewers:
            counts = engine.view(state, viewer).get("tracker")
            for ranks in rows(counts).values() if counts else ():
                for rank, row in ranks.items():
                    proven[rank] += row["dead"]
    return proven


def play(state: GameState, *moves: tuple[str, str]) -> GameState:
    for origin, target in moves:
        assert state.to_move is not None
        state, _ = engine.apply(state, engine.Move(state.to_move, origin, target, now=1.0))
    return state


def row(state: GameState, viewer: int | None, army: int, rank: str) -> dict[str, int]:
    return rows(engine.view(state, viewer)["tracker"])[army][rank]


# 二人: seat 0 on stations 0:*, seat 1 on 1:* (row, then column from the owner's left); 0:11
# faces 1:15. Each side keeps its flag and an engineer out of the way.
BASE = {"0:62": (0, "flag"), "1:62": (1, "flag"), "0:51": (0, "engineer"), "1:51": (1, "engineer")}


def dead(state: GameState, viewer: int | None, army: int) -> int:
    return sum(r["dead"] for r in rows(engine.view(state, viewer)["tracker"])[army].values())


def test_a_marshal_that_dies_showing_its_flag_is_known_dead_to_all() -> None:
    pieces = {**BASE, "0:11": (0, "field_marshal"), "1:15": (1, "bomb")}
    state = setup("liangguo", pieces)
    assert row(state, 1, 0, "field_marshal") == {"total": 1, "dead": 0, "at_most": 0}
    state = play(state, ("0:11", "1:15"))  # the 司令 meets the bomb: seat 0's flag is shown
    for viewer in (1, None):
        assert row(state, viewer, 0, "field_marshal") == {"total": 1, "dead": 1, "at_most": 0}
    # seat 0 saw its 司令 trade with a bomb or a 司令, and seat 1's flag stayed hidden: a bomb
    assert row(state, 0, 1, "bomb")["dead"] == 1
    assert dead(state, 0, 1) == 1
    assert dead(state, None, 1) == 0  # a spectator saw a trade of two unknown pieces


def test_a_trade_without_the_flag_shown_proves_nothing_more() -> None:
    pieces = {**BASE, "0:11": (0, "captain"), "1:15": (1, "captain")}
    state = play(setup("liangguo", pieces), ("0:11", "1:15"))  # two 连长 trade
    assert dead(state, 1, 0) == dead(state, None, 0) == dead(state, 0, 1) == 0
    assert row(state, 0, 1, "captain") == {"total": 3, "dead": 0, "at_most": 0}


def test_a_rank_the_rules_showed_counts_once_it_dies() -> None:
    pieces = {**BASE, "0:11": (0, "engineer"), "1:15": (1, "general"), "0:21": (0, "field_marshal")}
    state = setup("liangguo", pieces, engineer_scouting="all")
    state = play(state, ("0:11", "1:15"))  # the engineer dies and shows the 军长 to all
    assert dead(state, None, 1) == 0
    state = play(state, ("1:51", "1:41"), ("0:21", "0:11"), ("1:41", "1:51"), ("0:11", "1:15"))
    for viewer in (0, None):  # the 司令 took the 军长 everyone had seen
        assert row(state, viewer, 1, "general")["dead"] == 1
    # the engineer that died on the 军长 was smaller than a 军长: not proven an engineer
    assert dead(state, 1, 0) == dead(state, None, 0) == 0


def test_views_before_play_have_no_counts() -> None:
    state = engine.new_game("siguo", seed=1)
    assert "tracker" not in engine.view(state, 0)


@pytest.mark.parametrize("variant", ["siguo", "fanqi", "sandayi"])
def test_counts_worked_out_late_and_in_any_order_are_the_same(variant: str) -> None:
    """Applying an action works nothing out; a state first looked at long after (a replay's
    step, a spectator who comes late) gets the counts it would have had at once."""
    rng = random.Random(f"late/{variant}")
    state = new_random_game(variant, 0, rng, now=0.0)
    at_once: list[list[Any]] = []
    now = 0.0
    while state.phase != "finished" and len(at_once) < 400:
        now += rng.uniform(0.5, 6.0)
        try:
            state, _ = engine.apply(state, choose_action(state, rng, min(now, state.deadline)))
        except engine.EngineError:
            continue
        at_once.append([engine.view(state, v).get("tracker") for v in [*state.variant.seats, None]])
    replayed = list(engine.states(engine.record_of(state)))[-len(at_once) :]
    assert not any(worked_out(s) for s in replayed)  # nothing yet
    order = list(range(len(replayed)))
    rng.shuffle(order)
    for k in order:
        seen = [engine.view(replayed[k], v).get("tracker") for v in [*state.variant.seats, None]]
        assert seen == at_once[k], k
    assert any(counts for step in at_once for counts in step)


def test_bots_never_make_the_engine_work_the_counts_out() -> None:
    """A bot's view has no counts, and a game between bots leaves every state's unworked."""
    looked: list[GameState] = []

    def watch(before: GameState, action: Any, after: GameState, events: Any) -> None:
        looked.append(after)

    players = {seat: RandomPlayer() for seat in range(2)}
    arena.play("liangguo", 1, players, watch=watch)
    in_play = [s for s in looked if s.tracks is not None]
    assert in_play and not any(worked_out(s) for s in in_play)
    assert "tracker" not in engine.view(in_play[-1], 0, tracker=False)
    assert not worked_out(in_play[-1])
    assert "tracker" in engine.view(in_play[-1], 0)
    assert worked_out(in_play[-1])


def worked_out(state: GameState) -> bool:
    return state.tracks is not None and state.tracks.seen is not None
