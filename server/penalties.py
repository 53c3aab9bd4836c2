"""Escape penalties beyond points (docs/rules.md §11): repeat escapers are kept from the tables.

Every escape (leaving a running game, not coming back within the grace period, reaching the skip
limit, or a kick with penalty) is stored as an ``EscapeRecord`` when its game is scored. Escapes
count for ``MEMORY``, then are forgiven, so the penalty decays by itself. With ``n`` escapes
remembered, the player may not sit at a table for ``BANS[n]`` after the latest one: the first is a
warning only, then minutes, then hours. A player whose connection drops and who comes back within
the grace period has not escaped, so is never punished.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from server.models import EscapeRecord

MEMORY = timedelta(days=7)
BANS = (
    timedelta(0),  # no escape
    timedelta(0),  # the first: a warning
    timedelta(minutes=10),
    timedelta(hours=1),
    timedelta(hours=6),
    timedelta(hours=24),  # and for every escape beyond
)


@dataclass(frozen=True)
class EscapeStanding:
    """A player's remembered escapes and, while it lasts, the end of their ban from tables."""

    escapes: int
    banned_until: datetime | None

    def message(self) -> str:
        assert self.banned_until is not None
        return (
            f"{self.escapes} escapes in the last {MEMORY.days} days: you may sit at a table "
            f"again at {self.banned_until:%Y-%m-%d %H:%M} UTC"
        )


def ban_for(escapes: int) -> timedelta:
    """How long a player with ``escapes`` remembered escapes is kept from the tables."""
    return BANS[min(escapes, len(BANS) - 1)]


async def escape_standing(
    session: AsyncSession, user_id: int, now: datetime | None = None
) -> EscapeStanding:
    now = now or datetime.now(UTC)
    rows = await session.execute(
        select(EscapeRecord.at)
        .where(EscapeRecord.user_id == user_id, EscapeRecord.at > now - MEMORY)
        .order_by(EscapeRecord.at)
    )
    times = [_aware(at) for at in rows.scalars()]
    if not times:
        return EscapeStanding(0, None)
    until = times[-1] + ban_for(len(times))
    return EscapeStanding(len(times), until if until > now else None)


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)  # SQLite drops the zone
