"""Feeds: a topic's messages handed to every socket of this process that follows it, as they
are published (the broker calls the feed; a message from another process, as it comes in):
not by a task per socket, nor by a task per topic, so a table's update leaves for its players
and spectators in the very turn of the event loop that made it, and a socket costs no task for
each topic it follows.

A follower's handler usually finishes at once: a connection's send never waits, it leaves the
message in the socket's bounded outbox (``server.outbox``), so a client that does not read holds
no more than that, and is closed. One that must wait (a snapshot to fetch first) goes on in a
task of its own, and that follower's next messages of the topic wait for it, in order, while
every other follower gets them at once: nobody waits for a slow reader.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator, Iterator
from dataclasses import dataclass
from typing import Any

import anyio
from starlette.websockets import WebSocketDisconnect

from server.broker import InMemoryBroker
from server.tasks import cancel

log = logging.getLogger("junqi")

Handler = Callable[[Any], Coroutine[Any, Any, None]]
# what a handler raises when its client went away: the socket's own loop cleans up
GONE = (WebSocketDisconnect, RuntimeError, anyio.ClosedResourceError)


def start_eagerly(coroutine: Coroutine[Any, Any, None]) -> Awaitable[None] | None:
    """Run ``coroutine`` now, up to its first wait (what Python 3.12's eager tasks do): None if
    it finished, else the rest of it, for a task to await. Its errors, if it finished at once,
    are raised here."""
    try:
        waiting_on = coroutine.send(None)
    except StopIteration:
        return None
    return _Rest(coroutine, waiting_on)


class _Rest:
    """The rest of a coroutine that ran until it had to wait on ``waiting_on``: awaiting this
    hands what it waits on to the task, and every result or error back to it, until it
    returns."""

    def __init__(self, coroutine: Coroutine[Any, Any, None], waiting_on: Any) -> None:
        self.coroutine = coroutine
        self.waiting_on = waiting_on

    def __await__(self) -> Generator[Any, Any, None]:
        waiting_on = self.waiting_on
        while True:
            try:
                try:
                    sent = yield waiting_on
                except BaseException as error:  # cancelled, say: the coroutine decides
                    waiting_on = self.coroutine.throw(error)
                else:
                    waiting_on = self.coroutine.send(sent)
            except StopIteration:
                return


@dataclass
class _Backlog:
    """A follower whose handler had to wait: the task that catches it up, and the messages
    that came meanwhile."""

    task: asyncio.Task[None]
    messages: deque[Any]


class Feed:
    """One topic's messages for this process's followers (see the module)."""

    def __init__(self, broker: InMemoryBroker, topic: str) -> None:
        self.handlers: dict[object, Handler] = {}  # by follower
        self.behind: dict[object, _Backlog] = {}  # followers still handling one
        self.pending: deque[Any] | None = None  # while a message is handed out: those after it
        self.subscription = broker.subscribe(topic, self.receive)

    def receive(self, message: Any) -> None:
        """Hand ``message`` to every follower now (the broker calls this as it is published).
        One published by a handler meanwhile goes to every follower after this one."""
        if self.pending is not None:
            self.pending.append(message)
            return
        self.pending = deque([message])
        try:
            while self.pending:
                message = self.pending.popleft()
                for follower, handle in list(self.handlers.items()):
                    self._deliver(follower, handle, message)
        finally:
            self.pending = None

    def _deliver(self, follower: object, handle: Handler, message: Any) -> None:
        backlog = self.behind.get(follower)
        if backlog is not None:
            backlog.messages.append(message)
            return
        with self._reporting():
            try:
                rest = start_eagerly(handle(message))
            except asyncio.CancelledError:
                # the handler awaited something cancelled (its socket closing, say); raised here
                # it would cancel the publisher instead, a table's actor among them
                return
            if rest is not None:
                messages: deque[Any] = deque()
                task = asyncio.create_task(self._catch_up(follower, handle, rest, messages))
                self.behind[follower] = _Backlog(task, messages)

    async def _catch_up(
        self, follower: object, handle: Handler, rest: Awaitable[None], messages: deque[Any]
    ) -> None:
        """The follower's message under way, then those that came meanwhile, in order."""
        try:
            with self._reporting():
                await rest
            while messages:
                with self._reporting():
                    await handle(messages.popleft())
        finally:
            backlog = self.behind.get(follower)
            if backlog is not None and backlog.messages is messages:
                del self.behind[follower]

    @contextlib.contextmanager
    def _reporting(self) -> Iterator[None]:
        """A handler's failure is logged; the next message is tried all the same."""
        try:
            yield
        except GONE:
            pass  # the client went away: its socket's loop cleans up
        except Exception:
            log.exception("a message of %s could not be passed on", self.subscription.topic)


class Feeds:
    """The feeds of this process, one per followed topic."""

    def __init__(self, broker: InMemoryBroker) -> None:
        self.broker = broker
        self.feeds: dict[str, Feed] = {}

    async def follow(self, topic: str, follower: object, handle: Handler) -> None:
        """Pass the messages of ``topic`` to ``handle`` (one at a time, in order) until
        ``unfollow``; returns once messages published anywhere reach it."""
        feed = self.feeds.get(topic)
        if feed is None:
            feed = self.feeds[topic] = Feed(self.broker, topic)
        feed.handlers[follower] = handle
        await self.broker.subscribed(topic)

    def unfollow(self, topic: str, follower: object) -> None:
        feed = self.feeds.get(topic)
        if feed is None:
            return
        feed.handlers.pop(follower, None)
        backlog = feed.behind.pop(follower, None)
        if backlog is not None:
            backlog.task.cancel()
        if not feed.handlers:
            del self.feeds[topic]
            feed.subscription.close()

    async def close(self) -> None:
        feeds, self.feeds = list(self.feeds.values()), {}
        for feed in feeds:
            feed.subscription.close()
        await cancel([backlog.task for feed in feeds for backlog in feed.behind.values()])
