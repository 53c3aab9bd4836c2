"""Small helpers for scripted games."""

from __future__ import annotations

from typing import Any

import engine
from engine import Event, GameState

Pieces = dict[str, tuple[int, str]]


def setup(variant: str, pieces: Pieces, host: int = 0, **options: Any) -> GameState:
    """A game in play from a set-up position at time 0, the host to move."""
    state, _ = engine.start_from(variant, pieces, seed="test", host=host, options=options)
    return state


def act(state: GameState, action: engine.Action) -> tuple[GameState, list[Event]]:
    return engine.apply(state, action)


def move(state: GameState, origin: str, target: str, now: float = 1.0) -> GameState:
    assert state.to_move is not None
    return engine.apply(state, engine.Move(state.to_move, origin, target, now=now))[0]


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def ranks_seen(state: GameState, viewer: int | None) -> dict[str, str]:
    """``{station: rank}`` of every piece whose rank ``viewer`` sees in its view."""
    return {p["station"]: p["rank"] for p in engine.view(state, viewer)["pieces"] if "rank" in p}
