"""Bots at the table: play now with three bots, a whole game through the real app."""

from __future__ import annotations

import random
from contextlib import ExitStack

from fastapi.testclient import TestClient

import engine
from tests.server.sockets import audit
from tests.server.test_realtime import connect


def test_play_now_fills_the_table_with_bots_that_play_to_the_end(
    sqlite_client: TestClient,
) -> None:
    client = sqlite_client
    rng = random.Random(3)
    with ExitStack() as stack:
        me = connect(stack, client, "newcomer")
        reply = me.request({"type": "play_now", "room": "siguo-fast"})
        assert reply["type"] == "ok", reply
        table = reply["table"]
        me.sync(reply["version"])
        assert me.snapshot is not None
        assert [s["bot"] for s in me.snapshot["seats"]] == [False, True, True, True]
        assert me.snapshot["bots"] is True
        ready = me.request({"type": "ready", "table": table})
        me.sync(ready["version"])
        layout = engine.auto_layout("siguo", 0, 1)
        assert me.act(table, {"type": "place_layout", "layout": layout})["type"] == "ok"
        me.until(lambda m: m["type"] == "update" and m["snapshot"]["game"]["phase"] != "deploying")
        moves = 0
        while me.game["phase"] == "playing":
            game = me.game
            if game["to_move"] == 0 and game.get("legal_moves"):
                origin = rng.choice(sorted(game["legal_moves"]))
                reply = me.act(
                    table,
                    {
                        "type": "move",
                        "origin": origin,
                        "target": rng.choice(game["legal_moves"][origin]),
                    },
                )
                moves += 1
            else:
                me.until(lambda m: m["type"] == "update")
        assert me.game["phase"] == "finished" and moves > 0
        bot_moves = [
            e
            for m in me.received
            if m["type"] == "update"
            for e in m["events"]
            if e["kind"] == "moved" and e["seat"] != 0
        ]
        assert len(bot_moves) >= moves  # the bots played their turns
        assert audit(me.received, 0) > 0
        # a game with bots does not move points
        standing = next(
            s
            for s in client.get("/api/users/newcomer").json()["standings"]
            if s["variant"] == "siguo"
        )
        assert standing["points"] == 0 and standing["wins"] + standing["losses"] == 0


def test_bots_take_and_leave_free_seats(sqlite_client: TestClient) -> None:
    with ExitStack() as stack:
        me = connect(stack, sqlite_client, "host")
        table = me.request({"type": "create_table", "room": "liangguo-fast"})["table"]
        me.request({"type": "sit", "table": table, "seat": 0})
        assert me.request({"type": "add_bot", "table": table, "seat": 0})["code"] == "bad_seat"
        added = me.request({"type": "add_bot", "table": table, "seat": 1})
        me.sync(added["version"])
        assert me.snapshot is not None and me.snapshot["seats"][1]["bot"] is True
        other = connect(stack, sqlite_client, "late")
        assert other.request({"type": "sit", "table": table, "seat": 1})["code"] == "seat_taken"
        removed = me.request({"type": "remove_bot", "table": table, "seat": 1})
        me.sync(removed["version"])
        assert me.snapshot["seats"][1]["bot"] is False
        assert other.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"


def test_a_bot_stands_in_for_a_player_who_is_away(sqlite_client: TestClient) -> None:
    client = sqlite_client
    with ExitStack() as stack:
        alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
        reply = alice.request({"type": "create_table", "room": "liangguo-fast", "stand_in": True})
        table = reply["table"]
        alice.request({"type": "sit", "table": table, "seat": 0})
        bob.request({"type": "sit", "table": table, "seat": 1})
        for p in (alice, bob):
            v = p.request({"type": "ready", "table": table})["version"]
        for seat, p in ((0, alice), (1, bob)):
            p.sync(v)
            reply = p.act(
                table, {"type": "place_layout", "layout": engine.auto_layout("liangguo", seat, 5)}
            )
        alice.sync(reply["version"])
        assert alice.snapshot is not None and alice.snapshot["stand_in"] is True
        bob.ws.close()
        rng = random.Random(1)
        moved_for_bob: list[dict[str, object]] = []
        while not moved_for_bob and alice.game["phase"] == "playing":
            game = alice.game
            if game["to_move"] == 0 and game.get("legal_moves"):
                origin = rng.choice(sorted(game["legal_moves"]))
                alice.act(
                    table,
                    {
                        "type": "move",
                        "origin": origin,
                        "target": rng.choice(game["legal_moves"][origin]),
                    },
                )
            message = alice.until(lambda m: m["type"] == "update")
            moved_for_bob += [
                e for e in message["events"] if e["kind"] == "moved" and e["seat"] == 1
            ]
        assert moved_for_bob  # seat 1 played on while bob was away
        assert alice.snapshot["seats"][1]["away"] is True
