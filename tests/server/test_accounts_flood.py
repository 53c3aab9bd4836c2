"""A flood of logins against the rest of the server: no login holds a database connection while
it waits for a hash, REST requests take theirs from a pool of their own, and at most
``password_queue`` checks wait (429 ``busy`` past that, never a 500); the hashing queue takes a
client with no failed checks first (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import TimeoutError as PoolTimeout

from server.app import create_app
from server.db import Database
from server.passwords import Passwords, PasswordsBusy
from tests.server.conftest import make_settings, register
from tests.server.sockets import signed_in
from tests.server.test_realtime import start_game, table_of_two

PROMPT = 2.0  # seconds: what "not delayed" allows, on a busy test machine


class Gate:
    """Holds every password check in its thread until opened; counts the ones held."""

    def __init__(self, passwords: Passwords) -> None:
        self.open = threading.Event()
        self.held = 0
        self.lock = threading.Lock()
        real = passwords._verify

        def held(hashed: str, password: str, real_user: bool) -> bool:
            with self.lock:
                self.held += 1
            self.open.wait(60)
            return real(hashed, password, real_user)

        self.verify = held

    def wait_for(self, count: int) -> None:
        deadline = time.monotonic() + 10
        while self.held < count and time.monotonic() < deadline:
            time.sleep(0.01)
        assert self.held >= count, f"{self.held} checks started, {count} expected"


def timed(work: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    return work(), time.perf_counter() - started


def test_logins_waiting_for_hashing_delay_no_socket_sign_in_move_or_chat(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """30 wrong logins at once, their checks held: the hashing threads take 2, 20 wait, the
    other 8 are refused at once (busy). Meanwhile a socket signs in, a player moves and a chat
    line goes out, each at once. (With a login holding its connection while it waits for a
    hash, the 15 connections of the pool would be gone, and all three would wait 30 s.)"""
    settings = make_settings(database_url, password_threads=2, password_queue=20)
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        start_game(alice, bob, table, 3)
        carol = register(client, "carol")
        gate = Gate(client.app.state.passwords)  # type: ignore[attr-defined]
        monkeypatch.setattr(client.app.state.passwords, "_verify", gate.verify)  # type: ignore[attr-defined]
        flood = stack.enter_context(ThreadPoolExecutor(30))
        stack.callback(gate.open.set)  # never leave the flood's threads held
        logins = [
            flood.submit(
                client.post,
                "/api/auth/login",
                json={"name": f"nobody{n}", "password": "guess-1234"},
            )
            for n in range(30)
        ]
        gate.wait_for(2)  # both threads held; the rest wait or are refused
        deadline = time.monotonic() + 10
        while sum(f.done() for f in logins) < 8 and time.monotonic() < deadline:
            time.sleep(0.01)
        refused = [f.result() for f in logins if f.done()]
        assert len(refused) == 8, [r.status_code for r in refused]
        for answer in refused:
            assert answer.status_code == 429 and answer.headers["x-error-code"] == "busy"
            assert int(answer.headers["retry-after"]) >= 1

        def sign_in() -> str:
            with signed_in(client, carol) as ws:
                return str(ws.receive_json()["type"])

        welcome, took = timed(sign_in)
        assert welcome == "welcome" and took < PROMPT, took
        mover = alice if alice.game["to_move"] == 0 else bob
        origin = sorted(mover.game["legal_moves"])[0]
        move = {"type": "move", "origin": origin, "target": mover.game["legal_moves"][origin][0]}
        reply, took = timed(lambda: mover.act(table, move))
        assert reply["type"] == "ok" and took < PROMPT, (reply, took)
        line = {"type": "chat", "channel": "lobby", "text": "好棋"}
        reply, took = timed(lambda: bob.request(line))
        assert reply["type"] == "ok" and took < PROMPT, (reply, took)
        guest, took = timed(lambda: client.post("/api/auth/guest"))  # REST goes on too
        assert guest.status_code == 201 and took < PROMPT, took
        assert sum(f.done() for f in logins) == 8  # the others still wait for their checks
        gate.open.set()
        answers = [f.result(timeout=30) for f in logins]
        assert sorted(a.status_code for a in answers) == [401] * 22 + [429] * 8
        assert gate.held == 22


def test_a_request_finding_no_free_connection_is_answered_busy(sqlite_client: TestClient) -> None:
    """Not a 500: a REST request that waited its time for a connection is told to come back."""
    db: Database = sqlite_client.app.state.db  # type: ignore[attr-defined]

    def exhausted(*args: Any, **kwargs: Any) -> Any:
        raise PoolTimeout("QueuePool limit of size 5 overflow 5 reached")

    engine = db.rest_engine.sync_engine
    original = engine.pool.connect
    engine.pool.connect = exhausted  # type: ignore[method-assign]
    try:
        answer = sqlite_client.get("/api/users/nobody")
    finally:
        engine.pool.connect = original  # type: ignore[method-assign]
    assert answer.status_code == 503
    assert answer.headers["x-error-code"] == "busy" and answer.headers["retry-after"] == "5"
    assert sqlite_client.get("/api/users/nobody").status_code == 404


def test_the_rest_requests_have_a_pool_of_their_own(tmp_path: Any) -> None:
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'pools.db'}", pool=7, rest_pool=4)
    assert db.rest_engine is not db.engine
    for engine, size in ((db.engine, 7), (db.rest_engine, 4)):
        pool: Any = engine.pool
        assert pool.size() + pool._max_overflow == size
    asyncio.run(db.close())
    memory = Database("sqlite+aiosqlite://")  # one connection's own: one engine
    assert memory.rest_engine is memory.engine
    asyncio.run(memory.close())


# --- the hashing queue ---------------------------------------------------------------------


class Held:
    """A ``Passwords`` whose checks wait until released, keeping the order they ran in."""

    def __init__(self, threads: int, queue: int) -> None:
        self.passwords = Passwords(threads, "test", queue)
        self.ran: list[str] = []
        self.release = threading.Event()
        hashed = self.passwords.hasher.hash("right")
        self.hashed = hashed

        def verify(stored: str, password: str, real: bool) -> bool:
            self.ran.append(password)
            if password.startswith("held"):
                self.release.wait(30)
            return password == "right"

        self.passwords._verify = verify  # type: ignore[method-assign,assignment]

    def check(self, password: str, key: str) -> asyncio.Task[bool]:
        return asyncio.ensure_future(self.passwords.verify(self.hashed, password, key))


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0.02)


def test_at_most_the_queue_waits_and_one_more_is_refused_at_once() -> None:
    async def main() -> None:
        held = Held(threads=1, queue=2)
        running = held.check("held-0", "a")
        await settle()
        waiting = [held.check(f"held-{n}", "a") for n in (1, 2)]
        await settle()
        assert not held.passwords.admits("a")  # refused before it costs anything
        assert held.passwords.admits("b")  # would take the place of a's last one
        with pytest.raises(PasswordsBusy) as busy:
            await held.passwords.verify(held.hashed, "held-3", "a")
        assert busy.value.retry_after >= 1
        waiting[0].cancel()  # a client gone before its turn leaves its place
        await settle()
        again = held.check("held-4", "a")
        held.release.set()
        assert list(await asyncio.gather(running, waiting[1], again)) == [False, False, False]
        assert held.ran == ["held-0", "held-2", "held-4"]
        assert held.passwords.running == 0 and not held.passwords.waiting
        held.passwords.close()

    asyncio.run(main())


def test_a_client_without_failed_checks_goes_ahead_of_a_flood() -> None:
    async def main() -> None:
        held = Held(threads=1, queue=3)
        assert not await held.passwords.verify(held.hashed, "wrong", "flood")  # it failed
        first = held.check("held-flood-0", "flood")
        await settle()
        flood = [held.check(f"held-flood-{n}", "flood") for n in (1, 2, 3)]
        await settle()
        # the queue is full of the flood's: a user with no failure takes the last one's place
        mine = held.check("right", "user")
        await settle()
        with pytest.raises(PasswordsBusy):
            await flood[2]
        held.release.set()
        assert await mine is True
        await asyncio.gather(first, *flood[:2])
        assert held.ran[1:] == ["held-flood-0", "right", "held-flood-1", "held-flood-2"]
        held.passwords.close()

    asyncio.run(main())


def test_among_clients_alike_the_one_with_fewer_waiting_goes_first() -> None:
    async def main() -> None:
        held = Held(threads=1, queue=10)
        jobs = [held.check("held-a-0", "a")]
        await settle()
        jobs += [held.check(f"held-a-{n}", "a") for n in (1, 2, 3)]
        jobs.append(held.check("held-b-0", "b"))
        await settle()
        held.release.set()
        await asyncio.gather(*jobs)
        assert held.ran == ["held-a-0", "held-b-0", "held-a-1", "held-a-2", "held-a-3"]
        held.passwords.close()

    asyncio.run(main())


def test_a_full_queue_of_equals_refuses_the_newcomer_not_a_waiting_one() -> None:
    async def main() -> None:
        held = Held(threads=1, queue=1)
        jobs = [held.check("held-a", "a")]
        await settle()
        jobs.append(held.check("held-b", "b"))
        await settle()
        with pytest.raises(PasswordsBusy):
            await held.passwords.verify(held.hashed, "held-c", "c")  # no better than b's
        held.release.set()
        await asyncio.gather(*jobs)
        assert held.ran == ["held-a", "held-b"]
        held.passwords.close()

    asyncio.run(main())
