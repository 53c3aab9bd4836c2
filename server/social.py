"""Friends and blocks (a stub until the social module comes: Engineer C's replaces this file)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker


async def friends_of(sessions: async_sessionmaker[AsyncSession], user_id: int) -> set[int]:
    """The user's friends (none yet)."""
    return set()


async def blocked_pairs(
    sessions: async_sessionmaker[AsyncSession], user_ids: Iterable[int]
) -> set[frozenset[int]]:
    """The pairs among ``user_ids`` where either one blocks the other (none yet)."""
    return set()
