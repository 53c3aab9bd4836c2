"""Private marks (标记): a player's guesses written on hidden enemy pieces (炸?, 司令, a label).

A mark belongs to one seat of one game and to that seat's player alone: it is kept in the
database (``models.MarkEntry``, one row per change) and sent only on the player's own broker
topic (``messages.user_topic``) and in the answer to the player's own ``open``; never in an
update, an event, the game's record or a log line, which others read.

A mark follows its piece: it is put where the piece stands after ``step`` recorded actions, moved
with each ``moved`` event of the piece, and gone when the piece is (its station empty after a
step: a lost fight, an elimination). The table follows the marks of its running game as it plays
(``SeatMarks``); a table taken back after a restart or from another process, and a replay, fold
the rows over the game's history (``fold``), which gives the marks as they were at every step.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import engine
from engine import Event, GameState, Phase, Rank, Variant
from engine.deal import SANDAYI_EXTRAS
from server import inbound, outbound
from server.errors import TableError
from server.models import MarkEntry

LABEL_CHARS = 4  # a free label's length at most, once cleaned: it is drawn on the piece
CHANGES_PER_SEAT = 300  # of a seat's marks in one game, set or cleared: a bound on its rows
_RANK_ORDER = {rank.value: n for n, rank in enumerate(Rank)}

Marks = dict[str, str]  # station id -> a rank key or a label


@dataclass(frozen=True)
class Change:
    """A row of ``MarkEntry``: at ``step``, the piece on ``station`` got ``mark`` (None: none)."""

    step: int
    station: str
    mark: str | None


def follow(marks: Marks, events: Iterable[Event], state: GameState) -> Marks:
    """``marks`` after one step that made ``events`` and led to ``state``: a mark moves with its
    piece, and goes with it (a fight lost; a station left empty, as by an elimination)."""
    out = dict(marks)
    for event in events:
        if event.kind != "moved":
            continue
        origin, target, outcome = event.data["origin"], event.data["target"], event.data["outcome"]
        moving = out.pop(origin, None)
        if outcome in ("attacker", "both"):
            out.pop(target, None)  # the defender died
        if moving is not None and outcome in (None, "attacker"):
            out[target] = moving
    position = state.position
    if position is None:
        return {}
    return {station: mark for station, mark in out.items() if position.piece_at(station)}


def fold(
    history: Iterable[tuple[GameState, Sequence[Event]]], changes: Sequence[Change]
) -> Iterator[Marks]:
    """The marks after each step of ``history`` (the game's states with the events that led to
    each, ``engine.history``), the ``changes`` put in at their steps."""
    marks: Marks = {}
    pending = sorted(changes, key=lambda c: c.step)  # stable: in the order they were made
    at = 0
    for step, (state, events) in enumerate(history):
        marks = follow(marks, events, state) if step else marks
        while at < len(pending) and pending[at].step <= step:
            marks = put(marks, pending[at])
            at += 1
        yield marks


def put(marks: Marks, change: Change) -> Marks:
    out = dict(marks)
    if change.mark is None:
        out.pop(change.station, None)
    else:
        out[change.station] = change.mark
    return out


def choices(variant: Variant) -> list[str]:
    """The ranks a mark may name: those a game of ``variant`` may hold (a 三打一 banker's 帅,
    导弹 and 堡垒 too), in rank order. Of the variant, never of the game: which pieces a dealt
    hand holds is hidden."""
    ranks = {rank.value for rank in variant.army}
    if variant.dealing == "sandayi":
        ranks |= {rank.value for rank, _ in SANDAYI_EXTRAS}
    return sorted(ranks, key=_RANK_ORDER.__getitem__)


def cleaned(state: GameState, mark: str | None) -> str | None:
    """``mark`` as kept: a rank key of the game, or a label cleaned as chat lines are and at
    most ``LABEL_CHARS`` long; None clears. ``TableError`` (``bad_mark``) else."""
    if mark is None or mark in choices(state.variant):
        return mark
    label = inbound.chat_text(mark)
    if not label or len(label) > LABEL_CHARS:
        raise TableError("bad_mark", f"a mark is a rank or a label of 1-{LABEL_CHARS} characters")
    return label


def check_markable(state: GameState, seat: int, station: str) -> None:
    """Only a piece of an enemy seat whose rank ``seat`` does not see may be marked."""
    if state.phase != Phase.PLAYING:
        raise TableError("not_playing", "marks are put on pieces during play")
    pieces = engine.view(state, seat).get("pieces", [])
    piece = next((p for p in pieces if p["station"] == station), None)
    if piece is None or "rank" in piece or "seat" not in piece:
        raise TableError("bad_mark", f"no hidden piece on {station!r}")
    if state.teams[piece["seat"]] == state.teams[seat]:
        raise TableError("bad_mark", "marks are for the enemy's pieces")


def message(table: str, game_id: str, seat: int, state: GameState, marks: Marks) -> outbound.Marks:
    return outbound.Marks(
        type="marks",
        table=table,
        game_id=game_id,
        seat=seat,
        choices=choices(state.variant),
        marks=dict(marks),
    )


async def changes_of(
    session: AsyncSession, game_id: str, seat: int | None = None
) -> dict[int, list[Change]]:
    """The game's mark changes by seat (only ``seat``'s, if given), in the order made."""
    query = select(MarkEntry).where(MarkEntry.game_id == game_id).order_by(MarkEntry.id)
    if seat is not None:
        query = query.where(MarkEntry.seat == seat)
    out: dict[int, list[Change]] = {}
    for row in (await session.execute(query)).scalars():
        out.setdefault(row.seat, []).append(Change(row.step, row.station, row.mark))
    return out


@dataclass
class SeatMarks:
    """The marks of a table's current game, by seat, followed as it is played. Read from the
    database the first time they are needed (``load``): a game begun here has none yet, one
    taken back has what its rows and its history say."""

    game_id: str | None = None  # the game whose marks these are (None: not read yet)
    by_seat: dict[int, Marks] = field(default_factory=dict)
    told: bool = False  # the players were told play began (their menus' ``choices``)

    def begin(self, game_id: str) -> None:
        self.game_id, self.by_seat, self.told = game_id, {}, False

    async def load(
        self, sessions: async_sessionmaker[AsyncSession], game_id: str, state: GameState
    ) -> None:
        if self.game_id == game_id:
            return
        async with sessions() as session:
            rows = await changes_of(session, game_id)
        by_seat: dict[int, Marks] = {}
        if rows:
            history = list(engine.history(engine.record_of(state)))
            for seat, changes in rows.items():
                *_, by_seat[seat] = fold(history, changes)
        self.game_id, self.by_seat, self.told = game_id, by_seat, True

    def step(self, events: list[Event], state: GameState) -> list[int]:
        """Follow the pieces through a step; returns the seats whose marks changed (every
        seat when play begins: the players learn what they may mark)."""
        if not self.told and state.phase == Phase.PLAYING:
            self.told = True
            return list(range(len(state.seats)))
        changed = []
        for seat, marks in self.by_seat.items():
            after = follow(marks, events, state)
            if after != marks:
                self.by_seat[seat] = after
                changed.append(seat)
        return changed

    async def set(
        self,
        sessions: async_sessionmaker[AsyncSession],
        seat: int,
        user_id: int,
        state: GameState,
        station: str,
        mark: str | None,
    ) -> None:
        """Put ``mark`` on the piece on ``station`` for ``seat`` (checked), kept at once."""
        assert self.game_id is not None
        check_markable(state, seat, station)
        mark = cleaned(state, mark)
        async with sessions() as session, session.begin():
            made = await session.scalar(
                select(func.count())
                .select_from(MarkEntry)
                .where(MarkEntry.game_id == self.game_id, MarkEntry.seat == seat)
            )
            if (made or 0) >= CHANGES_PER_SEAT:
                raise TableError("too_many_marks", f"at most {CHANGES_PER_SEAT} marks a game")
            session.add(
                MarkEntry(
                    game_id=self.game_id,
                    seat=seat,
                    user_id=user_id,
                    step=len(state.log),
                    station=station,
                    mark=mark,
                )
            )
        self.by_seat[seat] = put(self.by_seat.get(seat, {}), Change(0, station, mark))


def replay_marks(
    history: Sequence[tuple[GameState, Sequence[Event]]], changes: list[Change], step: int
) -> Marks:
    """A seat's marks at ``step`` of its game's replay."""
    return next(itertools.islice(fold(history, changes), step, None), {})
