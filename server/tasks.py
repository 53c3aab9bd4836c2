"""Background tasks of a process's parts (tables, broker, cluster, lobby)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable


async def cancel(tasks: Iterable[asyncio.Task[None]]) -> None:
    """Cancel ``tasks`` and wait until each has stopped (one that failed meanwhile, say by
    finding its table stopped, has nothing more to do either)."""
    tasks = list(tasks)
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
