"""HTTP hardening (``server.hardening``, SECURITY.md): security headers on every answer, request
bodies capped by the app and by nginx, layouts capped at their board's stations, and
X-Forwarded-For believed from the configured proxy alone: shown with real ``junqi serve``
processes, clients on their own loopback addresses and, through ``deploy/nginx.conf``, a real
nginx."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

import engine
from server.app import create_app
from server.config import REPO, Settings
from server.hardening import CLIENT_POLICY, DOCS_POLICY, BodyLimit, SecurityHeaders
from tests.live import free_port, junqi_serve
from tests.server.conftest import make_settings, register

LIMIT = 64 * 1024  # the default of JUNQI_MAX_BODY_BYTES
# three sign-ins a minute per address; guests are limited per address too, but not watched here
SIGN_IN_LIMIT = {"JUNQI_SIGN_INS_PER_MINUTE": "3", "JUNQI_GUESTS_PER_ADDRESS_PER_DAY": "100000"}
CODES = {"body_too_large", "layout_too_large"}  # the refusals' X-Error-Code
TOO_LARGE = f"request bodies are at most {LIMIT} bytes"
SECURITY_HEADERS = {
    "content-security-policy": CLIENT_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
needs_nginx = pytest.mark.skipif(not Path(NGINX).exists(), reason="needs nginx (.ci/run)")


def secured(answer: Any, policy: str = CLIENT_POLICY) -> bool:
    """Whether an answer (httpx's, or the TestClient's) carries the security headers."""
    expected = SECURITY_HEADERS | {"content-security-policy": policy}
    return all(answer.headers.get(name) == value for name, value in expected.items())


# --- headers --------------------------------------------------------------------------------


def test_every_answer_carries_the_security_headers(sqlite_client: TestClient) -> None:
    client = sqlite_client
    page = client.get("/")
    assert page.headers["content-type"].startswith("text/html") and secured(page)
    assert secured(client.get("/api/lobby"))  # JSON
    script = client.get("/js/main.js")  # the client's files
    assert script.status_code == 200 and secured(script)
    again = client.get("/js/main.js", headers={"If-None-Match": script.headers["etag"]})
    assert again.status_code == 304 and secured(again)
    assert secured(client.get("/style.css", headers={"Accept-Encoding": "gzip"}))
    for refused in (
        client.get("/api/no-such-route"),  # 404
        client.get("/api/me"),  # 401
        client.post("/api/layouts/check", json={}),  # 422
        client.post("/api/layouts/check", content=b"x" * (LIMIT + 1)),  # 413
    ):
        assert refused.status_code >= 400 and secured(refused), refused
    docs = client.get("/docs")  # Swagger UI: its CDN and inline start, still never framed
    assert secured(docs, DOCS_POLICY) and "frame-ancestors 'none'" in DOCS_POLICY


def test_a_server_error_carries_the_security_headers_too(tmp_path: Path) -> None:
    app = create_app(make_settings(f"sqlite+aiosqlite:///{tmp_path / 'junqi.db'}"))

    async def broken() -> None:
        raise RuntimeError("a bug")

    app.router.routes.insert(0, APIRoute("/api/broken", broken))
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/api/broken")
    assert answer.status_code == 500 and secured(answer)


def test_websockets_pass_the_middleware_untouched() -> None:
    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text("echo " + await websocket.receive_text())
        await websocket.close()

    app = SecurityHeaders(BodyLimit(Starlette(routes=[WebSocketRoute("/ws", echo)]), 10))
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        ws.send_text("x" * 100)  # more than the body limit: a socket message is no body
        assert ws.receive_text() == "echo " + "x" * 100


# --- request bodies -------------------------------------------------------------------------


def asgi_request(
    app: Any, body: AsyncIterator[bytes] | None, headers: list[tuple[bytes, bytes]]
) -> tuple[int, dict[str, Any], int]:
    """Send one POST /api/layouts/check straight to the ASGI app; returns the status, the JSON
    answer with its X-Error-Code as ``code``, and how many times the app asked for the body."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/layouts/check",
        "raw_path": b"/api/layouts/check",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"), *headers],
        "client": ("127.0.0.1", 1234),
        "server": ("testserver", 80),
    }
    asked = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal asked
        asked += 1
        if body is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        try:
            return {"type": "http.request", "body": await anext(body), "more_body": True}
        except StopAsyncIteration:
            return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    status = sent[0]["status"]
    answer = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))
    answer["code"] = dict(sent[0]["headers"]).get(b"x-error-code", b"").decode()
    return status, answer, asked


def test_a_body_declared_over_the_limit_is_refused_before_a_byte_is_read(tmp_path: Path) -> None:
    app = create_app(make_settings(f"sqlite+aiosqlite:///{tmp_path / 'junqi.db'}"))
    # the review's request: 2,000,000 keys, 28 MB; and a body one byte over the limit
    for length in (28_000_000, LIMIT + 1):
        status, answer, asked = asgi_request(app, None, [(b"content-length", b"%d" % length)])
        assert status == 413, answer
        assert answer == {"detail": TOO_LARGE, "code": "body_too_large"}
        assert asked == 0  # never read, let alone parsed


def test_a_chunked_body_is_refused_once_its_bytes_pass_the_limit(tmp_path: Path) -> None:
    app = create_app(make_settings(f"sqlite+aiosqlite:///{tmp_path / 'junqi.db'}"))
    chunk = 16 * 1024
    pulled = 0

    async def chunks() -> AsyncIterator[bytes]:  # 2,000,000 keys' worth, 16 KiB at a time
        nonlocal pulled
        yield b'{"variant": "siguo", "seat": 0, "layout": {'
        for _ in range(28_000_000 // chunk):
            pulled += 1
            yield b" " * chunk

    status, answer, asked = asgi_request(app, chunks(), [(b"transfer-encoding", b"chunked")])
    assert status == 413 and answer == {"detail": TOO_LARGE, "code": "body_too_large"}
    assert pulled == LIMIT // chunk  # refused at the chunk that passed the limit
    assert asked == pulled + 1


def test_the_largest_legitimate_bodies_pass(sqlite_client: TestClient) -> None:
    # a layout file of the most characters allowed, every one escaped in the JSON: 12 KB
    text = "布" * 2000
    body = json.dumps({"name": "名" * 64, "variant": "siguo", "text": text}).encode()
    assert len(body) > 12_000
    answer = sqlite_client.post(
        "/api/layouts/parse", content=body, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 200 and answer.json()["error"]  # read, and found no layout


# --- layouts: at most the board's stations --------------------------------------------------


def test_a_layout_larger_than_its_board_is_refused_before_any_work(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = register(client, "布阵者")
    auth = {"Authorization": f"Bearer {token}"}
    # many keys (4,000: under the byte limit, like the review's 2,000,000 over it)
    huge = {f"0:{i}": "x" for i in range(4000)}
    over = {f"0:{i}": "engineer" for i in range(61)}  # one more than 二人's 60 stations
    calls: list[str] = []

    def counted(name: str) -> Callable[..., Any]:
        real = getattr(engine, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return real(*args, **kwargs)

        return call

    for name in ("layout_problems", "auto_layout", "format_layout", "format_jql"):
        monkeypatch.setattr(engine, name, counted(name))
    for path in ("check", "auto", "format", "jql", "start"):
        for variant, layout, stations in (("siguo", huge, 129), ("liangguo", over, 60)):
            body = {"variant": variant, "seat": 0, "layout": layout}
            answer = client.post(f"/api/layouts/{path}", json=body, headers=auth)
            assert answer.status_code == 422, (path, answer.text)
            pieces = len(layout)
            expected = f"a layout of {pieces} pieces: the {variant} board has {stations} stations"
            assert answer.json()["detail"] == expected
            assert answer.headers["x-error-code"] == "layout_too_large"
        hand = [["engineer", 0]] * 130  # a dealt hand too
        body = {"variant": "luanzhan", "seat": 0, "hand": hand}
        answer = client.post(f"/api/layouts/{path}", json=body, headers=auth)
        assert answer.status_code == 422, (path, answer.text)
        expected = "a hand of 130 pieces: the luanzhan board has 129 stations"
        assert answer.json()["detail"] == expected
    assert calls == []  # the engine never saw one of them
    # a layout as large as its board is the engine's to judge
    full = {f"0:{i}": "engineer" for i in range(60)}
    answer = client.post(
        "/api/layouts/check", json={"variant": "liangguo", "seat": 0, "layout": full}
    )
    assert answer.status_code == 200 and answer.json()
    assert calls == ["layout_problems"]


def test_a_made_up_hand_no_layout_can_hold_is_refused_in_words(client: TestClient) -> None:
    # 14 landmines (the four armies have 12): the back rows and row 4 hold 12 at most
    token = register(client, "布雷者")
    hand = [["landmine", 0]] * 14 + [["flag", 0]] + [["major", 0]] * 10
    for path in ("auto", "start"):
        answer = client.post(
            f"/api/layouts/{path}",
            json={"variant": "luanzhan", "seat": 0, "hand": hand},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 422, (path, answer.text)
        assert answer.headers["x-error-code"] == "layout_impossible"
        assert answer.json()["detail"].startswith("no layout holds this hand of 25 pieces")


# --- proxy trust ----------------------------------------------------------------------------


def test_trusted_proxies_are_addresses_or_networks() -> None:
    assert Settings(trusted_proxies=["172.30.86.10", "10.0.0.0/8", "::1"]).trusted_proxies
    assert Settings().trusted_proxies == []  # by default no proxy, not even loopback
    for wrong in ("nginx", "10.0.0.1/8", "300.1.1.1"):
        with pytest.raises(ValidationError):
            Settings(trusted_proxies=[wrong])


def test_compose_trusts_exactly_the_proxy_s_fixed_address() -> None:
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    network = compose["networks"]["junqi"]["ipam"]["config"][0]
    proxy = ipaddress.ip_address(compose["services"]["proxy"]["networks"]["junqi"]["ipv4_address"])
    assert proxy in ipaddress.ip_network(network["subnet"])
    assert proxy not in ipaddress.ip_network(network["ip_range"])  # never handed to another
    for name, service in compose["services"].items():
        assert "junqi" in service["networks"], name
        environment = service.get("environment", {})
        assert "FORWARDED_ALLOW_IPS" not in environment, name
        if name.startswith("app"):
            assert json.loads(environment["JUNQI_TRUSTED_PROXIES"]) == [str(proxy)]


def guests(base: str, source: str, forwarded: list[str | None]) -> list[int]:
    """Guest sign-ins (limited per address) from the loopback address ``source``, one for each
    X-Forwarded-For in ``forwarded`` (None: none sent); their status codes."""
    codes = []
    with httpx.Client(base_url=base, transport=httpx.HTTPTransport(local_address=source)) as c:
        for value in forwarded:
            headers = {} if value is None else {"X-Forwarded-For": value}
            codes.append(c.post("/api/auth/guest", headers=headers).status_code)
    return codes


@pytest.fixture(scope="module")
def behind_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server that trusts the proxy at 127.0.0.2 and nobody else."""
    settings = {"JUNQI_TRUSTED_PROXIES": '["127.0.0.2"]'}
    with junqi_serve(tmp_path_factory.mktemp("proxied"), {**SIGN_IN_LIMIT, **settings}) as base:
        yield base


def test_x_forwarded_for_is_ignored_unless_the_trusted_proxy_sends_it(behind_proxy: str) -> None:
    # a client writing its own X-Forwarded-For: every request counts for its real address
    spoofed = [f"10.0.0.{i}" for i in range(4)]
    assert guests(behind_proxy, "127.0.0.3", [*spoofed]) == [201, 201, 201, 429]
    # the trusted proxy's X-Forwarded-For is believed: counted per forwarded address
    assert guests(behind_proxy, "127.0.0.2", ["10.1.0.1"] * 4) == [201, 201, 201, 429]
    assert guests(behind_proxy, "127.0.0.2", ["10.1.0.2"]) == [201]
    # of a list, the address the proxy added (the last): what a client put before it is ignored
    assert guests(behind_proxy, "127.0.0.2", ["10.7.7.7, 10.1.0.1"]) == [429]


def test_by_default_no_x_forwarded_for_is_believed_not_even_from_loopback(
    tmp_path: Path,
) -> None:
    # uvicorn by itself believes 127.0.0.1, and everything in FORWARDED_ALLOW_IPS: not here
    with junqi_serve(tmp_path, {**SIGN_IN_LIMIT, "FORWARDED_ALLOW_IPS": "*"}) as base:
        spoofed = [f"10.2.0.{i}" for i in range(4)]
        assert guests(base, "127.0.0.1", [*spoofed]) == [201, 201, 201, 429]


def http_exchange(base: str, request: bytes, body_chunks: Iterator[bytes] | None = None) -> bytes:
    """Send a raw HTTP request, then body chunks until the server answers; the answer."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(request)
        conn.setblocking(False)
        for chunk in body_chunks or ():
            try:
                if conn.recv(1, socket.MSG_PEEK):
                    break  # answered before the body was all sent
            except BlockingIOError:
                pass
            try:
                conn.sendall(chunk)
            except (BlockingIOError, BrokenPipeError, ConnectionResetError):
                break
            time.sleep(0.002)
        conn.setblocking(True)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.endswith(b"}"):
            data = conn.recv(65536)
            if not data:
                break
            answer += data
        return answer


def test_a_live_server_refuses_oversized_bodies(behind_proxy: str) -> None:
    head = b"POST /api/layouts/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    # declared: refused at once, though not a byte of the body is sent
    answer = http_exchange(behind_proxy, head + b"Content-Length: 28000000\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert b"\r\nx-error-code: body_too_large\r\n" in answer.lower()
    assert json.loads(answer.partition(b"\r\n\r\n")[2]) == {"detail": TOO_LARGE}
    # chunked: refused while the chunks still stream in
    sent = 0

    def chunks() -> Iterator[bytes]:
        nonlocal sent
        for data in (b'{"variant": 1, ', *[b" " * 0x4000] * 400):  # 6.4 MB, were it all sent
            sent += 1
            yield b"%x\r\n%s\r\n" % (len(data), data)

    answer = http_exchange(behind_proxy, head + b"Transfer-Encoding: chunked\r\n\r\n", chunks())
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert json.loads(answer.partition(b"\r\n\r\n")[2]) == {"detail": TOO_LARGE}
    assert sent < 100  # of the 401 chunks


# --- nginx with deploy/nginx.conf -----------------------------------------------------------


@contextmanager
def nginx_before(app: str) -> Iterator[tuple[str, Path]]:
    """A real nginx running ``deploy/nginx.conf``, changed only in where it listens, where its
    upstream is and where it logs, and reaching the app from 127.0.0.2 (the trusted proxy's
    address); yields its base URL and its access log."""
    port = free_port()
    work = Path(tempfile.mkdtemp(prefix="junqi-nginx-"))
    work.chmod(0o755)  # nginx's workers (not root) keep request bodies under it
    log = work / "access.log"
    conf = (REPO / "deploy/nginx.conf").read_text()
    upstream = app.removeprefix("http://")
    for old, new in (
        ("        server app1:8000 max_fails=1 fail_timeout=5s;\n", f"server {upstream};\n"),
        ("        server app2:8000 max_fails=1 fail_timeout=5s;\n", ""),
        ("listen 80;", f"listen 127.0.0.1:{port};"),
        ("/var/log/nginx/access.log", str(log)),
        ("proxy_pass http://junqi;", "proxy_pass http://junqi;\n proxy_bind 127.0.0.2;"),
        ("http {", "http {\n" + "".join(f" {k}_temp_path {work / k};" for k in TEMP_PATHS)),
    ):
        assert old in conf, old
        conf = conf.replace(old, new)
    (work / "nginx.conf").write_text(conf)
    globals_ = f"daemon off; pid {work / 'nginx.pid'}; error_log {work / 'error.log'};"
    process = subprocess.Popen([NGINX, "-p", str(work), "-c", "nginx.conf", "-g", globals_])
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                httpx.get(f"{base}/health")
                break
            except httpx.TransportError:
                time.sleep(0.05)
        yield base, log
    finally:
        process.terminate()
        process.wait(10)
        shutil.rmtree(work, ignore_errors=True)


TEMP_PATHS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


@needs_nginx
def test_through_nginx_the_client_s_own_address_counts_and_no_token_is_logged(
    behind_proxy: str,
) -> None:
    with nginx_before(behind_proxy) as (base, log):
        # a client's own X-Forwarded-For is replaced by its address: it gains nothing
        spoofed = [f"10.3.0.{i}" for i in range(4)]
        assert guests(base, "127.0.0.5", [*spoofed]) == [201, 201, 201, 429]
        # ... and each client is counted for itself, not all of them as nginx
        assert guests(base, "127.0.0.6", [None]) == [201]
        page = httpx.get(f"{base}/")
        assert page.status_code == 200 and secured(page)
        # bodies: one the app takes passes (held on disk by nginx), a larger one is refused
        padded = b'{"variant": "siguo", "seat": 0' + b" " * 40_000 + b"}"
        headers = {"Content-Type": "application/json"}
        answer = httpx.post(f"{base}/api/layouts/check", content=padded, headers=headers)
        assert answer.status_code == 200, answer.text
        answer = httpx.post(f"{base}/api/layouts/check", content=b" " * (LIMIT + 1))
        assert answer.status_code == 413 and answer.headers["x-error-code"] == "body_too_large"
        assert answer.json() == {"detail": TOO_LARGE}
        # the access log: paths without their query, no credentials
        secret = "tok-" + os.urandom(8).hex()
        httpx.get(f"{base}/api/me?token={secret}", headers={"Authorization": f"Bearer {secret}"})
        time.sleep(0.2)
        logged = log.read_text()
    assert '"GET /api/me HTTP/1.1" 401' in logged
    assert '"POST /api/auth/guest HTTP/1.1" 201' in logged
    assert secret not in logged and "token=" not in logged
