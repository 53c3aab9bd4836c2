"""Escape bans (with their decay), leaderboards and each player's scored games."""

from __future__ import annotations

import asyncio
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient

from server.app import create_app
from server.config import RoomConfig
from server.db import Database, migrate
from server.models import EscapeRecord, Game, User
from server.penalties import BANS, MEMORY, ban_for, escape_standing
from tests.server.conftest import make_settings
from tests.server.test_realtime import connect, connect_again, duel


def test_bans_grow_with_each_escape_and_stop_growing() -> None:
    assert [ban_for(n) for n in range(4)] == [
        timedelta(0),
        timedelta(0),
        timedelta(minutes=10),
        timedelta(hours=1),
    ]
    assert ban_for(50) == BANS[-1] == timedelta(hours=24)


def test_escapes_are_forgotten_after_a_while(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'bans.db'}"
    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    async def scenario() -> None:
        await migrate(url)
        db = Database(url)
        async with db.sessions() as session:
            user = User(name="runner", password_hash=None)
            session.add(user)
            session.add(Game(id="g", variant="siguo", room="r", commitment="c"))
            await session.flush()
            for ago in (MEMORY + timedelta(hours=1), timedelta(hours=2), timedelta(minutes=5)):
                session.add(EscapeRecord(user_id=user.id, game_id="g", at=now - ago))
            await session.commit()
            standing = await escape_standing(session, user.id, now)
            # the oldest is forgotten: two remembered, so ten minutes from the latest
            assert standing.escapes == 2
            assert standing.banned_until == now - timedelta(minutes=5) + timedelta(minutes=10)
            assert "2 escapes" in standing.message()
            later = await escape_standing(session, user.id, now + timedelta(minutes=6))
            assert later.escapes == 2 and later.banned_until is None
            gone = await escape_standing(session, user.id, now + MEMORY)
            assert gone.escapes == 0 and gone.banned_until is None
        await db.close()

    asyncio.run(scenario())


def test_a_repeat_escaper_is_kept_from_the_tables_and_scored(tmp_path: Path) -> None:
    options = {"move_seconds": 30, "disconnect_grace_seconds": 1}
    with duel(tmp_path, 6, options) as (client, stack, alice, bob, table):
        bob.ws.close()  # and does not come back: an escape
        alice.until(lambda m: m["type"] == "update" and m["snapshot"]["status"] == "finished")
        bob = connect_again(stack, client, "bob")
        headers = {"Authorization": f"Bearer {login(client, 'bob')}"}
        first = client.get("/api/me/escapes", headers=headers).json()
        assert first == {"escapes": 1, "banned_until": None}  # the first is a warning

        # the same again: now bob may not sit for ten minutes
        alice.request({"type": "stand", "table": table})
        assert alice.request({"type": "sit", "table": table, "seat": 0})["type"] == "ok"
        assert bob.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"
        for p in (alice, bob):
            v = p.request({"type": "ready", "table": table})["version"]
        for p in (alice, bob):
            p.sync(v)
        assert bob.request({"type": "leave", "table": table})["type"] == "ok"  # an escape
        alice.until(lambda m: m["type"] == "update" and m["snapshot"]["status"] == "finished")
        second = client.get("/api/me/escapes", headers=headers).json()
        assert second["escapes"] == 2 and second["banned_until"] is not None
        refused = bob.request({"type": "sit", "table": table, "seat": 1})
        assert refused["type"] == "error" and refused["code"] == "escape_ban"
        assert "2 escapes" in refused["message"]
        # a table of bots stays open to him
        assert bob.request({"type": "play_now", "room": "quick"})["type"] == "ok"

        board = client.get("/api/leaderboard", params={"variant": "liangguo"}).json()
        assert [(r["place"], r["name"]) for r in board] == [(1, "alice"), (2, "bob")]
        # the second escape came before play: only the escaper scores (docs/rules.md §11)
        assert board[0]["wins"] == 1 and board[1]["losses"] == 2
        assert board[1]["points"] == -4  # 2 × the stake of 1, twice
        overall = client.get("/api/leaderboard").json()
        assert [r["name"] for r in overall] == ["alice", "bob"]
        theirs = client.get("/api/users/alice/games").json()
        assert [(g["outcome"], g["points"]) for g in theirs] == [("unscored", 0), ("win", 1)]
        games = client.get("/api/users/bob/games").json()
        assert [(g["outcome"], g["points"], g["reason"]) for g in games] == [
            ("escape", -2, "escape"),
            ("escape", -2, "escape"),
        ]
        assert client.get("/api/users/nobody/games").status_code == 404
        assert client.get("/api/leaderboard", params={"variant": "chess"}).status_code == 404


def test_escaping_from_bots_alone_is_not_held_against_a_player(tmp_path: Path) -> None:
    options = {"move_seconds": 30, "disconnect_grace_seconds": 1}
    with duel(tmp_path, 8, options) as (client, stack, alice, bob, table):
        carol = connect(stack, client, "carol")
        mine = carol.request({"type": "play_now", "room": "quick"})["table"]
        carol.sync(carol.request({"type": "ready", "table": mine})["version"])
        assert carol.request({"type": "leave", "table": mine})["type"] == "ok"
        games = client.get("/api/users/carol/games").json()
        assert [g["outcome"] for g in games] == ["escape"]  # scored as one, but no ban counts it
        headers = {"Authorization": f"Bearer {login(client, 'carol')}"}
        assert client.get("/api/me/escapes", headers=headers).json()["escapes"] == 0


def login(client: TestClient, name: str) -> str:
    response = client.post("/api/auth/login", json={"name": name, "password": "secret-pw"})
    return str(response.json()["token"])


def test_games_with_bots_move_points_only_where_the_room_says_so(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'rated.db'}")
    settings.rooms = [
        RoomConfig(id="casual", name="casual", variant="liangguo"),
        RoomConfig(id="ranked", name="ranked", variant="liangguo", rated_with_bots=True),
    ]
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        dave = connect(stack, client, "dave")
        for room in ("casual", "ranked"):
            table = dave.request({"type": "play_now", "room": room})["table"]
            dave.sync(dave.request({"type": "ready", "table": table})["version"])
            # leaving while the bots deploy: an escape, before play (only the escaper scores)
            assert dave.request({"type": "leave", "table": table})["type"] == "ok"
        games = client.get("/api/users/dave/games").json()
        assert [(g["rated"], g["points"]) for g in games] == [(True, -2), (False, 0)]
        standing = client.get("/api/users/dave").json()["standings"]
        assert next(s for s in standing if s["variant"] == "liangguo")["points"] == -2
