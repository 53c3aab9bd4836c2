"""Tables close by themselves: abandoned ones, finished ones whose players left; a cap on the
tables one user opens; play now in a pool of its own; spectator counts that match."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from server.config import RoomConfig
from tests.server.conftest import make_settings
from tests.server.sockets import Player, signed_in
from tests.server.test_realtime import connect, start_game

ROOM = RoomConfig(id="duel", name="二人", variant="liangguo", tables=20)
OTHER = RoomConfig(id="fanqi", name="翻棋", variant="fanqi", tables=20)


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    settings = make_settings(
        database_url, idle_table_seconds=0.5, seat_grace_seconds=1.0, tables_per_creator=3
    )
    settings.rooms = [ROOM, OTHER]
    with TestClient(create_app(settings)) as c:
        yield c


def tables(client: TestClient, room: str = "duel") -> list[dict[str, Any]]:
    rooms = client.get("/api/lobby").json()["rooms"]
    return list(next(r for r in rooms if r["id"] == room)["tables"])


def eventually(check: Callable[[], bool], seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"it did not happen in time: {check}"
        time.sleep(0.05)


def test_the_lobby_is_usable_after_twenty_abandoned_tables(client: TestClient) -> None:
    with ExitStack() as stack:
        newcomer = connect(stack, client, "newcomer")
        with ExitStack() as leaving:  # twenty open a table each, sit and close the page
            for player in [connect(leaving, client, f"p{n}") for n in range(20)]:
                table = player.request({"type": "create_table", "room": "duel"})["table"]
                assert player.request({"type": "sit", "table": table, "seat": 0})["type"] == "ok"
            full = newcomer.request({"type": "create_table", "room": "duel"})
            assert full["code"] == "room_full"
        assert newcomer.request({"type": "play_now", "room": "duel"})["type"] == "ok"
        eventually(lambda: len(tables(client)) == 1)  # the abandoned ones closed
        assert newcomer.request({"type": "create_table", "room": "duel"})["type"] == "ok"


def test_one_user_opens_a_few_tables_and_play_now_reuses_its_own(client: TestClient) -> None:
    with ExitStack() as stack:
        guest = connect(stack, client, "wanderer")
        opened = [guest.request({"type": "create_table", "room": "duel"}) for _ in range(4)]
        assert [r["type"] for r in opened[:3]] == ["ok"] * 3
        assert opened[3]["code"] == "too_many_tables"
        first = guest.request({"type": "play_now", "room": "duel"})["table"]
        assert guest.request({"type": "play_now", "room": "duel"})["table"] == first
        mine = [t for t in tables(client) if t["id"] == first]
        assert mine[0]["quick"] and [s["name"] for s in mine[0]["seats"]] == ["wanderer", "机器人1"]
        # play now elsewhere: the bot table with no game on closes, one is enough
        other = guest.request({"type": "play_now", "room": "fanqi"})["table"]
        assert other != first
        eventually(lambda: first not in {t["id"] for t in tables(client)})
        assert [t["id"] for t in tables(client, "fanqi")] == [other]


def test_play_now_is_outside_the_room_s_count(database_url: str) -> None:
    settings = make_settings(database_url)
    settings.rooms = [ROOM.model_copy(update={"tables": 1})]
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
        assert alice.request({"type": "create_table", "room": "duel"})["type"] == "ok"
        assert bob.request({"type": "create_table", "room": "duel"})["code"] == "room_full"
        assert bob.request({"type": "play_now", "room": "duel"})["type"] == "ok"


def test_a_finished_table_whose_players_left_closes(client: TestClient) -> None:
    with ExitStack() as stack:
        watcher = connect(stack, client, "carol")
        with ExitStack() as players:
            alice, bob = connect(players, client, "alice"), connect(players, client, "bob")
            table = alice.request({"type": "create_table", "room": "duel"})["table"]
            for seat, p in enumerate((alice, bob)):
                assert p.request({"type": "sit", "table": table, "seat": seat})["type"] == "ok"
            assert watcher.request({"type": "open", "table": table})["type"] == "ok"
            start_game(alice, bob, table, seed=2)
            alice.request({"type": "leave", "table": table})  # an escape: the game ends
            bob.until(lambda m: m["type"] == "update" and m["snapshot"]["status"] == "finished")
            assert [s["name"] for s in tables(client)[0]["seats"]] == [None, "bob"]
        # bob closed the page too: after a moment his seat is free, then the table closes
        closed = watcher.until(lambda m: m["type"] == "closed")
        assert closed["why"] == "idle"
        assert closed["table"] == table
        assert tables(client) == []
        gone = watcher.request({"type": "sit", "table": table, "seat": 0})
        assert gone["code"] == "no_table"


def test_a_player_who_reloads_keeps_the_seat(client: TestClient) -> None:
    with ExitStack() as stack:
        with ExitStack() as first_page:
            alice = connect(first_page, client, "alice")
            table = alice.request({"type": "create_table", "room": "duel"})["table"]
            assert alice.request({"type": "sit", "table": table, "seat": 0})["type"] == "ok"
            login = client.post("/api/auth/login", json={"name": "alice", "password": "secret-pw"})
        assert tables(client)[0]["seats"][0]["away"] is True
        again = Player(stack.enter_context(signed_in(client, login.json()["token"])), "alice")
        assert again.receive()["type"] == "welcome"
        assert again.request({"type": "open", "table": table})["type"] == "ok"
        time.sleep(1.6)  # past the seat's grace and the table's idle time
        seat = tables(client)[0]["seats"][0]
        assert seat["name"] == "alice" and seat["away"] is False


def test_spectator_counts_match_the_table(client: TestClient) -> None:
    with ExitStack() as stack:
        alice = connect(stack, client, "alice")
        table = alice.request({"type": "create_table", "room": "duel"})["table"]
        alice.request({"type": "sit", "table": table, "seat": 0})

        def counts() -> tuple[int, int]:
            listed = tables(client)[0]["spectators"]
            return listed, client.get(f"/api/tables/{table}").json()["spectators"]

        with ExitStack() as watching:
            carol = connect(watching, client, "carol")
            dave = connect(watching, client, "dave")
            for p in (carol, dave, carol):  # carol opens it twice: one spectator still
                assert p.request({"type": "open", "table": table})["type"] == "ok"
            eventually(lambda: counts() == (2, 2))
            carol.request({"type": "close", "table": table})
            eventually(lambda: counts() == (1, 1))
            assert dave.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"
            eventually(lambda: counts() == (0, 0))  # a player is no spectator
            dave.request({"type": "stand", "table": table})
            eventually(lambda: counts() == (1, 1))
        eventually(lambda: counts() == (0, 0))  # their pages closed


def test_players_see_the_spectators_come_and_go(client: TestClient) -> None:
    """The table's own count (its snapshot, 旁观 n at the table) follows the spectators, in a
    game too, without a new version: a player's move made meanwhile stays good."""
    with ExitStack() as stack:
        alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
        table = alice.request({"type": "create_table", "room": "duel"})["table"]
        alice.request({"type": "sit", "table": table, "seat": 0})
        alice.sync(bob.request({"type": "sit", "table": table, "seat": 1})["version"])

        def told(count: int) -> dict[str, Any]:
            return alice.until(
                lambda m: m["type"] == "update" and m["snapshot"]["spectators"] == count
            )

        with ExitStack() as watching:
            carol = connect(watching, client, "carol")
            carol.request({"type": "open", "table": table})
            version = alice.version
            assert told(1)["version"] == version
            carol.request({"type": "close", "table": table})
            assert told(0)["version"] == version
            start_game(alice, bob, table, seed=3)
            carol.request({"type": "open", "table": table})
            assert carol.snapshot is not None and carol.snapshot["spectators"] == 1
            version = alice.version
            assert told(1)["version"] == version
            mover = (alice, bob)[alice.game["to_move"]]
            mover.sync(version)
            origin = sorted(mover.game["legal_moves"])[0]
            move = {
                "type": "move",
                "origin": origin,
                "target": mover.game["legal_moves"][origin][0],
            }
            act = {"type": "act", "table": table, "version": version, "action": move}
            assert mover.request(act)["type"] == "ok"
        assert told(0)["snapshot"]["spectators"] == 0  # carol's page closed
