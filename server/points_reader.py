"""Points read together: many sockets joining quick match at once each need their points in
the variant (for their band); read one at a time, thousands of joins queue for the database.
``PointsReader.points`` waits a moment (``delay``) and reads everyone asked for meanwhile in one
query per variant (``Store.points``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

Read = Callable[[str, list[int]], Awaitable[dict[int, int]]]


class PointsReader:
    def __init__(self, read: Read, delay: float = 0.005) -> None:
        self.read = read
        self.delay = delay
        self.asked: dict[str, dict[int, list[asyncio.Future[int]]]] = {}
        self.due = False
        self.reading: set[asyncio.Task[None]] = set()  # held until done

    async def points(self, variant: str, user: int) -> int:
        """The user's points in ``variant``, read with the others asked for meanwhile."""
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.asked.setdefault(variant, {}).setdefault(user, []).append(future)
        if not self.due:
            self.due = True
            asyncio.get_running_loop().call_later(self.delay, self._flush)
        return await future

    def _flush(self) -> None:
        self.due = False
        asked, self.asked = self.asked, {}
        for variant, users in asked.items():
            task = asyncio.create_task(self._read(variant, users))
            self.reading.add(task)
            task.add_done_callback(self.reading.discard)

    async def _read(self, variant: str, users: dict[int, list[asyncio.Future[int]]]) -> None:
        try:
            found = await self.read(variant, list(users))
        except Exception as error:  # each asker hears of it
            for futures in users.values():
                for f in futures:
                    if not f.done():
                        f.set_exception(error)
            return
        for user, futures in users.items():
            for f in futures:
                if not f.done():
                    f.set_result(found.get(user, 0))
