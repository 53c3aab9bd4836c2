"""Friends and blocks (a stub until the social module lands: nobody is anyone's friend, nobody
blocks anyone). The functions' signatures are the seam other modules call."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker


async def friends_of(sessions: async_sessionmaker[AsyncSession], user_id: int) -> set[int]:
    """The user ids of the user's friends."""
    return set()


async def blocked_pairs(
    sessions: async_sessionmaker[AsyncSession], user_ids: Iterable[int]
) -> set[frozenset[int]]:
    """The pairs among ``user_ids`` where either one blocks the other."""
    return set()
