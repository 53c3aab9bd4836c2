"""Background tasks of a process's parts (tables, broker, cluster, lobby)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable


async def cancel(tasks: Iterable[asyncio.Task[None]]) -> None:
    """Cancel ``tasks`` and wait until each has stopped."""
    tasks = list(tasks)
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError):
            await task
