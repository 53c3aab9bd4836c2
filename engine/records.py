"""Game records: rules + seed + the action log, saved as JSON and replayed exactly.

A record holds the variant, every rule option, the seed (which makes every deal part of the
record), the host, the creation time, the set-up position of a game made by ``start_from``, the
layouts the game started with (for readers) and every action applied, with its time. ``replay``
rebuilds the final state; ``states`` yields the state after each action (step 0 is the new game),
which is what a replay viewer steps through, and ``history`` the same with each action's events.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engine.actions import Action, action_from_dict, action_to_dict
from engine.errors import MalformedInput
from engine.events import Event
from engine.game import apply, new_game, start_from
from engine.pieces import piece_key
from engine.rulebooks import rulebook_of
from engine.state import GameState
from engine.variants import get_variant

RECORD_FORMAT = "junqi-record/2"


@dataclass(frozen=True, slots=True)
class GameRecord:
    variant: str
    options: Mapping[str, Any]  # every rule option, as JSON values
    seed: str
    host: int
    created_at: float
    setup: Mapping[str, Any] | None  # a set-up game's pieces and set-up value (``GameState``)
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
                "created_at": self.created_at,
                "setup": None if self.setup is None else dict(self.setup),
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
            setup = data["setup"]
            if setup is not None and not isinstance(setup, dict):
                raise TypeError("setup is an object")
            return cls(
                variant=str(data["variant"]),
                options=dict(data["options"]),
                seed=str(data["seed"]),
                host=int(data["host"]),
                created_at=float(data["created_at"]),
                setup=setup,
                layouts=tuple(dict(layout) for layout in data["layouts"]),
                actions=tuple(action_from_dict(a) for a in data["actions"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise MalformedInput(f"a record field is missing or wrong: {e}") from None


def record_of(state: GameState) -> GameRecord:
    """The record of a game so far (a finished game's is a full replay)."""
    return GameRecord(
        variant=state.variant.key,
        options=state.rules.to_dict(),
        seed=state.seed,
        host=state.host,
        created_at=state.created_at,
        setup=state.setup,
        layouts=tuple({sid: piece_key(p) for sid, p in layout.items()} for layout in state.layouts),
        actions=tuple(state.log),
    )


def states(record: GameRecord) -> Iterator[GameState]:
    """The state the record starts from, then the state after each recorded action."""
    for state, _ in history(record):
        yield state


def history(record: GameRecord) -> Iterator[tuple[GameState, list[Event]]]:
    """``states``, each with the events of the action that led to it (none for the first)."""
    if record.setup is not None:
        book = rulebook_of(get_variant(record.variant))
        state, _ = start_from(
            record.variant,
            record.setup["pieces"],
            setup=book.read_setup(record.setup),
            seed=record.seed,
            host=record.host,
            options=record.options,
            now=record.created_at,
        )
    else:
        state = new_game(
            record.variant,
            seed=record.seed,
            host=record.host,
            options=record.options,
            now=record.created_at,
        )
    yield state, []
    for action in record.actions:
        state, events = apply(state, action)
        yield state, events


def replay(record: GameRecord) -> GameState:
    """The final state of a recorded game."""
    return deque(states(record), maxlen=1)[0]


def state_after(record: GameRecord, step: int) -> GameState:
    """The state after ``step`` recorded actions (0: where the record starts)."""
    if not 0 <= step <= len(record.actions):
        raise MalformedInput(f"a step between 0 and {len(record.actions)}")
    for n, state in enumerate(states(record)):
        if n == step:
            return state
    raise AssertionError("unreachable")
