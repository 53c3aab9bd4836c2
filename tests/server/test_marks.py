"""Private marks (标记, docs/protocol.md "Private marks"): a player's marks on hidden enemy
pieces follow the pieces, are kept in the database, and reach nobody but that player."""

from __future__ import annotations

import json
import logging
import random
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import engine
from server import marks
from server.app import create_app
from server.config import RoomConfig
from tests.server.conftest import make_settings
from tests.server.sockets import Player
from tests.server.test_realtime import connect, connect_again, start_game, table_of_two
from tests.server.test_restart import game_of_two, play_moves

LABEL = "猜Z"  # a label nobody else's messages could carry by chance


def random_game(seed: int) -> list[tuple[engine.GameState, list[engine.Event]]]:
    """A 二人 game of random legal moves, from the start of play: each state with its events."""
    rng = random.Random(seed)
    state = engine.new_game("liangguo", seed=str(seed), now=0.0)
    for seat in (0, 1):
        layout = engine.auto_layout("liangguo", seat, seed + seat)
        state, _ = engine.apply(state, engine.PlaceLayout(seat, layout))
    assert state.phase == engine.Phase.PLAYING
    steps: list[tuple[engine.GameState, list[engine.Event]]] = [(state, [])]
    for _ in range(400):
        if state.phase != engine.Phase.PLAYING:
            break
        mover = state.to_move
        assert mover is not None
        legal = engine.view(state, mover)["legal_moves"]
        origin = rng.choice(sorted(legal))
        move = engine.Move(mover, origin, rng.choice(legal[origin]))
        state, events = engine.apply(state, move)
        steps.append((state, events))
    return steps


@pytest.mark.parametrize("seed", range(6))
def test_marks_follow_their_pieces_through_random_games(seed: int) -> None:
    """Every piece of seat 1 marked with the station it started on: after any number of
    moves and fights, each mark stands on a piece of seat 1 of the rank that started there,
    and every piece of seat 1 still on the board has its mark."""
    steps = random_game(seed)
    start = steps[0][0]
    assert start.position is not None
    began = {sid: p for sid, p in start.position.pieces().items() if p.seat == 1}
    changes = [marks.Change(0, sid, sid) for sid in began]
    for (state, _), shown in zip(steps, marks.fold(steps, changes), strict=True):
        assert state.position is not None
        alive = {sid: p for sid, p in state.position.pieces().items() if p.seat == 1}
        assert set(shown) == set(alive)
        for station, origin in shown.items():
            assert alive[station].rank == began[origin].rank, (station, origin)
    assert len(steps) > 50 and len(shown) < len(began)  # pieces moved, and some died


def test_a_mark_made_later_follows_from_its_step() -> None:
    steps = random_game(3)
    moved = next((n, e) for n, (_, events) in enumerate(steps) for e in events if e.kind == "moved")
    step, event = moved
    before = marks.Change(step - 1, event.data["origin"], "bomb")
    after = marks.Change(step, event.data["origin"], "flag")  # a station left by then
    shown = list(marks.fold(steps, [before, after]))
    assert shown[step - 2] == {}
    assert shown[step - 1] == {event.data["origin"]: "bomb"}
    if event.data["outcome"] in (None, "attacker"):
        assert shown[step][event.data["target"]] == "bomb"
    assert marks.replay_marks(steps, [before], step - 1) == {event.data["origin"]: "bomb"}


def latest_marks(player: Player) -> dict[str, str]:
    found = [m for m in player.received if m["type"] == "marks"]
    assert found, f"{player.name} got no marks"
    shown: dict[str, str] = found[-1]["marks"]
    return shown


def mark(player: Player, table: str, station: str, value: str | None) -> dict[str, Any]:
    """``player`` marks ``station``; once it is done, waits for the ``marks`` that say so
    (which may come before the ``ok``)."""
    return mark_as(player, table, station, value, value)


def mark_as(
    player: Player, table: str, station: str, value: str | None, shown: str | None
) -> dict[str, Any]:
    before = len(player.received)
    reply = player.request({"type": "mark", "table": table, "station": station, "mark": value})
    if reply["type"] == "ok":

        def says(m: dict[str, Any]) -> bool:
            return bool(m["type"] == "marks" and m["marks"].get(station) == shown)

        if not any(says(m) for m in player.received[before:]):
            player.until(says)
    return reply


def hidden_enemy(player: Player, enemy: int) -> list[str]:
    return [p["station"] for p in player.game["pieces"] if p["seat"] == enemy and "rank" not in p]


def test_marks_are_set_kept_and_seen_by_their_player_alone(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="junqi")
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        carol = connect(stack, client, "carol")  # a spectator
        assert carol.request({"type": "open", "table": table})["type"] == "ok"
        start_game(alice, bob, table, 7)
        carol.sync(alice.version)
        theirs, mine = hidden_enemy(alice, 1), hidden_enemy(bob, 0)
        assert mark(alice, table, theirs[0], "bomb")["type"] == "ok"
        # refusals: an own piece, an empty station, a label too long or empty, not a player
        assert mark(alice, table, mine[0], "bomb")["code"] == "bad_mark"
        taken = {p["station"] for p in alice.game["pieces"]}
        empty = next(s for s in engine.get_board("liangguo").stations if s not in taken)
        assert mark(alice, table, empty, "bomb")["code"] == "bad_mark"
        assert mark(alice, table, theirs[1], "五个字的字")["code"] == "bad_mark"
        assert mark(alice, table, theirs[1], "\u202e\n ")["code"] == "bad_mark"
        assert mark(carol, table, theirs[1], "bomb")["code"] == "not_playing"
        # a label is cleaned as a chat line; marking again changes it, None clears it
        assert mark_as(alice, table, theirs[1], " 猜\u202eZ\n", LABEL)["type"] == "ok"
        assert mark(alice, table, theirs[2], "general")["type"] == "ok"
        assert mark(alice, table, theirs[2], "flag")["type"] == "ok"
        assert mark(alice, table, theirs[3], "major")["type"] == "ok"
        assert mark(alice, table, theirs[3], None)["type"] == "ok"
        assert latest_marks(alice) == {theirs[0]: "bomb", theirs[1]: LABEL, theirs[2]: "flag"}
        message = next(m for m in reversed(alice.received) if m["type"] == "marks")
        assert message["seat"] == 0 and message["table"] == table
        assert {"field_marshal", "engineer", "bomb", "landmine", "flag"} <= set(message["choices"])

        # a second socket of alice (a reload, another device) gets them after its snapshot
        again = connect_again(stack, client, "alice")
        assert again.request({"type": "open", "table": table})["type"] == "ok"
        assert latest_marks(again) == latest_marks(alice)
        kinds = [m["type"] for m in again.received]
        assert kinds.index("table") < kinds.index("marks")

        # bob's own marks are his: alice's socket never gets them
        assert mark(bob, table, mine[0], "engineer")["type"] == "ok"
        assert latest_marks(bob) == {mine[0]: "engineer"}

        alice.request({"type": "ping"})
        again.request({"type": "ping"})
        for other in (bob, carol):
            other.request({"type": "ping"})  # all sent to them so far is read
        assert all(m["type"] != "marks" or m["seat"] == 0 for m in alice.received + again.received)
        assert [m for m in bob.received if m["type"] == "marks" and m["seat"] != 1] == []
        wire(carol, bob)
        # the server's log (its own lines, and anyone's at the levels it writes)
        logged = [r for r in caplog.records if r.name == "junqi" or r.levelno >= logging.INFO]
        assert not any(LABEL in str(vars(record)) for record in logged)


def wire(*others: Player) -> None:
    """Nothing alice marked reached these sockets: no ``marks`` of hers, not her label."""
    for other in others:
        for message in other.received:
            assert message["type"] != "marks" or message["seat"] != 0, (other.name, message)
            assert LABEL not in json.dumps(message, ensure_ascii=False), (other.name, message)


def test_marks_move_with_their_pieces_and_go_when_they_die(client: TestClient) -> None:
    """alice marks every hidden piece of bob's; over random moves her marks stand exactly on
    bob's pieces, as a fresh socket of hers reads them, and in her replay after the game."""
    rng = random.Random(4)
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        carol = connect(stack, client, "carol")
        assert carol.request({"type": "open", "table": table})["type"] == "ok"
        start_game(alice, bob, table, 5)
        carol.sync(alice.version)
        started = hidden_enemy(alice, 1)
        for n, station in enumerate(started):
            assert mark(alice, table, station, LABEL if n == 0 else "bomb")["type"] == "ok"
        players = {0: alice, 1: bob}
        checked = died = 0
        for round_ in range(6):
            for _ in range(12):
                if alice.game["phase"] != "playing":
                    break
                mover = players[alice.game["to_move"]]
                legal = mover.game["legal_moves"]
                origin = rng.choice(sorted(legal))
                target = rng.choice(legal[origin])
                reply = mover.act(table, {"type": "move", "origin": origin, "target": target})
                assert reply["type"] == "ok", reply
                for p in (alice, bob, carol):
                    p.sync(reply["version"])
            if alice.game["phase"] != "playing":
                break
            look = connect_again(stack, client, "alice")
            assert look.request({"type": "open", "table": table})["type"] == "ok"
            assert look.snapshot is not None
            bobs = {p["station"] for p in look.game["pieces"] if p["seat"] == 1}
            shown = latest_marks(look)
            assert set(shown) == bobs, round_
            died = len(started) - len(shown)
            checked += 1
            look.ws.close()
        assert checked >= 3 and died > 0
        assert alice.request({"type": "mark", "table": table, "station": "x", "mark": "bomb"})[
            "code"
        ] in ("bad_mark", "not_playing")
        # the game ends; bob and carol never heard of a mark
        while alice.game["phase"] == "playing":
            seat = alice.game["to_move"]
            reply = players[seat].act(table, {"type": "surrender"})
            if reply["type"] != "ok":
                legal = players[seat].game["legal_moves"]
                origin = sorted(legal)[0]
                reply = players[seat].act(
                    table, {"type": "move", "origin": origin, "target": legal[origin][0]}
                )
            for p in (alice, bob, carol):
                p.sync(reply["version"])
        for p in (bob, carol):
            p.request({"type": "ping"})
        wire(bob, carol)
        game_id = alice.snapshot["game_id"] if alice.snapshot else None
        replay_marks(client, str(game_id), started)


def replay_marks(client: TestClient, game_id: str, started: list[str]) -> None:
    """alice's replay has her marks at each step; bob's and a stranger's requests get none."""
    alice = client.post("/api/auth/login", json={"name": "alice", "password": "secret-pw"})
    bob = client.post("/api/auth/login", json={"name": "bob", "password": "secret-pw"})
    carol = client.post("/api/auth/login", json={"name": "carol", "password": "secret-pw"})
    auth = {
        name: {"Authorization": f"Bearer {r.json()['token']}"}
        for name, r in (("alice", alice), ("bob", bob), ("carol", carol))
    }
    steps = client.get(f"/api/games/{game_id}").json()["steps"]
    first = client.get(f"/api/games/{game_id}/marks/{steps}", headers=auth["alice"]).json()
    assert first["seat"] == 0 and 0 < len(first["marks"]) < len(started)
    early = [
        client.get(f"/api/games/{game_id}/marks/{n}", headers=auth["alice"]).json()["marks"]
        for n in (0, 2)
    ]
    assert early[0] == {}  # deployment: nothing marked yet
    assert set(early[1]) == set(started) and LABEL in early[1].values()
    theirs = client.get(f"/api/games/{game_id}/marks/{steps}", headers=auth["bob"]).json()
    assert theirs["seat"] == 1 and theirs["marks"] == {}
    assert client.get(f"/api/games/{game_id}/marks/2", headers=auth["carol"]).status_code == 404
    assert client.get(f"/api/games/{game_id}/marks/2").status_code == 401
    for perspective in ("open", "public", "0", "1"):
        shown = client.get(f"/api/games/{game_id}/replay/{steps}?perspective={perspective}")
        assert LABEL not in shown.text


def test_marks_survive_a_restart_and_follow_on(tmp_path: Path) -> None:
    """The table is taken back from the database (as after a restart, or by another process):
    its marks are read back, where their pieces went meanwhile, and follow them on."""
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'restart.db'}")
    settings.rooms = [RoomConfig(id="quick", name="quick", variant="liangguo")]
    rng = random.Random(8)
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        alice, bob, table = game_of_two(stack, client, 3)
        started = hidden_enemy(alice, 1)
        for station in started:
            assert mark(alice, table, station, LABEL)["type"] == "ok"
        play_moves({0: alice, 1: bob}, table, 10, rng)
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        alice, bob = connect_again(stack, client, "alice"), connect_again(stack, client, "bob")
        for p in (alice, bob):
            assert p.request({"type": "open", "table": table})["type"] == "ok"
        bobs = {p["station"] for p in alice.game["pieces"] if p["seat"] == 1}
        assert set(latest_marks(alice)) == bobs and len(bobs) > 0
        assert set(latest_marks(alice).values()) == {LABEL}
        assert latest_marks(bob) == {}  # his own, none
        play_moves({0: alice, 1: bob}, table, 10, rng)
        look = connect_again(stack, client, "alice")
        assert look.request({"type": "open", "table": table})["type"] == "ok"
        bobs = {p["station"] for p in look.game["pieces"] if p["seat"] == 1}
        assert set(latest_marks(look)) == bobs
        wire(bob)


def test_the_choices_are_the_variant_s_never_a_hand_s() -> None:
    """Which ranks a mark may name tells nothing hidden: 三打一's banker may or may not have
    kept 帅, 导弹 and 堡垒, and every 三打一 game offers them alike."""
    sandayi = marks.choices(engine.get_variant("sandayi"))
    assert {"supreme_marshal", "missile", "fortress", "field_marshal", "bomb"} <= set(sandayi)
    assert "supreme_marshal" not in marks.choices(engine.get_variant("liangguo"))
    assert marks.choices(engine.get_variant("siguo"))[:2] == ["field_marshal", "general"]
