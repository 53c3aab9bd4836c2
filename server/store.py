"""Persistence of games and standings (the table actors call these)."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any, cast

from sqlalchemy import CursorResult, Table, bindparam, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from engine import GameState, PointsUnit, SeatOutcome, record_of
from engine.levels import table_stake
from server.models import EscapeRecord, Game, GameSeat, Standing

log = logging.getLogger("junqi")


# Points between the same people diminish within a day: one person playing several accounts
# against each other would otherwise farm points without end. The window is a day, so that the
# same friends playing again tomorrow count in full.
REPEAT_WINDOW = timedelta(hours=24)
# The first games of the same people within the window count in full: a game and its revenge
# between honest players is common.
REPEAT_FULL_GAMES = 2
# Each further game keeps this share of the one before (the 3rd a half, the 4th a quarter, ...):
# farming pays less and less, while a few more honest rematches still count for something.
REPEAT_SHARE = Fraction(1, 2)
# From the game after this one nothing counts: an eighth is the last share worth giving (a point
# at the highest stake, 10), and a run that long between the same accounts in a day is farming.
REPEAT_LAST_COUNTED = 5


@dataclass(frozen=True)
class Scored:
    """What a finished game gave: each seat's points (the stake and the repeat rule applied),
    the stake, and the repeat rule: the game was the ``repeat``-th rated game of the same
    people within a day (0: not counted, being unrated or of one person among bots) and kept
    ``factor`` of its points (an escaper's penalty always counts in full)."""

    points: list[int]
    stake: int
    repeat: int = 0
    factor: float = 1.0


@dataclass(frozen=True)
class Tally:
    """What to add to a standing."""

    points: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0


def repeat_factor(repeat: int) -> Fraction:
    """The share of its points the ``repeat``-th rated game of the same people within a day
    keeps (1 for a game not counted, ``repeat`` 0)."""
    if repeat <= REPEAT_FULL_GAMES:
        return Fraction(1)
    if repeat > REPEAT_LAST_COUNTED:
        return Fraction(0)
    return REPEAT_SHARE ** (repeat - REPEAT_FULL_GAMES)


def players_key(users: list[int | None]) -> str:
    """The people of a game as ``Game.players_key``: their user ids sorted, comma-joined."""
    return ",".join(str(u) for u in sorted({u for u in users if u is not None}))


async def add_to_standings(
    session: AsyncSession, variant: str, tallies: Mapping[int, Tally]
) -> dict[int, int]:
    """Add ``tallies`` to the users' standings in ``variant`` in SQL (``points = points + x``),
    making those missing, in one statement; returns each one's points after. Done in the
    database rather than read, added and written back, so that changes made at the same
    instant (two games of one player, a penalty) all count. The rows go in the order of the
    user ids: concurrent callers lock them in one order, and never deadlock on PostgreSQL."""
    if not tallies:
        return {}
    rows = [
        {"user_id": user_id, "variant": variant, **vars(tally)}
        for user_id, tally in sorted(tallies.items())
    ]
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(Standing).values(rows)
    added = statement.on_conflict_do_update(
        index_elements=[Standing.user_id, Standing.variant],
        set_={
            name: getattr(Standing, name) + getattr(statement.excluded, name)
            for name in ("points", "wins", "losses", "draws")
        },
    ).returning(Standing.user_id, Standing.points)
    found = await session.execute(added)
    return dict(found.all())


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
        with bots), all in one transaction; returns each seat's points, the stake and the
        repeat rule applied (points between the same people diminish within a day: the
        ``REPEAT_*`` constants). A game is ended once only: a second call (another process
        that had the table) changes nothing and returns what the first stored. A few statements
        in all, not one per seat: this runs at the end of every game."""
        assert state.result is not None
        variant = state.variant.key
        people = sorted({u for u in users if u is not None})
        now = datetime.now(UTC)
        async with self.sessions() as session:
            if not await self._claim(session, game_id, now):
                await session.rollback()
                return await self._stored(session, game_id, len(users))
            if rated and people:
                # the players' standings, made if missing and locked in one order before they
                # are read: games of the same people ending at once wait for each other here,
                # so that each sees the one before (the stake, the repeat count)
                await add_to_standings(session, variant, {u: Tally() for u in people})
            scored = await self._score(session, game_id, state, users, rated, now)
            result = state.result.to_dict() | {
                "stake": scored.stake,
                "rated": rated,
                "stood_in": stood_in or [],
                "repeat": scored.repeat,
                "factor": scored.factor,
            }
            await session.execute(
                update(Game)
                .where(Game.id == game_id)
                .values(
                    seed=state.seed,
                    record=record_of(state).to_json(),
                    result=json.dumps(result, ensure_ascii=False),
                    players_key=players_key(users),
                    rated=rated,
                )
                .execution_options(synchronize_session=False)
            )
            await self._seats_scored(session, game_id, state, users, scored.points, rated, now)
            await session.commit()
        return scored

    @staticmethod
    async def _claim(session: AsyncSession, game_id: str, now: datetime) -> bool:
        """End the game if it is still playing; whether this call did. The claim comes first,
        and is a write: on SQLite it takes the write lock at once (waiting for another writer
        as long as busy_timeout allows), where a transaction that read first fails outright
        once another wrote meanwhile; and only the call whose claim changed the row ends the
        game."""
        claim = await session.execute(
            update(Game)
            .where(Game.id == game_id, Game.status == "playing")
            .values(status="finished", finished_at=now)
            .execution_options(synchronize_session=False)
        )
        return bool(cast(CursorResult[Any], claim).rowcount == 1)

    async def _score(
        self,
        session: AsyncSession,
        game_id: str,
        state: GameState,
        users: list[int | None],
        rated: bool,
        now: datetime,
    ) -> Scored:
        """Each seat's points: the stake of the table's lowest player applied, and the share
        of the repeat rule (an escaper's in full)."""
        assert state.result is not None
        people = sorted({u for u in users if u is not None})
        found = await session.execute(
            select(Standing.user_id, Standing.points).where(
                Standing.variant == state.variant.key, Standing.user_id.in_(people)
            )
        )
        held = dict(found.all())
        stake = table_stake(held.get(u, 0) for u in people)
        multiplier = stake if state.result.points_unit == PointsUnit.STAKE else 1
        repeat = 0
        if rated and len(people) > 1:  # one person among bots farms nobody
            repeat = 1 + await self._repeats(session, game_id, players_key(users), now)
        factor = repeat_factor(repeat)
        points = []
        for r in state.result.seats:
            full = r.points * multiplier if rated else 0
            # an escape is a fair-play penalty, not a result between the same people
            points.append(full if r.outcome == SeatOutcome.ESCAPE else int(full * factor))
        return Scored(points, stake, repeat, float(factor))

    @staticmethod
    async def _seats_scored(
        session: AsyncSession,
        game_id: str,
        state: GameState,
        users: list[int | None],
        points: list[int],
        rated: bool,
        now: datetime,
    ) -> None:
        """Each seat's outcome and points, the escapes from people on record, and (rated)
        the standings changed in SQL."""
        assert state.result is not None
        people = {u for u in users if u is not None}
        # by the table: the ORM's bulk update would fail the whole result for a seat missing
        table = cast(Table, GameSeat.__table__)
        seats = table.c
        await session.execute(
            update(table)
            .where(seats.game_id == bindparam("g"), seats.seat == bindparam("s"))
            .values(outcome=bindparam("o"), points=bindparam("p")),
            [
                {"g": game_id, "s": r.seat, "o": r.outcome.value, "p": p}
                for r, p in zip(state.result.seats, points, strict=True)
            ],
        )
        tallies: dict[int, Tally] = {}
        for r, p in zip(state.result.seats, points, strict=True):
            user_id = users[r.seat]
            if user_id is None:
                continue
            if r.outcome == SeatOutcome.ESCAPE and len(people) > 1:
                # escaping from people (not from a table of bots) counts towards a ban
                session.add(EscapeRecord(user_id=user_id, game_id=game_id, at=now))
            if rated:
                tallies[user_id] = Tally(
                    points=p,
                    wins=int(r.outcome == SeatOutcome.WIN),
                    losses=int(r.outcome in (SeatOutcome.LOSS, SeatOutcome.ESCAPE)),
                    draws=int(r.outcome == SeatOutcome.DRAW),
                )
        await add_to_standings(session, state.variant.key, tallies)

    async def _repeats(self, session: AsyncSession, game_id: str, key: str, now: datetime) -> int:
        """How many rated games the same people finished within ``REPEAT_WINDOW`` before
        this one."""
        count = await session.scalar(
            select(func.count())
            .select_from(Game)
            .where(
                Game.players_key == key,
                Game.rated.is_(True),
                Game.status == "finished",
                Game.finished_at > now - REPEAT_WINDOW,
                Game.id != game_id,
            )
        )
        return int(count or 0)

    async def _stored(self, session: AsyncSession, game_id: str, seat_count: int) -> Scored:
        """What a game ended before gave, as stored (nothing if it was not scored)."""
        game = await session.get(Game, game_id)
        if game is None or game.status != "finished" or game.result is None:
            return Scored([0] * seat_count, 0)
        result = json.loads(game.result)
        rows = await session.execute(
            select(GameSeat.seat, GameSeat.points).where(GameSeat.game_id == game_id)
        )
        stored = dict(rows.all())
        return Scored(
            [stored.get(seat) or 0 for seat in range(seat_count)],
            int(result.get("stake", 0)),
            int(result.get("repeat", 0)),
            float(result.get("factor", 1.0)),
        )
