"""翻棋 (docs/rules.md §9.6): the face-down deal, flips and colours, movement and combat with
face-down pieces, the three ways to win (no movable piece, the flag carry, no legal action) and
what every viewer may see (§8)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest

import engine
from engine import Event, Flip, GameState, Move
from engine.deal import deal_fanqi
from engine.fanqi import Setup
from tests.engine.game_helpers import Pieces, kinds
from tests.engine.leaks import ranks_in
from tests.soak import soak

BOARD = engine.get_board("liangguo")
NON_CAMP = [s for s in BOARD.stations if BOARD.station(s).kind != "camp"]
VIEWERS: list[int | None] = [0, 1, None]


def fanqi(
    pieces: Pieces,
    *,
    face_down: Sequence[str] = (),
    colours: Sequence[int] | None = (0, 1),
    host: int = 0,
) -> GameState:
    """A 翻棋 game in play from a set-up position: pieces are ``(colour, rank)``."""
    state, _ = engine.start_from(
        "fanqi",
        pieces,
        seed="test",
        host=host,
        setup=Setup(face_down=tuple(face_down), colours=colours),
    )
    return state


def play(state: GameState, origin: str, target: str) -> tuple[GameState, list[Event]]:
    assert state.to_move is not None
    return engine.apply(state, Move(state.to_move, origin, target, now=1.0))


def flip(state: GameState, station: str) -> tuple[GameState, list[Event]]:
    assert state.to_move is not None
    return engine.apply(state, Flip(state.to_move, station, now=1.0))


def targets(state: GameState, origin: str) -> list[str]:
    """The targets of ``origin`` in the legal moves the seat to move sees in its view."""
    legal: dict[str, list[str]] = engine.view(state, state.to_move)["legal_moves"]
    return legal.get(origin, [])


def index(sid: str) -> int:
    return BOARD.station(sid).index


def face_down_ids(state: GameState) -> set[str]:
    assert state.flip is not None
    return {s for s in BOARD.stations if state.flip.face_down >> index(s) & 1}


def rank_at(state: GameState, sid: str) -> str | None:
    piece = state.board_position.piece_at(sid)
    return None if piece is None else piece.rank.value


def dealt_station(state: GameState, wanted: Callable[[str], bool]) -> str:
    """The first station whose (face-down) piece has a rank ``wanted`` accepts."""
    pieces = state.board_position.pieces()
    return next(s for s in NON_CAMP if wanted(pieces[s].rank.value))


def swap(pieces: Pieces) -> Pieces:
    """The same position with the two colours exchanged."""
    return {sid: (1 - colour, rank) for sid, (colour, rank) in pieces.items()}


# --- the deal --------------------------------------------------------------------------------


def test_the_deal_puts_50_face_down_pieces_on_the_non_camp_stations() -> None:
    state = engine.new_game("fanqi", seed=11, host=0, now=5.0)
    assert state.phase == "playing" and state.to_move == 0 and state.started_at == 5.0
    assert len(NON_CAMP) == 50
    assert set(state.board_position.pieces()) == set(NON_CAMP)
    assert face_down_ids(state) == set(NON_CAMP)
    assert state.flip is not None and state.flip.colours is None


def test_the_deal_holds_two_full_standard_armies() -> None:
    state = engine.new_game("fanqi", seed=11)
    counts: dict[tuple[int, str], int] = {}
    for piece in state.board_position.pieces().values():
        key = (piece.colour, piece.rank.value)
        counts[key] = counts.get(key, 0) + 1
    expected = {(c, r.value): n for c in (0, 1) for r, n in engine.STANDARD_ARMY.items()}
    assert counts == expected


def test_the_deal_is_deterministic_by_seed() -> None:
    a = engine.new_game("fanqi", seed=3).board_position
    b = engine.new_game("fanqi", seed=3, host=1).board_position
    c = engine.new_game("fanqi", seed=4).board_position
    assert a == b
    assert a != c
    dealt = deal_fanqi("3", NON_CAMP)
    assert {sid: (p.rank, p.colour) for sid, p in a.pieces().items()} == dealt


def test_the_host_moves_first() -> None:
    state = engine.new_game("fanqi", seed=3, host=1)
    assert state.to_move == 1
    assert "legal_moves" in engine.view(state, 1) and "legal_moves" not in engine.view(state, 0)


def test_at_the_start_everyone_sees_only_face_down_pieces() -> None:
    state = engine.new_game("fanqi", seed=8)
    for viewer in VIEWERS:
        seen = engine.view(state, viewer)
        assert len(seen["pieces"]) == 50
        assert all(p == {"station": p["station"], "face_down": True} for p in seen["pieces"])
        assert seen["colours"] is None
    mover = engine.view(state, 0)
    assert mover["legal_moves"] == {} and sorted(mover["flippable"]) == sorted(NON_CAMP)


# --- flips and colours -----------------------------------------------------------------------


def test_a_flip_shows_rank_and_army_to_both_players_and_spectators() -> None:
    state = engine.new_game("fanqi", seed=21)
    piece = state.board_position.piece_at("0:53")
    assert piece is not None
    state, events = flip(state, "0:53")
    assert "0:53" not in face_down_ids(state)
    flipped = next(e for e in events if e.kind == "flipped")
    for viewer in VIEWERS:
        seen = flipped.for_viewer(viewer)
        assert seen is not None
        assert (seen["station"], seen["rank"], seen["army"]) == ("0:53", piece.rank, piece.colour)
        entry = next(p for p in engine.view(state, viewer)["pieces"] if p["station"] == "0:53")
        assert (entry["rank"], entry["army"]) == (piece.rank, piece.colour)
        assert "face_down" not in entry
    assert state.to_move == 1


def test_only_face_down_pieces_can_be_flipped_and_only_in_turn() -> None:
    state = fanqi({"0:53": (0, "major"), "1:53": (1, "major")}, face_down=["1:53"], colours=None)
    with pytest.raises(engine.IllegalAction, match="no face-down piece"):
        flip(state, "0:53")
    with pytest.raises(engine.IllegalAction):
        flip(state, "0:52")  # empty
    with pytest.raises(engine.NotYourTurn):
        engine.apply(state, Flip(1, "1:53", now=1.0))


@pytest.mark.parametrize("flipper", [0, 1])
@pytest.mark.parametrize("colour", [0, 1])
def test_the_first_flipped_engineer_gives_its_colour_to_the_flipper(
    flipper: int, colour: int
) -> None:
    pieces: Pieces = {"0:53": (colour, "engineer"), "1:53": (1 - colour, "engineer")}
    state = fanqi(pieces, face_down=list(pieces), colours=None, host=flipper)
    state, events = flip(state, "0:53")
    assert state.flip is not None and state.flip.colours is not None
    assert state.flip.colours[flipper] == colour
    assert state.flip.colours[1 - flipper] == 1 - colour
    assert "colours" in kinds(events)
    for viewer in VIEWERS:
        seen = engine.view(state, viewer)
        entry = next(p for p in seen["pieces"] if p["station"] == "0:53")
        assert entry["seat"] == flipper
        assert seen["colours"] == list(state.flip.colours)


def test_flipping_a_non_engineer_first_assigns_no_colours() -> None:
    state = engine.new_game("fanqi", seed=21)
    station = dealt_station(state, lambda rank: rank != "engineer")
    state, events = flip(state, station)
    assert state.flip is not None and state.flip.colours is None
    assert "colours" not in kinds(events)
    entry = next(p for p in engine.view(state, None)["pieces"] if p["station"] == station)
    assert entry["seat"] is None


def test_a_later_engineer_does_not_reassign_colours() -> None:
    pieces: Pieces = {"0:53": (1, "engineer"), "1:53": (0, "engineer"), "1:54": (0, "major")}
    state = fanqi(pieces, face_down=list(pieces), colours=None)
    state, _ = flip(state, "0:53")  # seat 0 takes colour 1
    state, events = flip(state, "1:53")  # seat 1 flips a colour-0 engineer
    assert state.flip is not None and state.flip.colours == (1, 0)
    assert "colours" not in kinds(events)


def test_a_move_before_colours_are_assigned_is_refused() -> None:
    state = engine.new_game("fanqi", seed=21)
    station = dealt_station(state, lambda rank: rank not in ("engineer", "landmine", "flag"))
    state, _ = flip(state, station)  # a face-up officer or bomb, nobody's yet
    assert state.to_move == 1 and engine.view(state, 1)["legal_moves"] == {}
    target = next(iter(BOARD.neighbours(station)))
    with pytest.raises(engine.IllegalAction, match="no colour yet"):
        engine.apply(state, Move(1, station, target, now=1.0))


def test_refusals_do_not_tell_face_down_pieces_apart() -> None:
    state = engine.new_game("fanqi", seed=5)
    colour_up = dealt_station(state, lambda rank: rank == "engineer")
    state, _ = flip(state, colour_up)  # seat 0 now has a colour
    assert state.to_move == 1
    messages = set()
    for sid in sorted(face_down_ids(state)):
        target = next(iter(BOARD.neighbours(sid)))
        with pytest.raises(engine.IllegalAction) as refused:
            engine.apply(state, Move(1, sid, target, now=1.0))
        messages.add(str(refused.value).replace(sid, "<station>"))
    assert messages == {"seat 1 has no piece to move on <station>"}


def test_a_move_of_a_face_up_enemy_piece_is_refused() -> None:
    state = fanqi({"0:53": (0, "major"), "1:53": (1, "major")})
    with pytest.raises(engine.IllegalAction, match="no piece to move"):
        play(state, "1:53", "1:52")


# --- movement --------------------------------------------------------------------------------


def test_face_down_pieces_neither_move_nor_can_be_attacked_but_block() -> None:
    pieces: Pieces = {
        "0:51": (0, "general"),
        "0:53": (0, "major"),  # own colour, face down
        "0:41": (1, "captain"),  # enemy, face down
        "0:65": (0, "flag"),
        "1:65": (1, "flag"),
    }
    state = fanqi(pieces, face_down=["0:53", "0:41"])
    legal = engine.view(state, 0)["legal_moves"]
    assert legal == {"0:51": ["0:42", "0:52", "0:61"]}  # the row and the column are blocked
    with pytest.raises(engine.IllegalAction, match="not a legal move"):
        play(state, "0:51", "0:41")
    with pytest.raises(engine.IllegalAction, match="no piece to move"):
        play(state, "0:53", "0:54")


def test_no_hq_lock_a_piece_in_an_hq_moves_out() -> None:
    pieces: Pieces = {"0:62": (0, "major"), "1:54": (0, "captain"), "1:65": (1, "major")}
    state = fanqi(pieces)
    assert sorted(targets(state, "0:62")) == ["0:52", "0:61", "0:63"]
    state, _ = play(state, "1:54", "1:64")  # into the enemy's HQ
    state, _ = play(state, "1:65", "1:55")
    assert "1:54" in targets(state, "1:64")
    state, _ = play(state, "1:64", "1:54")  # and out again
    assert state.board_position.piece_at("1:54") == engine.Piece(0, engine.Rank.CAPTAIN)


@pytest.mark.parametrize("rank", ["flag", "landmine"])
def test_flags_and_landmines_never_move(rank: str) -> None:
    pieces: Pieces = {"0:53": (0, rank), "0:13": (0, "major"), "1:65": (1, "major")}
    state = fanqi(pieces)
    assert "0:53" not in engine.view(state, 0)["legal_moves"]
    with pytest.raises(engine.IllegalAction):
        play(state, "0:53", "0:54")


# --- combat ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attacker", "defender", "outcome", "survivor"),
    [
        ("major", "captain", "attacker", (0, "major")),
        ("captain", "major", "defender", (1, "major")),
        ("colonel", "colonel", "both", None),
        ("engineer", "landmine", "attacker", (0, "engineer")),
        ("general", "landmine", "defender", (1, "landmine")),
        ("bomb", "field_marshal", "both", None),
        ("bomb", "landmine", "both", None),
        ("engineer", "bomb", "both", None),
        ("lieutenant", "flag", "attacker", (0, "lieutenant")),
        ("bomb", "flag", "both", None),
    ],
)
def test_combat_is_standard(
    attacker: str, defender: str, outcome: str, survivor: tuple[int, str] | None
) -> None:
    pieces: Pieces = {
        "0:13": (0, attacker),
        "1:13": (1, defender),
        "0:65": (0, "major"),
        "1:65": (1, "major"),
    }
    state, events = play(fanqi(pieces), "0:13", "1:13")
    moved = next(e for e in events if e.kind == "moved")
    assert moved.data["outcome"] == outcome
    piece = state.board_position.piece_at("1:13")
    assert (None if piece is None else (piece.colour, piece.rank.value)) == survivor
    assert state.board_position.piece_at("0:13") is None
    assert state.phase == "playing"


@pytest.mark.parametrize("colours", [(0, 1), (1, 0)])
def test_an_engineer_digging_a_landmine_counts_for_its_colour(colours: tuple[int, int]) -> None:
    pieces: Pieces = {"0:51": (0, "engineer"), "0:55": (1, "landmine"), "1:65": (1, "major")}
    if colours == (1, 0):
        pieces = swap(pieces)
    state, _ = play(fanqi(pieces, colours=colours), "0:51", "0:55")
    assert state.flip is not None
    assert state.flip.mines_dug[colours[0]] == 1 and state.flip.mines_dug[colours[1]] == 0
    assert engine.view(state, None)["mines_dug"] == list(state.flip.mines_dug)


@pytest.mark.parametrize("attacker", ["general", "bomb"])
def test_only_engineers_dig_landmines(attacker: str) -> None:
    pieces: Pieces = {"0:51": (0, attacker), "0:52": (1, "landmine"), "1:65": (1, "major")}
    state, _ = play(fanqi({**pieces, "0:65": (0, "major")}), "0:51", "0:52")
    assert state.flip is not None and state.flip.mines_dug == (0, 0)


def test_capturing_the_flag_only_removes_it() -> None:
    pieces: Pieces = {"0:13": (0, "major"), "1:13": (1, "flag"), "1:65": (1, "captain")}
    state, events = play(fanqi(pieces), "0:13", "1:13")
    assert "eliminated" not in kinds(events)
    assert state.phase == "playing" and state.to_move == 1
    assert all(s.elimination is None for s in state.seats)
    state, _ = play(state, "1:65", "1:55")  # the flagless side plays on
    assert state.phase == "playing"


def test_flips_reset_the_no_capture_counter() -> None:
    pieces: Pieces = {"0:53": (0, "major"), "1:53": (1, "major"), "0:61": (0, "captain")}
    state = fanqi(pieces, face_down=["0:61"])
    state, _ = play(state, "0:53", "0:54")
    state, _ = play(state, "1:53", "1:54")
    assert state.quiet_moves == 2
    state, _ = flip(state, "0:61")
    assert state.quiet_moves == 0
    state, _ = play(state, "1:54", "1:53")
    assert state.quiet_moves == 1


# --- winning by removing the opponent's movable pieces --------------------------------------

LAST_PIECE: Pieces = {
    "0:13": (0, "general"),
    "0:65": (0, "flag"),
    "1:13": (1, "lieutenant"),  # colour 1's only movable piece on the board
    "1:65": (1, "flag"),
    "1:61": (1, "landmine"),
}


def test_removing_the_last_movable_piece_wins() -> None:
    state, events = play(fanqi(LAST_PIECE), "0:13", "1:13")
    assert state.phase == "finished"
    assert state.result is not None and state.result.winners == (0,)
    out = state.seats[1].elimination
    assert out is not None and (out.reason, out.victor) == ("no_live_pieces", 0)
    assert "game_over" in kinds(events)


@pytest.mark.parametrize(
    ("hidden", "goes_on"),
    [((1, "major"), True), ((1, "bomb"), True), ((1, "landmine"), False), ((0, "major"), False)],
)
def test_face_down_movable_pieces_of_the_colour_still_count(
    hidden: tuple[int, str], goes_on: bool
) -> None:
    state = fanqi({**LAST_PIECE, "1:51": hidden}, face_down=["1:51"])
    state, _ = play(state, "0:13", "1:13")
    assert (state.phase == "playing") == goes_on
    if goes_on:
        assert state.to_move == 1
        seen = engine.view(state, 1)
        assert seen["legal_moves"] == {} and seen["flippable"] == ["1:51"]


def test_losing_ones_own_last_movable_piece_in_an_attack_loses() -> None:
    pieces: Pieces = {
        "0:13": (0, "lieutenant"),  # colour 0's only movable piece
        "0:65": (0, "flag"),
        "1:13": (1, "general"),
        "1:65": (1, "flag"),
    }
    state, _ = play(fanqi(pieces), "0:13", "1:13")
    assert state.result is not None and state.result.winners == (1,)
    out = state.seats[0].elimination
    assert out is not None and (out.reason, out.victor) == ("no_live_pieces", 1)


def test_the_loser_s_pieces_leave_the_board_in_the_end_and_its_replay() -> None:
    """docs/rules.md §7: an eliminated seat's pieces are removed, the face-down ones too; the
    record replays to the same board."""
    state = fanqi({**LAST_PIECE, "1:51": (1, "landmine")}, face_down=["1:51"])
    state, events = play(state, "0:13", "1:13")
    assert state.phase == "finished" and state.seats[1].elimination is not None
    assert state.flip is not None and state.flip.face_down == 0
    left = {p.seat for _, p in state.board_position.indexed()}
    assert left == {0}  # only the winner's colour
    over = next(e for e in events if e.kind == "game_over")
    assert {p["army"] for p in over.data["pieces"]} == {0}
    again = engine.replay(engine.GameRecord.from_json(engine.record_of(state).to_json()))
    assert again.position == state.position and again.flip == state.flip


def test_the_win_goes_to_the_seat_playing_the_colour() -> None:
    state = fanqi(swap(LAST_PIECE), colours=(1, 0))  # seat 0 plays colour 1
    state, _ = play(state, "0:13", "1:13")
    assert state.result is not None and state.result.winners == (0,)


# --- winning when the opponent has no legal action ------------------------------------------

STUCK: Pieces = {
    "0:13": (0, "general"),
    "1:65": (1, "major"),  # hemmed in by its own landmine and flag
    "1:55": (1, "landmine"),
    "1:64": (1, "flag"),
}


def test_no_legal_action_on_ones_turn_loses() -> None:
    state, _ = play(fanqi(STUCK), "0:13", "0:14")
    assert state.phase == "finished"
    assert state.result is not None and state.result.winners == (0,)
    out = state.seats[1].elimination
    assert out is not None and out.reason == "blocked"


def test_an_old_record_replays_a_blocked_loss_as_it_was_played() -> None:
    """Records written before 翻棋's "no legal action loses" was the ``blocked_is_defeat``
    option hold it false (every option is stored, and 翻棋 then ignored it): they replay as
    played, for the REST replay and a restart alike (both replay the record's JSON)."""
    state, _ = play(fanqi(STUCK), "0:13", "0:14")
    record = engine.record_of(state)
    old = json.loads(record.to_json())
    old["options"]["blocked_is_defeat"] = False
    again = engine.replay(engine.GameRecord.from_json(json.dumps(old)))
    assert again == state
    out = again.seats[1].elimination
    assert again.phase == "finished" and out is not None and out.reason == "blocked"


def test_a_face_down_piece_anywhere_is_a_legal_action() -> None:
    state = fanqi({**STUCK, "0:61": (0, "captain")}, face_down=["0:61"])
    state, _ = play(state, "0:13", "0:14")
    assert state.phase == "playing" and state.to_move == 1
    state, _ = flip(state, "0:61")
    assert state.phase == "playing"


# --- the flag carry --------------------------------------------------------------------------

# Seat 0 plays colour 0. Its engineer digs colour 1's three landmines in three flights
# (row 5, column 5, front row); its flag lies next to seat 1's HQs with a lieutenant beside it.
CARRY: Pieces = {
    "0:51": (0, "engineer"),
    "0:55": (1, "landmine"),
    "0:15": (1, "landmine"),
    "0:11": (1, "landmine"),
    "1:53": (0, "lieutenant"),
    "1:63": (0, "flag"),
    "1:41": (1, "major"),  # seat 1 shuffles it between 1:41 and 1:31
    "1:65": (1, "flag"),
}
DIGS = [("0:51", "0:55"), ("0:55", "0:15"), ("0:15", "0:11")]


def shuffle(state: GameState) -> GameState:
    """Seat 1 steps its major between 1:41 and 1:31 (in either colour)."""
    assert state.to_move == 1
    here = "1:41" if state.board_position.piece_at("1:41") else "1:31"
    return play(state, here, "1:31" if here == "1:41" else "1:41")[0]


def dig(state: GameState, n: int = 3) -> GameState:
    """Seat 0 digs ``n`` landmines, seat 1 answering each dig."""
    for origin, target in DIGS[:n]:
        state, events = play(state, origin, target)
        assert next(e for e in events if e.kind == "moved").data["outcome"] == "attacker"
        state = shuffle(state)
    return state


def carry(extra: Pieces | None = None, drop: Sequence[str] = ()) -> GameState:
    pieces = {sid: p for sid, p in CARRY.items() if sid not in drop}
    return dig(fanqi({**pieces, **(extra or {})}))


@pytest.mark.parametrize("dug", [0, 1, 2])
def test_no_flag_carry_before_three_landmines_are_dug(dug: int) -> None:
    state = dig(fanqi(CARRY), dug)
    assert state.flip is not None and state.flip.mines_dug == (dug, 0)
    assert "1:63" not in targets(state, "1:53")
    with pytest.raises(engine.IllegalAction):
        play(state, "1:53", "1:63")


def test_after_three_digs_the_carry_is_a_listed_legal_move() -> None:
    state = carry()
    assert state.flip is not None and state.flip.mines_dug == (3, 0)
    assert "1:63" in targets(state, "1:53")


def test_picking_up_the_flag_removes_it_and_marks_the_carrier() -> None:
    state, events = play(carry(), "1:53", "1:63")
    assert "flag_picked_up" in kinds(events)
    assert state.flip is not None and state.flip.carrier == index("1:63")
    assert state.board_position.piece_at("1:63") == engine.Piece(0, engine.Rank.LIEUTENANT)
    assert state.board_position.piece_at("1:53") is None
    assert state.board_position.count(0, engine.Rank.FLAG) == 0
    assert state.phase == "playing" and state.to_move == 1
    for viewer in VIEWERS:
        entry = next(p for p in engine.view(state, viewer)["pieces"] if p["station"] == "1:63")
        assert entry.get("carrying_flag") is True


def test_only_the_smallest_officer_may_pick_up_the_flag() -> None:
    extra: Pieces = {"1:64": (0, "captain"), "1:62": (0, "engineer")}  # both next to the flag
    state = carry(extra)
    assert "1:63" in targets(state, "1:53")
    assert "1:63" not in targets(state, "1:64")
    assert "1:63" not in targets(state, "1:62")  # engineers are not officers here
    for origin in ("1:64", "1:62"):
        with pytest.raises(engine.IllegalAction):
            play(state, origin, "1:63")


def test_without_lieutenants_the_captain_is_the_smallest_officer() -> None:
    state = carry({"1:64": (0, "captain")}, drop=["1:53"])
    assert "1:63" in targets(state, "1:64")
    state, _ = play(state, "1:64", "1:63")
    assert state.flip is not None and state.flip.carrier == index("1:63")


@pytest.mark.parametrize(
    ("hq", "occupant"), [("1:62", None), ("1:64", None), ("1:62", (1, "engineer"))]
)
def test_carrying_the_flag_into_an_opponent_hq_wins(
    hq: str, occupant: tuple[int, str] | None
) -> None:
    state, _ = play(carry(None if occupant is None else {hq: occupant}), "1:53", "1:63")
    state = shuffle(state)
    state, events = play(state, "1:63", hq)
    assert state.phase == "finished"
    assert state.result is not None and state.result.winners == (0,)
    assert state.seats[1].elimination is not None
    assert "game_over" in kinds(events)


def test_carrying_the_flag_into_ones_own_hq_does_not_win() -> None:
    pieces = {sid: p for sid, p in CARRY.items() if sid not in ("1:53", "1:63")}
    state = dig(fanqi({**pieces, "0:64": (0, "lieutenant"), "0:63": (0, "flag")}))
    state, _ = play(state, "0:64", "0:63")
    assert state.flip is not None and state.flip.carrier == index("0:63")
    state = shuffle(state)
    state, _ = play(state, "0:63", "0:62")
    assert state.phase == "playing"
    assert state.flip is not None and state.flip.carrier == index("0:62")


def test_a_moving_carrier_keeps_the_flag() -> None:
    state, _ = play(carry(), "1:53", "1:63")
    state = shuffle(state)
    state, _ = play(state, "1:63", "1:53")
    assert state.flip is not None and state.flip.carrier == index("1:53")


def test_a_captured_carrier_loses_the_flag() -> None:
    state, _ = play(carry({"1:62": (1, "captain")}), "1:53", "1:63")
    state, events = play(state, "1:62", "1:63")  # seat 1's captain takes the lieutenant
    assert next(e for e in events if e.kind == "moved").data["outcome"] == "attacker"
    assert state.flip is not None and state.flip.carrier is None
    assert state.board_position.count(0, engine.Rank.FLAG) == 0
    assert state.phase == "playing"
    for viewer in VIEWERS:
        assert not any(p.get("carrying_flag") for p in engine.view(state, viewer)["pieces"])


def test_a_carrier_that_falls_attacking_into_an_hq_does_not_win() -> None:
    state, _ = play(carry({"1:64": (1, "general")}), "1:53", "1:63")
    state = shuffle(state)
    state, _ = play(state, "1:63", "1:64")  # the lieutenant loses to the general
    assert state.phase == "playing"
    assert state.flip is not None and state.flip.carrier is None
    assert state.board_position.count(0, engine.Rank.FLAG) == 0


def test_the_flag_carry_works_for_the_seat_playing_colour_1() -> None:
    state = dig(fanqi(swap(CARRY), colours=(1, 0)))
    assert state.flip is not None and state.flip.mines_dug == (0, 3)
    state, _ = play(state, "1:53", "1:63")
    state = shuffle(state)
    state, _ = play(state, "1:63", "1:62")
    assert state.result is not None and state.result.winners == (0,)


# --- what viewers see over whole random games -------------------------------------------------


def audit_view(state: GameState, viewer: int | None) -> None:
    """No rank, seat or army of a face-down piece in the view, for anyone."""
    seen = engine.view(state, viewer)
    down = face_down_ids(state)
    assert {p["station"] for p in seen["pieces"]} == set(state.board_position.pieces())
    shown = 0
    for entry in seen["pieces"]:
        piece = state.board_position.piece_at(entry["station"])
        assert piece is not None
        if entry["station"] in down:
            assert entry == {"station": entry["station"], "face_down": True}, (viewer, entry)
        else:
            assert (entry["rank"], entry["army"]) == (piece.rank, piece.colour)
            colours = state.flip.colours if state.flip else None
            assert entry["seat"] == (None if colours is None else colours.index(piece.colour))
            shown += 1
    assert len(ranks_in(seen["pieces"])) == shown
    # the 记牌 counts name every rank of the armies: tests/engine/test_tracker.py holds them to
    # what the viewer saw, at every step
    assert ranks_in({k: v for k, v in seen.items() if k not in ("pieces", "tracker")}) == []
    if "legal_moves" in seen:
        assert viewer == state.to_move
        for origin, ends in seen["legal_moves"].items():
            assert origin not in down and not down & set(ends), (origin, ends)
        assert set(seen["flippable"]) == down
    else:
        assert "flippable" not in seen


def audit_events(before: GameState, action: engine.Action, events: list[Event]) -> None:
    """Events carry only the ranks of face-up pieces (and of the piece just flipped)."""
    down = face_down_ids(before)
    for event in events:
        for viewer in VIEWERS:
            seen = event.for_viewer(viewer)
            if seen is None or event.kind == "game_over":
                continue
            allowed: list[str] = []
            if event.kind == "flipped":
                assert isinstance(action, Flip) and seen["station"] == action.station
                assert action.station in down
                allowed.append(seen["rank"])
            elif event.kind == "moved":
                assert isinstance(action, Move)
                assert action.origin not in down and action.target not in down
                if "rank" in seen:
                    assert seen["rank"] == rank_at(before, action.origin)
                    allowed.append(seen["rank"])
                if "defender_rank" in seen:
                    assert seen["defender_rank"] == rank_at(before, action.target)
                    allowed.append(seen["defender_rank"])
            assert sorted(ranks_in(seen)) == sorted(allowed), (event.kind, viewer, seen)


def random_audited_game(seed: int, max_actions: int = 500) -> tuple[GameState, int, int]:
    """Play a random game from the deal, auditing every view and event; returns the final
    state and how many flips and moves were played."""
    rng = random.Random(seed)
    state = engine.new_game("fanqi", seed=f"audit-{seed}", host=seed % 2)
    flips = moves = 0
    for _ in range(max_actions):
        for viewer in VIEWERS:
            audit_view(state, viewer)
        if state.phase == "finished":
            break
        seat = state.to_move
        assert seat is not None
        seen = engine.view(state, seat)
        legal = [(o, t) for o, ends in seen["legal_moves"].items() for t in ends]
        action: engine.Action
        if seen["flippable"] and (not legal or rng.random() < 0.35):
            action = Flip(seat, rng.choice(seen["flippable"]), now=1.0)
            flips += 1
        else:
            origin, target = rng.choice(legal)
            action = Move(seat, origin, target, now=1.0)
            moves += 1
        before = state
        state, events = engine.apply(state, action)
        audit_events(before, action, events)
        still_down = face_down_ids(before) & face_down_ids(state)
        for sid in still_down:  # face-down pieces never move nor get taken
            assert before.board_position.piece_at(sid) == state.board_position.piece_at(sid)
    return state, flips, moves


def test_random_games_never_show_a_face_down_piece() -> None:
    flips = moves = finished = 0
    for seed in range(soak(6, 30)):
        state, f, m = random_audited_game(seed)
        flips, moves = flips + f, moves + m
        finished += state.phase == "finished"
    assert flips > 100 and moves > 100 and finished > 0  # the audit saw real play


def test_the_audit_catches_a_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    real = engine.view

    def leaky(state: GameState, viewer: int | None) -> dict[str, Any]:
        seen = real(state, viewer)
        for entry in seen["pieces"]:
            if entry.get("face_down"):
                piece = state.board_position.piece_at(entry["station"])
                assert piece is not None
                entry["rank"] = piece.rank.value
        return seen

    monkeypatch.setattr(engine, "view", leaky)
    with pytest.raises(AssertionError):
        random_audited_game(0, max_actions=5)


def test_after_the_game_everyone_sees_every_rank() -> None:
    state = fanqi({**LAST_PIECE, "0:61": (0, "captain")}, face_down=["0:61"])
    state, _ = play(state, "0:13", "1:13")
    assert state.phase == "finished"
    for viewer in VIEWERS:
        entry = next(p for p in engine.view(state, viewer)["pieces"] if p["station"] == "0:61")
        assert entry.get("rank") == "captain", (viewer, entry)
