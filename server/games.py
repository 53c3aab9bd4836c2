"""Game records and replays (REST). A finished game's record is public, a running one's not."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query
from sqlalchemy import select

from engine import GameRecord, state_after, view
from server.accounts import NO_NUL, NOT_FOUND, REFUSALS, Session
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
        seats = await session.execute(
            select(GameSeat, User.name)
            .join(User, User.id == GameSeat.user_id, isouter=True)
            .where(GameSeat.game_id == game.id)
            .order_by(GameSeat.seat)
        )
        out.append(
            {
                "id": game.id,
                "variant": game.variant,
                "room": game.room,
                "status": game.status,
                "commitment": game.commitment,
                "seed": game.seed,
                "created_at": game.created_at.isoformat(),
                "players": [
                    {"seat": s.seat, "name": name, "outcome": s.outcome, "points": s.points}
                    for s, name in seats.all()
                ],
            }
        )
    return out


@router.get("/{game_id}/record", responses=NOT_FOUND)
async def record(game_id: GameId, session: Session) -> dict[str, Any]:
    """The full record (rules, seed, every action) of a finished game."""
    game = await _finished(session, game_id)
    assert game.record is not None
    return {
        "record": json.loads(game.record),
        "result": json.loads(game.result or "null"),
    }


@router.get("/{game_id}/replay/{step}", responses=REFUSALS | NOT_FOUND)
async def replay_step(game_id: GameId, step: int, session: Session) -> dict[str, Any]:
    """The game after ``step`` recorded actions, everything revealed (the game is over)."""
    game = await _finished(session, game_id)
    assert game.record is not None
    rec = GameRecord.from_json(game.record)
    if not 0 <= step <= len(rec.actions):
        raise HTTPException(422, f"step is between 0 and {len(rec.actions)}")
    state = state_after(rec, step)
    seen = view(state, None)
    if state.position is not None:  # a replay shows every rank
        seen["pieces"] = [
            {
                "station": state.variant.board.stations[i],
                "seat": p.seat,
                "army": p.colour,
                "rank": p.rank.value,
            }
            for i, p in state.position.indexed()
        ]
    return {"step": step, "steps": len(rec.actions), "state": seen}
