"""Accounts: registration, login, guests, bearer tokens, password change, logout, profiles (REST
under /api).

Against abuse: passwords are hashed off the event loop, in a bounded queue (``busy`` past it),
and a login for an unknown name does the same work (``server.passwords``); no request holds a
database connection while it waits for a hash: it reads what it needs, lets the connection go,
hashes, then writes with another. REST requests have a pool of connections of their own, apart
from the tables' (``server.db``). Failed logins make the next attempt for that name wait
(``server.backoff``); new names follow ``server.names`` (no look-alikes, no reserved names),
new passwords are at least 8 characters, not blank nor among the most common. Sign-ins come
from this server's own pages only (``foreign_origin``). Each user keeps the address (its key,
``server.addresses``: an IPv6 client by its /64) they last signed in from: an address makes at
most ``guests_per_address_per_day`` guests; with ``block_banned_addresses``, the addresses a
ban covers let nobody sign in while it lasts. Refusals of these rules carry a stable code in
the ``X-Error-Code`` header (docs/protocol.md).
"""

from __future__ import annotations

import hashlib
import math
import secrets
from collections.abc import AsyncIterator, Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, HTTPException, Path, Request, Response, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field
from sqlalchemy import bindparam, case, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from server.addresses import address_banned, connection_address, cover, revoke_at, sign_in_banned
from server.messages import user_topic
from server.models import Token, User, aware
from server.moderation import ban_message
from server.names import NameRefused, check_new_name, name_key, skeleton
from server.passwords import MAX_LENGTH, Passwords, PasswordsBusy, password_problem

_bearer = HTTPBearer(auto_error=False)
ERROR_CODE = "X-Error-Code"  # the header that names a refusal's stable code
GUEST_DAY = timedelta(days=1)
NO_NUL = r"^[^\x00]*$"  # text for the database: PostgreSQL refuses NUL characters in strings
Name = Annotated[str, Path(pattern=NO_NUL)]  # a user name in a path


_MESSAGE = {"type": "object", "required": ["detail"], "properties": {"detail": {"type": "string"}}}
_FIELD_ERROR = {
    "type": "object",
    "required": ["loc", "msg", "type"],
    "properties": {
        "loc": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
        "msg": {"type": "string"},
        "type": {"type": "string"},
    },
}
# For the routes that refuse with a message of their own too (``responses=REFUSALS``): a 422 is
# FastAPI's validation errors or that message; ``NOT_FOUND`` a 404 with a message. Both JSON even
# where the route answers text (FastAPI documents a ``model`` in the route's own media type).
REFUSALS: dict[int | str, dict[str, Any]] = {
    422: {
        "description": "Invalid request: the validation errors, or a message",
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["detail"],
                    "properties": {
                        "detail": {
                            "anyOf": [
                                {"type": "string"},
                                {"type": "array", "items": _FIELD_ERROR},
                            ]
                        }
                    },
                }
            }
        },
    },
}
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"description": "Not found", "content": {"application/json": {"schema": _MESSAGE}}}
}


def _answer(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _MESSAGE}}}


SIGN_IN_REFUSALS: dict[int | str, dict[str, Any]] = {
    403: _answer(
        "Banned, an address a ban covers, or a page of another site (X-Error-Code: "
        "address_banned, foreign_origin)"
    ),
    429: _answer(
        "Too many sign-ins, failed logins or guests, or password checks busy: wait "
        "(Retry-After; X-Error-Code login_wait, guest_limit, busy)"
    ),
}


class SecretsStayRoute(APIRoute):
    """Validation errors name the field at fault and why, without echoing what was sent
    (FastAPI's ``input``): that may be a password."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as error:
                errors = [{k: v for k, v in e.items() if k != "input"} for e in error.errors()]
                raise RequestValidationError(errors, endpoint_ctx=error.endpoint_ctx) from None

        return route


router = APIRouter(prefix="/api", tags=["accounts"], route_class=SecretsStayRoute)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _sessions(request: Request) -> async_sessionmaker[AsyncSession]:
    """The REST requests' own pool (``server.db``): never the one the tables and the sockets'
    sign-ins take their connections from."""
    sessions: async_sessionmaker[AsyncSession] = request.app.state.db.rest_sessions
    return sessions


async def session_dependency(request: Request) -> AsyncIterator[AsyncSession]:
    async with _sessions(request)() as session:
        yield session


Session = Annotated[AsyncSession, Depends(session_dependency)]
Bearer = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


def refusal(
    status_code: int, code: str, message: str, retry_after: float | None = None
) -> HTTPException:
    """An HTTP refusal with its stable ``code`` (``X-Error-Code``), and ``Retry-After`` if the
    client may try again after that many seconds."""
    headers = {ERROR_CODE: code}
    if retry_after is not None:
        headers["Retry-After"] = str(max(1, math.ceil(retry_after)))
    return HTTPException(status_code, message, headers=headers)


async def pool_exhausted(request: Request, error: Exception) -> Response:
    """A request that found no free database connection in time: 503 ``busy``, not a 500."""
    return JSONResponse(
        {"detail": "the server is busy: try again in a moment"},
        status_code=503,
        headers={ERROR_CODE: "busy", "Retry-After": "5"},
    )


async def same_origin(request: Request) -> None:
    """Sign-ins come from this server's own pages (or those of ``allowed_origins``): else any
    page could spend its visitors' guests, or sign them in to an account of its choosing. A
    browser says where a request comes from (``Sec-Fetch-Site``, ``Origin``); other clients
    send neither and are let through. (Async: FastAPI would run a plain function in a thread,
    a hop that costs a flood of sign-ins dearly on the event loop.)"""
    origin = request.headers.get("origin")
    if origin is not None and origin in request.app.state.settings.allowed_origins:
        return
    site = request.headers.get("sec-fetch-site")
    if (site is not None and site not in ("same-origin", "none")) or (
        origin is not None and urlsplit(origin).netloc != request.headers.get("host")
    ):
        raise refusal(403, "foreign_origin", "sign in from this site's own pages")


SameOrigin = [Depends(same_origin)]


def _passwords(request: Request) -> Passwords:
    passwords: Passwords = request.app.state.passwords
    return passwords


def _busy(busy: PasswordsBusy) -> HTTPException:
    return refusal(
        429,
        "busy",
        "too many password checks at once: try again in a moment",
        retry_after=busy.retry_after,
    )


def _hashing_admits(request: Request) -> None:
    """Refuse (429 ``busy``) a request whose hash or check the queue would refuse anyway, before
    it costs a query or counts as a login attempt."""
    passwords = _passwords(request)
    if not passwords.admits(connection_address(request)):
        raise _busy(PasswordsBusy(passwords.retry_after()))


async def _verify(request: Request, hashed: str | None, password: str) -> bool:
    """``Passwords.verify`` for this request's client; 429 ``busy`` when the queue is full."""
    try:
        return await _passwords(request).verify(hashed, password, connection_address(request))
    except PasswordsBusy as busy:
        raise _busy(busy) from None


async def _hash(request: Request, password: str) -> str:
    try:
        return await _passwords(request).hash(password, connection_address(request))
    except PasswordsBusy as busy:
        raise _busy(busy) from None


async def issue_token(session: AsyncSession, user: User, hours: int) -> str:
    token = secrets.token_urlsafe(32)
    expires = datetime.now(UTC) + timedelta(hours=hours)
    session.add(Token(token_hash=token_hash(token), user_id=user.id, expires_at=expires))
    await session.commit()
    return token


async def user_for_token(session: AsyncSession, token: str | None) -> User | None:
    """The user a bearer token stands for, or None if it is unknown or expired."""
    if not token:
        return None
    row = await session.get(Token, token_hash(token))
    if row is None:
        return None
    expires = row.expires_at if row.expires_at.tzinfo else row.expires_at.replace(tzinfo=UTC)
    if expires < datetime.now(UTC):
        return None
    return await session.get(User, row.user_id)


async def current_user(session: Session, credentials: Bearer) -> User:
    return await _signed_in(session, credentials)


async def _signed_in(session: AsyncSession, credentials: Bearer) -> User:
    """The user of the request's bearer token: 401 without a valid one, 403 if banned."""
    user = await user_for_token(session, credentials.credentials if credentials else None)
    if user is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "a valid bearer token is needed",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if user.banned(datetime.now(UTC)):  # a ban voids the user's tokens while it lasts
        raise HTTPException(status.HTTP_403_FORBIDDEN, ban_message(user))
    return user


CurrentUser = Annotated[User, Depends(current_user)]


async def _current_user_briefly(request: Request, credentials: Bearer) -> User:
    """``current_user`` in a session of its own, closed at once: for a route that goes on to
    hash, which must not hold a connection meanwhile."""
    async with _sessions(request)() as session:
        return await _signed_in(session, credentials)


class Credentials(BaseModel):
    """A login: accounts made before new passwords needed 8 characters keep their shorter ones."""

    name: str = Field(min_length=2, max_length=20, pattern=NO_NUL, examples=["老司令"])
    password: str = Field(min_length=6, max_length=MAX_LENGTH)


class NewCredentials(BaseModel):
    """A registration: the password follows the rules for new ones (``password_problem``: at
    least 8 characters, else 422 ``password_short``)."""

    name: str = Field(min_length=2, max_length=20, pattern=NO_NUL, examples=["老司令"])
    password: str = Field(min_length=1, max_length=MAX_LENGTH)


class PasswordChange(BaseModel):
    current_password: str = Field(min_length=1, max_length=MAX_LENGTH)
    new_password: str = Field(min_length=1, max_length=MAX_LENGTH)


class UserOut(BaseModel):
    id: int
    name: str
    role: str
    guest: bool


class LoginOut(BaseModel):
    token: str
    user: UserOut


def user_out(user: User) -> UserOut:
    return UserOut(id=user.id, name=user.name, role=user.role, guest=user.guest)


async def _sign_in_allowed(request: Request) -> None:
    if not await request.app.state.limits.sign_ins.admit(connection_address(request)):
        raise HTTPException(429, "too many sign-ins from your address; wait a minute")


def _blocking(request: Request) -> bool:
    return bool(request.app.state.settings.block_banned_addresses)


async def _new_accounts_allowed(session: AsyncSession, request: Request, address: str) -> None:
    """No new account (guest or registered) from an address a ban covers, while it lasts."""
    if _blocking(request) and await address_banned(session, address):
        raise refusal(
            403,
            "address_banned",
            "a user who signed in from your address is banned: no new account from it while "
            "the ban lasts",
        )


def _logged_out(request: Request, user_ids: list[int]) -> None:
    """Close the sockets of users whose tokens were revoked."""
    for user_id in user_ids:
        request.app.state.broker.publish(user_topic(user_id), {"type": "logged_out"})


async def _guests_allowed(session: AsyncSession, request: Request, address: str) -> None:
    """At most ``guests_per_address_per_day`` guests from one address in any 24 hours."""
    most = request.app.state.settings.guests_per_address_per_day
    now = datetime.now(UTC)
    count, first = (
        await session.execute(
            select(func.count(), func.min(User.created_at)).where(
                User.guest.is_(True), User.address == address, User.created_at > now - GUEST_DAY
            )
        )
    ).one()
    if count >= most:
        since = aware(first) or now
        raise refusal(
            429,
            "guest_limit",
            f"{most} guests a day may play from one address: register, or come back later",
            retry_after=(since + GUEST_DAY - now).total_seconds(),
        )


def _hours(request: Request) -> int:
    return int(request.app.state.settings.token_hours)


@router.post(
    "/auth/register",
    response_model=LoginOut,
    status_code=201,
    responses=REFUSALS
    | SIGN_IN_REFUSALS
    | {409: _answer("The name is taken, or too like a taken one (X-Error-Code)")},
    dependencies=SameOrigin,
)
async def register(body: NewCredentials, request: Request) -> LoginOut:
    """Create an account and log in. The name is stored NFKC-normalised; it may not be taken
    (without regard to case), look like a taken one, mix scripts or be reserved; the password
    must have 8 characters at least and may not be blank or among the most common ones (422
    and 409 say which, in X-Error-Code)."""
    await _sign_in_allowed(request)
    address = connection_address(request)
    try:
        name = check_new_name(body.name)
    except NameRefused as refused:
        raise refusal(refused.status, refused.code, refused.message) from None
    problem = password_problem(body.password)
    if problem is not None:
        raise refusal(422, *problem)
    _hashing_admits(request)
    key, look = name_key(name), skeleton(name)
    async with _sessions(request)() as session:  # given back before the hashing
        await _new_accounts_allowed(session, request, address)
        taken = (
            await session.execute(
                select(User.name, User.name_key).where(
                    or_(User.name_key == key, User.name_skeleton == look)
                )
            )
        ).first()
    if taken is not None and taken.name_key == key:
        raise refusal(409, "name_taken", f"the name {name!r} is taken")
    if taken is not None:
        raise refusal(409, "name_look_alike", f"the name {name!r} is too like {taken.name!r}")
    hashed = await _hash(request, body.password)
    async with _sessions(request)() as session:
        user = User(
            name=name,
            name_key=key,
            name_skeleton=look,
            password_hash=hashed,
            guest=False,
            address=address,
        )
        session.add(user)
        try:
            await session.commit()
        except IntegrityError:  # taken meanwhile
            raise refusal(409, "name_taken", f"the name {name!r} is taken") from None
        token = await issue_token(session, user, _hours(request))
    return LoginOut(token=token, user=user_out(user))


# A login's user by the name typed, the exact name first: users whose names collided before keys
# were unique keep theirs. Made once (a flood of logins builds no statement) and read as plain
# columns: the hash is all the check needs.
_LOGIN_LOOKUP = (
    select(User.id, User.password_hash)
    .where(or_(User.name == bindparam("name"), User.name_key == bindparam("key")))
    .order_by(case((User.name == bindparam("name"), 0), else_=1))
    .limit(1)
)


@router.post(
    "/auth/login",
    response_model=LoginOut,
    responses={401: _answer("Wrong name or password"), **SIGN_IN_REFUSALS},
    dependencies=SameOrigin,
)
async def login(body: Credentials, request: Request) -> LoginOut:
    """Log in by name (without regard to case) and password. After failed attempts for a name
    the next one waits (429, ``login_wait``, Retry-After)."""
    await _sign_in_allowed(request)
    _hashing_admits(request)
    address = connection_address(request)
    key = name_key(body.name)
    backoff = request.app.state.login_backoff
    wait = await backoff.attempt(key)
    if wait > 0:
        raise refusal(
            429,
            "login_wait",
            f"too many failed logins for this name: try again in {math.ceil(wait)} s",
            retry_after=wait,
        )
    async with _sessions(request)() as session:  # given back before the hashing
        found = (await session.execute(_LOGIN_LOOKUP, {"name": body.name, "key": key})).first()
    # an unknown name or a guest costs the same check (against a dummy hash) as a real one
    right = await _verify(request, found.password_hash if found else None, body.password)
    if found is None or not right:
        raise HTTPException(401, "wrong name or password")
    await backoff.succeeded(key)
    async with _sessions(request)() as session:
        user = await session.get(User, found.id)
        if user is None:  # gone meanwhile
            raise HTTPException(401, "wrong name or password")
        if user.banned(datetime.now(UTC)):
            if _blocking(request):  # where a banned user comes from is blocked too
                await cover(session, user.id, address)
                _logged_out(request, await revoke_at(session, user))
            raise HTTPException(403, ban_message(user))
        if _blocking(request) and await sign_in_banned(session, user, address):
            raise refusal(
                403,
                "address_banned",
                "a user who signed in from your address, or from this account's, is banned: "
                "no sign-in from it while the ban lasts",
            )
        user.address = address
        token = await issue_token(session, user, _hours(request))
    return LoginOut(token=token, user=user_out(user))


@router.post(
    "/auth/guest",
    response_model=LoginOut,
    status_code=201,
    responses=SIGN_IN_REFUSALS,
    dependencies=SameOrigin,
)
async def guest(session: Session, request: Request) -> LoginOut:
    """Play at once as a guest with a generated name (a few a day from one address)."""
    await _sign_in_allowed(request)
    address = connection_address(request)
    await _new_accounts_allowed(session, request, address)
    await _guests_allowed(session, request, address)
    for _ in range(20):
        user = User(
            name=f"游客{secrets.randbelow(10**6):06d}",
            password_hash=None,
            guest=True,
            address=address,
        )
        session.add(user)
        try:
            await session.commit()
            break
        except IntegrityError:
            await session.rollback()
    else:  # pragma: no cover - a million names taken
        raise HTTPException(503, "no guest name is free")
    return LoginOut(token=await issue_token(session, user, _hours(request)), user=user_out(user))


@router.post(
    "/auth/password",
    status_code=204,
    response_class=Response,
    responses=REFUSALS
    | {
        401: _answer("No valid bearer token"),
        403: _answer(
            "The current password is wrong, banned, or a page of another site (X-Error-Code: "
            "wrong_password, foreign_origin)"
        ),
        429: _answer("Failed checks for this name, or password checks busy (Retry-After)"),
    },
    dependencies=SameOrigin,
)
async def change_password(
    body: PasswordChange,
    user: Annotated[User, Depends(_current_user_briefly)],
    credentials: Bearer,
    request: Request,
) -> None:
    """Change one's password: the current one is checked as a login's is (failed checks make
    the next wait), the new one follows the rules for new passwords. Every other login of the
    user ends (their tokens revoked, their sockets closed); this one goes on."""
    assert credentials is not None  # the user was found by it
    await _sign_in_allowed(request)
    problem = password_problem(body.new_password)
    if problem is not None:
        raise refusal(422, *problem)
    if user.password_hash is None:
        raise refusal(403, "wrong_password", "a guest has no password: register instead")
    _hashing_admits(request)
    key = name_key(user.name)  # as a login for the name counts
    backoff = request.app.state.login_backoff
    wait = await backoff.attempt(key)
    if wait > 0:
        raise refusal(
            429,
            "login_wait",
            f"too many failed checks for this name: try again in {math.ceil(wait)} s",
            retry_after=wait,
        )
    if not await _verify(request, user.password_hash, body.current_password):
        raise refusal(403, "wrong_password", "the current password is wrong")
    await backoff.succeeded(key)
    hashed = await _hash(request, body.new_password)
    mine = token_hash(credentials.credentials)
    async with _sessions(request)() as session:
        await session.execute(update(User).where(User.id == user.id).values(password_hash=hashed))
        await session.execute(
            delete(Token).where(Token.user_id == user.id, Token.token_hash != mine)
        )
        await session.commit()
    notice = {"type": "logged_out", "except": mine}  # every socket but this token's
    request.app.state.broker.publish(user_topic(user.id), notice)


@router.post("/auth/logout", status_code=204, response_class=Response)
async def logout(
    user: CurrentUser, credentials: Bearer, session: Session, request: Request
) -> None:
    """Log out: this token is revoked (401 from now on), and the sockets signed in with it are
    closed (``logged_out``, then close code 4401)."""
    assert credentials is not None  # current_user found a user by it
    hashed = token_hash(credentials.credentials)
    await session.execute(delete(Token).where(Token.token_hash == hashed))
    await session.commit()
    notice = {"type": "logged_out", "token_hash": hashed}
    request.app.state.broker.publish(user_topic(user.id), notice)


@router.post("/auth/logout-all", status_code=204, response_class=Response)
async def logout_all(user: CurrentUser, session: Session, request: Request) -> None:
    """Log out everywhere: every token of the user is revoked and every socket closed."""
    await session.execute(delete(Token).where(Token.user_id == user.id))
    await session.commit()
    request.app.state.broker.publish(user_topic(user.id), {"type": "logged_out"})
