"""Profiles, leaderboards, each player's scored games and escape standing (REST).

Points are kept per user per variant (docs/rules.md §10); the overall board ranks by the sum over
the variants. Guests play, but only registered players are ranked.
"""

from __future__ import annotations

import json
from datetime import datetime

from fastapi import APIRouter, HTTPException, Query
from pydantic import BaseModel
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from engine import VARIANTS
from engine.levels import title_for
from server.accounts import CurrentUser, Name, Session, UserOut, user_out
from server.models import Game, GameSeat, Standing, User
from server.penalties import escape_standing

router = APIRouter(prefix="/api", tags=["standings"])


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


class Rank(RecordOut):
    place: int
    name: str


class ScoredGame(BaseModel):
    game: str
    variant: str
    finished_at: datetime | None
    outcome: str | None
    points: int | None
    reason: str | None  # why the game ended: elimination, surrender, escape, no_capture, ...
    stake: int | None
    rated: bool


class EscapesOut(BaseModel):
    escapes: int  # remembered (recent) escapes
    banned_until: datetime | None  # no seat at tables with people until then


@router.get("/leaderboard", response_model=list[Rank])
async def leaderboard(
    session: Session,
    variant: str | None = None,
    limit: int = Query(50, ge=1, le=200),
) -> list[Rank]:
    """The best players of ``variant`` by points, or overall (the sum over variants)."""
    if variant is not None and variant not in VARIANTS:
        raise HTTPException(404, f"no variant {variant!r}")
    query = (
        select(
            User.name,
            func.sum(Standing.points),
            func.sum(Standing.wins),
            func.sum(Standing.losses),
            func.sum(Standing.draws),
        )
        .join(User, User.id == Standing.user_id)
        .where(User.guest.is_(False))
        .group_by(User.id, User.name)
        .order_by(func.sum(Standing.points).desc(), User.name)
        .limit(limit)
    )
    if variant is not None:
        query = query.where(Standing.variant == variant)
    rows = (await session.execute(query)).all()
    out = []
    for place, (name, points, wins, losses, draws) in enumerate(rows, 1):
        title = title_for(int(points))
        out.append(
            Rank(
                place=place,
                name=name,
                points=int(points),
                title=title.name,
                level=title.level,
                wins=int(wins),
                losses=int(losses),
                draws=int(draws),
            )
        )
    return out


@router.get("/users/{name}/games", response_model=list[ScoredGame])
async def scored_games(
    name: Name, session: Session, limit: int = Query(20, ge=1, le=200)
) -> list[ScoredGame]:
    """A player's finished games, newest first: what each gained or lost, and why."""
    user = (await session.execute(select(User).where(User.name == name))).scalar_one_or_none()
    if user is None:
        raise HTTPException(404, f"no user {name!r}")
    rows = await session.execute(
        select(Game, GameSeat)
        .join(GameSeat, GameSeat.game_id == Game.id)
        .where(GameSeat.user_id == user.id, Game.status == "finished")
        .order_by(Game.finished_at.desc())
        .limit(limit)
    )
    out = []
    for game, seat in rows.all():
        result = json.loads(game.result) if game.result else {}
        out.append(
            ScoredGame(
                game=game.id,
                variant=game.variant,
                finished_at=game.finished_at,
                outcome=seat.outcome,
                points=seat.points,
                reason=result.get("reason"),
                stake=result.get("stake"),
                rated=bool(result.get("rated", False)),
            )
        )
    return out


@router.get("/me/escapes", response_model=EscapesOut)
async def my_escapes(user: CurrentUser, session: Session) -> EscapesOut:
    """How many escapes are remembered against you, and until when you may not join tables."""
    standing = await escape_standing(session, user.id)
    return EscapesOut(escapes=standing.escapes, banned_until=standing.banned_until)


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
