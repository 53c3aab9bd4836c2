"""The WebSocket protocol over the real app: tables, seats, a game, errors, resync, chat."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

import engine
from server.app import create_app
from server.config import RoomConfig
from tests.server.conftest import make_settings, register
from tests.server.sockets import Player, audit, signed_in


def connect(stack: ExitStack, client: TestClient, name: str) -> Player:
    token = register(client, name)
    player = Player(stack.enter_context(signed_in(client, token)), name)
    assert player.receive()["type"] == "welcome"
    return player


def connect_again(stack: ExitStack, client: TestClient, name: str) -> Player:
    """A second socket of an existing user."""
    login = client.post("/api/auth/login", json={"name": name, "password": "secret-pw"})
    player = Player(stack.enter_context(signed_in(client, login.json()["token"])), name)
    assert player.receive()["type"] == "welcome"
    return player


def table_of_two(client: TestClient, stack: ExitStack) -> tuple[Player, Player, str]:
    alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
    table = alice.request({"type": "create_table", "room": "liangguo-fast"})["table"]
    assert alice.request({"type": "sit", "table": table, "seat": 0})["type"] == "ok"
    assert bob.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"
    return alice, bob, table


def start_game(alice: Player, bob: Player, table: str, seed: int) -> None:
    """Both ready, both deploy automatic layouts; returns when both see play start."""
    for p in (alice, bob):
        v = p.request({"type": "ready", "table": table})["version"]
    for p in (alice, bob):
        p.sync(v)
    for seat, p in ((0, alice), (1, bob)):
        layout = engine.auto_layout("liangguo", seat, seed)
        reply = p.act(table, {"type": "place_layout", "layout": layout})
        assert reply["type"] == "ok", reply
    for p in (alice, bob):
        p.sync(reply["version"])
        assert p.game["phase"] == "playing"


@contextmanager
def duel(
    tmp_path: Path, seed: int, options: dict[str, Any]
) -> Iterator[tuple[TestClient, ExitStack, Player, Player, str]]:
    """A 二人 game in play between alice (seat 0) and bob, in a room with these ``options``."""
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'duel.db'}")
    settings.rooms = [RoomConfig(id="quick", name="quick", variant="liangguo", options=options)]
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
        table = alice.request({"type": "create_table", "room": "quick"})["table"]
        alice.request({"type": "sit", "table": table, "seat": 0})
        bob.request({"type": "sit", "table": table, "seat": 1})
        start_game(alice, bob, table, seed)
        yield client, stack, alice, bob, table


def test_sockets_need_a_token(sqlite_client: TestClient) -> None:
    for token in ("", "nope"):
        with (
            pytest.raises(WebSocketDisconnect) as closed,
            signed_in(sqlite_client, token) as ws,
        ):
            ws.receive_json()
        assert closed.value.code == 4401


def play_random_moves(
    players: dict[int, Player], table: str, rng: random.Random, most: int = 600
) -> int:
    """The seats play random legal moves until the game ends (or ``most`` moves); returns how
    many were made."""
    first = players[0]
    moves = 0
    while first.game["phase"] == "playing" and moves < most:
        mover = players[first.game["to_move"]]
        legal = mover.game["legal_moves"]
        origin = rng.choice(sorted(legal))
        reply = mover.act(
            table, {"type": "move", "origin": origin, "target": rng.choice(legal[origin])}
        )
        assert reply["type"] == "ok", reply
        moves += 1
        for p in players.values():
            p.sync(reply["version"])
    return moves


def test_a_whole_two_player_game(client: TestClient) -> None:
    rng = random.Random(5)
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        players = {0: alice, 1: bob}
        start_game(alice, bob, table, 11)
        moves = play_random_moves(players, table, rng)
        assert alice.game["phase"] == "finished", moves
        result = alice.game["result"]
        assert result["reason"] in ("no_capture", "elimination")
        for seat, p in players.items():
            assert audit(p.received, seat) > 0
        # the finished game's record is public and replays
        games = client.get("/api/games").json()
        assert games[0]["status"] == "finished" and games[0]["seed"]
        record = client.get(f"/api/games/{games[0]['id']}/record").json()
        assert record["result"]["reason"] == result["reason"]
        steps = len(record["record"]["actions"])
        last = client.get(f"/api/games/{games[0]['id']}/replay/{steps}").json()
        assert last["state"]["phase"] == "finished"
        me = client.get("/api/users/alice").json()
        liangguo = next(s for s in me["standings"] if s["variant"] == "liangguo")
        assert liangguo["wins"] + liangguo["losses"] + liangguo["draws"] == 1


def test_bad_messages_get_errors_and_the_game_goes_on(client: TestClient) -> None:
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        start_game(alice, bob, table, 1)
        mover = alice if alice.game["to_move"] == 0 else bob
        waiting = bob if mover is alice else alice

        def act_raw(player: Player, action: dict[str, Any], at: int | None = None) -> str:
            message = {
                "type": "act",
                "table": table,
                "version": at or player.version,
                "action": action,
            }
            return str(player.request(message)["code"])

        errors = []
        mover.send("{not json")
        errors.append(mover.until(lambda m: m["type"] == "error")["code"])
        errors.append(mover.request({"type": "teleport"})["code"])
        errors.append(mover.request({"type": "sit", "table": table})["code"])  # no seat
        errors.append(mover.request({"type": "sit", "table": "nope", "seat": 0})["code"])
        origin = sorted(mover.game["legal_moves"])[0]
        target = mover.game["legal_moves"][origin][0]
        move = {"type": "move", "origin": origin, "target": target}
        errors.append(act_raw(waiting, move))  # not its turn
        hq = f"{mover.game['to_move']}:62"
        errors.append(act_raw(mover, {"type": "move", "origin": hq, "target": origin}))
        errors.append(act_raw(mover, move, at=1))  # a stale version
        errors.append(act_raw(mover, {"type": "timeout"}))
        errors.append(act_raw(mover, {**move, "seat": 1 - mover.game["to_move"]}))
        errors.append(act_raw(mover, {"type": "move", "origin": "x"}))
        mover.send(json.dumps({"type": "chat", "channel": "lobby", "text": "x" * 20000}))
        errors.append(mover.until(lambda m: m["type"] == "error")["code"])
        assert errors == [
            "bad_json",
            "bad_message",
            "bad_message",
            "no_table",
            "not_your_turn",
            "illegal",
            "stale_version",
            "not_allowed",
            "not_your_seat",
            "malformed",
            "too_large",
        ]
        reply = mover.act(table, move)
        assert reply["type"] == "ok"  # the game went on untouched


def test_a_spectator_sees_only_the_public_view(client: TestClient) -> None:
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        carol = connect(stack, client, "carol")
        assert carol.request({"type": "open", "table": table})["type"] == "ok"
        start_game(alice, bob, table, 2)
        carol.sync(alice.version)
        assert carol.snapshot is not None and carol.snapshot["you"] is None
        assert carol.game["phase"] == "playing"
        assert all("rank" not in p for p in carol.game["pieces"])
        assert "legal_moves" not in carol.game
        assert audit(carol.received, None) == 0
        assert carol.act(table, {"type": "surrender"})["code"] == "not_playing"


def test_a_reconnecting_player_gets_what_it_missed(client: TestClient) -> None:
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        for p in (alice, bob):
            v = p.request({"type": "ready", "table": table})["version"]
        bob.sync(v)
        login = client.post("/api/auth/login", json={"name": "bob", "password": "secret-pw"})
        seen_before = bob.last_seq
        bob.ws.close()
        layout = engine.auto_layout("liangguo", 0, 3)
        alice.sync(v)
        assert alice.act(table, {"type": "place_layout", "layout": layout})["type"] == "ok"
        back = Player(stack.enter_context(signed_in(client, login.json()["token"])), "bob")
        back.receive()
        ref = back.send({"type": "open", "table": table, "since": seen_before})
        snapshot = back.until(lambda m: m["type"] == "table")
        assert back.reply(ref)["type"] == "ok"
        kinds = [e["kind"] for e in snapshot["events"]]
        assert "deployed" in kinds  # alice's layout, made while bob was away
        assert all(e["seq"] > seen_before for e in snapshot["events"])
        assert snapshot["snapshot"]["you"] == 1
        assert snapshot["snapshot"]["seats"][1]["away"] is False


def test_a_deadline_passes_and_the_seat_is_skipped(tmp_path: Path) -> None:
    with duel(tmp_path, 4, {"move_seconds": 1, "deploy_seconds": 30}) as (
        client,
        stack,
        alice,
        bob,
        table,
    ):
        started = time.time()
        skipped = bob.until(
            lambda m: m["type"] == "update" and any(e["kind"] == "skipped" for e in m["events"])
        )
        assert time.time() - started >= 0.5
        event = next(e for e in skipped["events"] if e["kind"] == "skipped")
        assert event["reason"] == "timeout" and event["seat"] == 0


def test_lobby_updates_and_chat(client: TestClient) -> None:
    with ExitStack() as stack:
        alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
        assert bob.request({"type": "lobby"})["type"] == "ok"
        alice.request({"type": "create_table", "room": "siguo-fast"})
        listing = bob.until(
            lambda m: m["type"] == "lobby" and any(r["tables"] for r in m["lobby"]["rooms"])
        )
        room = next(r for r in listing["lobby"]["rooms"] if r["id"] == "siguo-fast")
        assert len(room["tables"][0]["seats"]) == 4
        assert alice.request({"type": "chat", "channel": "lobby", "text": "你好"})["type"] == "ok"
        line = bob.until(lambda m: m["type"] == "chat")
        assert (line["from"], line["text"]) == ("alice", "你好")
        too_long = alice.request({"type": "chat", "channel": "lobby", "text": "长" * 201})
        assert too_long["code"] == "too_long"
        second = connect_again(stack, client, "alice")
        codes = [
            (alice if n % 2 else second).request(
                {"type": "chat", "channel": "lobby", "text": "hi"}
            )["type"]
            for n in range(25)
        ]
        assert codes.count("ok") == 19 and "error" in codes  # 20 lines a minute, per user


def test_a_player_who_does_not_come_back_escapes(tmp_path: Path) -> None:
    with duel(tmp_path, 6, {"move_seconds": 30, "disconnect_grace_seconds": 1}) as (
        client,
        stack,
        alice,
        bob,
        table,
    ):
        bob.ws.close()
        away = alice.until(lambda m: m["type"] == "update" and m["snapshot"]["seats"][1]["away"])
        assert away["snapshot"]["status"] == "playing"
        over = alice.until(
            lambda m: m["type"] == "update" and m["snapshot"]["status"] == "finished"
        )
        result = over["snapshot"]["game"]["result"]
        assert result["reason"] == "escape" and result["winners"] == [0]
        assert [s["outcome"] for s in result["seats"]] == ["win", "escape"]


def test_a_player_who_comes_back_in_time_is_not_punished(tmp_path: Path) -> None:
    with duel(tmp_path, 7, {"move_seconds": 30, "disconnect_grace_seconds": 2}) as (
        client,
        stack,
        alice,
        bob,
        table,
    ):
        token = client.post("/api/auth/login", json={"name": "bob", "password": "secret-pw"})
        bob.ws.close()
        alice.until(lambda m: m["type"] == "update" and m["snapshot"]["seats"][1]["away"])
        back = Player(stack.enter_context(signed_in(client, token.json()["token"])), "bob")
        back.receive()
        assert back.request({"type": "open", "table": table})["type"] == "ok"
        time.sleep(2.5)
        assert back.request({"type": "ping"})["type"] == "pong"
        assert back.snapshot is not None
        assert back.snapshot["status"] == "playing" and not back.snapshot["seats"][1]["away"]


def test_a_running_game_s_record_is_private(client: TestClient) -> None:
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        start_game(alice, bob, table, 8)
        game_id = alice.snapshot["game_id"] if alice.snapshot else None
        listed = client.get("/api/games").json()
        assert listed[0]["id"] == game_id and listed[0]["seed"] is None
        assert listed[0]["commitment"] == alice.game["commitment"]
        assert client.get(f"/api/games/{game_id}/record").status_code == 403
        assert client.get(f"/api/games/{game_id}/replay/0").status_code == 403
        assert client.get("/api/games/nope/record").status_code == 404


def test_a_dealt_game_keeps_each_hand_private(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'deal.db'}")
    settings.rooms = [RoomConfig(id="luan", name="乱战", variant="luanzhan")]
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        players = [connect(stack, client, f"p{seat}") for seat in range(4)]
        table = players[0].request({"type": "create_table", "room": "luan"})["table"]
        for seat, p in enumerate(players):
            assert p.request({"type": "sit", "table": table, "seat": seat})["type"] == "ok"
        for p in players:
            v = p.request({"type": "ready", "table": table})["version"]
        for p in players:
            p.sync(v)
            assert p.game["phase"] == "picking"
        for _ in range(3):  # the last three movers pick, the host gets the last colour
            picker = players[players[0].game["deal"]["waiting"][0]]
            taken = players[0].game["deal"]["picks"]
            colour = next(c for c in range(4) if c not in taken)
            reply = picker.act(table, {"type": "pick_colour", "colour": colour})
            assert reply["type"] == "ok", reply
            for p in players:
                p.sync(reply["version"])
        for seat, p in enumerate(players):
            deal = p.game["deal"]
            assert deal["hand"] is not None and len(deal["hand"]) == 25
            assert None not in deal["picks"]
            for message in p.received:  # nobody ever saw another seat's hand
                for event in message.get("events", []):
                    if event["kind"] == "hand":
                        assert event["seat"] == seat
        spectator = connect(stack, client, "watcher")
        spectator.request({"type": "open", "table": table})
        assert spectator.game["deal"]["hand"] is None


def sandayi_in_play(players: list[Player], table: str) -> None:
    """The four sit at the 三打一 ``table``, ready, the first bidder takes the bank at 3 (which
    ends the bidding), and all deploy automatic layouts of their hands: play has begun."""
    for seat, p in enumerate(players):
        assert p.request({"type": "sit", "table": table, "seat": seat})["type"] == "ok"
    for p in players:
        v = p.request({"type": "ready", "table": table})["version"]
    for p in players:
        p.sync(v)
    bidder = players[players[0].game["deal"]["waiting"][0]]
    reply = bidder.act(table, {"type": "bid", "level": 3})
    for p in players:
        p.sync(reply["version"])
    for seat, p in enumerate(players):
        deal = p.game["deal"]
        hand = [(engine.Rank(x["rank"]), None) for x in deal["hand"]]
        layout = engine.auto_layout("sandayi", seat, 5, hand=hand, banker=deal["banker"] == seat)
        reply = p.act(table, {"type": "place_layout", "layout": layout})
        assert reply["type"] == "ok", reply
    for p in players:
        p.sync(reply["version"])
        assert p.game["phase"] == "playing"


def test_in_sandayi_play_pauses_while_a_player_is_away(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'pause.db'}")
    settings.rooms = [RoomConfig(id="sdy", name="三打一", variant="sandayi")]
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        players = [connect(stack, client, f"p{seat}") for seat in range(4)]
        table = players[0].request({"type": "create_table", "room": "sdy"})["table"]
        sandayi_in_play(players, table)
        banker = players[0].game["deal"]["banker"]
        away = next(s for s in range(4) if s != banker)
        players[away].ws.close()
        mover = players[banker]
        mover.until(
            lambda m: m["type"] == "update" and any(e["kind"] == "paused" for e in m["events"])
        )
        origin = sorted(mover.game["legal_moves"])[0]
        refused = mover.act(
            table,
            {"type": "move", "origin": origin, "target": mover.game["legal_moves"][origin][0]},
        )
        assert refused["code"] == "paused" and "paused" in refused["message"]
        back = connect_again(stack, client, f"p{away}")
        back.request({"type": "open", "table": table})
        resumed = mover.until(
            lambda m: m["type"] == "update" and any(e["kind"] == "resumed" for e in m["events"])
        )
        assert resumed["snapshot"]["game"]["deadline"] > time.time()
        reply = mover.act(
            table,
            {"type": "move", "origin": origin, "target": mover.game["legal_moves"][origin][0]},
        )
        assert reply["type"] == "ok", reply


def test_seats_swap_when_both_players_ask(client: TestClient) -> None:
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        assert alice.request({"type": "swap", "table": table, "seat": 0})["code"] == "bad_seat"
        first = alice.request({"type": "swap", "table": table, "seat": 1})
        alice.sync(first["version"])
        assert alice.snapshot is not None
        assert [s["name"] for s in alice.snapshot["seats"]] == ["alice", "bob"]
        assert alice.snapshot["seats"][0]["swap_with"] == 1
        second = bob.request({"type": "swap", "table": table, "seat": 0})
        alice.sync(second["version"])
        assert [s["name"] for s in alice.snapshot["seats"]] == ["bob", "alice"]
        assert alice.snapshot["host"] == 1  # the host moved with alice
        assert bob.request({"type": "stand", "table": table})["type"] == "ok"
        alice.sync(bob.version)
