"""Helpers for tests of the store's scoring: the database on two engines (as two server
processes share it), users, and two-player games ended cheaply (a surrender, an escape)."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import select

import engine
from engine import GameState
from server.db import Database, migrate
from server.models import Game, GameSeat, Standing, User
from server.store import Store

VARIANT = "liangguo"


@asynccontextmanager
async def two_stores(url: str) -> AsyncIterator[tuple[Database, Store, Store]]:
    """The database at ``url`` migrated, and a store on each of two engines of their own."""
    await migrate(url)
    first, second = Database(url), Database(url)
    try:
        yield first, Store(first.sessions), Store(second.sessions)
    finally:
        await first.close()
        await second.close()


async def add_users(db: Database, *names: str) -> list[int]:
    """New users (guests, as anyone plays); their ids."""
    async with db.sessions() as session:
        users = [User(name=name, password_hash=None, guest=True) for name in names]
        session.add_all(users)
        await session.commit()
        return [user.id for user in users]


@functools.cache
def _in_play() -> GameState:
    """A game of two in play, both layouts placed, surrender allowed at once."""
    state = engine.new_game(VARIANT, seed="scoring", options={"surrender_after_seconds": 0})
    for seat in range(2):
        layout = engine.auto_layout(VARIANT, seat, "scoring")
        state, _ = engine.apply(state, engine.PlaceLayout(seat, layout, now=0.0))
    assert state.phase == "playing"
    return state


def won_by(seat: int) -> tuple[GameState, GameState]:
    """A game's start and its end: the other seat surrendered (a win and a loss, one stake)."""
    start = _in_play()
    end, _ = engine.apply(start, engine.Surrender(1 - seat, now=1.0))
    assert end.result is not None and end.result.winners == (seat,)
    return start, end


def escaped_by(seat: int) -> tuple[GameState, GameState]:
    """A game's start and its end: ``seat`` escaped in play (it loses twice the stake, the
    other wins one)."""
    start = _in_play()
    end, _ = engine.apply(start, engine.Escape(seat, now=1.0))
    assert end.result is not None
    assert [r.points for r in end.result.seats] == [-2 if s == seat else 1 for s in range(2)]
    return start, end


async def started(
    store: Store, game_id: str, game: tuple[GameState, GameState], users: list[int | None]
) -> None:
    await store.game_started(game_id, game[0], "room", users)


async def standings(db: Database) -> dict[int, tuple[int, int, int, int]]:
    """Every standing in the variant: (points, wins, losses, draws) by user id."""
    async with db.sessions() as session:
        rows = await session.scalars(select(Standing).where(Standing.variant == VARIANT))
        return {s.user_id: (s.points, s.wins, s.losses, s.draws) for s in rows}


async def games(db: Database) -> dict[str, Game]:
    async with db.sessions() as session:
        return {game.id: game for game in await session.scalars(select(Game))}


async def seats(db: Database) -> list[dict[str, Any]]:
    """Every game seat with a user, as stored."""
    async with db.sessions() as session:
        rows = await session.scalars(select(GameSeat).where(GameSeat.user_id.is_not(None)))
        return [
            {"game": s.game_id, "user": s.user_id, "outcome": s.outcome, "points": s.points}
            for s in rows
        ]
