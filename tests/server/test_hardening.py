"""HTTP hardening (``server.hardening``, SECURITY.md): security headers on every answer, request
bodies capped by the app and by nginx, layouts capped at their board's stations, X-Forwarded-For
believed from the configured proxy alone, and the shipped proxy's TLS: shown with real ``junqi
serve`` processes, clients on their own loopback addresses and, through ``deploy/nginx.conf``, a
real nginx (HTTPS with HSTS, plain HTTP redirected, secure WebSockets)."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import socket
import ssl
import subprocess
import threading
import time
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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
from tests.server.nginx import CERTS, Nginx, needs_nginx, nginx_before
from tests.server.sockets import live_socket

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
HSTS = "max-age=31536000"  # deploy/nginx.conf's Strict-Transport-Security: a year


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
        # on the network whose addresses the nodes weigh, or on none (the certificate's maker)
        assert "junqi" in service.get("networks", ()) or service["network_mode"] == "none", name
        environment = service.get("environment", {})
        assert "FORWARDED_ALLOW_IPS" not in environment, name
        if name.startswith("app"):
            assert json.loads(environment["JUNQI_TRUSTED_PROXIES"]) == [str(proxy)]


def guests(
    base: str, source: str, forwarded: list[str | None], tls: ssl.SSLContext | None = None
) -> list[int]:
    """Guest sign-ins (limited per address) from the loopback address ``source``, one for each
    X-Forwarded-For in ``forwarded`` (None: none sent); their status codes. ``tls``: the context
    an HTTPS ``base`` is trusted with."""
    codes = []
    transport = httpx.HTTPTransport(local_address=source, verify=tls or True)
    with httpx.Client(base_url=base, transport=transport) as c:
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


# --- nginx with deploy/nginx.conf: TLS, the client's address --------------------------------


@needs_nginx
def test_through_nginx_the_client_s_own_address_counts_and_no_token_is_logged(
    behind_proxy: str,
) -> None:
    with nginx_before(behind_proxy) as proxy:
        base, tls = proxy.https, proxy.tls()
        # a client's own X-Forwarded-For is replaced by its address: it gains nothing
        spoofed = [f"10.3.0.{i}" for i in range(4)]
        assert guests(base, "127.0.0.5", [*spoofed], tls) == [201, 201, 201, 429]
        # ... and each client is counted for itself, not all of them as nginx
        assert guests(base, "127.0.0.6", [None], tls) == [201]
        page = httpx.get(f"{base}/", verify=tls)
        assert page.status_code == 200 and secured(page)
        # bodies: one the app takes passes (held on disk by nginx), a larger one is refused
        padded = b'{"variant": "siguo", "seat": 0' + b" " * 40_000 + b"}"
        headers = {"Content-Type": "application/json"}
        answer = httpx.post(
            f"{base}/api/layouts/check", content=padded, headers=headers, verify=tls
        )
        assert answer.status_code == 200, answer.text
        answer = httpx.post(f"{base}/api/layouts/check", content=b" " * (LIMIT + 1), verify=tls)
        assert answer.status_code == 413 and answer.headers["x-error-code"] == "body_too_large"
        assert answer.json() == {"detail": TOO_LARGE}
        # the access log: paths without their query, no credentials
        secret = "tok-" + os.urandom(8).hex()
        credentials = {"Authorization": f"Bearer {secret}"}
        httpx.get(f"{base}/api/me?token={secret}", headers=credentials, verify=tls)
        time.sleep(0.2)
        logged = proxy.log.read_text()
    assert '"GET /api/me HTTP/1.1" 401' in logged
    assert '"POST /api/auth/guest HTTP/1.1" 201' in logged
    assert secret not in logged and "token=" not in logged


@needs_nginx
def test_plain_http_only_redirects_to_https_without_hsts(behind_proxy: str) -> None:
    source = "127.0.0.10"
    transport = httpx.HTTPTransport(local_address=source)
    with nginx_before(behind_proxy) as proxy, httpx.Client(transport=transport) as client:
        for method, path in (
            ("GET", "/"),
            ("GET", "/api/lobby?variant=siguo"),
            ("POST", "/api/auth/guest"),
            ("GET", "/ws"),
        ):
            answer = client.request(method, proxy.http + path)
            assert answer.status_code == 301, (method, path, answer.status_code)
            # to the standard port, where compose publishes nginx's 443
            assert answer.headers["location"] == "https://127.0.0.1" + path
            # HSTS means something over HTTPS only (browsers ignore it over HTTP)
            assert "strict-transport-security" not in answer.headers
            assert "content-security-policy" not in answer.headers  # never the app's answer
        named = client.get(proxy.http + "/", headers={"Host": "junqi.example"})
        assert named.headers["location"] == "https://junqi.example/"
        time.sleep(0.2)
        assert '"POST /api/auth/guest HTTP/1.1" 301' in proxy.log.read_text()
    # the guest sign-in over plain HTTP never reached the app: its address has all three left
    assert guests(behind_proxy, source, [None] * 4) == [201, 201, 201, 429]


@needs_nginx
def test_https_answers_carry_hsts(behind_proxy: str) -> None:
    with nginx_before(behind_proxy) as proxy, httpx.Client(verify=proxy.tls()) as client:
        lobby = client.get(proxy.https + "/api/lobby")
        assert lobby.status_code == 200 and secured(lobby)
        answers = [
            lobby,
            client.get(proxy.https + "/"),
            client.get(proxy.https + "/api/no-such-route"),  # the app's 404
            client.get(proxy.https + "/api/me"),  # the app's 401
            client.post(proxy.https + "/api/layouts/check", content=b" " * (LIMIT + 1)),  # nginx
        ]
        assert [a.status_code for a in answers] == [200, 200, 404, 401, 413]
        for answer in answers:
            assert answer.headers.get("strict-transport-security") == HSTS, answer.request.url
            assert answer.url.scheme == "https" and answer.http_version == "HTTP/1.1"


def handshake(port: int, context: ssl.SSLContext) -> tuple[str | None, str, bool]:
    """A TLS handshake with 127.0.0.1:``port``: the protocol, cipher and whether the session
    was resumed; raises ssl.SSLError if the server refuses it."""
    with (
        socket.create_connection(("127.0.0.1", port), timeout=10) as conn,
        context.wrap_socket(conn, server_hostname="127.0.0.1") as tls,
    ):
        cipher = tls.cipher()
        assert cipher is not None
        return tls.version(), cipher[0], bool(tls.session_reused)


def lenient(proxy: Nginx, lowest: ssl.TLSVersion, highest: ssl.TLSVersion, ciphers: str) -> Any:
    """A client context offering the protocols from ``lowest`` to ``highest`` and ``ciphers``,
    at OpenSSL's security level 0: whatever is refused, the server refused."""
    context = proxy.tls()
    context.set_ciphers(f"{ciphers}:@SECLEVEL=0")
    with warnings.catch_warnings():  # Python deprecates naming TLS 1.0 and 1.1, as it should
        warnings.simplefilter("ignore", DeprecationWarning)
        context.minimum_version, context.maximum_version = lowest, highest
    return context


@needs_nginx
def test_nginx_speaks_tls_1_2_and_1_3_with_forward_secret_aead_ciphers_only(
    behind_proxy: str,
) -> None:
    versions = ssl.TLSVersion
    with nginx_before(behind_proxy) as proxy:
        port = proxy.https_port
        for version in (versions.TLSv1, versions.TLSv1_1):  # offered, refused by the server
            with pytest.raises(ssl.SSLError, match="ALERT_PROTOCOL_VERSION"):
                handshake(port, lenient(proxy, version, version, "ALL"))
        # the same client, offering the old ones too, ends on the newest both speak
        assert handshake(port, lenient(proxy, versions.TLSv1, versions.TLSv1_3, "ALL"))[0] == (
            "TLSv1.3"
        )
        assert handshake(port, lenient(proxy, versions.TLSv1, versions.TLSv1_2, "ALL"))[0] == (
            "TLSv1.2"
        )
        tls12 = (versions.TLSv1_2, versions.TLSv1_2)
        for weak in ("ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA384", "AES128-SHA"):
            with pytest.raises(ssl.SSLError, match="HANDSHAKE_FAILURE"):  # no CBC, no RSA kx
                handshake(port, lenient(proxy, *tls12, weak))
        for strong in ("ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305"):
            assert handshake(port, lenient(proxy, *tls12, strong))[:2] == ("TLSv1.2", strong)
        # TLS 1.2 sessions resume from the shared cache (no tickets)
        context = proxy.tls()
        context.maximum_version = versions.TLSv1_2
        with (
            socket.create_connection(("127.0.0.1", port), timeout=10) as conn,
            context.wrap_socket(conn, server_hostname="127.0.0.1") as first,
        ):
            session = first.session
            assert session is not None and not session.has_ticket
        with (
            socket.create_connection(("127.0.0.1", port), timeout=10) as conn,
            context.wrap_socket(conn, server_hostname="127.0.0.1", session=session) as again,
        ):
            assert again.session_reused


@needs_nginx
def test_a_socket_signs_in_over_wss_through_nginx(behind_proxy: str) -> None:
    with nginx_before(behind_proxy) as proxy:
        tls = proxy.tls()
        transport = httpx.HTTPTransport(local_address="127.0.0.8", verify=tls)
        with httpx.Client(base_url=proxy.https, transport=transport) as client:
            guest = client.post("/api/auth/guest").json()
        # as a page of this server opens it: wss:// on the same host, its Origin that page's
        with live_socket(proxy.https, guest["token"], ssl=tls, origin=proxy.https) as ws:
            assert ws.request is not None and ws.request.path == "/ws"
            assert isinstance(ws.socket, ssl.SSLSocket) and ws.socket.version() == "TLSv1.3"
            welcome = json.loads(ws.recv(timeout=10))
            assert welcome["type"] == "welcome" and welcome["user"]["name"] == guest["user"]["name"]
            ws.send(json.dumps({"type": "ping", "id": 1}))
            pong = json.loads(ws.recv(timeout=10))
            assert pong["type"] == "pong" and pong["ref"] == 1


class Recorder(BaseHTTPRequestHandler):
    """An upstream that answers every GET with ``{}`` and keeps what it was sent."""

    seen: list[tuple[str, Any]]  # the peer's address and the request's headers

    def do_GET(self) -> None:
        self.seen.append((self.client_address[0], self.headers))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


@needs_nginx
def test_nginx_tells_the_app_the_client_s_address_and_https() -> None:
    seen: list[tuple[str, Any]] = []
    handler = type("Recording", (Recorder,), {"seen": seen})
    upstream = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    serving = threading.Thread(target=upstream.serve_forever, daemon=True)
    serving.start()
    try:
        with nginx_before(f"http://127.0.0.1:{upstream.server_port}") as proxy:
            transport = httpx.HTTPTransport(local_address="127.0.0.9", verify=proxy.tls())
            with httpx.Client(transport=transport) as client:
                told = {"X-Forwarded-For": "10.9.9.9", "X-Real-IP": "10.9.9.9"}
                told["X-Forwarded-Proto"] = "http"
                answer = client.get(proxy.https + "/api/lobby", headers=told)
        assert answer.status_code == 200 and answer.headers["strict-transport-security"] == HSTS
    finally:
        upstream.shutdown()
        upstream.server_close()
    [(peer, headers)] = seen
    assert peer == "127.0.0.2"  # the proxy's own address, the one the nodes trust
    # what the client said of itself is replaced, not passed on beside the truth
    assert headers.get_all("X-Forwarded-For") == ["127.0.0.9"]
    assert headers.get_all("X-Real-IP") == ["127.0.0.9"]
    assert headers.get_all("X-Forwarded-Proto") == ["https"]
    assert headers["Host"] == f"127.0.0.1:{proxy.https_port}"


# --- the deployment: compose and the first start's certificate -----------------------------


def certificate_text(path: Path) -> str:
    """``openssl x509 -text`` of the certificate at ``path``."""
    command = ["openssl", "x509", "-in", str(path), "-noout", "-text"]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def tls_cert(folder: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``deploy/tls-cert.sh folder``, as compose's ``certs`` service runs it."""
    return subprocess.run(
        ["sh", str(REPO / "deploy/tls-cert.sh"), str(folder)],
        check=False,  # the tests read its status
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )


def expiring(folder: Path, name: str) -> None:
    """A certificate for ``name`` valid 3 days more, and its key, in ``folder``."""
    folder.mkdir(exist_ok=True)
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]
        + ["-nodes", "-days", "3", "-subj", f"/CN={name}"]
        + ["-keyout", str(folder / "privkey.pem"), "-out", str(folder / "fullchain.pem")],
        check=True,
        capture_output=True,
    )


def cert_days(path: Path) -> float:
    """How many days the certificate at ``path`` is valid still."""
    command = ["openssl", "x509", "-in", str(path), "-noout", "-enddate"]
    end = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return (ssl.cert_time_to_seconds(end.strip().removeprefix("notAfter=")) - time.time()) / 86400


def test_the_first_start_makes_a_self_signed_certificate_and_keeps_real_ones(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "certs"
    made = tls_cert(folder)
    assert made.returncode == 0 and "self-signed" in made.stdout, made.stderr
    cert, key = folder / "fullchain.pem", folder / "privkey.pem"
    assert key.stat().st_mode & 0o777 == 0o600  # the key is its owner's alone
    text = certificate_text(cert)
    assert "DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1" in text
    assert "CA:FALSE" in text and "TLS Web Server Authentication" in text  # a server's
    assert "id-ecPublicKey" in text and "P-256" in text
    assert sorted(p.name for p in folder.iterdir()) == ["fullchain.pem", "privkey.pem"]
    # a later start keeps it
    before = cert.read_bytes(), key.read_bytes()
    kept = tls_cert(folder)
    assert kept.returncode == 0 and "keeping" in kept.stdout
    assert (cert.read_bytes(), key.read_bytes()) == before
    # a self-signed one of its own that expires within 30 days is made again
    expiring(folder, "Junqi self-signed")
    renewed = tls_cert(folder)
    assert renewed.returncode == 0 and "expires within 30 days" in renewed.stdout
    assert "DNS:localhost" in certificate_text(cert) and cert_days(cert) > 360
    # real certificates, mounted, are never written over, even about to expire
    real = tmp_path / "real"
    expiring(real, "junqi.example")
    chain = (real / "fullchain.pem").read_bytes()
    assert tls_cert(real).returncode == 0 and (real / "fullchain.pem").read_bytes() == chain
    (real / "fullchain.pem").write_text("a CA's chain\n")  # nor files it cannot read
    assert tls_cert(real).returncode == 0
    assert (real / "fullchain.pem").read_text() == "a CA's chain\n"
    # half a pair is a mistake, said so, and left as it is
    (real / "privkey.pem").unlink()
    half = tls_cert(real)
    assert half.returncode != 0 and "only one of" in half.stderr
    assert [p.name for p in real.iterdir()] == ["fullchain.pem"]
    # other names for a machine reached by another name
    named = tls_cert(tmp_path / "named", TLS_NAMES="DNS:junqi.example,IP:192.0.2.7")
    assert named.returncode == 0, named.stderr
    text = certificate_text(tmp_path / "named/fullchain.pem")
    assert "DNS:junqi.example, IP Address:192.0.2.7" in text


def mount(volume: str) -> tuple[str, str]:
    """A compose volume in short syntax (``source:target[:mode]``, the source perhaps
    ``${VARIABLE:-default}``): its target and its source."""
    source, target = volume.removesuffix(":ro").removesuffix(":rw").rsplit(":", 1)
    return target, source


def test_compose_serves_https_with_the_first_start_s_certificate() -> None:
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    services = compose["services"]
    proxy, certs = services["proxy"], services["certs"]
    assert sorted(proxy["ports"]) == ["443:443", "80:80"]  # 80 only redirects
    # nginx reads its certificate where the certs service leaves it, from one volume
    mounts = dict(map(mount, proxy["volumes"]))
    assert mounts["/etc/nginx/nginx.conf"] == "./deploy/nginx.conf"
    assert CERTS in (REPO / "deploy/nginx.conf").read_text()
    volume = mounts[CERTS.rstrip("/")]
    assert volume == "${JUNQI_TLS_DIR:-certs}" and "certs" in compose["volumes"]
    made = dict(map(mount, certs["volumes"]))
    assert made["/certs"] == volume and made["/deploy/tls-cert.sh"] == "./deploy/tls-cert.sh"
    assert certs["entrypoint"] == ["sh", "/deploy/tls-cert.sh", "/certs"]
    assert certs["build"] == "."  # the app's image, which has openssl
    assert "openssl" in (REPO / "Dockerfile").read_text()
    assert proxy["depends_on"]["certs"] == {"condition": "service_completed_successfully"}
    assert "https://127.0.0.1/health" in proxy["healthcheck"]["test"]
    # the pages' origin is the HTTPS one, and the nodes believe the proxy's X-Forwarded-Proto
    for name in ("app1", "app2"):
        environment = services[name]["environment"]
        assert json.loads(environment["JUNQI_ALLOWED_ORIGINS"]) == ["https://localhost"]
        assert json.loads(environment["JUNQI_TRUSTED_PROXIES"]) == ["172.30.86.10"]
