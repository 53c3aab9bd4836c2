"""A restarted server resumes every running game: same position, fair clocks, nothing lost."""

from __future__ import annotations

import logging
import random
import sqlite3
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import engine
from server.app import create_app
from server.config import RoomConfig
from tests.server.conftest import make_settings
from tests.server.sockets import Player
from tests.server.test_realtime import connect, connect_again, start_game


def play_moves(players: dict[int, Player], table: str, count: int, rng: random.Random) -> None:
    """``count`` random legal moves, each by the seat to move."""
    for _ in range(count):
        game = players[0].game
        seat = game["to_move"]
        mover = players[seat]
        mover.sync(players[0].version)
        view = mover.game
        origin = rng.choice(sorted(view["legal_moves"]))
        target = rng.choice(view["legal_moves"][origin])
        reply = mover.act(table, {"type": "move", "origin": origin, "target": target})
        assert reply["type"] == "ok", reply
        for p in players.values():
            p.sync(reply["version"])


def game_of_two(stack: ExitStack, client: TestClient, seed: int) -> tuple[Player, Player, str]:
    """Alice and Bob at a table of the room ``quick``, their game under way."""
    alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
    table = alice.request({"type": "create_table", "room": "quick"})["table"]
    alice.request({"type": "sit", "table": table, "seat": 0})
    bob.request({"type": "sit", "table": table, "seat": 1})
    start_game(alice, bob, table, seed)
    return alice, bob, table


def test_a_restart_resumes_the_running_game(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'restart.db'}")
    settings.rooms = [
        RoomConfig(
            id="quick",
            name="quick",
            variant="liangguo",
            options={"move_seconds": 30, "surrender_after_seconds": 0},
        )
    ]
    rng = random.Random(5)
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        alice, bob, table = game_of_two(stack, client, 11)
        play_moves({0: alice, 1: bob}, table, 6, rng)
        before = alice.game
        stopped_at = time.time()
    time.sleep(1.0)  # the server is down for a second

    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        alice, bob = connect_again(stack, client, "alice"), connect_again(stack, client, "bob")
        for p in (alice, bob):
            assert p.request({"type": "open", "table": table})["type"] == "ok"
        after = alice.game
        assert "junqi_table_takeovers_total 1.0" in client.get("/metrics").text
        assert after["phase"] == "playing"
        assert after["pieces"] == before["pieces"] and after["total_moves"] == 6
        assert after["to_move"] == before["to_move"]
        # the seat to move lost no time to the restart: its deadline moved on with the clock
        assert after["deadline"] - time.time() > before["deadline"] - stopped_at
        assert bob.snapshot is not None
        assert not any(s["away"] for s in bob.snapshot["seats"])  # both came back
        play_moves({0: alice, 1: bob}, table, 4, rng)
        assert alice.game["total_moves"] == 10
        assert bob.act(table, {"type": "surrender"})["type"] == "ok"
        over = alice.until(
            lambda m: m["type"] == "update" and m["snapshot"]["status"] == "finished"
        )
        assert over["snapshot"]["game"]["result"]["winners"] == [0]
        game_id = over["snapshot"]["game_id"]
        record = client.get(f"/api/games/{game_id}/record").json()["record"]
        kinds = [a["type"] for a in record["actions"]]
        assert kinds.count("move") == 10  # every move once: none lost, none twice
        assert kinds.count("pause") == kinds.count("resume") == 1
        # time runs forward in the record: the restart's grace is the resume's own field
        times = [a["now"] for a in record["actions"] if "now" in a]
        assert times == sorted(times)
        assert next(a for a in record["actions"] if a["type"] == "resume")["bonus"] == 10.0
        # the table kept its creator: she, standing up, may still seat a bot
        alice.sync(alice.request({"type": "stand", "table": table})["version"])
        assert alice.request({"type": "add_bot", "table": table, "seat": 0})["type"] == "ok"


def test_bots_play_on_after_a_restart(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'bots.db'}")
    settings.rooms = [
        RoomConfig(id="quick", name="quick", variant="liangguo", options={"move_seconds": 30})
    ]
    rng = random.Random(2)
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        me = connect(stack, client, "carol")
        table = me.request({"type": "play_now", "room": "quick"})["table"]
        me.sync(me.request({"type": "ready", "table": table})["version"])
        layout = engine.auto_layout("liangguo", 0, 3)
        assert me.act(table, {"type": "place_layout", "layout": layout})["type"] == "ok"
        # until carol is to move, in one wait (a second would sit out her 30 s clock)
        me.until(
            lambda m: (
                m["type"] == "update"
                and m["snapshot"]["game"]["phase"] == "playing"
                and m["snapshot"]["game"]["to_move"] == 0
            )
        )
        play_moves({0: me}, table, 1, rng)
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        me = connect_again(stack, client, "carol")
        assert me.request({"type": "open", "table": table})["type"] == "ok"
        if me.game["to_move"] == 0:
            play_moves({0: me}, table, 1, rng)
        moves = me.game["total_moves"]
        # the bot, rebuilt from the saved table, answers
        me.until(lambda m: m["type"] == "update" and m["snapshot"]["game"]["total_moves"] > moves)
        assert me.game["to_move"] == 0


def test_a_table_that_cannot_be_taken_back_does_not_stop_the_server(tmp_path: Path) -> None:
    path = tmp_path / "broken.db"
    settings = make_settings(f"sqlite+aiosqlite:///{path}")
    settings.rooms = [RoomConfig(id="quick", name="quick", variant="liangguo")]
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        alice, bob, table = game_of_two(stack, client, 3)
        game_id = alice.snapshot["game_id"] if alice.snapshot else None
    with sqlite3.connect(path) as db:  # a record no version can read
        assert db.execute("UPDATE live_tables SET record = '{}'").rowcount == 1
    with TestClient(create_app(settings)) as client:
        assert client.get("/ready").json() == {"status": "ready"}
        assert client.get(f"/api/tables/{table}").status_code == 404
        assert client.get(f"/api/games/{game_id}").json()["status"] == "aborted"
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM live_tables").fetchone() == (0,)


def test_a_game_that_cannot_be_taken_back_is_aborted_loudly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A kept game whose record this version cannot replay: the server starts all the same,
    the game ends unscored (``aborted``), its live copy goes, the log and a metric say so."""
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'abort.db'}")
    settings.rooms = [RoomConfig(id="quick", name="quick", variant="liangguo")]
    rng = random.Random(3)
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        alice, bob, table = game_of_two(stack, client, 5)
        play_moves({0: alice, 1: bob}, table, 4, rng)
        game_id = alice.snapshot["game_id"] if alice.snapshot else None
    with sqlite3.connect(tmp_path / "abort.db") as db:  # a move that was never legal
        moved = db.execute(
            "UPDATE live_log SET body = ? WHERE kind = 'action' AND body LIKE '%\"move\"%'",
            ('{"type": "move", "seat": 0, "origin": "9:99", "target": "9:98", "now": 1.0}',),
        )
        assert moved.rowcount > 0

    with caplog.at_level(logging.ERROR, logger="junqi"), TestClient(create_app(settings)) as again:
        assert "junqi_games_aborted_total 1.0" in again.get("/metrics").text
        assert again.get(f"/api/tables/{table}").status_code == 404
        assert again.get(f"/api/games/{game_id}").json()["status"] == "aborted"
        rows = sqlite3.connect(tmp_path / "abort.db").execute("SELECT count(*) FROM live_tables")
        assert rows.fetchone() == (0,)
    assert any(r.levelno == logging.ERROR and "aborted" in r.getMessage() for r in caplog.records)
    with TestClient(create_app(settings)) as third:  # and it stays so
        assert "junqi_games_aborted_total 0.0" in third.get("/metrics").text
