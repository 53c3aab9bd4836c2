"""Game records: rules + seed + layouts + the action log, saved as JSON and replayed exactly.

A record starts where play starts: every seat's layout is known, and the actions (with their
times) follow. ``replay`` rebuilds the final state; ``states`` yields the state after each action
(step 0 is the position before the first move), which is what a replay viewer steps through.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engine.actions import Action, action_from_dict, action_to_dict
from engine.errors import MalformedInput
from engine.game import GameState, apply, start_from

RECORD_FORMAT = "junqi-record/1"


@dataclass(frozen=True, slots=True)
class GameRecord:
    variant: str
    options: Mapping[str, Any]  # every rule option, as JSON values
    seed: str
    host: int
    started_at: float
    layouts: tuple[Mapping[str, str], ...]
    actions: tuple[Action, ...]

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": RECORD_FORMAT,
                "variant": self.variant,
                "options": dict(self.options),
                "seed": self.seed,
                "host": self.host,
                "started_at": self.started_at,
                "layouts": [dict(layout) for layout in self.layouts],
                "actions": [action_to_dict(a) for a in self.actions],
            },
            ensure_ascii=False,
            indent=1,
        )

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise MalformedInput(f"a record is JSON: {e}") from None
        if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
            raise MalformedInput(f"not a {RECORD_FORMAT} record")
        try:
            return cls(
                variant=str(data["variant"]),
                options=dict(data["options"]),
                seed=str(data["seed"]),
                host=int(data["host"]),
                started_at=float(data["started_at"]),
                layouts=tuple(dict(layout) for layout in data["layouts"]),
                actions=tuple(action_from_dict(a) for a in data["actions"]),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise MalformedInput(f"a record field is missing or wrong: {e}") from None


def record_of(state: GameState) -> GameRecord:
    """The record of a game that has started (or finished)."""
    if state.started_at is None:
        raise MalformedInput("a game has a record once play has started")
    return GameRecord(
        variant=state.variant.key,
        options=state.rules.to_dict(),
        seed=state.seed,
        host=state.host,
        started_at=state.started_at,
        layouts=tuple({sid: r.value for sid, r in layout.items()} for layout in state.layouts),
        actions=state.log,
    )


def states(record: GameRecord) -> Iterator[GameState]:
    """The state when play starts, then the state after each recorded action."""
    pieces = {
        sid: (seat, rank)
        for seat, layout in enumerate(record.layouts)
        for sid, rank in layout.items()
    }
    state, _ = start_from(
        record.variant,
        pieces,
        seed=record.seed,
        host=record.host,
        options=record.options,
        now=record.started_at,
    )
    yield state
    for action in record.actions:
        state, _ = apply(state, action)
        yield state


def replay(record: GameRecord) -> GameState:
    """The final state of a recorded game."""
    return deque(states(record), maxlen=1)[0]


def state_after(record: GameRecord, step: int) -> GameState:
    """The state after ``step`` recorded actions (0: before the first move)."""
    if not 0 <= step <= len(record.actions):
        raise MalformedInput(f"a step between 0 and {len(record.actions)}")
    for n, state in enumerate(states(record)):
        if n == step:
            return state
    raise AssertionError("unreachable")
