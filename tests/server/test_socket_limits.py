"""What a socket may cost the server: it signs in by its first message (never by its URL), a
user opens only so many, a client that does not read is closed rather than held, seat commands
are rate limited, and chat goes only where its sender may speak, without control characters."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

import server.outbox
from server.accounts import token_hash
from server.app import create_app
from server.inbound import chat_text
from server.messages import user_topic
from server.outbox import Outbox
from tests.live import live_server
from tests.server.conftest import make_settings, register
from tests.server.sockets import LiveSocket, Player, auth, live_socket, signed_in, socket_url
from tests.server.test_realtime import connect, table_of_two


@pytest.fixture
def tight(tmp_path: Path) -> Iterator[TestClient]:
    """An app with small limits: 2 sockets a user, 5 seat commands in 10 s, 0.5 s to sign in."""
    settings = make_settings(
        f"sqlite+aiosqlite:///{tmp_path / 'tight.db'}",
        sockets_per_user=2,
        seat_commands_per_10_seconds=5,
        socket_auth_seconds=0.5,
    )
    with TestClient(create_app(settings)) as client:
        yield client


def closed_with(ws: Any) -> WebSocketDisconnect:
    """The close that ends ``ws`` (a test client's socket) before any message comes."""
    with pytest.raises(WebSocketDisconnect) as closed:
        message = ws.receive_json()
        raise AssertionError(f"a message before the close: {message}")
    return closed.value


# --- signing in ----------------------------------------------------------------------------------


def test_a_socket_signs_in_by_its_first_message(client: TestClient) -> None:
    token = register(client, "alice")
    with signed_in(client, token) as ws:
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome" and welcome["user"]["name"] == "alice"
        ws.send_text(json.dumps({"id": 1, "type": "ping"}))
        assert ws.receive_json()["type"] == "pong"
        ws.send_text(auth(token))  # once signed in, auth is no message of the protocol
        assert ws.receive_json()["code"] == "bad_message"
        # the connection keeps its token's hash (a logout closes exactly that token's sockets)
        feeds = client.app.state.feeds.feeds  # type: ignore[attr-defined]
        (connection,) = feeds[user_topic(welcome["user"]["id"])].handlers
        assert connection.token_hash == token_hash(token)


def test_a_token_in_the_url_is_refused(client: TestClient) -> None:
    token = register(client, "bob")
    with client.websocket_connect(f"/ws?token={token}") as ws:
        closed = closed_with(ws)
    assert closed.code == 4401 and "URL" in closed.reason
    with client.websocket_connect(f"/ws?token={token}") as ws:  # an auth message after it too
        ws.send_text(auth(token))
        assert closed_with(ws).code == 4401


def test_nothing_is_served_before_the_auth_message(tight: TestClient) -> None:
    token = register(tight, "carol")
    with tight.websocket_connect("/ws") as ws:  # another message first: no answer, closed
        ws.send_text(json.dumps({"id": 1, "type": "ping"}))
        closed = closed_with(ws)
    assert closed.code == 4401 and "auth" in closed.reason
    started = time.monotonic()
    with tight.websocket_connect("/ws") as ws:  # nothing at all: closed after 0.5 s
        closed = closed_with(ws)
    assert closed.code == 4401 and "in time" in closed.reason
    assert 0.4 < time.monotonic() - started < 5
    for first in ({"type": "auth", "token": 7}, {"type": "auth", "token": token + "x"}):
        with tight.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps(first))
            assert closed_with(ws).code == 4401, first
    with tight.websocket_connect("/ws") as ws:
        ws.send_bytes(auth(token).encode())  # a binary frame is no auth message either
        assert closed_with(ws).code == 4401


# --- sockets per user ----------------------------------------------------------------------------


def test_a_user_opens_only_so_many_sockets(tight: TestClient) -> None:
    token = register(tight, "dave")
    other = register(tight, "erin")
    with ExitStack() as stack:
        first, second = (stack.enter_context(signed_in(tight, token)) for _ in range(2))
        for ws in (first, second):
            assert ws.receive_json()["type"] == "welcome"
        with signed_in(tight, token) as third:
            closed = closed_with(third)
        assert (closed.code, closed.reason) == (4429, "too many sockets")
        with signed_in(tight, other) as ws:  # per user: erin's are her own
            assert ws.receive_json()["type"] == "welcome"
        first.send_text(json.dumps({"id": 1, "type": "ping"}))  # the two open ones live on
        assert first.receive_json()["type"] == "pong"
        second.close()
        for _ in range(100):  # once the server has seen the second go, a new one may come
            with signed_in(tight, token) as again:
                message = again.receive()
                if message["type"] == "websocket.send":
                    assert json.loads(message["text"])["type"] == "welcome"
                    break
                assert message["code"] == 4429
            time.sleep(0.05)
        else:
            raise AssertionError("a closed socket still counted")


# --- seat commands -------------------------------------------------------------------------------


def test_seat_commands_are_rate_limited_per_user(tight: TestClient) -> None:
    with ExitStack() as stack:
        alice, bob = connect(stack, tight, "alice"), connect(stack, tight, "bob")
        table = alice.request({"type": "create_table", "room": "liangguo-fast"})["table"]
        commands: list[dict[str, Any]] = [
            {"type": "sit", "table": table, "seat": 0},
            {"type": "ready", "table": table},
            {"type": "ready", "table": table, "ready": False},
            {"type": "stand", "table": table},
            {"type": "open", "table": table},
            {"type": "sit", "table": table, "seat": 1},
            {"type": "close", "table": table},
        ]
        answers = [alice.request(m) for m in commands]
        codes = [a.get("code", a["type"]) for a in answers]
        assert codes == ["ok"] * 5 + ["rate_limited"] * 2, codes
        assert "seat commands" in answers[-1]["message"]
        # the refused ones changed nothing: alice stood up, and sits nowhere
        listing = tight.get(f"/api/tables/{table}").json()
        assert all(seat["name"] is None for seat in listing["seats"])
        assert alice.request({"type": "ping"})["type"] == "pong"  # the socket lives on
        # per user: bob's commands are his own
        for m in ({"type": "sit", "table": table, "seat": 1}, {"type": "stand", "table": table}):
            assert bob.request(m)["type"] == "ok"
        for kind in ("add_bot", "remove_bot", "swap", "leave", "stand_in"):
            message = {"type": kind, "table": table, "seat": 0}
            assert alice.request(message)["code"] == "rate_limited", kind


# --- chat ----------------------------------------------------------------------------------------


def test_spectator_chat_is_for_those_watching_the_table(client: TestClient) -> None:
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        carol, dave = connect(stack, client, "carol"), connect(stack, client, "dave")
        assert dave.request({"type": "open", "table": table})["type"] == "ok"
        line = {"type": "chat", "channel": "spectators", "table": table, "text": "看看"}
        refused = carol.request(line)  # carol does not watch the table
        assert refused["type"] == "error" and refused["code"] == "not_watching"
        assert carol.request({"type": "open", "table": table})["type"] == "ok"
        assert carol.request(line)["type"] == "ok"
        heard = dave.until(lambda m: m["type"] == "chat")
        assert (heard["from"], heard["text"], heard["channel"]) == ("carol", "看看", "spectators")
        assert carol.request({"type": "close", "table": table})["type"] == "ok"
        assert carol.request(line)["code"] == "not_watching"
        # the players chat at the table only, and read none of the spectators' lines: the first
        # line each gets is the one alice sent after carol's
        said = alice.request({"type": "chat", "channel": "table", "table": table, "text": "hi"})
        assert said["type"] == "ok"
        for player in (alice, bob):  # (alice's own line may have come before her ok)
            chat = [m for m in player.received if m["type"] == "chat"]
            heard = chat[0] if chat else player.until(lambda m: m["type"] == "chat")
            assert (heard["from"], heard["channel"]) == ("alice", "table")
        spectator = {"type": "chat", "channel": "table", "table": table, "text": "x"}
        assert dave.request(spectator)["code"] == "wrong_channel"


def test_control_characters_are_cut_out_of_chat(client: TestClient) -> None:
    assert (
        chat_text(" a\x00b\u202ec\u2066d\x1b[1me\nf\x7f\x9fg\u200dh ") == "abcd[1mef" + "g\u200dh"
    )
    assert chat_text("\u202a\u202b\u202c\u202d\u2067\u2068\u2069") == ""
    with ExitStack() as stack:
        alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
        assert bob.request({"type": "lobby"})["type"] == "ok"
        sent = alice.request({"type": "chat", "channel": "lobby", "text": "好\x00棋\u202e!\r\n"})
        assert sent["type"] == "ok"
        line = bob.until(lambda m: m["type"] == "chat")
        assert line["text"] == "好棋!"
        for text in ("\x00", "\u202e\u2066 \t\n", " "):
            empty = alice.request({"type": "chat", "channel": "lobby", "text": text})
            assert empty["type"] == "error" and empty["code"] == "empty_chat", text
        assert alice.request({"type": "chat", "channel": "lobby", "text": "ok"})["type"] == "ok"
        assert bob.until(lambda m: m["type"] == "chat")["text"] == "ok"  # nothing in between


# --- the outbox ----------------------------------------------------------------------------------


class StuckSocket:
    """A socket whose client reads nothing until ``flowing`` is set: every send waits."""

    def __init__(self) -> None:
        self.flowing = asyncio.Event()
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None

    async def send_text(self, text: str) -> None:
        await self.flowing.wait()
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        await self.flowing.wait()
        self.closed = (code, reason)


def test_an_outbox_writes_in_order_and_gives_up_past_its_bounds() -> None:
    async def main() -> None:
        ws = StuckSocket()
        overflows: list[int] = []
        outbox = Outbox(ws, 3, 1000, lambda: overflows.append(1))
        ws.flowing.set()
        outbox.put("a")  # written at once: no task, nothing queued
        assert ws.sent == ["a"] and outbox.writer is None
        ws.flowing.clear()
        for text in "bcde":  # one under way, three waiting: the bound, not past it
            outbox.put(text)
        assert outbox.writer is not None and list(outbox.queue) == ["c", "d", "e"]
        ws.flowing.set()
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert ws.sent == list("abcde") and outbox.writer is None and not overflows
        ws.flowing.clear()
        for text in "fghij":
            outbox.put(text)  # "j" would be the fourth waiting
        assert overflows == [1] and outbox.overflowed and not outbox.queue
        outbox.put("k")  # given up: taken no more
        assert not outbox.queue and overflows == [1]
        await asyncio.sleep(0)
        assert outbox.writer is None  # the writer is stopped too
        ws.flowing.set()
        await outbox.close(4008, "too far behind")
        assert ws.sent == list("abcde") and ws.closed == (4008, "too far behind")

    asyncio.run(main())


def test_an_outbox_bounds_the_size_waiting_but_lets_one_long_message_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def main() -> None:
        ws = StuckSocket()
        overflows: list[str] = []
        outbox = Outbox(ws, 100, 10, lambda: overflows.append("over"))
        outbox.put("first")  # under way
        outbox.put("x" * 50)  # alone in the queue: in, however long
        assert len(outbox.queue) == 1 and not overflows
        outbox.put("y")  # 51 characters waiting: past 10
        assert overflows == ["over"] and not outbox.queue
        fresh = Outbox(StuckSocket(), 100, 10, lambda: overflows.append("fresh"))
        fresh.put("a")
        for _ in range(10):  # ten of one character each: 10, the bound itself
            fresh.put("b")
        assert fresh.size == 10 and overflows == ["over"]
        fresh.put("c")
        assert overflows == ["over", "fresh"]
        for box in (outbox, fresh):
            started = time.monotonic()
            await box.close()  # nothing reads them: the close gives up after a while, quietly
            assert box.writer is None and time.monotonic() - started < 1

    monkeypatch.setattr(server.outbox, "CLOSE_SECONDS", 0.1)
    asyncio.run(main())


# --- a client that does not read, on a real server -----------------------------------------------

ROOM = {"id": "duel", "name": "二人", "variant": "liangguo", "options": {}}


def metric(base: str, name: str) -> float:
    for line in httpx.get(f"{base}/metrics").text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no metric {name}")


def test_a_client_that_does_not_read_is_closed_and_the_others_go_on(tmp_path: Path) -> None:
    """The sleeper watches a table and the lobby but reads nothing (its receive buffer is
    tiny, its client library stops reading after a frame): once 40 messages wait for it, it is
    closed with 4008, while the watcher beside it gets every update of the table, in order."""
    settings = {"JUNQI_SOCKET_BACKLOG_MESSAGES": "40"}
    with live_server(tmp_path, [ROOM], settings) as base, ExitStack() as stack:
        tokens = {
            name: httpx.post(
                f"{base}/api/auth/register", json={"name": name, "password": "secret-pw"}
            ).json()["token"]
            for name in ("churner", "watcher", "sleeper")
        }
        churner = Player(LiveSocket(stack.enter_context(live_socket(base, tokens["churner"]))), "c")
        watcher = Player(
            LiveSocket(stack.enter_context(live_socket(base, tokens["watcher"], max_queue=None))),
            "w",
        )
        for p in (churner, watcher):
            assert p.receive()["type"] == "welcome"
        table = churner.request({"type": "create_table", "room": "duel"})["table"]
        assert watcher.request({"type": "open", "table": table})["type"] == "ok"

        raw = socket.socket()
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before the window is set
        raw.connect(("127.0.0.1", int(base.rsplit(":", 1)[1])))
        sleeper = stack.enter_context(
            # uncompressed: the kernel's buffers (some MiB on loopback) fill in seconds
            ws_connect(
                socket_url(base), sock=raw, max_queue=1, ping_interval=None, compression=None
            )
        )
        sleeper.send(auth(tokens["sleeper"]))
        sleeper.send(json.dumps({"type": "open", "table": table}))
        sleeper.send(json.dumps({"type": "lobby"}))

        behind = "junqi_sockets_too_far_behind_total"
        versions: list[int] = []
        sit, stand = {"type": "sit", "table": table, "seat": 0}, {"type": "stand", "table": table}
        for _ in range(3000):  # seat changes: a table update and a lobby listing each
            for m in (sit, stand):
                versions.append(churner.request(m)["version"])
            if len(versions) % 50 == 0 and metric(base, behind) >= 1:
                break
        else:
            raise AssertionError("the sleeper was never closed")
        assert metric(base, "junqi_connections") == 2  # the sleeper's socket is given up

        last = versions[-1]  # every update reached the watcher, in order
        watcher.until(lambda m: m["type"] == "update" and watcher.version >= last, 10 * last)
        seen = [m["snapshot"]["version"] for m in watcher.received if m["type"] == "update"]
        assert seen == sorted(seen) and set(versions) <= set(seen)
        assert watcher.request({"type": "ping"})["type"] == "pong"

        got = 0  # the sleeper wakes: what was written before, then the close
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                sleeper.recv(timeout=10)
                got += 1
        assert closed.value.rcvd is not None
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (4008, "too far behind")
        assert got > 0
