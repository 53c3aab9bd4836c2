"""Fair play at the tables: leaving a game in any way is one escape; a paused game cannot be held
hostage; rights are checked when they are used; a room owner judges no game of his own; a
configured owner cannot be squatted; a few accounts cannot lock a room; and one person's
accounts play unrated."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.ext.asyncio import create_async_engine
from starlette.websockets import WebSocketDisconnect

import engine
from server import outbound, realtime
from server.app import create_app
from server.config import RoomConfig, Settings
from server.models import Token, User
from server.tables import Table
from tests.server.conftest import make_settings, register
from tests.server.sockets import Player, signed_in
from tests.server.test_admin import admin, audit_log, standing
from tests.server.test_realtime import connect, connect_again, sandayi_in_play, start_game

DUEL: dict[str, object] = {"move_seconds": 30, "deploy_seconds": 60, "surrender_after_seconds": 0}


def app(database_url: str, rooms: list[RoomConfig], **changes: Any) -> TestClient:
    settings = make_settings(database_url, **changes)
    settings.rooms = rooms
    return TestClient(create_app(settings))


def room(room_id: str, variant: str, **options: Any) -> RoomConfig:
    return RoomConfig(id=room_id, name=room_id, variant=variant, options=options)


def sql(database_url: str, statement: Any) -> None:
    """Run ``statement`` on the database from outside the app (as an operator would)."""

    async def run() -> None:
        engine = create_async_engine(database_url)
        try:
            async with engine.begin() as connection:
                await connection.execute(statement)
        finally:
            await engine.dispose()

    asyncio.run(run())


def the_table(client: TestClient, table_id: str) -> Table:
    table: Table = client.app.state.lobby.tables[table_id]  # type: ignore[attr-defined]
    return table


def wait_for(check: Any, seconds: float = 5.0) -> None:
    until = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < until, "it did not happen in time"
        time.sleep(0.05)


def duel_of(client: TestClient, stack: ExitStack, room_id: str) -> tuple[Player, Player, str]:
    alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
    table = alice.request({"type": "create_table", "room": room_id})["table"]
    assert alice.request({"type": "sit", "table": table, "seat": 0})["type"] == "ok"
    assert bob.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"
    start_game(alice, bob, table, 2)
    return alice, bob, table


def result_of(watcher: Player) -> dict[str, Any]:
    over = watcher.until(
        lambda m: m["type"] == "update" and m["snapshot"]["status"] == "finished", limit=2000
    )
    return dict(over["snapshot"]["game"]["result"])


def escapes(client: TestClient, name: str) -> int:
    login = client.post("/api/auth/login", json={"name": name, "password": "secret-pw"})
    headers = {"Authorization": f"Bearer {login.json()['token']}"}
    return int(client.get("/api/me/escapes", headers=headers).json()["escapes"])


# --- leaving a game: one rule, one penalty ----------------------------------------------------


@pytest.mark.parametrize("how", ["tab_closed", "stand_in_then_gone", "present_but_idle"])
def test_every_way_of_leaving_a_game_is_an_escape(tmp_path: Path, how: str) -> None:
    options = {**DUEL, "disconnect_grace_seconds": 1}
    if how == "present_but_idle":  # a socket kept on the table that never plays
        options |= {"move_seconds": 1, "max_skips": 2}
    url = f"sqlite+aiosqlite:///{tmp_path / 'leave.db'}"
    with app(url, [room("r", "liangguo", **options)]) as client, ExitStack() as stack:
        alice, bob, table = duel_of(client, stack, "r")
        if how == "tab_closed":
            alice.ws.close()
        elif how == "stand_in_then_gone":
            assert alice.request({"type": "stand_in", "table": table})["type"] == "ok"
            alice.ws.close()
        # present_but_idle: alice watches on and lets every turn of hers run out
        result = result_of(bob)
        assert [s["outcome"] for s in result["seats"]] == ["escape", "win"]
        assert standing(client, "alice", "liangguo")["points"] == -2  # twice the stake
        assert escapes(client, "alice") == 1  # on her record


def test_a_paused_game_is_not_held_hostage_by_a_player_who_only_sends_commands(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'hostage.db'}"
    rooms = [room("sdy", "sandayi", disconnect_grace_seconds=2, move_seconds=30)]
    with app(url, rooms) as client, ExitStack() as stack:
        players = [connect(stack, client, f"p{seat}") for seat in range(4)]
        table = players[0].request({"type": "create_table", "room": "sdy"})["table"]
        sandayi_in_play(players, table)
        banker = players[0].game["deal"]["banker"]
        hostage_taker = next(s for s in range(4) if s != banker)
        others = [p for s, p in enumerate(players) if s != hostage_taker]
        # his socket leaves the table (play pauses), and asks for a refused swap again and again
        players[hostage_taker].request({"type": "close", "table": table})
        actor = the_table(client, table)
        left_at = time.monotonic()
        while actor.in_game and actor.state is not None and actor.state.seats[hostage_taker].alive:
            assert time.monotonic() - left_at < 6, "the game was held hostage"
            swap = {"type": "swap", "table": table, "seat": banker}
            assert players[hostage_taker].request(swap)["type"] == "error"
            time.sleep(0.3)
        # the grace of 2 s, and no more: he escaped, and play went on without him
        assert time.monotonic() - left_at < 3.5
        state = actor.state
        assert state is not None
        out = state.seats[hostage_taker].elimination
        assert out is not None and out.reason.value == "escape"
        resumed = others[0].until(
            lambda m: m["type"] == "update" and any(e["kind"] == "resumed" for e in m["events"])
        )
        assert resumed["snapshot"]["game"]["paused_since"] is None


# --- rights are checked when they are used ----------------------------------------------------


def test_a_revoked_admin_s_open_socket_kicks_nobody(database_url: str) -> None:
    rooms = [room("r", "liangguo", **DUEL)]
    with app(database_url, rooms) as client, ExitStack() as stack:
        admin(client, "值班长")
        boss = connect_again(stack, client, "值班长")
        alice, bob, table = duel_of(client, stack, "r")
        # the admin is made a player again while the socket stays open
        sql(database_url, update(User).where(User.name == "值班长").values(role="player"))
        kick = {"type": "kick", "table": table, "seat": 1, "penalty": True, "reason": "x"}
        assert boss.request(kick)["code"] == "not_owner"
        actor = the_table(client, table)
        assert actor.in_game and actor.seats[1].name == "bob"  # still seated, playing


def test_an_expired_or_revoked_token_closes_its_open_sockets(database_url: str) -> None:
    rooms = [room("r", "liangguo", **DUEL)]
    with app(database_url, rooms, rights_check_seconds=0.3) as client, ExitStack() as stack:
        token = register(client, "alice")
        alice = Player(stack.enter_context(signed_in(client, token)), "alice")
        assert alice.receive()["type"] == "welcome"
        assert alice.request({"type": "chat", "channel": "lobby", "text": "hi"})["type"] == "ok"
        past = datetime.now(UTC) - timedelta(seconds=1)
        sql(database_url, update(Token).values(expires_at=past))
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(100):  # the chat goes on until the check closes it
                alice.request({"type": "chat", "channel": "lobby", "text": "still here"})
                time.sleep(0.05)
        assert closed.value.code == outbound.UNAUTHORIZED
        assert any(m["type"] == "logged_out" for m in alice.received)


def test_a_socket_is_closed_at_once_once_its_token_has_expired(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'expiry.db'}"
    with app(url, [room("r", "liangguo", **DUEL)]) as client, ExitStack() as stack:
        token = register(client, "alice")
        soon = datetime.now(UTC) + timedelta(seconds=1)
        sql(url, update(Token).values(expires_at=soon))  # read when the socket signs in
        alice = Player(stack.enter_context(signed_in(client, token)), "alice")
        assert alice.receive()["type"] == "welcome"
        assert alice.request({"type": "create_table", "room": "r"})["type"] == "ok"
        time.sleep(1.2)
        with pytest.raises(WebSocketDisconnect) as closed:
            alice.request({"type": "create_table", "room": "r"})
        assert closed.value.code == outbound.UNAUTHORIZED


# --- a room owner judges no game of his own ---------------------------------------------------


def test_a_room_owner_does_not_judge_his_own_game_but_an_admin_may(database_url: str) -> None:
    settings = make_settings(database_url)
    with TestClient(create_app(settings)) as client:
        register(client, "室主")
    settings.rooms = [
        RoomConfig(id="owned", name="owned", variant="liangguo", owner="室主", options=DUEL)
    ]
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        owner = connect_again(stack, client, "室主")
        bob = connect(stack, client, "bob")
        table = owner.request({"type": "create_table", "room": "owned"})["table"]
        assert owner.request({"type": "sit", "table": table, "seat": 0})["type"] == "ok"
        assert bob.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"
        kick = {"type": "kick", "table": table, "seat": 1, "reason": "afk"}
        assert owner.request(kick)["code"] == "own_table"  # before the game: his table too
        start_game(owner, bob, table, 2)
        for message in (
            {**kick, "penalty": True},
            kick,
            {"type": "dissolve", "table": table, "reason": "losing"},
        ):
            refused = owner.request(message)
            assert refused["code"] == "own_table", refused
        assert the_table(client, table).in_game
        headers = admin(client)
        boss = connect_again(stack, client, "值班长")
        assert boss.request({**kick, "penalty": True, "reason": "afk"})["type"] == "ok"
        assert standing(client, "bob", "liangguo")["points"] == -2
        entries = audit_log(client, headers)
        assert [(e["actor"], e["action"], e["target"]) for e in entries] == [
            ("值班长", "kick", "bob")
        ]


# --- a configured owner is a user who was there first -----------------------------------------


def test_a_configured_owner_cannot_be_squatted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'owners.db'}"
    settings = make_settings(url)
    settings.rooms = [
        RoomConfig(id="boss", name="boss", variant="liangguo", owner="bigboss"),
        RoomConfig(id="real", name="real", variant="liangguo", owner="realboss"),
    ]
    first = Settings(**{**settings.model_dump(), "rooms": []})
    with TestClient(create_app(first)) as client:
        register(client, "realboss")  # registered before the configuration names him
    with caplog.at_level(logging.ERROR, logger="junqi"), TestClient(create_app(settings)) as client:
        owners = {r["id"]: r["owner"] for r in client.get("/api/lobby").json()["rooms"]}
        assert owners == {"boss": None, "real": "realboss"}
        register(client, "bigboss")  # the squatter takes the name the configuration waits for
    assert "room boss has no owner" in caplog.text and "not a registered user" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="junqi"), TestClient(create_app(settings)) as client:
        owners = {r["id"]: r["owner"] for r in client.get("/api/lobby").json()["rooms"]}
        assert owners == {"boss": None, "real": "realboss"}  # after the restart too
    assert "registered only after the configuration named them" in caplog.text


# --- a few accounts cannot lock a room --------------------------------------------------------


@contextmanager
def addressed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Sockets of the test client count from the address in their ``x-test-address`` header
    (a real server sees each client's own)."""
    monkeypatch.setattr(
        realtime,
        "connection_address",
        lambda ws: ws.headers.get("x-test-address", "testclient"),
    )
    yield


def connect_from(
    stack: ExitStack, client: TestClient, name: str, address: str, device: str | None = None
) -> Player:
    """A new user's socket from ``address``, its browser naming itself ``device``."""
    token = register(client, name)
    headers = {"x-test-address": address}
    ws = stack.enter_context(client.websocket_connect("/ws", headers=headers))
    ws.send_text(json.dumps({"type": "auth", "token": token, "device": device}))
    player = Player(ws, name)
    assert player.receive()["type"] == "welcome"
    return player


def test_seven_accounts_of_one_address_cannot_fill_a_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'lock.db'}"
    rooms = [RoomConfig(id="small", name="small", variant="siguo", tables=20)]
    with (
        addressed(monkeypatch),
        app(url, rooms, tables_per_address=3, tables_per_creator=3) as client,
        ExitStack() as stack,
    ):
        made, refused = [], []
        for n in range(7):
            account = connect_from(stack, client, f"squatter{n}", "203.0.113.7")
            for _ in range(3):
                reply = account.request({"type": "create_table", "room": "small"})
                if reply["type"] == "ok":
                    made.append(reply["table"])
                    assert (
                        account.request({"type": "sit", "table": reply["table"], "seat": 0})["type"]
                        == "ok"
                    )
                else:
                    refused.append(reply["code"])
        assert len(made) == 3 and set(refused) == {"address_tables"}
        newcomer = connect_from(stack, client, "newcomer", "198.51.100.1")
        assert newcomer.request({"type": "create_table", "room": "small"})["type"] == "ok"


def test_a_user_sits_at_one_table_at_a_time(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'one.db'}"
    with app(url, [room("r", "liangguo", **DUEL)]) as client, ExitStack() as stack:
        alice, bob, table = duel_of(client, stack, "r")
        other = bob.request({"type": "create_table", "room": "r"})["table"]
        refused = alice.request({"type": "sit", "table": other, "seat": 0})
        assert refused["code"] == "playing_elsewhere"
        carol = connect(stack, client, "carol")
        first = carol.request({"type": "create_table", "room": "r"})["table"]
        assert carol.request({"type": "sit", "table": first, "seat": 0})["type"] == "ok"
        assert carol.request({"type": "sit", "table": other, "seat": 0})["type"] == "ok"
        lobby = client.get("/api/lobby").json()
        seated = {
            t["id"]: [s["name"] for s in t["seats"]] for r in lobby["rooms"] for t in r["tables"]
        }
        assert "carol" not in seated[first] and "carol" in seated[other]


def test_a_table_where_one_person_alone_waits_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'lonely.db'}"
    rooms = [room("r", "liangguo", **DUEL)]
    with (
        addressed(monkeypatch),
        app(url, rooms, lonely_table_seconds=1, idle_table_seconds=60) as client,
        ExitStack() as stack,
    ):
        alice = connect_from(stack, client, "alice", "203.0.113.1")
        alias = connect_from(stack, client, "alias", "203.0.113.1")  # hers, by the address
        bob = connect_from(stack, client, "bob", "198.51.100.2")
        carol = connect_from(stack, client, "carol", "198.51.100.3")
        alone = alice.request({"type": "create_table", "room": "r"})["table"]
        alice.request({"type": "sit", "table": alone, "seat": 0})
        alias.request({"type": "sit", "table": alone, "seat": 1})
        company = bob.request({"type": "create_table", "room": "r"})["table"]
        bob.request({"type": "sit", "table": company, "seat": 0})
        carol.request({"type": "sit", "table": company, "seat": 1})
        closed = alice.until(lambda m: m["type"] == "closed")
        assert (closed["table"], closed["why"]) == (alone, "lonely")
        lobby = client.get("/api/lobby").json()
        tables = {t["id"] for r in lobby["rooms"] for t in r["tables"]}
        assert alone not in tables and company in tables


# --- one person's accounts play unrated --------------------------------------------------------


@contextmanager
def sanguo_room(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """An app with a 三国 room, its sockets from the addresses they name, seats that share one
    playing unrated."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'farm.db'}"
    rooms = [room("sg", "sanguo", move_seconds=30, deploy_seconds=60)]
    with addressed(monkeypatch), app(url, rooms, shared_address_unrated=True) as client:
        yield client


def sanguo_in_play(players: list[Player]) -> str:
    """The three sit at a new 三国 table, ready and deploy: play has begun; its id."""
    table = str(players[0].request({"type": "create_table", "room": "sg"})["table"])
    for seat, p in enumerate(players):
        assert p.request({"type": "sit", "table": table, "seat": seat})["type"] == "ok"
    for p in players:
        v = p.request({"type": "ready", "table": table})["version"]
    for p in players:
        p.sync(v)
    for seat, p in enumerate(players):
        layout = engine.auto_layout("sanguo", seat, 3)
        reply = p.act(table, {"type": "place_layout", "layout": layout})
        assert reply["type"] == "ok", reply
    players[0].sync(reply["version"])
    return table


def scoring_of(player: Player) -> dict[str, Any]:
    """The ``points`` event of the game that ends."""
    update = player.until(
        lambda m: m["type"] == "update" and any(e["kind"] == "points" for e in m["events"])
    )
    return dict(next(e for e in update["events"] if e["kind"] == "points"))


def test_accounts_sharing_an_address_play_unrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with sanguo_room(tmp_path, monkeypatch) as client, ExitStack() as stack:
        # one person, three accounts, one address: the 三国 farm
        farm = [connect_from(stack, client, f"farm{n}", "203.0.113.9") for n in range(3)]
        table = sanguo_in_play(farm)
        listing = next(t for r in client.get("/api/lobby").json()["rooms"] for t in r["tables"])
        assert (listing["rated"], listing["unrated_because"]) == (False, "shared_address")
        assert all("address" not in s and "device" not in s for s in listing["seats"])
        for seat in (1, 2):  # two of them give up: the third "wins"
            assert farm[seat].request({"type": "leave", "table": table})["type"] == "ok"
        scoring = scoring_of(farm[0])
        assert (scoring["rated"], scoring["unrated_because"]) == (False, "shared_address")
        assert [standing(client, f"farm{n}", "sanguo")["points"] for n in range(3)] == [0, 0, 0]


def test_accounts_of_one_browser_play_unrated_from_different_addresses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'device.db'}"
    with (
        addressed(monkeypatch),
        app(url, [room("r", "liangguo", **DUEL)], shared_address_unrated=True) as client,
        ExitStack() as stack,
    ):
        browser = "5f0c3a2e-77b1-4e0a-9f1d-2d8e6c4b9a01"
        alice = connect_from(stack, client, "alice", "203.0.113.1", browser)
        alias = connect_from(stack, client, "alias", "198.51.100.7", browser)
        table = alice.request({"type": "create_table", "room": "r"})["table"]
        alice.request({"type": "sit", "table": table, "seat": 0})
        reply = alias.request({"type": "sit", "table": table, "seat": 1})
        alias.sync(reply["version"])
        assert alias.snapshot is not None
        assert alias.snapshot["unrated_because"] == "shared_address"
        # a malformed device id names nothing
        bob = connect_from(stack, client, "bob", "192.0.2.5", "<script>")
        other = bob.request({"type": "create_table", "room": "r"})["table"]
        bob.request({"type": "sit", "table": other, "seat": 0})
        assert the_table(client, other).seats[0].device is None


def test_a_game_begun_by_accounts_sharing_an_address_stays_unrated_when_one_leaves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with sanguo_room(tmp_path, monkeypatch) as client, ExitStack() as stack:
        players = [
            connect_from(stack, client, "farm0", "203.0.113.9"),
            connect_from(stack, client, "farm1", "203.0.113.9"),
            connect_from(stack, client, "honest", "198.51.100.4"),
        ]
        table = sanguo_in_play(players)
        # farm1 leaves (its seat is empty from then on), then the honest player: the two
        # seats left differ, but the game was begun by one person's two accounts
        assert players[1].request({"type": "leave", "table": table})["type"] == "ok"
        assert players[2].request({"type": "leave", "table": table})["type"] == "ok"
        scoring = scoring_of(players[0])
        assert (scoring["rated"], scoring["unrated_because"]) == (False, "shared_address")
        assert standing(client, "farm0", "sanguo")["points"] == 0


def test_accounts_of_different_addresses_play_rated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'fair.db'}"
    with (
        addressed(monkeypatch),
        app(url, [room("r", "liangguo", **DUEL)], shared_address_unrated=True) as client,
        ExitStack() as stack,
    ):
        alice = connect_from(stack, client, "alice", "203.0.113.1")
        bob = connect_from(stack, client, "bob", "198.51.100.2")
        table = alice.request({"type": "create_table", "room": "r"})["table"]
        alice.request({"type": "sit", "table": table, "seat": 0})
        bob.request({"type": "sit", "table": table, "seat": 1})
        start_game(alice, bob, table, 2)
        assert bob.act(table, {"type": "surrender"})["type"] == "ok"
        assert standing(client, "alice", "liangguo")["points"] == 1
