"""Leases on the tables of a cluster, in the database: which node runs each table, until when,
and the table's epoch.

A node holds a lease on each table it runs and renews them all at every beat. A lease that ran
out (its node died, stopped or froze) is taken by another node, which bumps the table's epoch;
every write of a kept game checks the epoch in its own transaction (``server.keeping``), so a
node that lost a table can no longer write a move of it, even one it had begun before the
takeover.

Why the database and not Redis: the lease fences the kept game's writes and both live in the
same database, so who owns a table and whose writes land can never disagree, and Redis may lose
everything (a restart, a wipe, a failover) without a table changing hands. A renewal is one
statement per node and beat. The leases run on the database's clock, one clock for every node;
each node also knows, on its own monotonic clock, until when it is sure to hold them
(``sure_until``): a renewal's send time plus the lease, less a margin for clocks that drift.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, literal, select, update
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.elements import ColumnElement

from server.models import LiveTable, TableOwner


@dataclass(frozen=True)
class Holding:
    """A table's lease as the database holds it."""

    table_id: str
    node: str
    lapsed: bool  # its lease ran out
    kept: bool  # a game of it is kept (``live_tables``)


class Leases:
    """The leases of one node (``node``) of a cluster, each ``seconds`` long."""

    def __init__(self, engine: AsyncEngine, node: str, seconds: float) -> None:
        self.engine = engine
        self.node = node
        self.seconds = seconds
        self.margin = seconds / 6  # how much earlier than the database this node gives up

    def _now(self) -> ColumnElement[Any]:
        """The database's clock, in seconds since 1970."""
        if self.engine.dialect.name == "postgresql":
            return func.extract("epoch", func.clock_timestamp())
        return (func.julianday("now") - 2440587.5) * 86400.0

    def sure_until(self, sent_at: float) -> float:
        """Until when (monotonic) a lease granted or renewed by a statement sent at
        ``sent_at`` (monotonic) surely holds."""
        return sent_at + self.seconds - self.margin

    async def claim(self, table_id: str) -> int:
        """A lease on a new table; returns its epoch (1)."""
        async with self.engine.begin() as connection:
            await connection.execute(
                insert(TableOwner).values(
                    table_id=table_id, node=self.node, epoch=1, expires=self._now() + self.seconds
                )
            )
        return 1

    async def take(self, table_id: str) -> int | None:
        """The lease of a table whose lease ran out, with its next epoch; None if another
        node holds it (or took it first)."""
        async with self.engine.begin() as connection:
            taken = await connection.execute(
                update(TableOwner)
                .where(TableOwner.table_id == table_id, TableOwner.expires < self._now())
                .values(
                    node=self.node, epoch=TableOwner.epoch + 1, expires=self._now() + self.seconds
                )
                .returning(TableOwner.epoch)
            )
            epoch = taken.scalar_one_or_none()
        return None if epoch is None else int(epoch)

    async def renew(self, table_ids: list[str]) -> dict[str, int]:
        """Renew this node's leases on ``table_ids``; returns the epoch of each one still
        held (a table missing there, or with another epoch, was taken over)."""
        if not table_ids:
            return {}
        async with self.engine.begin() as connection:
            renewed = await connection.execute(
                update(TableOwner)
                .where(TableOwner.node == self.node, TableOwner.table_id.in_(table_ids))
                .values(expires=self._now() + self.seconds)
                .returning(TableOwner.table_id, TableOwner.epoch)
            )
            return {table_id: int(epoch) for table_id, epoch in renewed.all()}

    async def hand_over(self, table_ids: list[str]) -> None:
        """Let this node's leases on ``table_ids`` run out now (the node stops: another one
        takes its running games at once)."""
        if table_ids:
            async with self.engine.begin() as connection:
                await connection.execute(
                    update(TableOwner)
                    .where(TableOwner.node == self.node, TableOwner.table_id.in_(table_ids))
                    .values(expires=0.0)
                )

    async def drop(self, table_id: str) -> None:
        """Give up a table for good (it closed)."""
        async with self.engine.begin() as connection:
            await connection.execute(
                delete(TableOwner).where(
                    TableOwner.table_id == table_id, TableOwner.node == self.node
                )
            )

    async def drop_lapsed(self, table_ids: list[str]) -> None:
        """Forget the leases of tables that are gone: their node stopped between games."""
        if table_ids:
            async with self.engine.begin() as connection:
                await connection.execute(
                    delete(TableOwner).where(
                        TableOwner.table_id.in_(table_ids),
                        TableOwner.expires < self._now(),
                        TableOwner.table_id.not_in(select(LiveTable.id)),
                    )
                )

    async def holdings(self) -> list[Holding]:
        """Every table's lease, and whether a game of it is kept."""
        kept = LiveTable.id.is_not(None)
        async with self.engine.connect() as connection:
            rows = await connection.execute(
                select(
                    TableOwner.table_id, TableOwner.node, TableOwner.expires < self._now(), kept
                ).join(LiveTable, LiveTable.id == TableOwner.table_id, isouter=True)
            )
            return [Holding(t, n, bool(lapsed), bool(k)) for t, n, lapsed, k in rows.all()]

    async def owner(self, table_id: str) -> tuple[bool, str | None]:
        """Whether the table has a lease at all, and the node holding it (None while it is
        lapsed: a takeover is under way)."""
        async with self.engine.connect() as connection:
            row = (
                await connection.execute(
                    select(TableOwner.node, TableOwner.expires >= self._now()).where(
                        TableOwner.table_id == table_id
                    )
                )
            ).first()
        if row is None:
            return False, None
        return True, row[0] if row[1] else None

    async def adopt_unowned(self) -> None:
        """Kept games with no lease at all (kept by one process without a cluster) get a
        lapsed one, so that a node takes them over."""
        unowned = select(LiveTable.id, literal(""), literal(1), literal(0.0)).where(
            LiveTable.id.not_in(select(TableOwner.table_id))
        )
        async with self.engine.begin() as connection:
            await connection.execute(
                insert(TableOwner).from_select(["table_id", "node", "epoch", "expires"], unowned)
            )


class Lease:
    """A table's side of its lease: its ``epoch`` (bumped at every takeover) and until when
    (``until``, on this process's monotonic clock) this process is sure to own it; None: one
    process, always sure."""

    def __init__(self, epoch: int = 0, until: float | None = None) -> None:
        self.epoch = epoch
        self.until = until

    def sure(self) -> bool:
        """Whether this process is sure to own the table now: only then does it speak for it
        (updates, clock decisions); else another process may have taken it over."""
        return self.until is None or time.monotonic() < self.until

    def renewed(self, until: float) -> float | None:
        """The lease holds until ``until``; returns since when (``time.time``) it had lapsed,
        if it had (this process froze, or the database was slow)."""
        lapsed = None if self.sure() else self.until
        self.until = until if self.until is None else max(self.until, until)
        if lapsed is None:
            return None
        return time.time() - (time.monotonic() - lapsed)
