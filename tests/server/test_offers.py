"""What the table tells each viewer it may do (``may``), 托管 by a player's own choice, and the
layout a deployment starts from: over the real app's sockets and REST."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from fastapi.testclient import TestClient

import engine
from server.app import create_app
from server.config import RoomConfig
from tests.server.conftest import make_settings, register
from tests.server.test_realtime import connect, duel, start_game


def test_each_viewer_is_told_what_it_may_do_and_nothing_it_may_not(client: TestClient) -> None:
    with ExitStack() as stack:
        alice = connect(stack, client, "alice")
        table = alice.request({"type": "create_table", "room": "liangguo-fast"})["table"]
        watcher = connect(stack, client, "watcher")
        watcher.request({"type": "open", "table": table})
        assert watcher.snapshot is not None
        assert watcher.snapshot["may"] == ["sit"]
        assert watcher.snapshot["creator_may"] == ["add_bot"]  # for the creator, not for all
        refused = watcher.request({"type": "add_bot", "table": table, "seat": 1})
        assert refused["code"] == "not_allowed"
        alice.sync(alice.request({"type": "sit", "table": table, "seat": 0})["version"])
        assert alice.snapshot is not None
        assert alice.snapshot["may"] == ["ready", "stand", "sit", "add_bot"]
        bob = connect(stack, client, "bob")
        alice.sync(bob.request({"type": "sit", "table": table, "seat": 1})["version"])
        assert alice.snapshot["may"] == ["ready", "stand", "swap"]  # no free seat, no bot
        watcher.sync(alice.version)
        assert watcher.snapshot["may"] == [] and watcher.snapshot["creator_may"] == []
        start_game(alice, bob, table, seed=4)
        assert alice.snapshot["may"] == ["leave", "stand_in_on"]
        # in play the game itself says: a draw may be offered, a surrender only after 90 s
        may = alice.game["may"]
        assert may["propose_draw"] is True
        assert may["surrender_from"] == alice.game["started_at"] + 90
        refused = alice.act(table, {"type": "surrender"})
        assert refused["code"] == "illegal"  # as offered: not yet
        watcher.sync(alice.version)
        assert watcher.snapshot["may"] == [] and "may" not in watcher.game


def test_a_player_hands_the_seat_to_a_bot_and_takes_it_back(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'standin.db'}")
    settings.rooms = [RoomConfig(id="quick", name="quick", variant="liangguo")]
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        alice = connect(stack, client, "alice")
        table = alice.request({"type": "create_table", "room": "quick"})["table"]
        refused = alice.request({"type": "stand_in", "table": table, "on": True})
        assert refused["code"] == "not_seated"
        alice.request({"type": "sit", "table": table, "seat": 0})
        refused = alice.request({"type": "stand_in", "table": table, "on": True})
        assert refused["code"] == "not_playing"  # no game yet
        alice.request({"type": "add_bot", "table": table, "seat": 1, "level": "hard"})
        alice.sync(alice.request({"type": "ready", "table": table})["version"])
        assert alice.snapshot is not None
        assert [s["level"] for s in alice.snapshot["seats"]] == [None, "hard"]  # a bot's, shown
        layout = engine.auto_layout("liangguo", 0, 2)
        alice.sync(alice.act(table, {"type": "place_layout", "layout": layout})["version"])
        alice.until(
            lambda m: m["type"] == "update" and m["snapshot"]["game"]["phase"] != "deploying"
        )
        on = alice.request({"type": "stand_in", "table": table, "on": True})
        assert on["type"] == "ok", on
        alice.sync(on["version"])
        assert alice.snapshot is not None
        assert alice.snapshot["seats"][0]["taken_over"] is True
        assert alice.snapshot["may"] == ["leave", "stand_in_off"]
        # the bot plays seat 0 now, and the player's own moves wait until it is ended
        moved = alice.until(
            lambda m: (
                m["type"] == "update"
                and any(e["kind"] == "moved" and e["seat"] == 0 for e in m["events"])
            )
        )
        assert moved["type"] == "update"
        refused = alice.act(table, {"type": "propose_draw"})
        assert refused["code"] == "stood_in", refused
        said = [e for m in alice.received if m["type"] in ("table", "update") for e in m["events"]]
        assert {"kind": "stand_in", "seat": 0, "on": True, "why": "asked"} in [
            {k: v for k, v in e.items() if k != "seq"} for e in said
        ]  # the log says so, for everyone
        # coming back to the table (another socket) does not end a 托管 the player asked for
        alice.request({"type": "close", "table": table})
        alice.request({"type": "open", "table": table})
        assert alice.snapshot["seats"][0]["taken_over"] is True
        off = alice.request({"type": "stand_in", "table": table, "on": False})
        alice.sync(off["version"])
        assert alice.snapshot["seats"][0]["taken_over"] is False
        assert alice.snapshot["may"] == ["leave", "stand_in_on"]


def test_a_deployment_starts_from_the_last_layout_played_or_an_automatic_one(
    tmp_path: Path,
) -> None:
    with duel(tmp_path, 6, {}) as (client, _, alice, bob, table):
        auth = {"Authorization": f"Bearer {register(client, 'carol')}"}  # no game yet
        fresh = client.post("/api/layouts/start", json={"variant": "liangguo", "seat": 1})
        assert fresh.status_code == 401
        fresh = client.post(
            "/api/layouts/start", json={"variant": "liangguo", "seat": 1}, headers=auth
        )
        assert fresh.json()["source"] == "auto"
        assert engine.deployment_problems("liangguo", 1, fresh.json()["layout"]) == []
        alice.request({"type": "leave", "table": table})  # the game ends (an escape)
        bob.until(lambda m: m["type"] == "update" and m["snapshot"]["status"] == "finished")
        assert bob.snapshot is not None
        assert bob.snapshot["points"] == [-2, 1]  # rated: no bot at the table
        assert bob.snapshot["scoring"] == {
            "rated": True,
            "unrated_because": None,
            "stake": 1,
            "stood_in": [],
            "repeat": 1,  # the first game of these two today: in full
            "factor": 1.0,
        }
        assert bob.snapshot["seats"][1]["points"] == 1  # the title after the game, at once
        login = client.post("/api/auth/login", json={"name": "alice", "password": "secret-pw"})
        auth = {"Authorization": f"Bearer {login.json()['token']}"}
        last = client.post(
            "/api/layouts/start", json={"variant": "liangguo", "seat": 1}, headers=auth
        ).json()
        assert last["source"] == "last"
        played = engine.auto_layout("liangguo", 0, 6)  # what alice deployed on seat 0
        turned = engine.parse_layout(engine.format_layout(played), 1)
        assert last["layout"] == {sid: rank.value for sid, rank in turned.items()}
        other = client.post(
            "/api/layouts/start", json={"variant": "siguo", "seat": 2}, headers=auth
        ).json()
        assert other["source"] == "auto"  # no game of that variant
        dealt = client.post(
            "/api/layouts/start",
            json={"variant": "luanzhan", "seat": 0, "hand": [["flag", 0], ["bomb", 0]]},
            headers=auth,
        )
        assert dealt.status_code == 200 and dealt.json()["source"] == "auto"
