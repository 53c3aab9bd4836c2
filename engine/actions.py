"""Actions: everything a player (or the platform, for clocks and escapes) can do to a game.

Every action carries ``now``, the caller's clock in seconds: the engine never reads a clock.
``action_to_dict`` / ``action_from_dict`` give the JSON form used by records and the wire.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import MalformedInput


@dataclass(frozen=True, slots=True)
class PlaceLayout:
    """Set a seat's layout while deploying; ``confirm`` (出征) makes it final and must be legal."""

    seat: int
    layout: Mapping[str, str]
    confirm: bool = True
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class Deadline:
    """A phase deadline passed: whoever has not decided gets the default (an automatic layout,
    a random colour pick, no redeal, a pass; a random HQ for a flag not raised in time)."""

    now: float = 0.0


@dataclass(frozen=True, slots=True)
class PickColour:
    """乱战: take the set-aside engineer of ``colour`` and the hand paired with it."""

    seat: int
    colour: int
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class AnswerRedeal:
    """乱战: ask for a redeal (only with no 司令, 军长 or 师长 in the hand) or keep the deal."""

    seat: int
    redeal: bool
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class Bid:
    """三打一: 0 passes; 1, 2 or 3 contracts to eliminate that many idle players."""

    seat: int
    level: int
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class RaiseFlag:
    """乱战: after the last 司令 died, choose the HQ that stands for the flag (升军旗)."""

    seat: int
    station: str
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class Flip:
    """翻棋: turn a face-down piece face up."""

    seat: int
    station: str
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class Move:
    seat: int
    origin: str
    target: str
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class Pause:
    """The platform pauses play (三打一: a player is away); every clock stops."""

    now: float = 0.0


@dataclass(frozen=True, slots=True)
class Resume:
    """Play goes on; every deadline moves on by the time the game stood still, and ``bonus``
    seconds more (the platform's grace after a restart: its own field, so that the record's
    times run forward)."""

    now: float = 0.0
    bonus: float = 0.0


@dataclass(frozen=True, slots=True)
class Timeout:
    """The seat to move let its clock run out (贻误战机): its turn is forfeited."""

    now: float = 0.0


@dataclass(frozen=True, slots=True)
class ProposeDraw:
    seat: int
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class AnswerProposal:
    """Accept or decline the pending proposal (a draw, or a surrender that needs consent)."""

    seat: int
    accept: bool
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class Surrender:
    seat: int
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class Escape:
    """The platform declares an escape (逃跑): the seat left or did not come back in time."""

    seat: int
    now: float = 0.0


Action = (
    PlaceLayout
    | Deadline
    | PickColour
    | AnswerRedeal
    | Bid
    | RaiseFlag
    | Flip
    | Move
    | Pause
    | Resume
    | Timeout
    | ProposeDraw
    | AnswerProposal
    | Surrender
    | Escape
)

ACTION_TYPES: dict[str, type[Action]] = {
    "place_layout": PlaceLayout,
    "deadline": Deadline,
    "pick_colour": PickColour,
    "answer_redeal": AnswerRedeal,
    "bid": Bid,
    "raise_flag": RaiseFlag,
    "flip": Flip,
    "move": Move,
    "timeout": Timeout,
    "pause": Pause,
    "resume": Resume,
    "propose_draw": ProposeDraw,
    "answer_proposal": AnswerProposal,
    "surrender": Surrender,
    "escape": Escape,
}
_TYPE_NAMES = {cls: name for name, cls in ACTION_TYPES.items()}
# the actions only the platform takes (the clock, a restart, a disconnection), never a player
PLATFORM_ACTIONS = frozenset({"deadline", "pause", "resume", "timeout", "escape"})


def action_to_dict(action: Action) -> dict[str, Any]:
    """The JSON form of an action: ``{"type": ..., field: value, ...}``."""
    data: dict[str, Any] = {"type": _TYPE_NAMES[type(action)]}
    for f in dataclasses.fields(action):
        value = getattr(action, f.name)
        data[f.name] = dict(value) if isinstance(value, Mapping) else value
    return data


_FIELD_TYPES = {
    "seat": int,
    "origin": str,
    "target": str,
    "station": str,
    "confirm": bool,
    "accept": bool,
    "redeal": bool,
    "colour": int,
    "level": int,
}


def action_from_dict(data: Mapping[str, Any]) -> Action:
    """Parse the JSON form of an action; MalformedInput says what is wrong with it."""
    if not isinstance(data, Mapping):
        raise MalformedInput("an action is a JSON object")
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None  # a list cannot be hashed
    if cls is None:
        raise MalformedInput(f"unknown action type {data.get('type')!r}")
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            if f.default is dataclasses.MISSING:
                raise MalformedInput(f"{data['type']}: missing field {f.name!r}")
            continue
        values[f.name] = _check_field(str(data["type"]), f.name, data[f.name])
    unknown = set(data) - {"type"} - set(values)
    if unknown:
        raise MalformedInput(f"{data['type']}: unknown fields {sorted(unknown)}")
    return cls(**values)


def _check_field(kind: str, name: str, value: Any) -> Any:
    if name in ("now", "bonus"):
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            raise MalformedInput(f"{kind}: {name!r} is a number of seconds")
        if name == "bonus" and not 0 <= value <= 3600:
            raise MalformedInput(f"{kind}: 'bonus' is 0-3600 seconds")
        return float(value)
    if name == "layout":
        if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            raise MalformedInput(f"{kind}: 'layout' maps station ids to rank keys")
        return dict(value)
    expected = _FIELD_TYPES[name]
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        raise MalformedInput(f"{kind}: {name!r} must be {expected.__name__}, not {value!r}")
    return value
