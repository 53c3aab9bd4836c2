"""The working game: a mutable copy of a ``GameState`` inside ``apply``, frozen back into the next
state, with the steps every part of the state machine shares — events, the checks of an action's
seat and phase, counting moves, eliminations and the end of the game.

``engine.game`` assembles the whole machine over it: ``engine.turns`` (turns, clocks, skips,
escapes), ``engine.flags`` (flags shown, taken and raised), ``engine.play`` (moves and fights),
``engine.deploying`` (layouts and the start of play) and ``engine.proposals`` (draws, surrender,
escape). Each is a layer of the working game's class, which calls the variant's rulebook
(``book``) at fixed points.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Iterable, Mapping
from typing import Any

from engine.errors import IllegalAction, MalformedInput
from engine.events import Audience, Event
from engine.outcome import Elimination, EliminationReason, EndReason, GameResult
from engine.pieces import Piece, piece_key
from engine.position import Position
from engine.rulebook import Out, Rulebook
from engine.rulebooks import rulebook_of
from engine.state import (
    ActionLog,
    DealState,
    FlagWatch,
    FlipState,
    GameState,
    Phase,
    Proposal,
    Reveals,
    SeatState,
    Tracking,
)
from engine.tracker import follow
from engine.variants import RuleOptions, TurnDirection, Variant
from engine.visibility import open_pieces, rank_audience

_LISTS = ("drafts", "seats", "watches")  # tuples in GameState, lists while being worked on
_FIELDS = tuple(f.name for f in dataclasses.fields(GameState))
_LIST_AT = tuple(_FIELDS.index(name) for name in _LISTS)
_VALUES = operator.attrgetter(*_FIELDS)  # every field at once: a copy is made for every action


class Working:
    """A mutable working copy of a GameState, used inside ``apply`` only: one attribute per
    GameState field (lists where the state holds tuples), frozen back into a new state; and the
    steps the rest of the state machine shares."""

    state: GameState
    book: Rulebook
    variant: Variant
    rules: RuleOptions
    seed: str
    host: int
    first: int
    teams: tuple[int, ...]
    phase: Phase
    deadline: float
    deal: DealState
    drafts: list[Mapping[str, str] | None]
    confirmed: frozenset[int]
    layouts: tuple[Mapping[str, Piece], ...]
    position: Position | None
    to_move: int | None
    seats: list[SeatState]
    started_at: float | None
    total_moves: int
    quiet_moves: int
    reveals: Reveals
    watches: list[FlagWatch]
    flip: FlipState | None
    proposal: Proposal | None
    result: GameResult | None
    log: ActionLog
    paused_since: float | None
    tracks: Tracking | None

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.book = rulebook_of(state.variant)
        self.__dict__.update(zip(_FIELDS, _VALUES(state), strict=True))
        self.drafts = list(state.drafts)
        self.seats = list(state.seats)
        self.watches = list(state.watches)
        self.events: list[Event] = []

    def freeze(self) -> GameState:
        """The working copy as a new state, linked to the one before for the 记牌 counts."""
        self.tracks = follow(self.state, self, self.events)
        values = list(_VALUES(self))
        for i in _LIST_AT:
            values[i] = tuple(values[i])
        return GameState(*values)

    # --- helpers ------------------------------------------------------------------------------

    @property
    def pos(self) -> Position:
        assert self.position is not None
        return self.position

    def emit(self, kind: str, audience: Audience = None, **data: Any) -> None:
        self.events.append(Event(kind, data, audience=audience))

    def check_seat(self, seat: int) -> None:
        if isinstance(seat, bool) or seat not in self.variant.seats:
            raise MalformedInput(f"no seat {seat!r} in {self.variant.key}")

    def require(self, phase: Phase) -> None:
        if self.phase != phase:
            raise IllegalAction(f"not possible while the game is {self.phase.value}")

    def alive(self, seat: int) -> bool:
        return self.seats[seat].elimination is None

    def team_alive(self, team: int) -> bool:
        return any(self.alive(s) for s, t in enumerate(self.teams) if t == team)

    @property
    def step(self) -> int:
        return 1 if self.rules.turn_direction == TurnDirection.CLOCKWISE else -1

    def next_seat(self, seat: int) -> int:
        return (seat + self.step) % len(self.seats)

    def set_seat(self, seat: int, **changes: Any) -> None:
        self.seats[seat] = dataclasses.replace(self.seats[seat], **changes)

    def audience(self, index: int) -> Audience:
        return rank_audience(self, index)

    def count_move(self, seat: int, quiet: bool) -> None:
        """Count a move of ``seat``: ``quiet`` ones, without combat, towards the draw limit."""
        self.set_seat(seat, moves=self.seats[seat].moves + 1)
        self.total_moves += 1
        self.quiet_moves = self.quiet_moves + 1 if quiet else 0

    def start_deploying(self, now: float) -> None:
        """The deploying phase begins (after a variant's own phases before it)."""
        self.phase = Phase.DEPLOYING
        self.deadline = now + self.rules.deploy_seconds
        self.emit("deploying", deadline=self.deadline)

    def expire_proposal(self) -> None:
        """A proposal lapses when the turn passes unanswered [decision]."""
        if self.proposal is not None:
            self.proposal = None
            self.emit("proposal_cancelled", reason="the turn passed")

    # --- eliminations and the end -------------------------------------------------------------

    def eliminate(
        self,
        seat: int,
        reason: EliminationReason,
        victor: int | None,
        decide: bool = True,
    ) -> None:
        """Take the seat out; unless ``decide`` is False, end the game if that decides it."""
        order = 1 + sum(not s.alive for s in self.seats)
        self.set_seat(seat, elimination=Elimination(reason, victor, order, self.total_moves))
        if self.watches and self.watches[seat].raise_by is not None:
            self.watches[seat] = dataclasses.replace(self.watches[seat], raise_by=None)
        mine = None if self.position is None else self.book.piece_seat(self, seat)
        if mine is not None:  # its pieces leave (docs/rules.md §7)
            gone = {i for i, p in self.pos.indexed() if p.seat == mine}
            self.position = self.pos.without_seat(mine)
            self.reveals = self.reveals.without(gone)
            self.flip = self.book.flip_after_removal(self, gone)
        self.emit("eliminated", seat=seat, reason=reason.value, victor=victor)
        if self.proposal is not None:
            self.proposal = None
            self.emit("proposal_cancelled", reason="a player was eliminated")
        winners = self.decided() if decide else None
        if winners is not None:
            self.finish(EndReason.ELIMINATION, winners)

    def put_out(self, outs: Iterable[Out]) -> None:
        """Eliminate the seats a variant's own ways to win put out, in order, while the game
        lasts (``Rulebook.outs``)."""
        for out in outs:
            if self.phase != Phase.PLAYING:
                return
            self.events += out.news
            self.eliminate(out.seat, out.reason, out.victor)

    def decided(self) -> tuple[int, ...] | None:
        """The winning seats once the game is decided, else None."""
        return self.book.decided(self)

    def finish(self, reason: EndReason, winners: tuple[int, ...]) -> None:
        self.phase = Phase.FINISHED
        self.to_move = None
        self.proposal = None
        self.result = self.book.score(self, reason, winners)
        pieces = open_pieces(self)
        layouts = [{sid: piece_key(p) for sid, p in layout.items()} for layout in self.layouts]
        self.emit(
            "game_over",
            result=self.result.to_dict(),
            pieces=pieces,
            layouts=layouts,
            seed=self.seed,
        )
