"""HTTP hardening: security headers on every answer, and a cap on the size of request bodies.

Both are plain ASGI middleware (not ``BaseHTTPMiddleware``): WebSockets pass through untouched
and no answer is buffered. ``HardenedApp`` puts them around the whole application, outside even
its error handler, so that a 500 carries the headers too and an oversized body is refused before
any route, dependency or database session is set up for it.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, HTTPException
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.accounts import ERROR_CODE

# The browser client: its scripts, styles and sockets all come from this server, and it sets
# styles through the CSSOM only (no inline scripts or style attributes, docs/web.md). The
# default-src 'self' covers the same-origin ws:/wss: socket too (CSP3); ``img-src data:`` is
# for the page's empty icon (``href="data:,"``: no request for /favicon.ico, no 404).
CLIENT_POLICY = (
    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'; object-src 'none'"
)
# FastAPI's API pages (/docs: Swagger UI, /redoc) load their code from a CDN and start it with
# an inline script; they show the API's own schema, nothing a user wrote.
DOCS_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "font-src 'self' https://fonts.gstatic.com; img-src 'self' data: https:; "
    "worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; "
    "object-src 'none'"
)
DOCS_PATHS = ("/docs", "/redoc")
TOO_LARGE = "body_too_large"  # the refusal's stable code (X-Error-Code)
HEADERS = {
    "X-Content-Type-Options": "nosniff",  # a text answer is never run as a script or page
    "X-Frame-Options": "DENY",  # no framing (clickjacking), for browsers without CSP 2
    "Referrer-Policy": "no-referrer",
}


def policy_for(path: str) -> str:
    """The Content-Security-Policy for an answer to ``path``."""
    docs = any(path == p or path.startswith(p + "/") for p in DOCS_PATHS)
    return DOCS_POLICY if docs else CLIENT_POLICY


class SecurityHeaders:
    """Adds the security headers (CSP, nosniff, frame and referrer policies) to every HTTP
    answer that does not set them itself."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = policy_for(scope["path"])

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("Content-Security-Policy", policy)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyTooLarge(HTTPException):
    """A request body over the limit, found while it streamed in (raised from ``receive``,
    answered 413 by the app's exception handling like any HTTPException)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, too_large(limit), headers={ERROR_CODE: TOO_LARGE})


def too_large(limit: int) -> str:
    """The refusal's words."""
    return f"request bodies are at most {limit} bytes"


class BodyLimit:
    """Refuses (413, JSON ``detail``, code ``body_too_large``) a request whose body is over
    ``limit`` bytes: at once when its Content-Length says so, before the app reads a byte; else
    (a chunked body) as soon as the bytes received pass the limit, before the app has the whole
    of it to parse."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = Headers(scope=scope).get("content-length", "")
        if length.isascii() and length.isdigit() and int(length) > self.limit:
            await self.refuse(send)
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise BodyTooLarge(self.limit)
            return message

        await self.app(scope, counting_receive, send)

    async def refuse(self, send: Send) -> None:
        body = json.dumps({"detail": too_large(self.limit)}, separators=(",", ":")).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (ERROR_CODE.lower().encode(), TOO_LARGE.encode()),
                    # the body was not read: the connection cannot carry another request
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class HardenedApp(FastAPI):
    """FastAPI with ``SecurityHeaders`` and ``BodyLimit`` outermost."""

    def __init__(self, max_body_bytes: int, **options: Any) -> None:
        super().__init__(**options)
        self.max_body_bytes = max_body_bytes

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(BodyLimit(super().build_middleware_stack(), self.max_body_bytes))
