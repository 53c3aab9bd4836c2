"""The game driver: a table's current game as the engine plays it, and its numbered events.

It holds the engine state, the game's players, the events numbered per table (kept as text,
``server.keeping``, and those still to send), how much of it is kept, and how the last game
was scored; it steps the engine, turns the engine's refusals into the table's error codes,
reads a player's action from JSON, and says what falls due on the clock. The plain core: the
table (``server.tables``) keeps and sends what it makes.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import replace
from typing import Any

import engine
from engine import (
    EndReason,
    Event,
    GameResult,
    GameState,
    Phase,
    PointsUnit,
    RuleOptions,
    SeatOutcome,
    SeatResult,
)
from server.errors import TableError
from server.keeping import KeptTable, event_of, kept_event

PLAYING_PHASES = (Phase.PICKING, Phase.REDEALING, Phase.BIDDING, Phase.DEPLOYING, Phase.PLAYING)
# the engine's refusals of an action, as the table's error codes
REFUSALS: tuple[tuple[type[engine.EngineError], str], ...] = (
    (engine.NotYourTurn, "not_your_turn"),
    (engine.GamePaused, "paused"),
    (engine.IllegalLayout, "illegal_layout"),
    (engine.IllegalAction, "illegal"),
    (engine.MalformedInput, "malformed"),
)


def dissolved(state: GameState) -> GameState:
    """The game ended by a moderator's decision (docs/rules.md §11: a kick without penalty,
    or a dissolved game): a draw in which nobody scores. Not an engine action, as no player
    can take it; the record stops at the last move."""
    result = GameResult(
        EndReason.DISSOLVED,
        (),
        tuple(
            SeatResult(seat, SeatOutcome.DRAW, 0, s.moves, s.elimination)
            for seat, s in enumerate(state.seats)
        ),
        PointsUnit.STAKE,
    )
    return replace(state, phase=Phase.FINISHED, to_move=None, proposal=None, result=result)


class GameDriver:
    def __init__(self) -> None:
        self.state: GameState | None = None
        self.game_id: str | None = None
        self.players: list[int | None] = []  # user ids of the current game's seats
        self.shared = False  # its seats shared an address or a device when it began
        self.seq = 0  # the number of the table's last event
        # the current game's events as kept (``kept_event``), numbered on from ``log_start``:
        # bare texts, not (number, text) pairs, which the collector would go through once more
        self.log: list[str] = []
        self.log_start = 1
        self.unsent: list[tuple[int, Event]] = []  # events of the running command
        self.saved_actions = 0  # of the game's actions, how many are kept
        self.saved_events = 0  # of the log, how many events are kept
        self.acted_at = 0.0  # when the last action was applied
        self.stood_in: set[int] = set()  # seats a bot played for in this game
        self.clocks_held = False  # paused for the platform's fault (``Table.hold_clocks``)
        self.last_points: list[int] = []
        self.scoring: dict[str, Any] | None = None  # how the last game was scored

    @property
    def in_game(self) -> bool:
        return self.state is not None and self.state.phase in PLAYING_PHASES

    @property
    def status(self) -> str:
        """The table's status as listed: "waiting" (no game yet), "playing", "finished"."""
        if self.in_game:
            return "playing"
        return "finished" if self.state is not None else "waiting"

    @property
    def playing(self) -> bool:
        """In play proper (not before it), and not paused."""
        state = self.state
        return state is not None and state.phase == Phase.PLAYING and state.paused_since is None

    def alive(self, seat: int) -> bool:
        """Whether ``seat`` is still in the running game."""
        return self.in_game and self.state is not None and self.state.seats[seat].alive

    def begin(
        self,
        variant: str,
        rules: RuleOptions,
        host: int,
        players: list[int | None],
        seed: str,
        shared: bool,
    ) -> None:
        """A new game of ``variant`` dealt from ``seed``, ``host`` first; its events are
        numbered on from the table's."""
        self.players, self.shared = players, shared
        self.game_id = uuid.uuid4().hex
        self.state = engine.new_game(variant, seed=seed, host=host, rules=rules, now=time.time())
        self.log, self.log_start = [], self.seq + 1
        self.saved_actions = self.saved_events = 0
        self.stood_in = set()

    def step(self, action: engine.Action) -> list[Event]:
        """Apply ``action`` to the game; the engine's refusal as a ``TableError``. Each event
        carries its ``ply``: the number of the game's recorded actions with this one, the step
        at which a replay shows it (docs/protocol.md)."""
        assert self.state is not None
        try:
            self.state, events = engine.apply(self.state, action)
        except engine.EngineError as error:
            code = next((c for kind, c in REFUSALS if isinstance(error, kind)), None)
            if code is None:
                raise
            raise TableError(code, str(error)) from None
        ply = len(self.state.log)
        return [replace(e, data={**e.data, "ply": ply}) for e in events]

    def parse(self, seat: int, action: dict[str, Any]) -> engine.Action:
        """A player's action for ``seat`` from its JSON (every player action names its seat:
        the player's own), made now."""
        kind = action.get("type")
        if isinstance(kind, str) and kind in engine.PLATFORM_ACTIONS:  # a list: not hashable
            raise TableError("not_allowed", "the clock and the platform send those")
        payload = {**action, "now": time.time()}
        if "seat" in payload and payload["seat"] != seat:
            raise TableError("not_your_seat", f"you play seat {seat}")
        payload["seat"] = seat
        try:
            return engine.action_from_dict(payload)
        except engine.MalformedInput as error:
            raise TableError("malformed", str(error)) from None

    def record(self, events: list[Event]) -> list[tuple[int, Event]]:
        """Number ``events`` on, into the log and those to send; returns them numbered."""
        numbered = []
        for event in events:
            self.seq += 1
            numbered.append((self.seq, event))
        self.log += [kept_event(event) for _, event in numbered]
        self.unsent += numbered
        return numbered

    def mark(self) -> tuple[GameState | None, int, int, int]:
        """Where the game stands, to ``rollback`` to."""
        return self.state, self.seq, len(self.log), len(self.unsent)

    def rollback(self, mark: tuple[GameState | None, int, int, int]) -> None:
        self.state, self.seq, logged, unsent = mark
        del self.log[logged:], self.unsent[unsent:]

    def kept(self) -> None:
        """Everything so far is kept."""
        assert self.state is not None
        self.saved_actions, self.saved_events = len(self.state.log), len(self.log)

    def unkept_events(self) -> list[tuple[int, str]]:
        """The log's events not kept yet, numbered."""
        start = self.log_start + self.saved_events
        return list(enumerate(self.log[self.saved_events :], start))

    def missed(self, since: int | None) -> list[tuple[int, Event]]:
        """The events after number ``since`` (none if None), for a socket that comes back."""
        if since is None:
            return []
        return [
            (seq, event_of(kept))
            for seq, kept in enumerate(self.log, self.log_start)
            if seq > since
        ]

    def restore(self, kept: KeptTable, seq: int) -> None:
        """Take back a kept game, its events numbered up to ``seq``."""
        self.seq = seq
        self.state = engine.replay(kept.record)
        self.log = [text for _, text in kept.events]
        self.log_start = kept.events[0][0] if kept.events else self.seq + 1
        self.saved_actions, self.saved_events = len(kept.record.actions), len(self.log)

    def clocked(self) -> GameState | None:
        """The running game's state while its clocks run (not paused), else None."""
        state = self.state
        if state is None or state.phase not in PLAYING_PHASES or state.paused_since is not None:
            return None
        return state

    def deadlines(self) -> list[float]:
        """The times the running game waits for (none while paused)."""
        state = self.clocked()
        if state is None:
            return []
        return [state.deadline, *(w.raise_by for w in state.watches if w.raise_by is not None)]

    def due(self, now: float) -> engine.Action | None:
        """What the clock does at ``now``: a phase's deadline passed, a flag-raise's time ran
        out, or the mover's clock ran out; None if nothing is due."""
        state = self.clocked()
        if state is None:
            return None
        if any(w.raise_by is not None and w.raise_by <= now for w in state.watches) or (
            state.phase != Phase.PLAYING and now >= state.deadline
        ):
            return engine.Deadline(now=now)
        if state.phase == Phase.PLAYING and now >= state.deadline:
            return engine.Timeout(now=now)
        return None

    def dissolve(self) -> None:
        assert self.state is not None
        self.state = dissolved(self.state)
