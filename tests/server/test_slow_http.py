"""Slow clients (``server.slow_http``, SECURITY.md "Slow clients"): a connection that trickles in
its request head is closed after the header timeout, an idle kept-alive one after the keep-alive
time, while requests, slow answers, bodies on their way and WebSockets go on. Shown on uvicorn's
two HTTP implementations with a small app, on a real ``junqi serve`` (which reads the timeouts
from its settings), and through ``deploy/nginx.conf`` in a real nginx. The timeouts are a few
seconds here; the scenarios of a test run side by side, so that each test takes about the
longest of them."""

from __future__ import annotations

import asyncio
import json
import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import uvicorn
from websockets.sync.client import connect as ws_connect

from server.slow_http import header_deadline_protocol
from tests.live import free_port, junqi_serve
from tests.server.nginx import needs_nginx, nginx_before
from tests.server.sockets import live_socket

HEADER_TIMEOUT = 2.0
KEEP_ALIVE = 1
SLACK = 1.0  # how much later than its timeout a busy machine may close a connection
HEAD = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: one byte at a time\r\n\r\n"


# --- a raw client ----------------------------------------------------------------------------


def closed(conn: socket.socket, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for the server to close ``conn``: True if it did, False if
    it is still open; fails if the server sent anything instead."""
    if not select.select([conn], [], [], max(timeout, 0))[0]:
        return False
    try:
        data = conn.recv(4096)
    except OSError:  # reset (nginx resets timed-out connections), or TLS cut short
        return True
    assert not data, f"the server answered: {data[:80]!r}"
    return True


def trickle(conn: socket.socket, data: bytes, limit: float, interval: float = 1.0) -> float:
    """Send ``data`` one byte every ``interval`` seconds until the server closes ``conn``; the
    seconds that took. Fails if it is still open after ``limit`` seconds."""
    start = time.monotonic()
    for index, byte in enumerate(data):
        try:
            conn.sendall(bytes([byte]))
        except OSError:  # closed meanwhile
            return time.monotonic() - start
        next_byte = start + (index + 1) * interval
        if closed(conn, min(next_byte, start + limit) - time.monotonic()):
            return time.monotonic() - start
        if time.monotonic() >= start + limit:
            break
    raise AssertionError(f"still open after {time.monotonic() - start:.1f} s of a trickled head")


def response(conn: socket.socket) -> tuple[int, bytes]:
    """Read one HTTP answer with a Content-Length from ``conn``: its status and body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        assert chunk, f"closed before an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = dict(line.lower().split(": ", 1) for line in lines[1:])
    while len(body) < int(fields["content-length"]):
        chunk = conn.recv(4096)
        assert chunk, "closed in the middle of an answer"
        body += chunk
    return int(lines[0].split()[1]), body


def idle_close(conn: socket.socket, limit: float) -> float:
    """The seconds until the server closes the idle ``conn``; fails past ``limit``."""
    start = time.monotonic()
    assert closed(conn, limit), f"an idle kept-alive connection still open after {limit} s"
    return time.monotonic() - start


def around(seconds: float, timeout: float) -> bool:
    """Whether a connection closed after ``seconds`` was closed by a ``timeout``: not before it
    ran out, not long after; the keep-alive time well before the header timeout could have."""
    slack = SLACK if timeout == HEADER_TIMEOUT else (HEADER_TIMEOUT - timeout) / 2
    return timeout - 0.2 <= seconds <= timeout + slack


def side_by_side(**scenarios: Callable[[], Any]) -> dict[str, Any]:
    """Run the scenarios at once, each in its thread; their results, by name. A failing one
    fails the test, naming itself."""
    with ThreadPoolExecutor(len(scenarios)) as pool:
        futures = {name: pool.submit(run) for name, run in scenarios.items()}
        results = {}
        for name, future in futures.items():
            try:
                results[name] = future.result(timeout=60)
            except AssertionError as failure:
                raise AssertionError(f"{name}: {failure}") from failure
    return results


# --- uvicorn's two implementations, with a small app -----------------------------------------


async def small_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """``/health``; ``/slow``, answered after longer than the header timeout; ``POST /count``,
    the length of its body; and a WebSocket that echoes at ``/ws``."""
    if scope["type"] == "websocket":
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        while (message := await receive())["type"] == "websocket.receive":
            await send({"type": "websocket.send", "text": "echo " + message["text"]})
        return
    assert scope["type"] == "http"
    size = 0
    while True:
        message = await receive()
        size += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    if scope["path"] == "/slow":
        await asyncio.sleep(HEADER_TIMEOUT + 0.5)
    body = str(size).encode() if scope["path"] == "/count" else b"ok"
    headers = [(b"content-type", b"text/plain"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@contextmanager
def uvicorn_in_a_thread(implementation: str) -> Iterator[int]:
    """uvicorn serving ``small_app`` with the header deadline on ``implementation``'s protocol,
    in a thread of this process; yields its port."""
    port = free_port()
    config = uvicorn.Config(
        small_app,
        host="127.0.0.1",
        port=port,
        http=header_deadline_protocol(HEADER_TIMEOUT, implementation),
        timeout_keep_alive=KEEP_ALIVE,
        lifespan="off",
        log_config=None,  # the test process's logging stays as it is
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    try:
        assert server.started, "uvicorn did not start"
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.mark.parametrize("implementation", ["httptools", "h11"])
def test_a_trickled_head_is_cut_off_and_nothing_else(implementation: str) -> None:
    with uvicorn_in_a_thread(implementation) as port:
        address = ("127.0.0.1", port)

        def new_connection() -> float:  # its first request's head, a byte a second
            with socket.create_connection(address) as conn:
                return trickle(conn, HEAD, limit=HEADER_TIMEOUT + 3)

        def after_a_response() -> float:  # the next request's head, on a kept-alive one
            with socket.create_connection(address) as conn:
                conn.sendall(HEAD)
                assert response(conn) == (200, b"ok")
                return trickle(conn, HEAD, limit=HEADER_TIMEOUT + 3)

        def idle() -> float:  # nothing after a response: uvicorn's keep-alive closes it
            with socket.create_connection(address) as conn:
                conn.sendall(HEAD)
                assert response(conn) == (200, b"ok")
                return idle_close(conn, HEADER_TIMEOUT + 3)

        def slow_answers() -> None:  # answers slower than the deadline, pipelined too
            with socket.create_connection(address) as conn:
                slow = b"GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                conn.sendall(slow + slow)
                assert response(conn) == (200, b"ok")
                assert response(conn) == (200, b"ok")
                conn.sendall(HEAD)  # and the connection still serves
                assert response(conn) == (200, b"ok")

        def slow_body() -> None:  # a body on its way longer than the deadline: not timed
            with socket.create_connection(address) as conn:
                body = b"0123456789"
                conn.sendall(b"POST /count HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
                for byte in body:
                    conn.sendall(bytes([byte]))
                    time.sleep((HEADER_TIMEOUT + 1) / len(body))
                assert response(conn) == (200, b"10")

        def websocket() -> None:  # no longer HTTP once upgraded: never cut off
            with ws_connect(f"ws://127.0.0.1:{port}/ws") as ws:
                time.sleep(HEADER_TIMEOUT + 1)
                ws.send("still here")
                assert ws.recv(timeout=5) == "echo still here"

        results = side_by_side(
            new_connection=new_connection,
            after_a_response=after_a_response,
            idle=idle,
            slow_answers=slow_answers,
            slow_body=slow_body,
            websocket=websocket,
        )
    assert around(results["new_connection"], HEADER_TIMEOUT), results
    assert around(results["after_a_response"], HEADER_TIMEOUT), results
    assert around(results["idle"], KEEP_ALIVE), results


def test_the_deadline_must_be_positive_and_the_implementation_known() -> None:
    for wrong in (0, -1):
        with pytest.raises(ValueError, match="positive"):
            header_deadline_protocol(wrong)
    with pytest.raises(ValueError, match="no HTTP implementation 'zttp'"):
        header_deadline_protocol(1, "zttp")
    # a class of its own for each deadline: two servers of one process may differ
    assert header_deadline_protocol(3).header_timeout == 3
    assert header_deadline_protocol(4, "h11").header_timeout == 4


# --- junqi serve, and nginx in front of it ---------------------------------------------------

SETTINGS = {
    "JUNQI_HEADER_TIMEOUT_SECONDS": str(HEADER_TIMEOUT),
    "JUNQI_KEEP_ALIVE_SECONDS": str(KEEP_ALIVE),
    "JUNQI_TRUSTED_PROXIES": '["127.0.0.2"]',  # nginx's address (tests.server.nginx)
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``junqi serve`` with the short timeouts; its base URL."""
    with junqi_serve(tmp_path_factory.mktemp("slow"), SETTINGS) as base:
        yield base


def signed_in_socket_lasts(base: str, wait: float, **options: Any) -> None:
    """A guest's socket of the server at ``base`` signs in, gets its welcome, and after
    ``wait`` seconds of quiet still answers a ping."""
    verify = options.get("ssl") or True
    guest = httpx.post(f"{base}/api/auth/guest", verify=verify).json()
    with live_socket(base, guest["token"], **options) as ws:
        welcome = json.loads(ws.recv(timeout=10))
        assert welcome["type"] == "welcome" and welcome["user"]["name"] == guest["user"]["name"]
        time.sleep(wait)
        ws.send(json.dumps({"type": "ping", "id": 1}))
        pong = json.loads(ws.recv(timeout=10))
        assert pong["type"] == "pong" and pong["ref"] == 1


def test_junqi_serve_closes_slow_and_idle_connections(served: str) -> None:
    address = ("127.0.0.1", int(served.rsplit(":", 1)[1]))

    def trickled() -> float:
        with socket.create_connection(address) as conn:
            return trickle(conn, HEAD, limit=HEADER_TIMEOUT + 3)

    def idle() -> float:
        with socket.create_connection(address) as conn:
            conn.sendall(HEAD)
            assert response(conn) == (200, b'{"status":"ok"}')
            return idle_close(conn, HEADER_TIMEOUT + 3)

    def requests() -> None:  # one after another on one connection, for longer than both
        with httpx.Client(base_url=served) as client:
            for _ in range(int(HEADER_TIMEOUT * 4)):
                assert client.get("/api/lobby").status_code == 200
                time.sleep(0.5)

    results = side_by_side(
        trickled=trickled,
        idle=idle,
        requests=requests,
        socket=lambda: signed_in_socket_lasts(served, HEADER_TIMEOUT + 1),
    )
    assert around(results["trickled"], HEADER_TIMEOUT), results
    assert around(results["idle"], KEEP_ALIVE), results


# the shipped timeouts, and the test's shorter ones
NGINX_TIMEOUTS = {
    "client_header_timeout 10s;": f"client_header_timeout {HEADER_TIMEOUT:g}s;",
    "keepalive_timeout 15s;": f"keepalive_timeout {KEEP_ALIVE}s;",
    "client_body_timeout 10s;": "client_body_timeout 10s;",
    "send_timeout 20s;": "send_timeout 20s;",
    "proxy_read_timeout 1h;": "proxy_read_timeout 1h;",  # sockets: a whole game
}


@needs_nginx
def test_nginx_closes_slow_and_idle_connections(served: str) -> None:
    with nginx_before(served, NGINX_TIMEOUTS) as proxy:
        tls = proxy.tls()

        def plain() -> float:  # the port that only redirects
            with socket.create_connection(("127.0.0.1", proxy.http_port)) as conn:
                return trickle(conn, HEAD, limit=HEADER_TIMEOUT + 3)

        def over_tls() -> float:
            with (
                socket.create_connection(("127.0.0.1", proxy.https_port)) as conn,
                tls.wrap_socket(conn, server_hostname="127.0.0.1") as secure,
            ):
                return trickle(secure, HEAD, limit=HEADER_TIMEOUT + 3)

        def no_handshake() -> float:  # connected, and not a byte of TLS
            with socket.create_connection(("127.0.0.1", proxy.https_port)) as conn:
                return idle_close(conn, HEADER_TIMEOUT + 3)

        def idle() -> float:
            with (
                socket.create_connection(("127.0.0.1", proxy.https_port)) as conn,
                tls.wrap_socket(conn, server_hostname="127.0.0.1") as secure,
            ):
                secure.sendall(HEAD)
                assert response(secure) == (200, b'{"status":"ok"}')
                return idle_close(secure, HEADER_TIMEOUT + 3)

        def requests() -> None:
            with httpx.Client(base_url=proxy.https, verify=tls) as client:
                for _ in range(int(HEADER_TIMEOUT * 4)):
                    assert client.get("/api/lobby").status_code == 200
                    time.sleep(0.5)

        results = side_by_side(
            plain=plain,
            over_tls=over_tls,
            no_handshake=no_handshake,
            idle=idle,
            requests=requests,
            # quiet for longer than nginx's and the app's timeouts together: still open
            socket=lambda: signed_in_socket_lasts(proxy.https, HEADER_TIMEOUT + 1, ssl=tls),
        )
    for name in ("plain", "over_tls", "no_handshake"):
        assert around(results[name], HEADER_TIMEOUT), (name, results)
    assert around(results["idle"], KEEP_ALIVE), results
