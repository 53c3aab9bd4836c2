"""Accounts against abuse (issue #20): hashing off the event loop and the same work for unknown
names, login back-off per name, names without look-alikes or reserved words, no blank or common
passwords, logout (one token, or all), and guests per address (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any, Literal

import argon2
import pytest
import redis.asyncio as aioredis
from alembic import command
from fastapi.testclient import TestClient
from redis.exceptions import RedisError
from sqlalchemy import delete, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine
from starlette.websockets import WebSocketDisconnect

import server.backoff
from server import messages
from server.app import create_app
from server.backoff import LoginBackoff, SharedLoginBackoff, wait_after
from server.config import Settings
from server.db import alembic_config
from server.models import Token, User
from server.names import NameRefused, check_new_name, name_key, skeleton
from server.passwords import COMMON_FILE, DUMMY_HASH, NICENESS, Passwords, common_passwords
from server.realtime import Connection
from tests.live import free_port, redis_database
from tests.server.conftest import make_settings, register
from tests.server.sockets import Player, signed_in

REDIS = os.environ.get("JUNQI_TEST_REDIS", "redis://127.0.0.1:6379")
# the refusals' codes (X-Error-Code, docs/protocol.md): the client has words for each
ACCOUNT_CODES = {
    "name_invalid",
    "name_control",
    "name_mixed_scripts",
    "name_reserved",
    "name_taken",
    "name_look_alike",
    "password_blank",
    "password_common",
    "login_wait",
    "guest_limit",
    "address_banned",
}


@contextmanager
def app_client(database_url: str, **settings: Any) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(database_url, **settings))) as client:
        yield client


@contextmanager
def from_address(client: TestClient, address: str) -> Iterator[None]:
    """The test client's requests come from ``address`` meanwhile."""
    transport: Any = client._transport
    before = transport.client
    transport.client = (address, 50000)
    try:
        yield
    finally:
        transport.client = before


def run(client: TestClient, work: Any) -> Any:
    """Run ``work(session)`` (a coroutine function) in the app's event loop."""
    sessions = client.app.state.db.sessions  # type: ignore[attr-defined]

    async def go() -> Any:
        async with sessions() as session:
            result = await work(session)
            await session.commit()
            return result

    assert client.portal is not None
    return client.portal.call(go)


def user_row(client: TestClient, name: str) -> User:
    async def find(session: AsyncSession) -> User:
        return (await session.execute(select(User).where(User.name == name))).scalar_one()

    user = run(client, find)
    assert isinstance(user, User)
    return user


def post(client: TestClient, path: str, name: str, password: str = "secret-pw") -> Any:
    return client.post(path, json={"name": name, "password": password})


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# --- hashing off the event loop, the same work for every name --------------------------------


@pytest.mark.parametrize("cost", ["standard", "test"])
def test_the_dummy_hash_is_made_as_the_hasher_makes_hashes(
    cost: Literal["standard", "test"],
) -> None:
    passwords = Passwords(1, cost)
    made = argon2.extract_parameters(passwords.hasher.hash("a password"))
    dummy = argon2.extract_parameters(passwords.dummy)
    assert dummy == made  # else unknown names would answer faster (or slower) than real ones
    standard = argon2.extract_parameters(DUMMY_HASH)
    assert (dummy == standard) == (cost == "standard")  # argon2-cffi's own defaults
    assert standard == argon2.Parameters(
        type=argon2.Type.ID, version=19, salt_len=16, hash_len=32, time_cost=3,
        memory_cost=65536, parallelism=4,
    )  # fmt: skip
    passwords.close()


def test_the_suite_hashes_at_the_test_cost_and_a_server_says_so(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    assert Settings().password_cost == "test"  # tests/conftest.py
    with caplog.at_level(logging.WARNING), TestClient(create_app(make_settings(database_url))) as c:
        passwords: Passwords = c.app.state.passwords  # type: ignore[attr-defined]
        assert argon2.extract_parameters(passwords.dummy).memory_cost == 8
        assert argon2.extract_parameters(passwords.hasher.hash("pw")).time_cost == 1
    assert "hashed at the test cost" in caplog.text


def niceness() -> int:
    """The calling thread's nice value (Linux gives each thread its own)."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_hashing_threads_stay_nicer_than_a_server_started_nice() -> None:
    """A server run under ``nice`` keeps its hashing threads ``NICENESS`` below its event loop
    (the threads take the nice value of the thread that makes them), not at ``NICENESS``."""
    seen: list[tuple[int, int]] = []

    def nice_server() -> None:  # in a thread of its own: the test's thread keeps its priority
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(19, niceness() + 5))
        passwords = Passwords(1)
        seen.append((niceness(), passwords.pool.submit(niceness).result()))
        passwords.close()

    server = threading.Thread(target=nice_server)
    server.start()
    server.join()
    loop, hashing = seen[0]
    assert loop >= 5 and hashing == min(19, loop + NICENESS)


def test_hashing_leaves_the_event_loop_free() -> None:
    async def main() -> tuple[float, float]:
        passwords = Passwords(2)
        hashed = await passwords.hash("a password")
        gaps: list[float] = []
        ticking = True

        async def tick() -> None:
            last = time.perf_counter()
            while ticking:
                await asyncio.sleep(0.005)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now

        loop = asyncio.get_running_loop()
        # the hashing threads yield the core to the loop whenever it wants it
        hashing = await loop.run_in_executor(passwords.pool, niceness)
        assert hashing == min(19, niceness() + NICENESS)
        ticker = asyncio.create_task(tick())
        started = time.perf_counter()
        checks = [passwords.verify(hashed, p) for p in ("a password", "wrong", "wrong", "x" * 9)]
        assert await asyncio.gather(*checks) == [True, False, False, False]
        took = time.perf_counter() - started
        ticking = False
        await ticker
        passwords.close()
        return took, max(gaps)

    took, longest_gap = asyncio.run(main())
    assert took > 0.15  # four argon2 checks: real work, the loop's own time would show it
    # on the loop, each check would stall it for ~0.25 s; a loaded machine's scheduling alone
    # has stalled it 0.15 s (a clean-clone CI run with three workers and browsers)
    assert longest_gap < 0.2, longest_gap


def test_an_unknown_name_or_a_guest_costs_a_password_check_too(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    register(client, "alice")
    guest = client.post("/api/auth/guest").json()["user"]["name"]
    passwords: Passwords = client.app.state.passwords  # type: ignore[attr-defined]
    checked: list[str] = []
    real_verify = passwords._verify

    def counted(hashed: str, password: str, real: bool) -> bool:
        checked.append(hashed)
        return real_verify(hashed, password, real)

    monkeypatch.setattr(passwords, "_verify", counted)
    for name in ("alice", "nobody-here", guest):
        assert post(client, "/api/auth/login", name, "wrong-password").status_code == 401
    assert len(checked) == 3
    assert checked[0] != passwords.dummy and checked[0].startswith("$argon2")
    assert checked[1:] == [passwords.dummy, passwords.dummy]
    assert post(client, "/api/auth/login", guest, passwords.dummy).status_code == 401  # never


# --- back-off after failed logins --------------------------------------------------------------


def test_each_failed_login_past_the_free_ones_doubles_the_wait() -> None:
    assert [wait_after(n, 3, 1.0, 5.0) for n in range(1, 8)] == [0, 0, 1, 2, 4, 5, 5]
    backoff = LoginBackoff(free=3, first=1.0, most=5.0)
    assert [backoff.attempt_now("bob", 0.0) for _ in range(3)] == [0, 0, 0]
    assert backoff.attempt_now("bob", 0.5) == 0.5  # refused: the third made the next wait 1 s
    assert backoff.attempt_now("eve", 0.5) == 0  # each name on its own
    assert backoff.attempt_now("bob", 1.0) == 0  # the fourth, after the wait
    assert backoff.attempt_now("bob", 2.0) == 1.0  # now 2 s
    assert backoff.attempt_now("bob", 3.0) == 0
    assert backoff.attempt_now("bob", 7.0) == 0  # 4 s, then at most 5 s
    assert backoff.attempt_now("bob", 11.0) == 1.0
    backoff.succeeded_now("bob")  # a correct login: the count starts again
    assert [backoff.attempt_now("bob", 11.0) for _ in range(2)] == [0, 0]


def test_a_shared_backoff_counts_for_every_process_and_falls_back_without_redis() -> None:
    async def main() -> None:
        # this worker's own database: the cluster tests empty theirs
        first, second = (aioredis.from_url(f"{REDIS}/{redis_database()}") for _ in range(2))
        try:
            await first.ping()
        except RedisError:
            pytest.skip(f"needs Redis at {REDIS} (JUNQI_TEST_REDIS)")
        name = f"test-{secrets.token_hex(4)}"  # keys of this test's own: nothing else is touched
        here, there = (SharedLoginBackoff(r, 2, 0.5, 1.0, name=name) for r in (first, second))
        try:
            assert await here.attempt("bob") == 0
            assert await there.attempt("bob") == 0  # the second: the next waits 0.5 s
            assert 0.3 < await here.attempt("bob") <= 0.5
            assert await there.attempt("eve") == 0
            await asyncio.sleep(0.55)
            assert await there.attempt("bob") == 0  # the third: the next waits 1 s
            assert 0.8 < await here.attempt("bob") <= 1.0
            ttl = await first.ttl(here._key("bob"))
            assert 0 < ttl <= 3600  # forgotten in time
            await here.succeeded("bob")
            assert await there.attempt("bob") == 0
            assert await there.attempt("\ud800 any text") == 0  # keys are hashed
        finally:
            await first.delete(*[k async for k in first.scan_iter(f"junqi:backoff:{name}:*")])
            await first.aclose()
            await second.aclose()
        nowhere = aioredis.from_url(f"redis://127.0.0.1:{free_port()}/0")
        alone = SharedLoginBackoff(nowhere, 2, 60.0, 60.0, name=name)
        assert [await alone.attempt("bob") > 0 for _ in range(3)] == [False, False, True]
        await nowhere.aclose()

    asyncio.run(main())


def test_failed_logins_make_the_next_wait_and_a_right_one_after_the_wait_works(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the back-off's clock moves only when the test moves it: on a busy machine the password
    # checks (threads of low priority) can take longer than the wait itself
    clock = [1000.0]
    monkeypatch.setattr(server.backoff, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    with app_client(database_url, login_free_failures=3, login_backoff_seconds=1.0) as client:
        register(client, "alice")
        for _ in range(3):
            assert post(client, "/api/auth/login", "alice", "guess-1234").status_code == 401
        early = post(client, "/api/auth/login", "ALICE")  # the same name, and the right password
        assert early.status_code == 429
        assert early.headers["x-error-code"] == "login_wait"
        assert early.headers["retry-after"] == "1"
        assert "too many failed logins" in early.json()["detail"]
        # a name nobody has answers alike: the back-off tells nothing about who exists
        for _ in range(3):
            assert post(client, "/api/auth/login", "nobody", "guess-1234").status_code == 401
        assert post(client, "/api/auth/login", "nobody", "guess-1234").status_code == 429
        clock[0] += 1.05
        late = post(client, "/api/auth/login", "alice")
        assert late.status_code == 200, late.text
        assert client.get("/api/me", headers=bearer(late.json()["token"])).is_success
        # the count started again
        for _ in range(2):
            assert post(client, "/api/auth/login", "alice", "guess-1234").status_code == 401
        assert post(client, "/api/auth/login", "alice").status_code == 200


# --- names -------------------------------------------------------------------------------------

REFUSED_NAMES = [  # (name, status, code), with alice and coco taken
    ("alice\n", 422, "name_control"),
    ("ali\u200bce", 422, "name_control"),  # a zero-width space
    ("al\x1bice", 422, "name_control"),
    ("a b", 422, "name_invalid"),
    ("ALICE", 409, "name_taken"),
    ("Alice", 409, "name_taken"),
    ("ａｌｉｃｅ", 409, "name_taken"),  # fullwidth
    ("\u0430lice", 422, "name_mixed_scripts"),  # Cyrillic а
    ("\u03b1lice", 422, "name_mixed_scripts"),  # Greek α
    ("со\u0441o", 422, "name_mixed_scripts"),
    ("\u0441\u043e\u0441\u043e", 409, "name_look_alike"),  # all Cyrillic, looks like coco
    ("a1ice", 409, "name_look_alike"),
    ("aIice", 409, "name_look_alike"),
    ("机器人1", 422, "name_reserved"),
    ("机器人23", 422, "name_reserved"),
    ("机器人", 422, "name_reserved"),
    ("游客000001", 422, "name_reserved"),
    ("游客", 422, "name_reserved"),
    ("admin", 422, "name_reserved"),
    ("ADMIN", 422, "name_reserved"),
    ("Admin_1", 422, "name_reserved"),
    ("administrator", 422, "name_reserved"),
    ("Root", 422, "name_reserved"),
    ("SYSTEM", 422, "name_reserved"),
    ("moderator", 422, "name_reserved"),
    ("ａｄｍｉｎ", 422, "name_reserved"),
    ("管理员", 422, "name_reserved"),
    ("系统", 422, "name_reserved"),
]


def test_look_alike_reserved_and_control_names_are_refused(client: TestClient) -> None:
    register(client, "alice")
    register(client, "coco")
    assert {code for _, _, code in REFUSED_NAMES} <= ACCOUNT_CODES
    for name, status, code in REFUSED_NAMES:
        refused = post(client, "/api/auth/register", name)
        assert (refused.status_code, refused.headers.get("x-error-code")) == (status, code), name
        detail = refused.json()["detail"]
        assert isinstance(detail, str) and len(detail) > 10, name
    words = {code: post(client, "/api/auth/register", n).json()["detail"] for n, _, code in [
        ("ALICE", 409, "name_taken"), ("a1ice", 409, "name_look_alike"),
        ("\u0430lice", 422, "name_mixed_scripts"), ("admin", 422, "name_reserved"),
    ]}  # fmt: skip
    assert "taken" in words["name_taken"]
    assert "too like 'alice'" in words["name_look_alike"]
    assert "Cyrillic and Latin" in words["name_mixed_scripts"]
    assert "reserved" in words["name_reserved"]
    # Chinese characters go with Latin letters and digits; other names are fine
    for name in ("abc老司令", "老司令1", "Zoë", "司令_2", "Борис"):
        assert post(client, "/api/auth/register", name).status_code == 201, name


def test_a_name_is_stored_normalised_and_signs_in_without_regard_to_case(
    client: TestClient,
) -> None:
    made = post(client, "/api/auth/register", "Ｂｏｂ２")
    assert made.status_code == 201 and made.json()["user"]["name"] == "Bob2"
    row = user_row(client, "Bob2")
    assert (row.name_key, row.name_skeleton) == ("bob2", skeleton("Bob2"))
    assert row.address == "testclient"
    for typed in ("Bob2", "bob2", "BOB2", "ｂｏｂ２"):
        assert post(client, "/api/auth/login", typed).status_code == 200, typed
    guest = client.post("/api/auth/guest").json()["user"]["name"]  # the server names guests
    assert user_row(client, guest).name_key == guest


def test_skeletons_map_look_alikes_to_one() -> None:
    assert skeleton("\u0441\u043e\u0441\u043e") == skeleton("coco")
    assert skeleton("\u0410pple") == skeleton("Apple")  # Cyrillic А
    assert skeleton("a1ice") == skeleton("alice") == skeleton("aIice")
    assert skeleton("paypal") != skeleton("paypai")
    assert skeleton("老司令") == "老司令"
    assert name_key("ÅLICE") == "ålice"
    with pytest.raises(NameRefused) as refused:
        check_new_name("游客000123")
    assert refused.value.status == 422


def test_the_migration_keys_existing_users_and_keeps_colliding_ones_apart(
    database_url: str,
) -> None:
    config = alembic_config(database_url)
    command.upgrade(config, "6d1f0b3e7a25")  # before the keys
    hashed = argon2.PasswordHasher().hash("secret-pw")

    async def insert() -> None:
        engine = create_async_engine(database_url)
        async with engine.begin() as connection:
            for name in ("alice", "ALICE", "a1ice", "老司令"):
                await connection.execute(
                    text(
                        "INSERT INTO users (name, password_hash, role, guest, created_at, "
                        "ban_permanent) VALUES (:name, :hash, 'player', false, :at, false)"
                    ),
                    {"name": name, "hash": hashed, "at": datetime.now(UTC)},
                )
        await engine.dispose()

    asyncio.run(insert())
    command.upgrade(config, "head")
    with app_client(database_url) as client:
        rows = {n: user_row(client, n) for n in ("alice", "ALICE", "a1ice", "老司令")}
        keys = {n: (r.name_key, r.name_skeleton) for n, r in rows.items()}
        assert keys == {
            "alice": ("alice", "alice"),
            "ALICE": (f"alice#{rows['ALICE'].id}", "allce"),
            "a1ice": ("a1ice", f"alice#{rows['a1ice'].id}"),
            "老司令": ("老司令", "老司令"),
        }
        for name in keys:  # each still signs in by the exact name
            login = post(client, "/api/auth/login", name)
            assert login.json()["user"]["name"] == name
        assert post(client, "/api/auth/register", "Alice").status_code == 409


# --- passwords ---------------------------------------------------------------------------------


def test_blank_short_and_common_passwords_are_refused(client: TestClient) -> None:
    assert len(common_passwords()) >= 300 and {"123456", "password", "5201314"} <= (
        common_passwords()
    )
    for password, code in (
        ("      ", "password_blank"),
        ("\t\t\t\t\t\t", "password_blank"),
        ("123456", "password_short"),
        ("dave-12", "password_short"),  # 7 characters
        ("Password", "password_common"),
        (" QWERTY123 ", "password_common"),
        ("woaini1314", "password_common"),
    ):
        refused = post(client, "/api/auth/register", "dave", password)
        assert refused.status_code == 422, password
        assert refused.headers["x-error-code"] == code
        assert "password" in refused.json()["detail"]
    assert post(client, "/api/auth/register", "dave", "dave-123").status_code == 201  # 8


# well-known passwords of 8 characters or more, of the Chinese and the English leak lists
WELL_KNOWN = [
    "woaini1314",
    "qq123456",
    "1qaz2wsx",
    "a12345678",
    "5201314520",
    "19880808",
    "zhang123456",
    "wangwei123",
    "iloveyou520",
    "aa123456789",
    "zxcvbnm123",
    "88888888",
    "Sunshine1",
    "trustno1",
    "football",
    "PASSWORD1",
    "1234567890",
    "starwars",
    "michael1",
    "qwertyuiop",
]


def test_a_dozen_well_known_passwords_of_eight_characters_are_refused(client: TestClient) -> None:
    assert 5_000 < len(common_passwords()) < 50_000
    assert COMMON_FILE.stat().st_size < 400 * 1024  # small enough to ship and read at start
    for password in WELL_KNOWN:
        refused = post(client, "/api/auth/register", "dave", password)
        assert refused.status_code == 422, password
        assert refused.headers["x-error-code"] == "password_common", password


def test_an_account_made_with_a_shorter_password_still_logs_in(client: TestClient) -> None:
    register(client, "olga")
    hashed = argon2.PasswordHasher(time_cost=1, memory_cost=8, parallelism=1).hash("olga-6")

    async def older(session: Any) -> None:  # made when 6 characters were enough
        await session.execute(update(User).where(User.name == "olga").values(password_hash=hashed))

    run(client, older)
    assert post(client, "/api/auth/login", "olga", "olga-6").status_code == 200
    assert post(client, "/api/auth/login", "olga", "olga").status_code == 422  # never was


# --- logout ------------------------------------------------------------------------------------


def open_socket(stack: ExitStack, client: TestClient, token: str, name: str) -> Player:
    player = Player(stack.enter_context(signed_in(client, token)), name)
    assert player.receive()["type"] == "welcome"
    return player


def closed_with(player: Player) -> int:
    """Read until the server closes the socket; its close code."""
    with pytest.raises(WebSocketDisconnect) as closed:
        for _ in range(100):
            player.receive()
    return closed.value.code


def refused_socket(client: TestClient, token: str) -> int:
    with pytest.raises(WebSocketDisconnect) as closed, signed_in(client, token) as ws:
        ws.receive_json()
    return closed.value.code


def test_logout_revokes_its_token_and_closes_its_sockets_only(client: TestClient) -> None:
    first = register(client, "alice")
    second = post(client, "/api/auth/login", "alice").json()["token"]
    with ExitStack() as stack:
        mine = open_socket(stack, client, first, "alice")
        other = open_socket(stack, client, second, "alice")
        assert client.post("/api/auth/logout", headers=bearer(first)).status_code == 204
        assert mine.receive() == {"type": "logged_out"}  # the token's hash is not passed on
        assert closed_with(mine) == 4401
        assert other.request({"type": "ping"})["type"] == "pong"  # another login goes on
        assert client.get("/api/me", headers=bearer(first)).status_code == 401
        assert client.get("/api/me", headers=bearer(second)).status_code == 200
        assert refused_socket(client, first) == 4401
        assert client.post("/api/auth/logout", headers=bearer(first)).status_code == 401
    assert client.post("/api/auth/logout").status_code == 401


def test_logout_everywhere_revokes_every_token_of_the_user(client: TestClient) -> None:
    tokens = [register(client, "bob")]
    tokens += [post(client, "/api/auth/login", "bob").json()["token"] for _ in range(2)]
    carol = register(client, "carol")
    with ExitStack() as stack:
        sockets = [open_socket(stack, client, t, "bob") for t in tokens[:2]]
        theirs = open_socket(stack, client, carol, "carol")
        assert client.post("/api/auth/logout-all", headers=bearer(tokens[2])).status_code == 204
        for socket in sockets:
            assert socket.receive() == {"type": "logged_out"}
            assert closed_with(socket) == 4401
        assert theirs.request({"type": "ping"})["type"] == "pong"
        for token in tokens:
            assert client.get("/api/me", headers=bearer(token)).status_code == 401
            assert refused_socket(client, token) == 4401
        assert client.get("/api/me", headers=bearer(carol)).status_code == 200
    again = post(client, "/api/auth/login", "bob")
    assert client.get("/api/me", headers=bearer(again.json()["token"])).status_code == 200


def test_a_logout_everywhere_while_a_socket_signs_in_closes_it_too(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tokens are revoked (and the notice sent) after the socket's token was checked but
    before it follows the user's notices: it is closed all the same, not left open on a token
    the server refuses."""
    token = register(client, "dora")
    follow = Connection.follow

    async def revoked_meanwhile(self: Connection, topic: str, handle: Any) -> None:
        if topic == messages.user_topic(self.user.id):
            async with self.ws.app.state.db.sessions() as session:
                await session.execute(delete(Token).where(Token.user_id == self.user.id))
                await session.commit()
            self.lobby.broker.publish(topic, {"type": "logged_out"})  # nobody follows it yet
        await follow(self, topic, handle)

    monkeypatch.setattr(Connection, "follow", revoked_meanwhile)
    with ExitStack() as stack:
        socket = open_socket(stack, client, token, "dora")
        assert socket.receive() == {"type": "logged_out"}
        assert closed_with(socket) == 4401


# --- guests and addresses ----------------------------------------------------------------------


def test_an_address_makes_a_few_guests_a_day(database_url: str) -> None:
    with app_client(database_url, guests_per_address_per_day=3) as client:
        made = [client.post("/api/auth/guest") for _ in range(3)]
        assert [m.status_code for m in made] == [201, 201, 201]
        refused = client.post("/api/auth/guest")
        assert refused.status_code == 429 and refused.headers["x-error-code"] == "guest_limit"
        assert 86000 < int(refused.headers["retry-after"]) <= 86400
        assert "register" in refused.json()["detail"]
        assert post(client, "/api/auth/register", "erin").status_code == 201  # registering may
        with from_address(client, "192.0.2.7"):
            assert client.post("/api/auth/guest").status_code == 201  # another address
        oldest = made[0].json()["user"]["name"]

        async def age(session: Any) -> None:  # a day has gone by since the first guest
            yesterday = datetime.now(UTC) - timedelta(hours=25)
            await session.execute(
                update(User).where(User.name == oldest).values(created_at=yesterday)
            )

        run(client, age)
        assert client.post("/api/auth/guest").status_code == 201
        assert client.post("/api/auth/guest").status_code == 429


def ban(client: TestClient, name: str, until: datetime | None) -> None:
    async def go(session: Any) -> None:
        await session.execute(
            update(User).where(User.name == name).values(banned_until=until, ban_reason="test")
        )

    run(client, go)


def test_no_new_account_from_the_address_of_a_banned_user(database_url: str) -> None:
    with app_client(database_url, block_banned_addresses=True) as client:
        with from_address(client, "198.51.100.1"):
            register(client, "mallory")
        ban(client, "mallory", datetime.now(UTC) + timedelta(hours=1))
        with from_address(client, "198.51.100.1"):
            guest = client.post("/api/auth/guest")
            assert guest.status_code == 403 and guest.headers["x-error-code"] == "address_banned"
            assert "banned" in guest.json()["detail"] and "mallory" not in guest.json()["detail"]
            again = post(client, "/api/auth/register", "mallory2")
            assert again.status_code == 403 and again.headers["x-error-code"] == "address_banned"
        with from_address(client, "198.51.100.2"):
            assert client.post("/api/auth/guest").status_code == 201  # other addresses may
            # the banned user signs in (refused) from a new address: it is blocked as well
            assert post(client, "/api/auth/login", "mallory").status_code == 403
            assert client.post("/api/auth/guest").status_code == 403
        # and the old one stays blocked: the block is added to, never moved
        assert user_row(client, "mallory").address == "198.51.100.1"
        with from_address(client, "198.51.100.1"):
            assert client.post("/api/auth/guest").status_code == 403
        ban(client, "mallory", datetime.now(UTC) - timedelta(seconds=1))  # the ban is over
        for address in ("198.51.100.1", "198.51.100.2"):
            with from_address(client, address):
                assert client.post("/api/auth/guest").status_code == 201
        with from_address(client, "198.51.100.2"):
            assert post(client, "/api/auth/login", "mallory").status_code == 200
        assert user_row(client, "mallory").address == "198.51.100.2"


def test_banned_addresses_are_not_blocked_when_the_setting_is_off(database_url: str) -> None:
    with app_client(database_url, block_banned_addresses=False) as client:
        register(client, "mallory")
        ban(client, "mallory", datetime.now(UTC) + timedelta(hours=1))
        assert client.post("/api/auth/guest").status_code == 201
        assert post(client, "/api/auth/register", "trent").status_code == 201


def test_the_sign_in_address_is_kept_at_every_sign_in(client: TestClient) -> None:
    with from_address(client, "203.0.113.5"):
        register(client, "frank")
        guest = client.post("/api/auth/guest").json()["user"]["name"]
    assert user_row(client, "frank").address == "203.0.113.5"
    assert user_row(client, guest).address == "203.0.113.5"
    with from_address(client, "203.0.113.9"):
        assert post(client, "/api/auth/login", "frank").status_code == 200
    assert user_row(client, "frank").address == "203.0.113.9"
    with from_address(client, "203.0.113.10"):
        assert post(client, "/api/auth/login", "frank", "wrong-one").status_code == 401
    assert user_row(client, "frank").address == "203.0.113.9"  # a failed login is no sign-in
