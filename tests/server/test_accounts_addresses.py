"""Who a sign-in comes from: every per-address rule counts an IPv6 client by its /64 (the
sign-in limit, guests a day, the address kept, banned addresses), and sign-ins come from this
server's own pages only (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fastapi.testclient import TestClient

from server.addresses import address_key
from tests.server.conftest import register
from tests.server.test_accounts_security import app_client, ban, from_address, post, user_row


def test_guests_are_counted_by_the_ipv6_64_they_come_from(database_url: str) -> None:
    with app_client(database_url, guests_per_address_per_day=10) as client:
        answers = []
        for n in range(40):  # a new address of one /64 every time
            with from_address(client, f"2001:db8:1:2:{n:x}:{n * 7:x}::{n + 1:x}"):
                answers.append(client.post("/api/auth/guest"))
        assert [a.status_code for a in answers] == [201] * 10 + [429] * 30
        assert {a.headers["x-error-code"] for a in answers[10:]} == {"guest_limit"}
        name = answers[0].json()["user"]["name"]
        assert user_row(client, name).address == "2001:db8:1:2::/64"  # kept by its /64
        with from_address(client, "2001:db8:1:3::1"):  # the next /64 is another home
            assert client.post("/api/auth/guest").status_code == 201
        with from_address(client, "198.51.100.20"):
            assert client.post("/api/auth/guest").status_code == 201


def test_sign_ins_are_limited_by_the_ipv6_64_they_come_from(database_url: str) -> None:
    with app_client(database_url, sign_ins_per_minute=30) as client:
        with from_address(client, "2001:db8:5::1"):
            register(client, "alice")  # 1 of 30 for 2001:db8:5::/64
        answers = []
        for n in range(40):
            with from_address(client, f"2001:db8:5:0:{n + 1:x}::{n + 2:x}"):
                answers.append(post(client, "/api/auth/login", "alice").status_code)
        assert answers == [200] * 29 + [429] * 11
        with from_address(client, "2001:db8:5:1::1"):
            assert post(client, "/api/auth/login", "alice").status_code == 200
        assert user_row(client, "alice").address == "2001:db8:5:1::/64"


def test_a_ban_covers_the_ipv6_64_of_its_user(database_url: str) -> None:
    with app_client(database_url, block_banned_addresses=True) as client:
        with from_address(client, "2001:db8:9::1"):
            register(client, "mallory")
        ban(client, "mallory", datetime.now(UTC) + timedelta(hours=1))
        with from_address(client, "2001:db8:9::ffff:2"):  # another address of the /64
            refused = client.post("/api/auth/guest")
            assert refused.status_code == 403
            assert refused.headers["x-error-code"] == "address_banned"
        with from_address(client, "2001:db8:a::1"):
            assert client.post("/api/auth/guest").status_code == 201


def test_address_keys() -> None:
    assert address_key("2001:db8::1") == address_key("2001:db8::ffff:1") == "2001:db8::/64"
    assert address_key("2001:db8::1", 48) == "2001:db8::/48"
    assert address_key("::ffff:192.0.2.1") == "192.0.2.1"  # IPv4 mapped into IPv6
    assert address_key("fe80::1%eth0") == "fe80::/64"
    assert address_key("192.0.2.1") == "192.0.2.1"
    assert address_key("testclient") == "testclient"


# --- same-origin sign-ins ----------------------------------------------------------------------

FOREIGN = [
    {"origin": "https://evil.example"},
    {"origin": "null"},
    {"origin": "http://testserver:8080"},  # another port is another origin
    {"sec-fetch-site": "cross-site"},
    {"sec-fetch-site": "same-site"},
    {"sec-fetch-site": "cross-site", "origin": "http://testserver"},
]
OWN = [
    {},  # not a browser: neither header
    {"origin": "http://testserver"},
    {"sec-fetch-site": "same-origin", "origin": "http://testserver"},
    {"sec-fetch-site": "none"},  # typed into the address bar, a bookmark
]


def test_sign_ins_come_from_this_server_s_own_pages_only(client: TestClient) -> None:
    register(client, "alice")
    for headers in FOREIGN:
        for path, body in (
            ("/api/auth/guest", None),
            ("/api/auth/register", {"name": "mallory", "password": "secret-pw"}),
            ("/api/auth/login", {"name": "alice", "password": "secret-pw"}),
        ):
            refused = client.post(path, json=body, headers=headers)
            assert refused.status_code == 403, (path, headers)
            assert refused.headers["x-error-code"] == "foreign_origin", (path, headers)
    for n, headers in enumerate(OWN):
        assert client.post("/api/auth/guest", headers=headers).status_code == 201, headers
        made = client.post(
            "/api/auth/register",
            json={"name": f"bob{n}", "password": "secret-pw"},
            headers=headers,
        )
        assert made.status_code == 201, headers
        login = client.post(
            "/api/auth/login", json={"name": "alice", "password": "secret-pw"}, headers=headers
        )
        assert login.status_code == 200, headers


def test_an_allowed_origin_may_sign_in(database_url: str) -> None:
    with app_client(database_url, allowed_origins=["https://friend.example"]) as client:
        headers = {"origin": "https://friend.example", "sec-fetch-site": "cross-site"}
        assert client.post("/api/auth/guest", headers=headers).status_code == 201
        other = {"origin": "https://evil.example", "sec-fetch-site": "cross-site"}
        assert client.post("/api/auth/guest", headers=other).status_code == 403
