"""A deadline for a request's headers (SECURITY.md, "Slow clients").

uvicorn closes a kept-alive connection that stays idle after a response (``timeout_keep_alive``),
but its timer stops at the first byte of the next request, and a new connection has none: a
client that sends its request line and headers a byte at a time holds its connection (and a file
descriptor of the process) for as long as it likes. Enough such clients reach the process's
limit on open files, and then no player can connect.

``header_deadline_protocol`` gives uvicorn an HTTP protocol class (its httptools one, which it
uses by default, or its h11 one) that closes a connection whose request head is not complete
within ``header_timeout`` seconds: counted from when the connection is made, and after each
response from the response's end. The clock stops while a request is being answered, so a
request body still on its way is not timed here (bodies are capped by size,
``server.hardening``), and a connection upgraded to a WebSocket is no longer HTTP's to close.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol  # uvicorn[standard]'s


class HeaderDeadline(asyncio.Protocol):
    """Mixed into one of uvicorn's HTTP protocol classes (before it): closes the connection when
    a request's headers take longer than ``header_timeout`` seconds."""

    header_timeout: float = 10.0
    # uvicorn's own per-connection state, which the deadline reads
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    cycle: Any  # the request being answered (or the last one answered); None before the first

    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()  # the headers may be complete now, or the connection upgraded

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]  # uvicorn's, after this class
        # uvicorn may have started a pipelined request already; if not, the next one's clock
        # starts now, however long this one took
        self._stop()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        super().connection_lost(exc)

    def _awaiting_headers(self) -> bool:
        """Whether the connection is ours, open and has no request being answered: what it
        sends next is a request head."""
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return False  # closed, or a WebSocket now
        return self.cycle is None or bool(self.cycle.response_complete)

    def _watch(self) -> None:
        if not self._awaiting_headers():
            self._stop()
        elif self._deadline is None:  # started once, not again with every byte that trickles in
            self._deadline = self.loop.call_later(self.header_timeout, self._expire)

    def _stop(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if self._awaiting_headers():
            # no answer: a client this slow is most likely not waiting for one
            self.transport.close()


class HttpToolsHeaderDeadline(HeaderDeadline, HttpToolsProtocol):
    """uvicorn's httptools protocol (its default) with the header deadline."""


class H11HeaderDeadline(HeaderDeadline, H11Protocol):
    """uvicorn's h11 protocol with the header deadline."""


IMPLEMENTATIONS: dict[str, type[HeaderDeadline]] = {
    "httptools": HttpToolsHeaderDeadline,
    "h11": H11HeaderDeadline,
}


def header_deadline_protocol(
    header_timeout: float, implementation: str = "httptools"
) -> type[HeaderDeadline]:
    """An HTTP protocol class for ``uvicorn.Config(http=...)`` that closes connections whose
    request headers take longer than ``header_timeout`` seconds; ``implementation`` is
    uvicorn's parser to build on, ``"httptools"`` (what uvicorn itself picks) or ``"h11"``."""
    if header_timeout <= 0:
        raise ValueError("the header timeout must be positive")
    if implementation not in IMPLEMENTATIONS:
        raise ValueError(f"no HTTP implementation {implementation!r}: {sorted(IMPLEMENTATIONS)}")
    base = IMPLEMENTATIONS[implementation]
    # a class of its own per timeout, so that two servers in one process may differ
    return type(base.__name__, (base,), {"header_timeout": float(header_timeout)})
