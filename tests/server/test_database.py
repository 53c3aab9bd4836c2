"""The database layer's own behaviour under cancellation (server/db.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import text

from server.db import STOP_SECONDS, Database


def test_a_task_cancelled_over_and_over_in_a_query_leaves_no_task_behind(tmp_path: Path) -> None:
    """A task cancelled while it uses a SQLite connection, again and again until it ends (as
    anyio's cancel scopes and a server shutting down do), makes SQLAlchemy drop the connection;
    its closing must end too: a task left waiting for ever made ``asyncio.run`` hang at exit
    (a test client's teardown stuck until CI's time ran out)."""

    async def main() -> int:
        db = Database(f"sqlite+aiosqlite:///{tmp_path / 'cancelled.db'}")
        left = 0
        for steps in range(40):  # the cancellation lands at every point of a query's round trip

            async def work() -> None:
                while True:
                    async with db.engine.connect() as connection:
                        await connection.execute(text("select 1"))

            task = asyncio.create_task(work())
            for _ in range(steps):
                await asyncio.sleep(0)
            while not task.done():
                task.cancel()
                await asyncio.sleep(0)
            others = asyncio.all_tasks() - {asyncio.current_task()}
            if others:
                # (a dropped connection's closing waits at most STOP_SECONDS for its thread)
                _, pending = await asyncio.wait(others, timeout=STOP_SECONDS + 5)
                left += len(pending)
                for stuck in pending:
                    stuck.cancel()
                if pending:
                    break
        await db.close()
        return left

    assert asyncio.run(main()) == 0
