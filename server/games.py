"""Game records and replays (REST). A finished game's record is public, a running one's not."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query
from sqlalchemy import select

from engine import Event, GameRecord, GameState, history, open_pieces, view
from server import marks
from server.accounts import NO_NUL, NOT_FOUND, REFUSALS, CurrentUser, Session
from server.match_core import SeatDraw
from server.models import Game, GameSeat, User

router = APIRouter(prefix="/api/games", tags=["games"])
GameId = Annotated[str, Path(pattern=NO_NUL)]


async def _finished(session: Session, game_id: str) -> Game:
    game = await session.get(Game, game_id)
    if game is None:
        raise HTTPException(404, f"no game {game_id!r}")
    if game.status != "finished" or game.record is None:
        raise HTTPException(403, "a game's record is public once the game is over")
    return game


@router.get("")
async def list_games(session: Session, limit: int = Query(50, ge=1)) -> list[dict[str, Any]]:
    """The latest games, newest first (running games show their seed commitment only)."""
    rows = await session.execute(
        select(Game).order_by(Game.created_at.desc()).limit(min(limit, 200))
    )
    games = rows.scalars().all()
    out = []
    for game in games:
        out.append(
            {
                "id": game.id,
                "variant": game.variant,
                "room": game.room,
                "status": game.status,
                "commitment": game.commitment,
                "seed": game.seed,
                "created_at": game.created_at.isoformat(),
                "players": await _players(session, game.id),
            }
        )
    return out


@router.get("/{game_id}", responses=NOT_FOUND)
async def summary(game_id: GameId, session: Session) -> dict[str, Any]:
    """A game: its variant, room, status, the commitment to its seed, who played which seat,
    and (once it is over) the seed, its result and how many actions its record holds."""
    game = await session.get(Game, game_id)
    if game is None:
        raise HTTPException(404, f"no game {game_id!r}")
    finished = game.status == "finished" and game.record is not None
    return {
        "id": game.id,
        "variant": game.variant,
        "room": game.room,
        "status": game.status,
        "commitment": game.commitment,
        "seed": game.seed if finished else None,  # never before the end (docs/fairness.md)
        "players": await _players(session, game.id),
        "result": json.loads(game.result) if finished and game.result else None,
        "steps": len(json.loads(game.record)["actions"]) if finished and game.record else None,
        "seat_draw": _seat_draw(game.seat_draw, finished),
    }


def _seat_draw(kept: str | None, finished: bool) -> dict[str, Any] | None:
    """A quick-match game's seat draw (docs/protocol.md, "Quick match"): its seed once over."""
    if kept is None:
        return None
    draw = SeatDraw(**json.loads(kept))
    return draw.shown(finished)


async def _players(session: Session, game_id: str) -> list[dict[str, Any]]:
    rows = await session.execute(
        select(GameSeat, User.name)
        .join(User, User.id == GameSeat.user_id, isouter=True)
        .where(GameSeat.game_id == game_id)
        .order_by(GameSeat.seat)
    )
    return [
        {"seat": s.seat, "name": name, "outcome": s.outcome, "points": s.points}
        for s, name in rows.all()
    ]


@router.get("/{game_id}/record", responses=NOT_FOUND)
async def record(game_id: GameId, session: Session) -> dict[str, Any]:
    """The full record (rules, seed, every action) of a finished game."""
    game = await _finished(session, game_id)
    assert game.record is not None
    return {
        "record": json.loads(game.record),
        "result": json.loads(game.result or "null"),
    }


# Whose eyes a replay sees through: the board open (every rank), a spectator's, or a seat's
# as it knew the game at that moment.
Perspective = Annotated[
    str,
    Query(
        pattern=r"^(open|public|[0-9])$",
        description="open (every rank), public (a spectator's view) or a seat number",
    ),
]


@lru_cache(maxsize=8)
def _history(record_json: str) -> tuple[tuple[GameState, tuple[Event, ...]], ...]:
    """Every state of a finished game with the events that led to it (kept for the few games
    being replayed: a replay viewer asks for one step after another)."""
    return tuple(
        (state, tuple(events)) for state, events in history(GameRecord.from_json(record_json))
    )


def _viewer(perspective: str, state: GameState) -> int | None:
    if perspective in ("open", "public"):
        return None
    seat = int(perspective)
    if seat not in state.variant.seats:
        raise HTTPException(422, f"no seat {seat} in {state.variant.key}")
    return seat


@router.get("/{game_id}/replay/{step}", responses=REFUSALS | NOT_FOUND)
async def replay_step(
    game_id: GameId, step: int, session: Session, perspective: Perspective = "open"
) -> dict[str, Any]:
    """The game after ``step`` recorded actions, as ``perspective`` saw it then: with every
    rank shown (open), as spectators saw it (public), or as a seat did (exactly that seat's
    view at that moment)."""
    game = await _finished(session, game_id)
    assert game.record is not None
    steps = _history(game.record)
    if not 0 <= step < len(steps):
        raise HTTPException(422, f"step is between 0 and {len(steps) - 1}")
    state = steps[step][0]
    viewer = _viewer(perspective, state)
    seen = view(state, viewer)
    if perspective == "open" and state.position is not None:  # every rank shown
        seen["pieces"] = open_pieces(state)
    return {"step": step, "steps": len(steps) - 1, "state": seen}


@router.get("/{game_id}/moves", responses=REFUSALS | NOT_FOUND)
async def moves(
    game_id: GameId, session: Session, perspective: Perspective = "open"
) -> list[dict[str, Any]]:
    """Every recorded action's events, step by step (step n: the action that led to the state
    after n actions), as ``perspective`` was told of them: for a replay's move list."""
    game = await _finished(session, game_id)
    assert game.record is not None
    steps = _history(game.record)
    viewer = _viewer(perspective, steps[0][0])
    out = []
    for n, (_, events) in enumerate(steps[1:], 1):
        if perspective == "open":
            told = [e.revealed() for e in events]
        else:
            told = [seen for e in events if (seen := e.for_viewer(viewer)) is not None]
        out.append({"step": n, "events": told})
    return out


@router.get("/{game_id}/marks/{step}", responses=REFUSALS | NOT_FOUND)
async def own_marks(
    game_id: GameId, step: int, user: CurrentUser, session: Session
) -> dict[str, Any]:
    """The caller's own private marks (标记) at ``step`` of a finished game they played, by
    station, where the pieces stood then: for their replay from their own seat. Nobody
    else's marks are ever served (404 for a game the caller did not play)."""
    game = await _finished(session, game_id)
    assert game.record is not None
    seat = await session.scalar(
        select(GameSeat.seat).where(GameSeat.game_id == game_id, GameSeat.user_id == user.id)
    )
    if seat is None:
        raise HTTPException(404, f"you played no seat of game {game_id!r}")
    steps = _history(game.record)
    if not 0 <= step < len(steps):
        raise HTTPException(422, f"step is between 0 and {len(steps) - 1}")
    changes = (await marks.changes_of(session, game_id, seat)).get(seat, [])
    shown = marks.replay_marks(steps, changes, step) if changes else {}
    return {"seat": seat, "step": step, "marks": shown}
