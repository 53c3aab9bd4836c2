"""An actor: commands run one at a time, in the order they were sent, in a task of its own; and
a clock that wakes it when something falls due.

A table (``server.tables``) is one: its commands come from sockets of any process, its bots and
its clock, and it never sees two changes at once. The clock is one timer, set after every
command at the next deadline the owner names (``due``), never a task waiting for it: that would
cost a task per table and a wake-up per move.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from server.errors import TableError
from server.tasks import cancel

T = TypeVar("T")
log = logging.getLogger("junqi")


def stopped() -> TableError:
    return TableError("moved", "the table stopped here; try again")


class Actor:
    """Runs the commands sent to it (``call``, ``spawn``) one at a time; after each, ``after``
    (which must not fail the actor: its errors are logged); ``tick`` when the time ``due``
    names comes (``due`` None: nothing falls due, or the owner may not decide now)."""

    def __init__(
        self,
        name: str,  # the table's id, in its task's name and its log lines
        after: Callable[[], None],
        tick: Callable[[], Awaitable[None]],
        due: Callable[[], float | None],
    ) -> None:
        self.name = name
        self.after = after
        self.tick = tick
        self.due = due
        self.inbox: asyncio.Queue[tuple[Callable[[], Awaitable[Any]], asyncio.Future[Any]]] = (
            asyncio.Queue()
        )
        self.alarm: asyncio.TimerHandle | None = None
        self.alarm_at = 0.0  # when it rings
        self.stopped = False  # no command runs here any more
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"table {self.name}")
        self.set_alarm()

    async def stop(self) -> None:
        if self.task is not None:
            await cancel([self.task])
        self.stopped = True
        if self.alarm is not None:
            self.alarm.cancel()
        while not self.inbox.empty():  # commands that will never run: their callers hear so
            _, future = self.inbox.get_nowait()
            if not future.done():
                future.set_exception(stopped())

    async def call(self, command: Callable[[], Awaitable[T]]) -> T:
        """Run ``command`` inside the actor, after every command sent before it."""
        if self.stopped:
            raise stopped()
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        await self.inbox.put((command, future))
        return await future

    def spawn(self, command: Callable[[], Awaitable[Any]]) -> None:
        """Run ``command`` in the actor, without waiting for it (nor for its failure: an
        actor that stopped meanwhile, say)."""
        task = asyncio.create_task(self.call(command))
        task.add_done_callback(self._spawned)

    def _spawned(self, task: asyncio.Task[Any]) -> None:
        error = None if task.cancelled() else task.exception()
        if error is not None and not isinstance(error, TableError):  # TableError: it stopped
            log.error("a table command failed", exc_info=error, extra={"table": self.name})

    async def _run(self) -> None:
        while True:
            command, future = await self.inbox.get()
            try:
                result = await command()
            except Exception as error:  # handed to the caller, never kills the actor
                if not future.done():
                    future.set_exception(error)
            else:
                if not future.done():
                    future.set_result(result)
            finally:
                try:
                    self.after()
                except Exception:  # a fault in rendering must not stop the table for good
                    log.exception("an update could not be sent", extra={"table": self.name})
            self.set_alarm()

    def set_alarm(self) -> None:
        """Have the clock tick at the next deadline (a timer, not a task waiting for it: this
        runs after every move). A timer due earlier stays: it ticks for nothing and sets the
        next one, which is cheaper than moving it after every move."""
        due = self.due()
        if due is None or (self.alarm is not None and self.alarm_at <= due):
            return
        if self.alarm is not None:
            self.alarm.cancel()
        self.alarm_at = due
        self.alarm = asyncio.get_running_loop().call_later(max(0.0, due - time.time()), self._ring)

    def _ring(self) -> None:
        self.alarm = None
        if self.stopped:
            return
        ticked = asyncio.get_running_loop().create_future()
        ticked.add_done_callback(self._ticked)
        self.inbox.put_nowait((self.tick, ticked))

    def _ticked(self, ticked: asyncio.Future[None]) -> None:
        error = None if ticked.cancelled() else ticked.exception()
        if error is not None and not isinstance(error, TableError):  # TableError: it stopped
            log.error("the clock failed", exc_info=error, extra={"table": self.name})
