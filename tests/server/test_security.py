"""Rate limits on sign-ins, tables and game actions; the WebSocket origin check; a token on
every route that needs one; expiring tokens; passwords and tokens never stored, logged or echoed
plainly; no hidden rank in an error message."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import secrets
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from fastapi.routing import APIWebSocketRoute, iter_route_contexts
from fastapi.testclient import TestClient
from redis.exceptions import RedisError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

import engine
from server.accounts import token_hash
from server.app import create_app
from server.db import Base
from server.limits import RateLimit, SharedRateLimit
from server.models import Token, User
from tests.live import free_port, junqi_serve, redis_database
from tests.server.conftest import make_settings, register
from tests.server.sockets import Player, auth, live_socket, signed_in, socket_url
from tests.server.test_realtime import connect, start_game


@pytest.fixture
def strict(tmp_path: Path) -> Iterator[TestClient]:
    settings = make_settings(
        f"sqlite+aiosqlite:///{tmp_path / 'strict.db'}",
        sign_ins_per_minute=3,
        tables_per_minute=2,
        actions_per_10_seconds=3,
        allowed_origins=["https://junqi.example"],
    )
    with TestClient(create_app(settings)) as client:
        yield client


def test_a_rate_limit_counts_in_a_sliding_window() -> None:
    limit = RateLimit(2, 10.0)
    assert limit.allow("a", 0.0) and limit.allow("a", 1.0)
    assert not limit.allow("a", 5.0)  # two in the last ten seconds already
    assert limit.allow("b", 5.0)  # each key on its own
    assert limit.allow("a", 10.5)  # the first one has left the window
    assert not limit.allow("a", 10.6)


def test_a_rate_limit_forgets_the_keys_gone_quiet() -> None:
    limit = RateLimit(1, 10.0)
    for n in range(5000):  # a new guest every 10 ms, each acting once
        assert limit.allow(n, n / 100)
    # only the keys of about the last 10 s (1,000) and those since the last sweep remain
    assert len(limit.times) <= 2048
    assert not limit.allow(4999, 50.0) and limit.allow(4000, 50.0)  # the window still counts


REDIS = os.environ.get("JUNQI_TEST_REDIS", "redis://127.0.0.1:6379")


def test_a_shared_rate_limit_counts_the_events_of_every_process_together() -> None:
    async def main() -> None:
        # two clients, as two server processes would have, on this worker's own database
        first, second = (aioredis.from_url(f"{REDIS}/{redis_database()}") for _ in range(2))
        try:
            await first.ping()
        except RedisError:
            pytest.skip(f"needs Redis at {REDIS} (JUNQI_TEST_REDIS)")
        await first.flushdb()
        try:
            here, there = (SharedRateLimit(r, "chat", 3, 1.0) for r in (first, second))
            assert await here.admit(7) and await there.admit(7) and await here.admit(7)
            assert not await there.admit(7) and not await here.admit(7)  # 3 in the window
            assert await there.admit(8)  # each key on its own
            assert 0 < await first.pttl("junqi:limit:chat:7") <= 1000  # gone with the window
            await asyncio.sleep(1.05)
            assert await there.admit(7)
        finally:
            await first.flushdb()
            await first.aclose()
            await second.aclose()
        # Redis gone: the process counts alone, and still limits
        nowhere = aioredis.from_url(f"redis://127.0.0.1:{free_port()}/0")
        alone = SharedRateLimit(nowhere, "chat", 2, 60.0)
        assert [await alone.admit(7) for _ in range(3)] == [True, True, False]
        await nowhere.aclose()

    asyncio.run(main())


def test_sign_ins_are_limited_per_address(strict: TestClient) -> None:
    register(strict, "alice")
    assert strict.post(
        "/api/auth/login", json={"name": "alice", "password": "secret-pw"}
    ).is_success
    assert strict.post("/api/auth/guest").status_code == 201
    refused = strict.post("/api/auth/login", json={"name": "alice", "password": "secret-pw"})
    assert refused.status_code == 429 and "wait" in refused.json()["detail"]


def test_tables_and_game_actions_are_limited_per_user(strict: TestClient) -> None:
    with ExitStack() as stack:
        alice = connect(stack, strict, "alice")
        for _ in range(2):
            assert alice.request({"type": "create_table", "room": "siguo-fast"})["type"] == "ok"
        refused = alice.request({"type": "create_table", "room": "siguo-fast"})
        assert refused["type"] == "error" and refused["code"] == "rate_limited"
        act = {"type": "act", "table": "nowhere", "version": 0, "action": {"type": "surrender"}}
        codes = [alice.request(act)["code"] for _ in range(4)]
        assert codes == ["no_table", "no_table", "no_table", "rate_limited"]
        assert alice.request({"type": "ping"})["type"] == "pong"  # the socket lives on


def test_only_allowed_pages_may_open_sockets(strict: TestClient) -> None:
    token = register(strict, "bob")
    with (  # refused before the socket is even accepted
        pytest.raises(WebSocketDisconnect) as refused,
        signed_in(strict, token, headers={"origin": "https://evil.example"}),
    ):
        pass
    assert refused.value.code == 4403
    with signed_in(strict, token, headers={"origin": "https://junqi.example"}) as ws:
        assert ws.receive_json()["type"] == "welcome"
    with signed_in(strict, token) as ws:  # not a browser: no origin
        assert ws.receive_json()["type"] == "welcome"


def test_by_default_a_page_of_this_server_may_open_sockets(sqlite_client: TestClient) -> None:
    token = register(sqlite_client, "carol")
    with signed_in(sqlite_client, token, headers={"origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "welcome"
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        signed_in(sqlite_client, token, headers={"origin": "http://elsewhere:8000"}),
    ):
        pass
    assert refused.value.code == 4403


# --- authentication on every route ---------------------------------------------------------------

PUBLIC = {  # (method, path) anyone may use; every other route needs a bearer token
    ("GET", "/openapi.json"),
    ("GET", "/docs"),
    ("GET", "/docs/oauth2-redirect"),
    ("GET", "/redoc"),
    ("POST", "/api/auth/register"),
    ("POST", "/api/auth/login"),
    ("POST", "/api/auth/guest"),
    ("GET", "/api/lobby"),
    ("GET", "/api/boards/{key}"),
    ("GET", "/api/rooms/{room_id}/rules"),
    ("GET", "/api/tables/{table_id}"),
    ("GET", "/api/users/{name}"),
    ("GET", "/api/users/{name}/games"),
    ("GET", "/api/leaderboard"),
    ("GET", "/api/games"),
    ("GET", "/api/games/{game_id}"),
    ("GET", "/api/games/{game_id}/record"),
    ("GET", "/api/games/{game_id}/replay/{step}"),
    ("GET", "/api/games/{game_id}/moves"),
    ("POST", "/api/layouts/check"),
    ("POST", "/api/layouts/auto"),
    ("POST", "/api/layouts/parse"),
    ("POST", "/api/layouts/format"),
    ("POST", "/api/layouts/jql"),
    ("POST", "/api/layouts/parse-jql"),
    ("GET", "/health"),
    ("GET", "/ready"),
    ("GET", "/metrics"),
}
PATH_VALUES = {
    "name": "someone",
    "key": "siguo",
    "table_id": "t",
    "game_id": "g",
    "step": "0",
    "room_id": "r",
}


def routes(client: TestClient) -> tuple[list[tuple[str, str]], list[str]]:
    """Every HTTP route (method, path) and every socket path of the app, as it serves them."""
    http, sockets = [], []
    for route in iter_route_contexts(client.app.router.routes):  # type: ignore[attr-defined]
        if isinstance(route.original_route, APIWebSocketRoute):
            sockets.append(str(route.path))
        elif route.methods:
            http += [(m, str(route.path)) for m in sorted(route.methods) if m != "HEAD"]
    return http, sockets


async def _expire(sessions: async_sessionmaker[AsyncSession], token: str) -> Token:
    async with sessions() as session:
        row = await session.get(Token, token_hash(token))
        assert row is not None
        row.expires_at = datetime.now(UTC) - timedelta(seconds=1)
        await session.commit()
        return row


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def expire(client: TestClient, token: str) -> None:
    sessions = client.app.state.db.sessions  # type: ignore[attr-defined]
    assert client.portal is not None
    client.portal.call(functools.partial(_expire, sessions, token))


def test_every_route_but_the_public_ones_refuses_without_a_valid_token(
    sqlite_client: TestClient,
) -> None:
    client = sqlite_client
    player = register(client, "player")
    expired = register(client, "late")
    expire(client, expired)
    http, sockets = routes(client)
    assert set(http) >= PUBLIC, "a public route is gone: update PUBLIC"
    guarded = [(m, p) for m, p in http if (m, p) not in PUBLIC]
    assert len(guarded) >= 15 and any(p.startswith("/admin/") for _, p in guarded)
    for method, path in guarded:
        url = path.format(**PATH_VALUES, layout_id=1)
        body: dict[str, Any] | None = {} if method in ("POST", "PUT", "PATCH") else None
        for token in ("nope", expired, None):
            headers = {} if token is None else bearer(token)
            refused = client.request(method, url, headers=headers, json=body)
            assert refused.status_code == 401, (method, path, headers, refused.text)
            assert refused.headers["www-authenticate"] == "Bearer"
        token = player
        if path.startswith("/api/auth/logout"):  # it revokes tokens: a user of its own
            token = register(client, f"leaver{path.count('-')}")
        answer = client.request(method, url, headers=bearer(token), json=body)
        if path.startswith("/admin/"):  # a player's token: not an admin
            assert answer.status_code == 403, (method, path, answer.text)
        else:
            assert answer.status_code not in (401, 403), (method, path, answer.text)
    for method, path in PUBLIC:
        body = {} if method == "POST" else None
        answer = client.request(method, path.format(**PATH_VALUES), json=body)
        assert answer.status_code not in (401, 403), path
    assert sockets == ["/ws"]
    for path in sockets:
        for first in ("", '{"type": "auth"}', auth("nope"), auth(expired), auth(player)[:-2]):
            with (
                pytest.raises(WebSocketDisconnect) as closed,
                client.websocket_connect(path) as ws,
            ):
                ws.send_text(first)
                ws.receive_json()
            assert closed.value.code == 4401, first
        with client.websocket_connect(f"{path}?token={player}") as ws:  # not in the URL
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4401 and "URL" in closed.value.reason
        with client.websocket_connect(path) as ws:
            ws.send_text(auth(player))
            assert ws.receive_json()["type"] == "welcome"


def test_tokens_expire_after_the_configured_hours(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'hours.db'}", token_hours=2)
    with TestClient(create_app(settings)) as client:
        token = register(client, "erin")
        mine = bearer(token)
        assert client.get("/api/me", headers=mine).status_code == 200
        sessions = client.app.state.db.sessions  # type: ignore[attr-defined]
        assert client.portal is not None

        async def expiry() -> datetime:
            async with sessions() as session:
                row = await session.get(Token, token_hash(token))
                assert row is not None
                expires: datetime = row.expires_at
                return expires.replace(tzinfo=UTC)

        lifetime = client.portal.call(expiry) - datetime.now(UTC)
        assert timedelta(hours=2) - timedelta(minutes=1) < lifetime <= timedelta(hours=2)
        expire(client, token)
        assert client.get("/api/me", headers=mine).status_code == 401
        with (
            pytest.raises(WebSocketDisconnect) as closed,
            signed_in(client, token) as ws,
        ):
            ws.receive_json()
        assert closed.value.code == 4401
        login = client.post("/api/auth/login", json={"name": "erin", "password": "secret-pw"})
        assert client.get("/api/me", headers=bearer(login.json()["token"])).is_success


def test_passwords_and_tokens_are_never_stored_plainly(database_url: str, tmp_path: Path) -> None:
    password = f"Pw-{secrets.token_hex(8)}"
    with TestClient(create_app(make_settings(database_url))) as client:
        signed_up = client.post("/api/auth/register", json={"name": "frank", "password": password})
        tokens = [signed_up.json()["token"]]
        login = client.post("/api/auth/login", json={"name": "frank", "password": password})
        tokens.append(login.json()["token"])
        sessions = client.app.state.db.sessions  # type: ignore[attr-defined]
        assert client.portal is not None

        async def everything() -> str:
            rows = []
            async with sessions() as session:
                for table in Base.metadata.sorted_tables:
                    rows += [repr(tuple(r)) for r in await session.execute(table.select())]
                frank = (
                    await session.execute(select(User).where(User.name == "frank"))
                ).scalar_one()
                assert frank.password_hash is not None
                assert frank.password_hash.startswith("$argon2")
            return "\n".join(rows)

        stored = client.portal.call(everything)
    assert "frank" in stored and token_hash(tokens[0]) in stored  # the dump saw the rows
    for secret in (password, *tokens):
        assert secret not in stored
    if database_url.startswith("sqlite"):  # nor anywhere in the file (free pages, journal)
        raw = b"".join(p.read_bytes() for p in tmp_path.glob("junqi.db*"))
        for secret in (password, *tokens):
            assert secret.encode() not in raw


def test_guessing_passwords_is_limited_per_address(strict: TestClient) -> None:
    register(strict, "grace")  # 1 of 3 sign-ins this minute
    for _ in range(2):
        wrong = strict.post("/api/auth/login", json={"name": "grace", "password": "guess-1234"})
        assert wrong.status_code == 401
    right = strict.post("/api/auth/login", json={"name": "grace", "password": "secret-pw"})
    assert right.status_code == 429  # failed guesses count too: the right one waits as well
    assert (
        strict.post(
            "/api/auth/register", json={"name": "hank", "password": "secret-pw"}
        ).status_code
        == 429
    )
    assert strict.post("/api/auth/guest").status_code == 429


def test_pages_of_other_origins_may_not_open_sockets(sqlite_client: TestClient) -> None:
    token = register(sqlite_client, "ivan")
    for origin in ("null", "http://testserver:8080", "http://testserver.evil.example", "file://"):
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            signed_in(sqlite_client, token, headers={"origin": origin}),
        ):
            pass
        assert refused.value.code == 4403, origin


def test_the_server_s_own_pages_stay_allowed_beside_the_allowed_origins(
    strict: TestClient,
) -> None:
    token = register(strict, "judy")
    with signed_in(strict, token, headers={"origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "welcome"


# --- no secret in logs or error messages ----------------------------------------------------------

LOGGERS = ("junqi", "uvicorn", "uvicorn.error", "uvicorn.access", "fastapi", "starlette")


def test_no_password_token_seed_or_hidden_rank_in_logs_or_errors(
    sqlite_client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    client = sqlite_client
    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)
    passwords = {name: f"Pw-{secrets.token_hex(6)}" for name in ("alice", "bob")}
    secret_texts: list[str] = list(passwords.values())
    answers: list[str] = []  # every error the clients got
    for name, password in passwords.items():
        for body in (
            {"name": name, "password": password[:5]},  # too short: refused, not echoed
            {"name": name, "password": password * 20},  # too long
            {"name": name * 9, "password": password},  # a bad name, with a good password
            {"name": name, "password": [password]},
            {"password": password},
        ):
            refused = client.post("/api/auth/register", json=body)
            assert refused.status_code == 422, refused.text
            answers.append(refused.text)
        made = client.post("/api/auth/register", json={"name": name, "password": password})
        secret_texts.append(made.json()["token"])
        wrong = client.post("/api/auth/login", json={"name": name, "password": password + "x"})
        assert wrong.status_code == 401
        short = client.post("/api/auth/login", json={"name": name, "password": password[:3]})
        assert short.status_code == 422
        answers += [wrong.text, short.text]
    logins = [
        client.post("/api/auth/login", json={"name": n, "password": p}).json()["token"]
        for n, p in passwords.items()
    ]
    secret_texts += logins
    with ExitStack() as stack:
        alice, bob = (
            Player(stack.enter_context(signed_in(client, t)), n)
            for n, t in zip(passwords, logins, strict=True)
        )
        for p in (alice, bob):
            assert p.receive()["type"] == "welcome"
        table = alice.request({"type": "create_table", "room": "liangguo-fast"})["table"]
        alice.request({"type": "sit", "table": table, "seat": 0})
        bob.request({"type": "sit", "table": table, "seat": 1})
        start_game(alice, bob, table, 9)
        mover = alice if alice.game["to_move"] == 0 else bob
        seat = mover.game["to_move"]
        theirs = [p["station"] for p in mover.game["pieces"] if p["seat"] != seat]
        mine = [p["station"] for p in mover.game["pieces"] if p["seat"] == seat]
        for origin in theirs:  # the other's pieces, moved onto every piece of ours
            for target in mine[:6]:
                reply = mover.act(table, {"type": "move", "origin": origin, "target": target})
                assert reply["type"] == "error"
                answers.append(reply["message"])
        waiting = bob if mover is alice else alice
        for origin in theirs:  # the waiting player's own pieces, out of turn
            reply = waiting.act(table, {"type": "move", "origin": origin, "target": mine[0]})
            answers.append(reply["message"])
        game_id = alice.snapshot["game_id"] if alice.snapshot else None
        offer = mover.act(table, {"type": "propose_draw"})  # over: the seed is public now
        waiting.sync(offer["version"])
        over = waiting.act(table, {"type": "answer_proposal", "accept": True})
        assert (offer["type"], over["type"]) == ("ok", "ok"), (offer, over)
    record = client.get(f"/api/games/{game_id}/record").json()
    secret_texts.append(record["record"]["seed"])
    logged = "\n".join(
        f"{r.getMessage()} {r.__dict__} {r.exc_text or ''}"
        for r in caplog.records
        if r.name.split(".")[0] in {n.split(".")[0] for n in LOGGERS}
    )
    assert "game started" in logged  # the log was captured
    for text in secret_texts:
        assert text not in logged
        assert all(text not in answer for answer in answers)
    hidden = {r.value for r in engine.Rank}
    for answer in answers:
        assert not any(rank in answer for rank in hidden), answer


def test_the_server_s_own_logs_hold_no_token(tmp_path: Path) -> None:
    """``junqi serve`` as deployed (JSON logs at INFO): a sign-in and a socket leave neither
    the password nor the token in its output."""
    with junqi_serve(tmp_path) as base:
        password = f"Pw-{secrets.token_hex(6)}"
        made = httpx.post(f"{base}/api/auth/register", json={"name": "kim", "password": password})
        token = made.json()["token"]
        assert httpx.get(f"{base}/api/me", headers={"Authorization": f"Bearer {token}"}).is_success
        with live_socket(base, token) as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
        # a client of before the auth message (a tab open across an upgrade) puts its token
        # in the URL, which the server logs: refused, and cut out of the log line
        with ws_connect(f"{socket_url(base)}?token={token}") as ws:
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    logged = (tmp_path / "serve.log").read_text()
    assert "/api/auth/register" in logged  # the access log was written
    assert "/ws?token=[redacted]" in logged
    assert password not in logged
    assert token not in logged
