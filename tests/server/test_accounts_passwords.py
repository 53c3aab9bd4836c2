"""Changing one's password (``POST /api/auth/password``): the current one checked as a login's,
the new one by the rules for new passwords, and every other session of the user logged out
(SQLite and PostgreSQL)."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

from fastapi.testclient import TestClient

from tests.server.conftest import register
from tests.server.test_accounts_security import (
    app_client,
    bearer,
    closed_with,
    open_socket,
    post,
    refused_socket,
)


def change(client: TestClient, token: str, current: str, new: str, **headers: str) -> Any:
    return client.post(
        "/api/auth/password",
        json={"current_password": current, "new_password": new},
        headers=bearer(token) | headers,
    )


def test_a_password_change_logs_out_every_other_session(client: TestClient) -> None:
    mine = register(client, "alice")
    others = [post(client, "/api/auth/login", "alice").json()["token"] for _ in range(2)]
    bob = register(client, "bob")
    with ExitStack() as stack:
        here = open_socket(stack, client, mine, "alice")
        there = [open_socket(stack, client, token, "alice") for token in others]
        theirs = open_socket(stack, client, bob, "bob")
        changed = change(client, mine, "secret-pw", "a new one, 2026")
        assert changed.status_code == 204 and changed.content == b""
        for socket in there:
            assert socket.receive() == {"type": "logged_out"}
            assert closed_with(socket) == 4401
        assert here.request({"type": "ping"})["type"] == "pong"  # this session goes on
        assert theirs.request({"type": "ping"})["type"] == "pong"
    assert client.get("/api/me", headers=bearer(mine)).status_code == 200
    for token in others:
        assert client.get("/api/me", headers=bearer(token)).status_code == 401
        assert refused_socket(client, token) == 4401
    assert client.get("/api/me", headers=bearer(bob)).status_code == 200
    assert post(client, "/api/auth/login", "alice").status_code == 401  # the old one is gone
    assert post(client, "/api/auth/login", "alice", "a new one, 2026").status_code == 200


def test_the_current_password_must_be_right_and_failures_wait(database_url: str) -> None:
    with app_client(database_url, login_free_failures=3, login_backoff_seconds=60.0) as client:
        token = register(client, "carol")
        other = post(client, "/api/auth/login", "carol").json()["token"]
        for _ in range(3):
            wrong = change(client, token, "not-the-one", "carol's new pw")
            assert wrong.status_code == 403 and wrong.headers["x-error-code"] == "wrong_password"
        waits = change(client, token, "secret-pw", "carol's new pw")  # right, but too soon
        assert waits.status_code == 429 and waits.headers["x-error-code"] == "login_wait"
        assert int(waits.headers["retry-after"]) >= 1
        # a login for the name counts the same failures
        assert post(client, "/api/auth/login", "carol").status_code == 429
        assert client.get("/api/me", headers=bearer(other)).status_code == 200  # unchanged


def test_the_new_password_follows_the_rules_for_new_passwords(client: TestClient) -> None:
    token = register(client, "dave")
    for new, code in (
        ("        ", "password_blank"),
        ("short-7", "password_short"),
        ("woaini1314", "password_common"),
        ("qq123456", "password_common"),
    ):
        refused = change(client, token, "secret-pw", new)
        assert refused.status_code == 422, new
        assert refused.headers["x-error-code"] == code, new
    assert post(client, "/api/auth/login", "dave").status_code == 200  # still the old one
    too_long = change(client, token, "secret-pw", "x" * 129)
    assert too_long.status_code == 422 and "x" * 129 not in too_long.text


def test_only_a_signed_in_user_with_a_password_changes_one(client: TestClient) -> None:
    body = {"current_password": "secret-pw", "new_password": "a new one, 2026"}
    assert client.post("/api/auth/password", json=body).status_code == 401
    nope = client.post("/api/auth/password", json=body, headers=bearer("nope"))
    assert nope.status_code == 401
    guest = client.post("/api/auth/guest").json()["token"]
    refused = change(client, guest, "anything", "a new one, 2026")
    assert refused.status_code == 403 and refused.headers["x-error-code"] == "wrong_password"
    token = register(client, "erin")
    foreign = change(client, token, "secret-pw", "a new one, 2026", origin="https://evil.example")
    assert foreign.status_code == 403 and foreign.headers["x-error-code"] == "foreign_origin"
    assert post(client, "/api/auth/login", "erin").status_code == 200
