"""Persistence of games and standings (the table actors call these)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from engine import GameState, PointsUnit, record_of
from engine.levels import table_stake
from server.models import EscapeRecord, Game, GameSeat, Standing

log = logging.getLogger("junqi")


@dataclass(frozen=True)
class Scored:
    """What a finished game gave: each seat's points (the stake applied) and the stake."""

    points: list[int]
    stake: int


class Store:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self.sessions = sessions
        engine = sessions.kw["bind"]
        assert isinstance(engine, AsyncEngine)
        self.engine = engine

    async def points(self, variant: str, user_ids: list[int]) -> dict[int, int]:
        async with self.sessions() as session:
            rows = await session.execute(
                select(Standing).where(Standing.variant == variant, Standing.user_id.in_(user_ids))
            )
            found = {row.user_id: row.points for row in rows.scalars()}
        return {uid: found.get(uid, 0) for uid in user_ids}

    async def game_started(
        self, game_id: str, state: GameState, room: str, users: list[int | None]
    ) -> None:
        async with self.sessions() as session:
            session.add(
                Game(
                    id=game_id,
                    variant=state.variant.key,
                    room=room,
                    status="playing",
                    commitment=state.commitment,
                )
            )
            await session.flush()
            for seat, user_id in enumerate(users):
                session.add(GameSeat(game_id=game_id, seat=seat, user_id=user_id))
            await session.commit()

    async def game_unscored(self, game_id: str, status: str) -> None:
        """End a game nobody scores because the platform failed it: ``not_stored`` (its result
        could not be stored) or ``aborted`` (it could not be taken back), so that it is never
        taken for one still running; if even that fails, the log says so."""
        try:
            async with self.sessions() as session:
                game = await session.get(Game, game_id)
                if game is not None:
                    game.status = status
                    game.finished_at = datetime.now(UTC)
                    await session.commit()
        except Exception:
            log.exception("game %s could not be marked %s", game_id, status)

    async def game_finished(
        self,
        game_id: str,
        state: GameState,
        users: list[int | None],
        rated: bool = True,
        stood_in: list[int] | None = None,
    ) -> Scored:
        """Store the record and result, apply the points (not for an unrated game, such as one
        with bots); returns each seat's points and the stake. A few statements in all, not one
        per seat: this runs at the end of every game."""
        assert state.result is not None
        variant = state.variant.key
        humans = {u for u in users if u is not None}
        async with self.sessions() as session:
            found = await session.scalars(
                select(Standing).where(Standing.variant == variant, Standing.user_id.in_(humans))
            )
            standings = {standing.user_id: standing for standing in found}
            stake = table_stake(standings[u].points if u in standings else 0 for u in humans)
            multiplier = stake if state.result.points_unit == PointsUnit.STAKE else 1
            points = [r.points * multiplier if rated else 0 for r in state.result.seats]
            game = await session.get(Game, game_id)
            if game is None or game.status != "playing":  # ended already (by another process
                # that had the table before: only once)
                return Scored(points, stake)
            game.status = "finished"
            game.seed = state.seed
            game.record = record_of(state).to_json()
            game.result = json.dumps(
                state.result.to_dict()
                | {"stake": stake, "rated": rated, "stood_in": stood_in or []},
                ensure_ascii=False,
            )
            game.finished_at = datetime.now(UTC)
            rows = await session.scalars(select(GameSeat).where(GameSeat.game_id == game_id))
            seats = {row.seat: row for row in rows}
            for r in state.result.seats:
                user_id = users[r.seat]
                if r.outcome == "escape" and user_id is not None and len(humans) > 1:
                    # escaping from people (not from a table of bots) counts towards a ban
                    session.add(EscapeRecord(user_id=user_id, game_id=game_id))
                row = seats.get(r.seat)
                if row is not None:
                    row.outcome = r.outcome.value
                    row.points = points[r.seat]
                if user_id is None or not rated:
                    continue
                standing = standings.get(user_id)
                if standing is None:
                    standing = standings[user_id] = Standing(
                        user_id=user_id, variant=variant, points=0, wins=0, losses=0, draws=0
                    )
                    session.add(standing)
                standing.points += points[r.seat]
                if r.outcome == "win":
                    standing.wins += 1
                elif r.outcome in ("loss", "escape"):
                    standing.losses += 1
                elif r.outcome == "draw":
                    standing.draws += 1
            await session.commit()
        return Scored(points, stake)
