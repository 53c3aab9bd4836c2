"""A socket's outgoing messages: written at once while its client keeps up, else queued in
order for one writer task, up to a bound.

A client that does not read (a phone gone to sleep, a script that only sends) fills its
socket's buffers, and then every message for it would wait, held by the server: one such
client behind a busy table or the lobby would grow the process without end. So a socket's
queue is bounded, by messages and by size (the length of the JSON text, about its bytes); the
message that would pass either bound gives the socket up instead: its queue is dropped, the
writer stopped, and the owner told (``overflow``), which closes the socket (code 4008, "too
far behind"). The client reconnects and resyncs (``open`` with ``since``) as after any drop.
A socket that keeps up costs no task: the writer exists only while messages wait.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from server.feeds import GONE, start_eagerly

log = logging.getLogger("junqi")
CLOSE_SECONDS = 10.0  # how long a close waits for the messages before it (and its own frame)


class Outbox:
    """The outgoing messages of one socket (see the module)."""

    def __init__(
        self, ws: Any, max_messages: int, max_bytes: int, overflow: Callable[[], None]
    ) -> None:
        self.ws = ws  # a starlette WebSocket (anything with send_text and close)
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self.overflow = overflow
        self.queue: deque[str] = deque()
        self.size = 0  # characters queued
        self.writer: asyncio.Task[None] | None = None
        self.open = True  # takes messages
        self.overflowed = False

    def put(self, text: str) -> None:
        """Send ``text`` after every message put before it. A client gone makes this raise as
        the socket's send does (starlette's WebSocketDisconnect or RuntimeError)."""
        if not self.open:
            return
        if self.writer is None:
            rest = start_eagerly(self.ws.send_text(text))
            if rest is not None:  # the socket's buffer is full: the rest waits for it
                self.writer = asyncio.create_task(self._write(rest))
            return
        # a message alone in the queue always gets in, however long: the bound is on backlogs
        if self.queue and (
            len(self.queue) >= self.max_messages or self.size + len(text) > self.max_bytes
        ):
            self._give_up()
            return
        self.queue.append(text)
        self.size += len(text)

    def _give_up(self) -> None:
        self.open = False
        self.overflowed = True
        self.queue.clear()
        self.size = 0
        writer, self.writer = self.writer, None
        if writer is not None:  # (one not started yet ends without running: hence not in it)
            writer.cancel()
        self.overflow()

    async def _write(self, first: Awaitable[None]) -> None:
        try:
            await first
            while self.queue:
                text = self.queue.popleft()
                self.size -= len(text)
                await self.ws.send_text(text)
        except GONE:
            pass  # the client went away: its socket's loop cleans up
        except Exception:
            log.exception("a socket's messages could not be written")
        finally:
            if self.writer is asyncio.current_task():
                self.writer = None

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Take no more messages and close the socket with ``code`` once the queued ones are
        written (given up: at once). A client that reads nothing never takes them, nor the
        close frame: after ``CLOSE_SECONDS`` the socket is left to the server to drop."""
        self.open = False
        try:
            async with asyncio.timeout(CLOSE_SECONDS):
                if self.writer is not None:
                    await asyncio.wait([self.writer])
                await self.ws.close(code=code, reason=reason)
        except Exception:
            pass  # gone, closed already, or not reading: nothing more to do for it
        finally:
            if self.writer is not None:
                self.writer.cancel()
