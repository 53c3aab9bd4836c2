"""Accounts: registration, login, guests, bearer tokens, profiles (REST under /api)."""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import AsyncIterator, Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from argon2 import PasswordHasher
from argon2.exceptions import VerificationError
from fastapi import APIRouter, Depends, HTTPException, Path, Request, Response, status
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from engine import VARIANTS
from engine.levels import title_for
from server.models import Standing, Token, User
from server.moderation import ban_message

_hasher = PasswordHasher()
_bearer = HTTPBearer(auto_error=False)
NAME_PATTERN = re.compile(r"^[\w\u4e00-\u9fff-]{2,20}$")
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


async def session_dependency(request: Request) -> AsyncIterator[AsyncSession]:
    async with request.app.state.db.sessions() as session:
        yield session


Session = Annotated[AsyncSession, Depends(session_dependency)]


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


async def current_user(
    session: Session,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> User:
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


class Credentials(BaseModel):
    name: str = Field(min_length=2, max_length=20, pattern=NO_NUL, examples=["老司令"])
    password: str = Field(min_length=6, max_length=128)


class UserOut(BaseModel):
    id: int
    name: str
    role: str
    guest: bool


class LoginOut(BaseModel):
    token: str
    user: UserOut


class RecordOut(BaseModel):
    """Points, the title they give and the game record (in a variant, or over all)."""

    points: int
    title: str
    level: int
    wins: int
    losses: int
    draws: int


class StandingOut(RecordOut):
    variant: str


class ProfileOut(BaseModel):
    user: UserOut
    standings: list[StandingOut]


def user_out(user: User) -> UserOut:
    return UserOut(id=user.id, name=user.name, role=user.role, guest=user.guest)


async def _sign_in_allowed(request: Request) -> None:
    address = request.client.host if request.client else "unknown"
    if not await request.app.state.limits.sign_ins.admit(address):
        raise HTTPException(429, "too many sign-ins from your address; wait a minute")


def _hours(request: Request) -> int:
    return int(request.app.state.settings.token_hours)


@router.post("/auth/register", response_model=LoginOut, status_code=201, responses=REFUSALS)
async def register(body: Credentials, session: Session, request: Request) -> LoginOut:
    """Create an account and log in."""
    await _sign_in_allowed(request)
    if not NAME_PATTERN.match(body.name):
        raise HTTPException(422, "a name is 2-20 letters, digits, _ or -")
    user = User(name=body.name, password_hash=_hasher.hash(body.password), guest=False)
    session.add(user)
    try:
        await session.commit()
    except IntegrityError:
        raise HTTPException(409, f"the name {body.name!r} is taken") from None
    return LoginOut(token=await issue_token(session, user, _hours(request)), user=user_out(user))


@router.post("/auth/login", response_model=LoginOut)
async def login(body: Credentials, session: Session, request: Request) -> LoginOut:
    await _sign_in_allowed(request)
    user = (await session.execute(select(User).where(User.name == body.name))).scalar_one_or_none()
    try:
        if user is None or user.password_hash is None:
            raise VerificationError
        _hasher.verify(user.password_hash, body.password)
    except VerificationError:
        raise HTTPException(401, "wrong name or password") from None
    if user.banned(datetime.now(UTC)):
        raise HTTPException(403, ban_message(user))
    return LoginOut(token=await issue_token(session, user, _hours(request)), user=user_out(user))


@router.post("/auth/guest", response_model=LoginOut, status_code=201)
async def guest(session: Session, request: Request) -> LoginOut:
    """Play at once as a guest with a generated name."""
    await _sign_in_allowed(request)
    for _ in range(20):
        user = User(name=f"游客{secrets.randbelow(10**6):06d}", password_hash=None, guest=True)
        session.add(user)
        try:
            await session.commit()
            break
        except IntegrityError:
            await session.rollback()
    else:  # pragma: no cover - a million names taken
        raise HTTPException(503, "no guest name is free")
    return LoginOut(token=await issue_token(session, user, _hours(request)), user=user_out(user))


async def profile_of(session: AsyncSession, user: User) -> ProfileOut:
    rows = (await session.execute(select(Standing).where(Standing.user_id == user.id))).scalars()
    by_variant = {row.variant: row for row in rows}
    standings = []
    for variant in VARIANTS:
        row = by_variant.get(variant)
        points = row.points if row else 0
        title = title_for(points)
        standings.append(
            StandingOut(
                variant=variant,
                points=points,
                title=title.name,
                level=title.level,
                wins=row.wins if row else 0,
                losses=row.losses if row else 0,
                draws=row.draws if row else 0,
            )
        )
    return ProfileOut(user=user_out(user), standings=standings)


@router.get("/me", response_model=ProfileOut)
async def me(user: CurrentUser, session: Session) -> ProfileOut:
    return await profile_of(session, user)


@router.get("/users/{name}", response_model=ProfileOut)
async def profile(name: Name, session: Session) -> ProfileOut:
    user = (await session.execute(select(User).where(User.name == name))).scalar_one_or_none()
    if user is None:
        raise HTTPException(404, f"no user {name!r}")
    return await profile_of(session, user)
