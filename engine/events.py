"""Events: what happened in a game, with each secret tagged with who may see it.

An event's ``data`` is public. Each entry of ``secrets`` carries its audience: the seats that may
see it, or ``None`` for everyone (spectators included). ``event_for`` gives a viewer exactly the
part they may see; the server only ever sends that.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

Audience = frozenset[int] | None  # None: everyone, spectators included


@dataclass(frozen=True, slots=True)
class Event:
    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    secrets: Mapping[str, tuple[Any, Audience]] = field(default_factory=dict)
    audience: Audience = None  # who receives the event at all

    def for_viewer(self, viewer: int | None) -> dict[str, Any] | None:
        """The event as ``viewer`` (a seat, or None for a spectator) may see it, or None."""
        if not sees(self.audience, viewer):
            return None
        out = {"kind": self.kind, **self.data}
        for name, (value, audience) in self.secrets.items():
            if sees(audience, viewer):
                out[name] = value
        return out

    def revealed(self) -> dict[str, Any]:
        """The event with every secret in it: for a finished game, where nothing is hidden
        any more (its open replay)."""
        return {"kind": self.kind, **self.data, **{k: v for k, (v, _) in self.secrets.items()}}

    def to_dict(self) -> dict[str, Any]:
        """The whole event, secrets and audiences included (for keeping, never for a viewer)."""
        return {
            "kind": self.kind,
            "data": dict(self.data),
            "secrets": {
                name: [value, _audience_list(audience)]
                for name, (value, audience) in self.secrets.items()
            },
            "audience": _audience_list(self.audience),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        return cls(
            data["kind"],
            data["data"],
            {name: (value, _audience(seats)) for name, (value, seats) in data["secrets"].items()},
            _audience(data["audience"]),
        )


def _audience_list(audience: Audience) -> list[int] | None:
    return None if audience is None else sorted(audience)


def _audience(seats: list[int] | None) -> Audience:
    return None if seats is None else frozenset(seats)


def sees(audience: Audience, viewer: int | None) -> bool:
    return audience is None or (viewer is not None and viewer in audience)
