"""REST of friends, follows and blocks (``server.social``), with each friend's presence
(``server.whereabouts``): ``/api/friends``, ``/api/follows``, ``/api/blocks`` and
``/api/relations/{name}``. Registered users only (a guest's token: 403 ``registered_only``).
Every refusal names its stable code in ``X-Error-Code`` (docs/protocol.md, "Friends, follows
and blocks"); every change counts against the user's ``JUNQI_SOCIAL_PER_MINUTE``."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, Field

from server import social
from server.accounts import NO_NUL, REFUSALS, CurrentUser, Name, Session, refusal
from server.limits import RateLimit, SharedRateLimit
from server.messages import BlockedByNotice, BlocksNotice, user_topic
from server.models import User
from server.whereabouts import Place

# every code a refusal of these routes names in X-Error-Code (docs/protocol.md lists them; the
# client has words for each)
CODES = frozenset(
    {
        "registered_only",
        "blocked",
        "no_user",
        "no_request",
        "not_friends",
        "not_following",
        "not_blocked",
        "already_friends",
        "already_asked",
        "already_following",
        "already_blocked",
        "self",
        "guest_user",
        "too_many",
        "rate_limited",
    }
)


def _answer(description: str) -> dict[str, Any]:
    schema = {
        "type": "object",
        "required": ["detail"],
        "properties": {"detail": {"type": "string"}},
    }
    return {"description": description, "content": {"application/json": {"schema": schema}}}


SOCIAL_REFUSALS: dict[int | str, dict[str, Any]] = REFUSALS | {
    403: _answer(
        "A guest, or a block stands between the two (X-Error-Code: registered_only, blocked)"
    ),
    404: _answer("No such user, request, friend, follow or block (X-Error-Code)"),
    409: _answer("Done already, or too many (X-Error-Code: already_friends, too_many, ...)"),
    429: _answer("Too many changes: wait a minute (X-Error-Code: rate_limited)"),
}


async def registered(user: CurrentUser) -> User:
    """The signed-in user, if registered: guests keep no friends list."""
    if user.guest:
        raise refusal(403, "registered_only", "register to keep friends, follows and blocks")
    return user


Me = Annotated[User, Depends(registered)]
router = APIRouter(prefix="/api", tags=["friends"], responses=SOCIAL_REFUSALS)


class NameIn(BaseModel):
    name: str = Field(min_length=1, max_length=32, pattern=NO_NUL, examples=["老司令"])


class Person(BaseModel):
    name: str
    at: datetime = Field(description="since when (asked, friends, followed, blocked)")


class Friend(Person):
    presence: Place


class FriendsOut(BaseModel):
    friends: list[Friend]
    incoming: list[Person] = Field(description="requests to you")
    outgoing: list[Person] = Field(description="your requests")


class AskOut(BaseModel):
    status: Literal["asked", "friends"]


class FollowsOut(BaseModel):
    following: list[Person]
    followers: int = Field(description="how many follow you")


class BlocksOut(BaseModel):
    blocked: list[Person]


class RelationOut(BaseModel):
    friend: bool
    asked: bool = Field(description="you asked them to be friends")
    asks: bool = Field(description="they asked you")
    following: bool
    blocking: bool = Field(description="you block them")
    followers: int


def _people(found: list[social.Named]) -> list[Person]:
    return [Person(name=n.name, at=n.at) for n in found]


async def _changing(request: Request, me: User) -> None:
    """Count one change of ``me``'s: 429 ``rate_limited`` past the limit."""
    state = request.app.state
    limit = getattr(state, "social_limit", None)
    if limit is None:
        count = state.settings.social_per_minute
        limit = state.social_limit = (
            SharedRateLimit(state.redis, "social", count, 60.0)
            if state.redis is not None
            else RateLimit(count, 60.0)
        )
    if not await limit.admit(me.id):
        raise refusal(429, "rate_limited", "too many changes of friends, follows or blocks")


async def _target(session: Session, me: User, name: str, *, guests: bool = False) -> User:
    try:
        return await social.target(session, me, name, guests=guests)
    except social.SocialError as error:
        raise refusal(error.status, error.code, error.message) from None


async def _do(action: Any, *args: Any) -> Any:
    try:
        return await action(*args)
    except social.SocialError as error:
        raise refusal(error.status, error.code, error.message) from None


@router.get("/friends")
async def list_friends(me: Me, session: Session, request: Request) -> FriendsOut:
    """Your friends with where each is now, and the friend requests both ways."""
    found = await social.friends(session, me.id)
    places = await request.app.state.whereabouts.of([f.id for f in found])
    incoming, outgoing = await social.requests(session, me.id)
    return FriendsOut(
        friends=[Friend(name=f.name, at=f.at, presence=places[f.id]) for f in found],
        incoming=_people(incoming),
        outgoing=_people(outgoing),
    )


@router.post("/friends")
async def ask_friend(body: NameIn, me: Me, session: Session, request: Request) -> AskOut:
    """Ask a user to be friends; if they had asked you, you are friends at once."""
    await _changing(request, me)
    other = await _target(session, me, body.name)
    made = await _do(social.ask, session, me, other)
    return AskOut(status="friends" if made else "asked")


@router.post("/friends/{name}/accept", status_code=204, response_class=Response)
async def accept_friend(name: Name, me: Me, session: Session, request: Request) -> None:
    """Accept the user's request."""
    await _changing(request, me)
    await _do(social.answer, session, me, await _target(session, me, name), True)


@router.post("/friends/{name}/decline", status_code=204, response_class=Response)
async def decline_friend(name: Name, me: Me, session: Session, request: Request) -> None:
    """Decline the user's request."""
    await _changing(request, me)
    await _do(social.answer, session, me, await _target(session, me, name), False)


@router.delete("/friends/{name}", status_code=204, response_class=Response)
async def remove_friend(name: Name, me: Me, session: Session, request: Request) -> None:
    """End a friendship, or withdraw your request."""
    await _changing(request, me)
    await _do(social.unfriend, session, me, await _target(session, me, name))


@router.get("/follows")
async def list_follows(me: Me, session: Session) -> FollowsOut:
    """Whom you follow, and how many follow you."""
    following = await social.followed(session, me.id)
    return FollowsOut(
        following=_people(following), followers=await social.followers(session, me.id)
    )


@router.post("/follows", status_code=204, response_class=Response)
async def follow(body: NameIn, me: Me, session: Session, request: Request) -> None:
    """Follow a user (one way: they are not asked)."""
    await _changing(request, me)
    await _do(social.follow, session, me, await _target(session, me, body.name))


@router.delete("/follows/{name}", status_code=204, response_class=Response)
async def unfollow(name: Name, me: Me, session: Session, request: Request) -> None:
    """Follow the user no more."""
    await _changing(request, me)
    await _do(social.unfollow, session, me, await _target(session, me, name))


@router.get("/blocks")
async def list_blocks(me: Me, session: Session) -> BlocksOut:
    """The users you block."""
    return BlocksOut(blocked=_people(await social.blocked(session, me.id)))


@router.post("/blocks", status_code=204, response_class=Response)
async def block(body: NameIn, me: Me, session: Session, request: Request) -> None:
    """Block a user: your friendship, requests and follows end, both ways; their chat and
    phrases are hidden from you, and the tables keep you apart."""
    await _changing(request, me)
    other = await _target(session, me, body.name, guests=True)
    await _do(social.block, session, me, other)
    _blocks_changed(request, me, other.name, True)
    # the blocked one's sockets stop watching the tables where the blocker sits
    blocked: BlockedByNotice = {"type": "blocked_by", "by": me.id, "table": None}
    request.app.state.broker.publish(user_topic(other.id), blocked)


@router.delete("/blocks/{name}", status_code=204, response_class=Response)
async def unblock(name: Name, me: Me, session: Session, request: Request) -> None:
    """Block the user no more: their chat shows again; friendship and follows stay ended."""
    await _changing(request, me)
    other = await _target(session, me, name, guests=True)
    await _do(social.unblock, session, me, other)
    _blocks_changed(request, me, other.name, False)


@router.get("/relations/{name}")
async def relation(name: Name, me: Me, session: Session) -> RelationOut:
    """What you are to the user: friends, asked, following, blocking; and their followers."""
    other = await _target(session, me, name, guests=True)
    found = await social.relation(session, me, other)
    return RelationOut(**asdict(found))


def _blocks_changed(request: Request, me: User, name: str, on: bool) -> None:
    """The user's sockets, on every process, hide (or show again) the chat of ``name``."""
    notice: BlocksNotice = {"type": "blocks", "name": name, "on": on}
    request.app.state.broker.publish(user_topic(me.id), notice)
