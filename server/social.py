"""Friends (好友), follows (关注) and blocks (屏蔽) between users: what the database holds of
them, and the rules that tie them together (docs/protocol.md, "Friends, follows and blocks").

- A friendship needs a request (``ask``) and its acceptance; asking someone who asked you
  first accepts theirs. Either friend ends it (``unfriend``).
- A follow is one way and asks nobody.
- A block (either way) forbids friend requests and follows between the two; making one ends
  their friendship, their requests and their follows, both ways. At the tables it keeps the
  two apart (``server.block_rules``), and quick match and invitations ask ``blocked_pairs``.

Each user keeps at most ``MOST`` unanswered requests of their own, follows and blocks of each
kind (``too_many``): what one account can make the database hold stays bounded.

Guests take no part: only registered users ask, follow or block, and only registered users are
asked or followed (a guest may be blocked). Refusals are ``SocialError`` with a stable code.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.sql import Executable

from server import names
from server.models import Block, Follow, FriendRequest, Friendship, User, aware

MOST = 200  # a user's own unanswered requests, follows, blocks: at most this many of each


class SocialError(Exception):
    """A refusal: ``status`` (HTTP), ``code`` (stable, the client's key for its words) and a
    message in English."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


async def friends_of(sessions: async_sessionmaker[AsyncSession], user_id: int) -> set[int]:
    """The ids of ``user_id``'s friends."""
    async with sessions() as session:
        return await _friend_ids(session, user_id)


async def blocked_pairs(
    sessions: async_sessionmaker[AsyncSession], user_ids: Iterable[int]
) -> set[frozenset[int]]:
    """The pairs among ``user_ids`` where either one blocks the other."""
    ids = set(user_ids)
    if len(ids) < 2:
        return set()
    async with sessions() as session:
        rows = await session.execute(
            select(Block.blocker_id, Block.blocked_id).where(
                Block.blocker_id.in_(ids), Block.blocked_id.in_(ids)
            )
        )
        return {frozenset(row) for row in rows}


async def blocked_names(session: AsyncSession, user_id: int) -> set[str]:
    """The names of the users ``user_id`` blocks (whose chat is hidden from them)."""
    rows = await session.scalars(
        select(User.name)
        .join(Block, Block.blocked_id == User.id)
        .where(Block.blocker_id == user_id)
    )
    return set(rows)


async def blockers_of(session: AsyncSession, user_id: int, among: Iterable[int]) -> set[int]:
    """Those of ``among`` who block ``user_id``."""
    rows = await session.scalars(
        select(Block.blocker_id).where(Block.blocked_id == user_id, Block.blocker_id.in_(among))
    )
    return set(rows)


async def _friend_ids(session: AsyncSession, user_id: int) -> set[int]:
    rows = await session.execute(
        select(Friendship.low_id, Friendship.high_id).where(
            or_(Friendship.low_id == user_id, Friendship.high_id == user_id)
        )
    )
    return {low if high == user_id else high for low, high in rows}


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


async def target(session: AsyncSession, me: User, name: str, *, guests: bool = False) -> User:
    """The user named ``name`` (without regard to case or width), for ``me`` to ask, follow or
    block: never ``me``, a guest only if ``guests``."""
    other = await session.scalar(select(User).where(User.name_key == names.name_key(name)))
    if other is None:
        raise SocialError(404, "no_user", f"nobody is called {name!r}")
    if other.id == me.id:
        raise SocialError(422, "self", "that is you")
    if other.guest and not guests:
        raise SocialError(
            422, "guest_user", f"{other.name} is a guest: guests have no friends list"
        )
    return other


async def _blocked_between(session: AsyncSession, a: int, b: int) -> bool:
    found = await session.scalar(
        select(func.count()).where(
            or_(
                (Block.blocker_id == a) & (Block.blocked_id == b),
                (Block.blocker_id == b) & (Block.blocked_id == a),
            )
        )
    )
    return bool(found)


async def _room_for(session: AsyncSession, column: Any, me: User, what: str) -> None:
    """Refuse (``too_many``) one more row of ``column``'s table made by ``me``."""
    count = await session.scalar(select(func.count()).where(column == me.id))
    if (count or 0) >= MOST:
        raise SocialError(409, "too_many", f"you have {MOST} {what} already: undo some first")


async def _no_block(session: AsyncSession, me: User, other: User) -> None:
    if await _blocked_between(session, me.id, other.id):
        raise SocialError(403, "blocked", f"you and {other.name} do not meet: a block stands")


async def ask(session: AsyncSession, me: User, other: User) -> bool:
    """Ask ``other`` to be friends; True if that made them friends (they had asked first)."""
    await _no_block(session, me, other)
    if await session.get(Friendship, _pair(me.id, other.id)) is not None:
        raise SocialError(409, "already_friends", f"{other.name} is your friend already")
    theirs = await session.get(FriendRequest, (other.id, me.id))
    if theirs is not None:
        await session.delete(theirs)
        session.add(Friendship(low_id=min(me.id, other.id), high_id=max(me.id, other.id)))
        await session.commit()
        return True
    if await session.get(FriendRequest, (me.id, other.id)) is not None:
        raise SocialError(409, "already_asked", f"you asked {other.name} already")
    await _room_for(session, FriendRequest.asker_id, me, "unanswered requests")
    session.add(FriendRequest(asker_id=me.id, asked_id=other.id))
    await session.commit()
    return False


async def answer(session: AsyncSession, me: User, other: User, accept: bool) -> None:
    """Accept or decline ``other``'s request."""
    request = await session.get(FriendRequest, (other.id, me.id))
    if request is None:
        raise SocialError(404, "no_request", f"{other.name} has not asked you")
    await session.delete(request)
    if accept:
        session.add(Friendship(low_id=min(me.id, other.id), high_id=max(me.id, other.id)))
    await session.commit()


async def unfriend(session: AsyncSession, me: User, other: User) -> None:
    """End the friendship with ``other``, or withdraw the request to them."""
    friendship = await session.get(Friendship, _pair(me.id, other.id))
    mine = await session.get(FriendRequest, (me.id, other.id))
    if friendship is None and mine is None:
        raise SocialError(404, "not_friends", f"{other.name} is not your friend")
    for row in (friendship, mine):
        if row is not None:
            await session.delete(row)
    await session.commit()


async def follow(session: AsyncSession, me: User, other: User) -> None:
    await _no_block(session, me, other)
    if await session.get(Follow, (me.id, other.id)) is not None:
        raise SocialError(409, "already_following", f"you follow {other.name} already")
    await _room_for(session, Follow.follower_id, me, "follows")
    session.add(Follow(follower_id=me.id, followed_id=other.id))
    await session.commit()


async def unfollow(session: AsyncSession, me: User, other: User) -> None:
    row = await session.get(Follow, (me.id, other.id))
    if row is None:
        raise SocialError(404, "not_following", f"you do not follow {other.name}")
    await session.delete(row)
    await session.commit()


async def block(session: AsyncSession, me: User, other: User) -> None:
    """Block ``other``: their friendship, requests and follows end, both ways."""
    if await session.get(Block, (me.id, other.id)) is not None:
        raise SocialError(409, "already_blocked", f"you block {other.name} already")
    await _room_for(session, Block.blocker_id, me, "blocks")
    a, b = me.id, other.id
    await session.execute(
        delete(Friendship).where(Friendship.low_id == min(a, b), Friendship.high_id == max(a, b))
    )
    for model, first, second in (
        (FriendRequest, FriendRequest.asker_id, FriendRequest.asked_id),
        (Follow, Follow.follower_id, Follow.followed_id),
    ):
        await session.execute(
            delete(model).where(or_((first == a) & (second == b), (first == b) & (second == a)))
        )
    session.add(Block(blocker_id=a, blocked_id=b))
    await session.commit()


async def unblock(session: AsyncSession, me: User, other: User) -> None:
    row = await session.get(Block, (me.id, other.id))
    if row is None:
        raise SocialError(404, "not_blocked", f"you do not block {other.name}")
    await session.delete(row)
    await session.commit()


@dataclass(frozen=True)
class Named:
    """A user as a list shows them: id (never sent), name, since when."""

    id: int
    name: str
    at: datetime


async def _named(session: AsyncSession, query: Executable) -> list[Named]:
    """The (id, name, time) rows of ``query``, by name."""
    rows = await session.execute(query)
    found = [Named(i, n, aware(at) or at) for i, n, at in rows]
    return sorted(found, key=lambda n: n.name.casefold())


async def friends(session: AsyncSession, user_id: int) -> list[Named]:
    """``user_id``'s friends, since when."""
    low = (
        select(User.id, User.name, Friendship.since)
        .join(Friendship, Friendship.high_id == User.id)
        .where(Friendship.low_id == user_id)
    )
    high = (
        select(User.id, User.name, Friendship.since)
        .join(Friendship, Friendship.low_id == User.id)
        .where(Friendship.high_id == user_id)
    )
    return await _named(session, low.union_all(high))


async def requests(session: AsyncSession, user_id: int) -> tuple[list[Named], list[Named]]:
    """The requests to ``user_id`` (incoming) and theirs (outgoing)."""
    incoming = (
        select(User.id, User.name, FriendRequest.at)
        .join(FriendRequest, FriendRequest.asker_id == User.id)
        .where(FriendRequest.asked_id == user_id)
    )
    outgoing = (
        select(User.id, User.name, FriendRequest.at)
        .join(FriendRequest, FriendRequest.asked_id == User.id)
        .where(FriendRequest.asker_id == user_id)
    )
    return await _named(session, incoming), await _named(session, outgoing)


async def followed(session: AsyncSession, user_id: int) -> list[Named]:
    query = select(User.id, User.name, Follow.at).join(Follow, Follow.followed_id == User.id)
    return await _named(session, query.where(Follow.follower_id == user_id))


async def followers(session: AsyncSession, user_id: int) -> int:
    count = await session.scalar(
        select(func.count()).select_from(Follow).where(Follow.followed_id == user_id)
    )
    return int(count or 0)


async def blocked(session: AsyncSession, user_id: int) -> list[Named]:
    query = select(User.id, User.name, Block.at).join(Block, Block.blocked_id == User.id)
    return await _named(session, query.where(Block.blocker_id == user_id))


@dataclass(frozen=True)
class Relation:
    """What ``me`` is to another user, as their profile page shows it."""

    friend: bool
    asked: bool  # me asked them
    asks: bool  # they asked me
    following: bool
    blocking: bool  # me blocks them
    followers: int


async def relation(session: AsyncSession, me: User, other: User) -> Relation:
    return Relation(
        friend=await session.get(Friendship, _pair(me.id, other.id)) is not None,
        asked=await session.get(FriendRequest, (me.id, other.id)) is not None,
        asks=await session.get(FriendRequest, (other.id, me.id)) is not None,
        following=await session.get(Follow, (me.id, other.id)) is not None,
        blocking=await session.get(Block, (me.id, other.id)) is not None,
        followers=await followers(session, other.id),
    )
