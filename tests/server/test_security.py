"""Rate limits on sign-ins, tables and game actions; the WebSocket origin check."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from server.app import create_app
from server.limits import RateLimit
from tests.server.conftest import make_settings, register
from tests.server.test_realtime import connect


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
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        strict.websocket_connect(
            f"/ws?token={token}", headers={"origin": "https://evil.example"}
        ) as ws,
    ):
        ws.receive_json()
    assert refused.value.code == 4403
    with strict.websocket_connect(
        f"/ws?token={token}", headers={"origin": "https://junqi.example"}
    ) as ws:
        assert ws.receive_json()["type"] == "welcome"
    with strict.websocket_connect(f"/ws?token={token}") as ws:  # not a browser: no origin
        assert ws.receive_json()["type"] == "welcome"


def test_by_default_a_page_of_this_server_may_open_sockets(sqlite_client: TestClient) -> None:
    token = register(sqlite_client, "carol")
    with sqlite_client.websocket_connect(
        f"/ws?token={token}", headers={"origin": "http://testserver"}
    ) as ws:
        assert ws.receive_json()["type"] == "welcome"
    with (
        pytest.raises(WebSocketDisconnect),
        sqlite_client.websocket_connect(
            f"/ws?token={token}", headers={"origin": "http://elsewhere:8000"}
        ) as ws,
    ):
        ws.receive_json()
