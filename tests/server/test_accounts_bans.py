"""Bans against evasion (``block_banned_addresses``): a ban covers the address its user was last
seen at and every one the user signs in from while banned, never moving; while it lasts no
account signs in from those addresses, nor does an account last seen at one of them, from
anywhere, and those accounts are logged out at once; an unban lifts it all (SQLite and
PostgreSQL)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from fastapi.testclient import TestClient

from server.moderation import set_role
from tests.server.conftest import register
from tests.server.sockets import signed_in
from tests.server.test_accounts_security import (
    app_client,
    bearer,
    closed_with,
    from_address,
    open_socket,
    post,
    refused_socket,
    user_row,
)

HOME, ELSEWHERE, CAFE, STAFF = "198.51.100.1", "203.0.113.7", "192.0.2.50", "192.0.2.200"


@contextmanager
def banning(database_url: str) -> Iterator[tuple[TestClient, dict[str, str]]]:
    """An app that blocks banned addresses, and an admin's headers (the admin at ``STAFF``)."""
    with app_client(database_url, block_banned_addresses=True) as client:
        with from_address(client, STAFF):
            token = register(client, "值班长")
        sessions = client.app.state.db.sessions  # type: ignore[attr-defined]
        assert client.portal is not None
        assert client.portal.call(functools.partial(set_role, sessions, "值班长", "admin"))
        yield client, bearer(token)


def ban(client: TestClient, admin: dict[str, str], name: str) -> None:
    body = {"minutes": 60, "reason": "cheating"}
    assert client.post(f"/admin/users/{name}/ban", headers=admin, json=body).status_code == 200


def unban(client: TestClient, admin: dict[str, str], name: str) -> None:
    body = {"reason": "appeal"}
    assert client.post(f"/admin/users/{name}/unban", headers=admin, json=body).status_code == 200


def refused(answer: Any, code: str = "address_banned") -> bool:
    return bool(answer.status_code == 403 and answer.headers.get("x-error-code") == code)


def test_a_second_account_last_seen_at_the_banned_address_is_logged_out_and_kept_out(
    database_url: str,
) -> None:
    with banning(database_url) as (client, admin), ExitStack() as stack:
        with from_address(client, HOME):
            second = register(client, "mallory2")  # the older second account
            register(client, "mallory")
        socket = open_socket(stack, client, second, "mallory2")
        ban(client, admin, "mallory")
        assert socket.receive() == {"type": "logged_out"}  # logged out at once
        assert closed_with(socket) == 4401
        assert client.get("/api/me", headers=bearer(second)).status_code == 401
        for address in (HOME, ELSEWHERE):  # from the banned address, or from anywhere
            with from_address(client, address):
                assert refused(post(client, "/api/auth/login", "mallory2")), address
        assert user_row(client, "mallory2").address == HOME  # its last address stays
        with from_address(client, HOME):
            assert refused(client.post("/api/auth/guest"))
            assert refused(post(client, "/api/auth/register", "mallory3"))
        unban(client, admin, "mallory")
        with from_address(client, ELSEWHERE):
            login = post(client, "/api/auth/login", "mallory2")
            assert login.status_code == 200
        with from_address(client, HOME):
            assert client.post("/api/auth/guest").status_code == 201


def test_a_banned_login_from_elsewhere_adds_that_address_and_the_first_stays_blocked(
    database_url: str,
) -> None:
    with banning(database_url) as (client, admin), ExitStack() as stack:
        with from_address(client, HOME):
            register(client, "mallory")
        with from_address(client, CAFE):
            dora = register(client, "dora")  # last seen where mallory will come
        dora_socket = open_socket(stack, client, dora, "dora")
        ban(client, admin, "mallory")
        assert dora_socket.request({"type": "ping"})["type"] == "pong"  # not covered yet
        with from_address(client, ELSEWHERE):
            wrong = post(client, "/api/auth/login", "mallory", "not-her-password")
            assert wrong.status_code == 401
            assert client.post("/api/auth/guest").status_code == 201  # a guess adds nothing
        with from_address(client, CAFE):
            banned = post(client, "/api/auth/login", "mallory")
            assert banned.status_code == 403 and "banned" in banned.json()["detail"]
        assert dora_socket.receive() == {"type": "logged_out"}  # the cafe is covered now
        assert closed_with(dora_socket) == 4401
        for address in (HOME, CAFE):  # the block grew; it did not move
            with from_address(client, address):
                assert refused(client.post("/api/auth/guest")), address
        assert user_row(client, "mallory").address == HOME
        with from_address(client, STAFF):  # dora was last seen at the cafe: kept out
            assert refused(post(client, "/api/auth/login", "dora"))
        unban(client, admin, "mallory")
        for address in (HOME, CAFE):
            with from_address(client, address):
                assert client.post("/api/auth/guest").status_code == 201, address
        with from_address(client, CAFE):
            assert post(client, "/api/auth/login", "dora").status_code == 200
            assert post(client, "/api/auth/login", "mallory").status_code == 200


def test_sockets_refuse_the_accounts_a_ban_covers(database_url: str) -> None:
    with banning(database_url) as (client, admin):
        with from_address(client, HOME):
            register(client, "mallory")
        with from_address(client, ELSEWHERE):
            erin = register(client, "erin")
        ban(client, admin, "mallory")
        with from_address(client, HOME):  # a token made elsewhere, used from the address
            assert refused_socket(client, erin) == 4003
        with from_address(client, ELSEWHERE), signed_in(client, erin) as ws:
            assert ws.receive_json()["type"] == "welcome"
        unban(client, admin, "mallory")
        with from_address(client, HOME), signed_in(client, erin) as ws:
            assert ws.receive_json()["type"] == "welcome"


def test_staff_sharing_an_address_with_a_banned_user_are_not_kept_out(database_url: str) -> None:
    with banning(database_url) as (client, admin):
        with from_address(client, STAFF):
            register(client, "mallory")
        ban(client, admin, "mallory")
        assert client.get("/api/me", headers=admin).status_code == 200
        with from_address(client, STAFF):
            assert post(client, "/api/auth/login", "值班长").status_code == 200
            assert refused(client.post("/api/auth/guest"))


def test_a_new_ban_starts_from_the_user_s_last_address(database_url: str) -> None:
    """The addresses of a ban that ran out are let go at the next ban: a home long left is
    somebody else's by then."""
    with banning(database_url) as (client, admin):
        with from_address(client, HOME):
            register(client, "mallory")
        ban(client, admin, "mallory")
        with from_address(client, CAFE):
            assert post(client, "/api/auth/login", "mallory").status_code == 403
        unban(client, admin, "mallory")
        with from_address(client, ELSEWHERE):
            assert post(client, "/api/auth/login", "mallory").status_code == 200
        ban(client, admin, "mallory")
        with from_address(client, ELSEWHERE):
            assert refused(client.post("/api/auth/guest"))
        for address in (HOME, CAFE):
            with from_address(client, address):
                assert client.post("/api/auth/guest").status_code == 201, address


def test_without_the_setting_a_ban_covers_no_address(database_url: str) -> None:
    with app_client(database_url, block_banned_addresses=False) as client:
        register(client, "mallory")
        second = register(client, "mallory2")
        token = register(client, "值班长")
        sessions = client.app.state.db.sessions  # type: ignore[attr-defined]
        assert client.portal is not None
        assert client.portal.call(functools.partial(set_role, sessions, "值班长", "admin"))
        ban(client, bearer(token), "mallory")
        assert client.get("/api/me", headers=bearer(second)).status_code == 200
        assert post(client, "/api/auth/login", "mallory2").status_code == 200
