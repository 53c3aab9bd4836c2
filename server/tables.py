"""Tables and their actors: seats, readiness, and one engine game at a time.

Each live table is an actor: one asyncio task takes commands from an inbox and applies them one
at a time, so a table never sees two changes at once. A second task, the clock, only wakes the
actor when a deadline (a turn, a phase, a disconnected player's grace) has passed: the deadlines
themselves live in the engine state. Each command's changes go out when it is done, as one
update on the broker topic ``table:<id>``: the new events and snapshot rendered once for each
seat and once for spectators (only for those someone watches; ``server.updates``), so that the
socket gateway of any process passes each viewer its own text and nothing else. A running game
is kept (``server.keeping``) before anyone hears of a change, so that a restart or another
process can take the table back. Bots, and stand-ins (托管) for players, decide their moves
outside the actor (``server.bot_driver``) and send them in as players do.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import engine
from engine import (
    EndReason,
    Event,
    GameResult,
    GameState,
    Phase,
    PointsUnit,
    SeatOutcome,
    SeatResult,
)
from engine.bot import LEVELS
from engine.levels import title_for
from server import updates
from server.bot_driver import BotDriver, Think
from server.broker import InMemoryBroker
from server.config import RoomConfig
from server.errors import TableError
from server.keeping import Keeper, KeptTable, LeaseLost, event_of, kept_event
from server.observability import Metrics
from server.store import Scored, Store
from server.table_options import TableRules
from server.tasks import cancel
from server.updates import Sent

T = TypeVar("T")
log = logging.getLogger("junqi")
RESTART_GRACE = 10.0  # seconds added to the clock of the seat to move after a restart
PLAYING_PHASES = (Phase.PICKING, Phase.REDEALING, Phase.BIDDING, Phase.DEPLOYING, Phase.PLAYING)


def persons(people: list[SeatInfo]) -> tuple[int, int]:
    """How many accounts sit among ``people``, and how many persons they may be: accounts
    that share an address or a device (or share one with an account that shares another)
    count as one."""
    root = {p.user_id: p.user_id for p in people}

    def find(user: int | None) -> int | None:
        while root[user] != user:
            user = root[user]
        return user

    for key in ("address", "device"):
        holder: dict[str, int | None] = {}  # a value -> an account that has it
        for p in people:
            value = getattr(p, key)
            if value is not None:
                root[find(p.user_id)] = find(holder.setdefault(value, p.user_id))
    return len(root), len({find(user) for user in root})


def dissolved(state: GameState) -> GameState:
    """The game ended by a moderator's decision (RULES.md §11: a kick without penalty, or a
    dissolved game): a draw in which nobody scores. Not an engine action, as no player can
    take it; the record stops at the last move."""
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


@dataclass
class SeatInfo:
    user_id: int | None = None
    name: str | None = None
    ready: bool = False
    away_until: float | None = None  # disconnected during a game: the grace deadline
    points: int = 0  # the player's points in this variant when seated
    bot: bool = False  # a bot plays this seat
    level: str = "normal"  # the bot's level
    taken_over: bool = False  # 托管: a bot plays for this player until they come back
    asked_stand_in: bool = False  # the player asked for 托管: it lasts until they end it
    # where the player sat down from (``server.addresses``) and the browser's own id for
    # itself: seats sharing either play unrated (never shown to anyone)
    address: str | None = None
    device: str | None = None

    @property
    def taken(self) -> bool:
        return self.bot or self.user_id is not None


@dataclass(frozen=True)
class TablePolicy:
    """How long tables and seats wait for people (the settings' ``idle_table_seconds``,
    ``seat_grace_seconds``, ``tables_per_creator``)."""

    idle_seconds: float = 120.0  # nobody seated and no game on: the table closes
    seat_grace_seconds: float = 30.0  # between games, a seated player with no socket left
    # keeps the seat this long (a reload), then stands up
    tables_per_creator: int = 3  # tables one user may have open (play now apart)
    tables_per_address: int = 3  # tables the users of one address may have open (play now apart)
    lonely_seconds: float = 300.0  # no game on, and all seated are one person: the table closes
    shared_address_unrated: bool = True  # seats sharing an address or a device play unrated

    @property
    def sweep_seconds(self) -> float:
        return min(5.0, self.idle_seconds / 4, self.lonely_seconds / 4)


@dataclass
class Services:
    """What the tables of a process share."""

    broker: InMemoryBroker
    store: Store
    keeper: Keeper
    on_change: Callable[[Table], None]  # tells the lobby a table's listing changed
    on_lost: Callable[[Table], None]  # another process took the table over
    think: Think | None = None  # a bot's decision, away from the event loop (``server.bot_driver``)
    metrics: Metrics | None = None
    policy: TablePolicy = TablePolicy()


# the commands a table takes from the gateway of any process (``Table.run``)
COMMANDS = frozenset(
    {
        "sit",
        "swap",
        "stand",
        "ready",
        "add_bot",
        "remove_bot",
        "leave",
        "stand_in",
        "seat_with_bots",
        "act",
        "kick",
        "dissolve",
        "open_for",
        "close_for",
        "snapshot",
    }
)


class Table:
    def __init__(
        self, table_id: str, room: RoomConfig, services: Services, rules: TableRules
    ) -> None:
        self.id = table_id
        self.services = services
        self.metrics = services.metrics
        self.room = room
        self.variant = engine.get_variant(room.variant)
        self.room_data = room.model_dump()  # as kept with a running game
        # the table's own changes to its room's rule options (``server.table_options``), and
        # the room's options with them, as listed
        self.changes = rules.changes
        self.options = {**room.options, **self.changes}
        # every rule of the table, parsed when the table was made, and as snapshots show it
        self.rule_options = rules.options
        self.rules = rules.options.to_dict()
        self.broker = services.broker
        self.store = services.store
        self.seats = [SeatInfo() for _ in self.variant.seats]
        self.host: int | None = None  # 桌主: the first seat filled
        # the user who opened the table (may seat bots), and the name the lobby shows
        self.creator: int | None = None
        self.creator_name: str | None = None
        self.state: GameState | None = None
        self.game_id: str | None = None
        self.players: list[int | None] = []  # user ids of the current game's seats
        self.version = 0
        self.seq = 0
        # the current game's events as kept (``kept_event``), numbered on from ``log_start``:
        # bare texts, not (number, text) pairs, which the collector would go through once more
        self.log: list[str] = []
        self.log_start = 1
        self.unsent: list[tuple[int, Event]] = []  # events of the running command
        self.changed_seats = False  # seats changed in the running command
        self.saved_actions = 0  # of the game's actions, how many are kept
        self.saved_events = 0  # of the log, how many events are kept
        self.last_points: list[int] = []
        self.scoring: dict[str, Any] | None = None  # how the last game was scored
        self.sent: Sent | None = None  # what the last update showed
        self.watchers: dict[int, set[str]] = {}  # user id -> the sockets watching this table
        self.swaps: dict[int, int] = {}  # seat -> the seat it asked to swap with
        self.inbox: asyncio.Queue[tuple[Callable[[], Awaitable[Any]], asyncio.Future[Any]]] = (
            asyncio.Queue()
        )
        # the clock: one timer, at the next deadline or before it (``set_alarm``)
        self.alarm: asyncio.TimerHandle | None = None
        self.alarm_at = 0.0  # when it rings
        self.stopped = False  # no command runs here any more
        self.tasks: list[asyncio.Task[None]] = []
        self.bots = BotDriver(self.variant.key, services.think, self.bot_act)
        self.stand_ins = False  # 托管 at this table: a bot plays for a player who is away
        self.stood_in: set[int] = set()  # seats a bot played for in this game
        self.quick = False  # a table of play now (马上开始)
        self.idle_since: float | None = time.time()  # nobody seated and no game on, since
        self.lonely_since: float | None = None  # no game on and all seated one person, since
        self.game_shared = False  # the running game's seats shared an address or a device
        self.creator_address: str | None = None  # where the creator opened it from
        # in a cluster (``server.cluster``): the table's epoch, and until when (monotonic) this
        # process is sure of its lease on it; None: one process, always sure
        self.epoch = 0
        self.lease_until: float | None = None
        self.acted_at = 0.0  # when the last action was applied
        self.clocks_held = False  # paused for the platform's fault (``hold_clocks``)
        # user id -> when an action of theirs was last applied: a player who plays their
        # turns is present even with no socket watching here (one that missed a takeover)
        self.played_at: dict[int, float] = {}

    # --- the actor ----------------------------------------------------------------------------

    def start(self) -> None:
        self.tasks = [asyncio.create_task(self._run(), name=f"table {self.id}")]
        self.set_alarm()

    async def stop(self) -> None:
        await cancel([*self.tasks, *self.bots.tasks])
        self.stopped = True
        if self.alarm is not None:
            self.alarm.cancel()
        while not self.inbox.empty():  # commands that will never run: their callers hear so
            _, future = self.inbox.get_nowait()
            if not future.done():
                future.set_exception(TableError("moved", "the table stopped here; try again"))

    async def call(self, command: Callable[[], Awaitable[T]]) -> T:
        """Run ``command`` inside the actor, after every command sent before it."""
        if self.stopped:
            raise TableError("moved", "the table stopped here; try again")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        await self.inbox.put((command, future))
        return await future

    async def run(self, command: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run one of ``COMMANDS`` with ``args`` (JSON values) in the actor; returns its result
        and the table's version after it."""
        if command not in COMMANDS:
            raise TableError("bad_command", f"no table command {command!r}")
        if not self.sure():  # it may be another process's table by now: the caller looks again
            raise TableError("moved", "the table may be moving to another server; try again")

        async def execute() -> Any:
            result = getattr(self, command)(**args)
            return await result if inspect.isawaitable(result) else result

        return {"result": await self.call(execute), "version": self.version}

    async def _run(self) -> None:
        while True:
            command, future = await self.inbox.get()
            try:
                result = await command()
            except Exception as error:  # handed to the caller, never kills the actor
                if not future.done():
                    future.set_exception(error)
            else:
                if not future.done():
                    future.set_result(result)
            finally:
                try:
                    self.flush()
                except Exception:  # a fault in rendering must not stop the table for good
                    log.exception("an update could not be sent", extra={"table": self.id})
            self.note_idle()
            self.set_alarm()

    def note_idle(self) -> None:
        """Note since when the table has had nobody seated and no game on, and since when
        no game on and nobody seated but one person (the lobby closes it after a while:
        ``Lobby._reap_idle_tables``)."""
        people = [s for s in self.seats if s.user_id is not None]
        if self.in_game or people:
            self.idle_since = None
        elif self.idle_since is None:
            self.idle_since = time.time()
        if self.in_game or not people or not self.one_person(people):
            self.lonely_since = None
        elif self.lonely_since is None:
            self.lonely_since = time.time()

    @staticmethod
    def one_person(people: list[SeatInfo]) -> bool:
        """Whether the seated ``people`` may all be one person: one account, or accounts that
        share an address or a device."""
        return persons(people)[1] == 1

    def shared_seats(self) -> bool:
        """Whether two seated accounts share an address or a device (one person's accounts,
        likely: a game between them proves nothing)."""
        accounts, people = persons([s for s in self.seats if s.user_id is not None])
        return people < accounts

    async def close(self, idle_only: bool, why: str = "idle") -> bool:
        """The table closes (no game may be on; ``idle_only``: nobody may be seated either,
        but one person for ``lonely_seconds``, ``why`` "lonely"); those watching it hear so,
        and ``why``. Returns whether it did."""
        self.note_idle()
        if self.in_game:
            return False
        if idle_only and why == "lonely":
            if self.lonely_since is None:
                return False
        elif idle_only and self.idle_since is None:
            return False
        self.broker.publish(f"table:{self.id}", {"table": self.id, "closed": True, "why": why})
        return True

    def set_alarm(self) -> None:
        """Have the clock tick at the next deadline (a timer, not a task waiting for it: this
        runs after every move). A timer due earlier stays: it ticks for nothing and sets the
        next one, which is cheaper than moving it after every move."""
        due = self.next_deadline()
        if due is None or (self.alarm is not None and self.alarm_at <= due) or not self.sure():
            return  # not sure of the lease: the renewal sets it again (``lease_renewed``)
        if self.alarm is not None:
            self.alarm.cancel()
        self.alarm_at = due
        self.alarm = asyncio.get_running_loop().call_later(max(0.0, due - time.time()), self._ring)

    def _ring(self) -> None:
        self.alarm = None
        if self.stopped:
            return
        ticked = asyncio.get_running_loop().create_future()
        ticked.add_done_callback(self._ticked)
        self.inbox.put_nowait((self._tick, ticked))

    def _ticked(self, ticked: asyncio.Future[None]) -> None:
        error = None if ticked.cancelled() else ticked.exception()
        if error is not None and not isinstance(error, TableError):  # TableError: it stopped
            log.error("the clock failed", exc_info=error, extra={"table": self.id})

    # --- the lease (in a cluster) ---------------------------------------------------------------

    def sure(self) -> bool:
        """Whether this process is sure to own the table now: only then does it speak for it
        (updates, clock decisions); else another process may have taken it over."""
        return self.lease_until is None or time.monotonic() < self.lease_until

    def lease_renewed(self, until: float) -> None:
        """The lease holds until ``until`` (monotonic). If it had lapsed meanwhile (this
        process froze, or the database was slow), the table catches up (``regained``)."""
        lapsed = None if self.sure() else self.lease_until
        self.lease_until = until if self.lease_until is None else max(self.lease_until, until)
        if lapsed is not None and not self.stopped:
            since = time.time() - (time.monotonic() - lapsed)
            self.spawn(functools.partial(self.regained, since))

    def spawn(self, command: Callable[[], Awaitable[Any]]) -> None:
        """Run ``command`` in the actor, without waiting for it (nor for its failure: a table
        that stopped meanwhile, say)."""
        task = asyncio.create_task(self.call(command))
        task.add_done_callback(self._spawned)

    def _spawned(self, task: asyncio.Task[Any]) -> None:
        error = None if task.cancelled() else task.exception()
        if error is not None and not isinstance(error, TableError):  # TableError: it stopped
            log.error("a table command failed", exc_info=error, extra={"table": self.id})

    async def regained(self, since: float) -> None:
        """Sure of the lease again after it lapsed at ``since``: the clocks and the graces stood
        still meanwhile, as nobody could be told anything (a pause and a resume, so the
        record keeps it); the updates held back go out after this command."""
        since = max(since, self.acted_at)
        stalled = time.time() - since
        state = self.state
        if stalled > 0:
            for info in self.seats:
                if info.away_until is not None:
                    info.away_until += stalled
            if state is not None and state.phase == Phase.PLAYING and state.paused_since is None:
                await self.apply(engine.Pause(now=since))
                await self.apply(engine.Resume(now=time.time()))
        self.services.on_change(self)  # the lobby's entry, held back meanwhile too
        log.warning("lease regained", extra={"table": self.id, "stalled": round(stalled, 3)})

    async def hold_clocks(self, hold: bool) -> None:
        """Some players cannot be reached (Redis, between the processes, is away): the clocks
        stand still (``hold``) until they can again: a pause and a resume, in the record."""
        state = self.state
        if state is None or state.phase != Phase.PLAYING:
            self.clocks_held = False
        elif hold and state.paused_since is None:
            await self.apply(engine.Pause(now=time.time()))
            self.clocks_held = True
        elif not hold and self.clocks_held:
            self.clocks_held = False
            if state.paused_since is not None:
                await self.apply(engine.Resume(now=time.time()))

    def next_deadline(self) -> float | None:
        times = [s.away_until for s in self.seats if s.away_until is not None]
        state = self.state
        if state is not None and state.phase in PLAYING_PHASES and state.paused_since is None:
            times.append(state.deadline)
            times += [w.raise_by for w in state.watches if w.raise_by is not None]
        return min(times, default=None)

    # --- commands (run inside the actor) ------------------------------------------------------

    @property
    def in_game(self) -> bool:
        return self.state is not None and self.state.phase in PLAYING_PHASES

    def seat_of(self, user_id: int) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s.user_id == user_id), None)

    async def sit(
        self,
        user_id: int,
        name: str,
        seat: int,
        address: str | None = None,
        device: str | None = None,
    ) -> None:
        if self.in_game:
            raise TableError("game_running", "seats change only between games")
        if seat not in range(len(self.seats)):
            raise TableError("bad_seat", f"no seat {seat}")
        if self.seats[seat].bot or self.seats[seat].user_id not in (None, user_id):
            raise TableError("seat_taken", f"seat {seat} is taken")
        old = self.seat_of(user_id)
        if old is not None:
            self.seats[old] = SeatInfo()
        points = (await self.store.points(self.variant.key, [user_id]))[user_id]
        self.seats[seat] = SeatInfo(
            user_id=user_id, name=name, points=points, address=address, device=device
        )
        if self.host is None or self.host == old:
            self.host = seat
        self.seats_changed()

    async def swap(self, user_id: int, seat: int) -> None:
        """Ask to swap seats with the player on ``seat``; the swap happens when that player
        asks for this one in turn."""
        mine = self.seat_of(user_id)
        if mine is None:
            raise TableError("not_seated", "sit down first")
        if self.in_game:
            raise TableError("game_running", "seats change only between games")
        if seat not in range(len(self.seats)) or seat == mine:
            raise TableError("bad_seat", f"no other seat {seat}")
        if self.seats[seat].user_id is None:
            raise TableError("bad_seat", f"seat {seat} is empty: sit there instead")
        if self.swaps.get(seat) == mine:
            del self.swaps[seat]
            self.seats[mine], self.seats[seat] = self.seats[seat], self.seats[mine]
            self.seats[mine].ready = self.seats[seat].ready = False
            if self.host in (mine, seat):
                self.host = seat if self.host == mine else mine
        else:
            self.swaps[mine] = seat
        self.seats_changed()

    async def stand(self, user_id: int) -> None:
        """Stand up: between games, or during one once out of it (an escaper's escape is
        scored, an eliminated player has nothing left to play): the game goes on without."""
        seat = self.seat_of(user_id)
        if seat is None:
            return
        if self.in_game and self.state is not None and self.state.seats[seat].alive:
            raise TableError("game_running", "leave the game to stand up")
        self.vacate(seat)

    def vacate(self, seat: int) -> None:
        """Empty a seat; the host (桌主) passes to the next seated player."""
        self.seats[seat] = SeatInfo()
        self.swaps = {s: o for s, o in self.swaps.items() if seat not in (s, o)}
        if self.host == seat:
            self.host = next((i for i, s in enumerate(self.seats) if s.user_id), None)
        self.seats_changed()

    async def ready(self, user_id: int, ready: bool) -> None:
        seat = self.seat_of(user_id)
        if seat is None:
            raise TableError("not_seated", "sit down first")
        if self.in_game:
            raise TableError("game_running", "the game is on")
        self.seats[seat].ready = ready
        self.seats_changed()
        await self.start_if_ready()

    async def start_if_ready(self) -> None:
        if not self.in_game and all(s.taken and s.ready for s in self.seats):
            await self.start_game()

    def check_may_seat_bots(self, user_id: int) -> None:
        """Bots are seated and unseated by the table's players, or by its creator (who may
        fill it with bots to watch them play); not by passers-by."""
        if user_id != self.creator and self.seat_of(user_id) is None:
            raise TableError("not_allowed", "only the table's players and its creator seat bots")

    async def add_bot(self, user_id: int, seat: int, level: str = "normal") -> None:
        """A bot of ``level`` (easy, normal, hard) takes an empty seat, ready at once."""
        self.check_may_seat_bots(user_id)
        if level not in LEVELS:
            raise TableError("bad_level", f"a bot level is one of {', '.join(LEVELS)}")
        if self.in_game:
            raise TableError("game_running", "seats change only between games")
        if seat not in range(len(self.seats)) or self.seats[seat].taken:
            raise TableError("bad_seat", f"seat {seat} is not free")
        self.seats[seat] = SeatInfo(name=f"机器人{seat}", bot=True, ready=True, level=level)
        if self.host is None:
            self.host = seat
        self.seats_changed()
        await self.start_if_ready()

    async def remove_bot(self, user_id: int, seat: int) -> None:
        self.check_may_seat_bots(user_id)
        if self.in_game:
            raise TableError("game_running", "seats change only between games")
        if seat not in range(len(self.seats)) or not self.seats[seat].bot:
            raise TableError("bad_seat", f"no bot on seat {seat}")
        self.seats[seat] = SeatInfo()
        self.seats_changed()

    async def leave(self, user_id: int) -> None:
        """Leaving a running game is an escape (RULES.md §11); otherwise just standing up."""
        seat = self.seat_of(user_id)
        if seat is None:
            return
        if self.in_game and self.state is not None and self.state.seats[seat].alive:
            await self.apply(engine.Escape(seat, now=time.time()))
        await self.stand(user_id)

    def others_seated(self, user_id: int) -> bool:
        """Whether a person other than ``user_id`` sits at the table."""
        return any(s.user_id not in (None, user_id) for s in self.seats)

    async def seat_with_bots(
        self, user_id: int, name: str, address: str | None = None, device: str | None = None
    ) -> None:
        """Play now: the user sits (on their own seat if they have one, else the first free
        one) and bots take every other free seat, ready."""
        if self.in_game:
            raise TableError("game_running", "seats change only between games")
        seat = self.seat_of(user_id)
        if seat is None:
            free = next((i for i, s in enumerate(self.seats) if not s.taken), None)
            if free is None:
                raise TableError("seat_taken", "no seat is free")
            await self.sit(user_id, name, free, address, device)
        for other, info in enumerate(self.seats):
            if not info.taken:
                await self.add_bot(user_id, other)

    async def stand_in(self, user_id: int, on: bool) -> None:
        """托管 by the player's own choice: a bot plays the seat until the player ends it
        (coming back to the table does not end it, as it ends a stand-in for one away)."""
        seat = self.seat_of(user_id)
        if seat is None:
            raise TableError("not_seated", "sit down first")
        if not self.in_game or self.state is None or not self.state.seats[seat].alive:
            raise TableError("not_playing", "a bot plays for you only during your game")
        self.seats[seat].asked_stand_in = on
        self.set_taken_over(seat, on, "asked")
        self.seats_changed()

    def set_taken_over(self, seat: int, on: bool, why: str) -> None:
        """托管 starts or ends for ``seat`` (``why``: the player "asked", was "away" past the
        grace, or is "back"); the game's log says so, for everyone to read."""
        info = self.seats[seat]
        if info.taken_over == on:
            return
        info.taken_over = on
        if self.in_game:
            self.record([Event("stand_in", {"seat": seat, "on": on, "why": why})])

    def check_not_own(self, judge: int | None) -> None:
        """A room owner (``judge``, a user id; None: an admin, who may) judges no table he
        sits at, nor the game he plays in."""
        if judge is not None and (self.seat_of(judge) is not None or judge in self.players):
            raise TableError(
                "own_table", "a room owner does not judge his own table or game: ask an admin"
            )

    async def kick(
        self, seat: int, penalty: bool, by: str, reason: str, judge: int | None = None
    ) -> dict[str, Any]:
        """A room owner or an admin (``by``) removes the player on ``seat`` (RULES.md §11).
        Between games the player just loses the seat; during one, with ``penalty`` it is
        their escape, without it the game is dissolved as a draw. Returns what happened.
        ``judge``: the room owner's user id (``check_not_own``); None for an admin."""
        self.check_not_own(judge)
        info = self.seats[seat] if seat in range(len(self.seats)) else None
        if info is None or info.user_id is None:
            raise TableError("bad_seat", f"no player on seat {seat}")
        outcome, game_id = "removed", None
        if self.in_game and self.state is not None:
            game_id = self.game_id
            if not penalty:
                outcome = "dissolved"
            elif self.state.seats[seat].alive:  # a player already out just leaves
                outcome = "escaped"
        kicked = {"seat": seat, "name": info.name, "outcome": outcome, "by": by}
        self.version += 1
        self.record([Event("kicked", {**kicked, "reason": reason})])
        if outcome == "dissolved":
            await self.dissolve(by, reason)
        elif outcome == "escaped":
            await self.apply(engine.Escape(seat, now=time.time()))
        self.vacate(seat)
        return {**kicked, "user_id": info.user_id, "game_id": game_id}

    async def dissolve(self, by: str, reason: str, judge: int | None = None) -> str:
        """End the running game as a draw in which nobody scores (a moderator, ``by``,
        decided); returns the game's id. ``judge`` as for ``kick``."""
        self.check_not_own(judge)
        if not self.in_game or self.state is None or self.game_id is None:
            raise TableError("not_playing", "no game is running at this table")
        self.state = dissolved(self.state)
        self.version += 1
        assert self.state.result is not None
        details = {"game_id": self.game_id, "by": by, "reason": reason}
        self.record([Event("dissolved", {**details, "result": self.state.result.to_dict()})])
        try:
            await self.persist()  # as for a move: only the table's owner ends its game
        except Exception as error:
            self.lost_if_taken(error)
            log.exception("a dissolved game could not be kept", extra={"table": self.id})
        await self.finish_game()
        return self.game_id

    # --- restarts -----------------------------------------------------------------------------

    async def persist(self) -> None:
        """Keep the running game and the table around it (with the events not kept yet), so
        that a restart or another process takes it back; raises ``LeaseLost`` if another
        process owns the table now."""
        assert self.state is not None
        data = {
            "room": self.room_data,
            "changes": self.changes,
            "quick": self.quick,
            "seats": [vars(info) for info in self.seats],  # plain fields: JSON as they are
            "host": self.host,
            "creator": self.creator,
            "creator_name": self.creator_name,
            "creator_address": self.creator_address,
            "stand_in": self.stand_ins,
            "game_id": self.game_id,
            "players": self.players,
            "stood_in": sorted(self.stood_in),
            "shared": self.game_shared,
            "version": self.version,
            "seq": self.seq,
            "saved_at": time.time(),
        }
        unsaved = list(enumerate(self.log[self.saved_events :], self.log_start + self.saved_events))
        await self.services.keeper.save(
            self.id, data, self.state, self.saved_actions, unsaved, self.epoch
        )
        self.saved_actions, self.saved_events = len(self.state.log), len(self.log)

    def restore(self, kept: KeptTable) -> float:
        """Take back a kept table (before ``start``); returns when it was kept."""
        data = kept.data
        self.seats = [SeatInfo(**info) for info in data["seats"]]
        self.host, self.stand_ins = data["host"], data["stand_in"]
        self.quick = data.get("quick", False)
        # tables kept by an older version name none
        self.creator, self.creator_name = data.get("creator"), data.get("creator_name")
        self.creator_address = data.get("creator_address")
        self.game_id, self.players = data["game_id"], data["players"]
        self.stood_in = set(data["stood_in"])
        self.game_shared = data.get("shared", False)  # kept by an older version: none
        # the version moves on: changes after the last save (seats only) were not kept
        self.version, self.seq = data["version"] + 1, data["seq"]
        self.state = engine.replay(kept.record)
        self.log = [text for _, text in kept.events]
        self.log_start = kept.events[0][0] if kept.events else self.seq + 1
        self.saved_actions, self.saved_events = len(kept.record.actions), len(self.log)
        for seat, info in enumerate(self.seats):
            info.away_until = None
            if info.bot or info.taken_over:
                self.bots.take_over(seat, self.state)
        return float(data["saved_at"])

    async def resume_after_restart(self, saved_at: float) -> None:
        """Fair clocks after a restart: play stood still from the last save until now, and the
        seat to move gets ``RESTART_GRACE`` more (a pause and a resume, so the record keeps
        it); every player has the grace period to come back."""
        state = self.state
        assert state is not None
        if state.phase == Phase.PLAYING and state.paused_since is None:
            await self.apply(engine.Pause(now=saved_at))
            await self.apply(engine.Resume(now=time.time(), bonus=RESTART_GRACE))
        for info in self.seats:
            if info.user_id is not None and not info.bot:
                await self.connection_changed(info.user_id)

    async def act(self, user_id: int, version: int, action: dict[str, Any]) -> None:
        seat = self.seat_of(user_id)
        if seat is None or not self.in_game:
            raise TableError("not_playing", "only seated players of a running game act")
        if self.seats[seat].taken_over:
            raise TableError("stood_in", "a bot plays for you (托管): end it to play yourself")
        await self.act_as(seat, version, action)
        self.played_at[user_id] = time.time()

    async def act_as(self, seat: int, version: int, action: dict[str, Any]) -> None:
        """A player's (or a bot's) action for ``seat``, made at table ``version``."""
        if not self.in_game:
            raise TableError("not_playing", "the game is not running")
        if version != self.version:
            raise TableError("stale_version", f"the table is at version {self.version}")
        kind = action.get("type")
        if isinstance(kind, str) and kind in engine.PLATFORM_ACTIONS:  # a list: not hashable
            raise TableError("not_allowed", "the clock and the platform send those")
        payload = {**action, "now": time.time()}
        if "seat" in payload and payload["seat"] != seat:
            raise TableError("not_your_seat", f"you play seat {seat}")
        payload["seat"] = seat  # every player action names its seat: the player's own
        try:
            parsed = engine.action_from_dict(payload)
        except engine.MalformedInput as error:
            raise TableError("malformed", str(error)) from None
        await self.apply(parsed)

    async def connection_changed(
        self, user_id: int, socket: str | None = None, opened: bool = False
    ) -> None:
        """A ``socket`` of a user opened this table or closed it (none: only see where the user
        stands); a seated player with no socket left during a game gets the grace period to
        come back (in 三打一 play pauses meanwhile). A socket that opens the table again
        counts once."""
        sockets = self.watchers.pop(user_id, set())
        before = len(sockets)
        if socket is not None:
            (sockets.add if opened else sockets.discard)(socket)
        watching = len(sockets)
        if sockets:
            self.watchers[user_id] = sockets
        if socket is not None and watching == before:
            return  # opened again, or closed again: nothing changed
        seat = self.seat_of(user_id)
        if seat is None:
            if bool(before) != bool(watching):
                self.services.on_change(self)  # the lobby's count of spectators
            return
        info = self.seats[seat]
        if watching == 0 and not self.in_game and not info.bot:
            # between games a player who closed the page stands up after a moment
            info.away_until = time.time() + self.services.policy.seat_grace_seconds
        elif watching == 0 and self.in_game:
            assert self.state is not None
            info.away_until = time.time() + self.state.rules.disconnect_grace_seconds
            state = self.state
            if self.stand_ins and state.seats[seat].alive:
                if socket is not None:  # not merely after a takeover, where all look away
                    self.set_taken_over(seat, True, "away")  # 托管: a bot plays the grace
            elif (
                state.rules.pause_on_disconnect
                and state.phase == Phase.PLAYING
                and state.paused_since is None
                and state.seats[seat].alive
            ):
                await self.apply(engine.Pause(now=time.time()))
        elif watching > 0:
            info.away_until = None
            self.set_taken_over(seat, info.asked_stand_in, "back")  # 托管 for one away ends
            await self.resume_if_all_back()
        self.seats_changed()  # 托管: a bot takes over, or hands back, when it goes out

    async def resume_if_all_back(self) -> None:
        """Play goes on once every player still in the game is back: a player already out
        (an escaper above all) may never come back, and nothing waits for them."""
        state = self.state
        if state is None or state.paused_since is None or state.phase != Phase.PLAYING:
            return
        if not any(
            info.away_until is not None and state.seats[seat].alive
            for seat, info in enumerate(self.seats)
        ):
            await self.apply(engine.Resume(now=time.time()))

    async def _tick(self) -> None:
        if not self.sure():  # no verdict of the clock while the table may be another's
            return
        now = time.time()
        grace = self.rule_options.disconnect_grace_seconds
        for seat, info in enumerate(self.seats):
            if info.away_until is not None and now >= info.away_until:
                played = self.played_at.get(info.user_id or 0, 0.0)
                if self.in_game and now - played < grace:
                    # a move of theirs came lately, though no socket of theirs watches here
                    # (one that missed a takeover, say): a player who plays is not gone.
                    # Nothing else counts: a command refused, or sent to a paused game,
                    # would hold everyone hostage.
                    info.away_until = played + grace
                    continue
                info.away_until = None
                if not self.in_game:
                    self.vacate(seat)  # gone between games: the seat is free again
                elif self.state is not None and self.state.seats[seat].alive:
                    # gone for the whole grace: an escape, whether a bot stood in meanwhile
                    # (托管) or not (docs/engine.md, "Leaving a game")
                    await self.apply(engine.Escape(seat, now=now))
                    await self.resume_if_all_back()
        state = self.state
        if state is None or state.phase not in PLAYING_PHASES or state.paused_since is not None:
            return
        if any(w.raise_by is not None and w.raise_by <= now for w in state.watches) or (
            state.phase != Phase.PLAYING and now >= state.deadline
        ):
            await self.apply(engine.Deadline(now=now))
        elif state.phase == Phase.PLAYING and now >= state.deadline:
            await self.apply(engine.Timeout(now=now))

    # --- the game -----------------------------------------------------------------------------

    async def start_game(self) -> None:
        order = list(range(len(self.seats)))
        if self.rule_options.random_seats:
            secrets.SystemRandom().shuffle(order)  # 随机防作弊: nobody chooses their seat
            self.seats = [self.seats[i] for i in order]
            self.host = 0
        self.players = [s.user_id for s in self.seats]
        self.game_shared = self.shared_seats()
        grace = self.rule_options.disconnect_grace_seconds
        for info in self.seats:
            if info.away_until is not None:  # away between games: the game's grace from now
                info.away_until = time.time() + grace
        self.game_id = uuid.uuid4().hex
        self.state = engine.new_game(
            self.variant.key,
            seed=secrets.token_hex(16),
            host=self.host or 0,
            rules=self.rule_options,
            now=time.time(),
        )
        self.log, self.log_start = [], self.seq + 1
        self.saved_actions = self.saved_events = 0
        self.bots.new_game(seat for seat, s in enumerate(self.seats) if s.bot)
        self.stood_in = set()
        self.version += 1
        await self.store.game_started(self.game_id, self.state, self.room.id, self.players)
        self.record([Event("game_created", {"game_id": self.game_id})], seats_changed=True)
        await self.persist()
        log.info("game started", extra={"table": self.id, "game": self.game_id})
        self.services.on_change(self)

    async def apply(self, action: engine.Action) -> None:
        before = self.state, self.version, self.seq, len(self.log), len(self.unsent)
        assert self.state is not None
        try:
            self.state, events = engine.apply(self.state, action)
        except engine.NotYourTurn as error:
            raise TableError("not_your_turn", str(error)) from None
        except engine.GamePaused as error:
            raise TableError("paused", str(error)) from None
        except engine.IllegalLayout as error:
            raise TableError("illegal_layout", str(error)) from None
        except engine.IllegalAction as error:
            raise TableError("illegal", str(error)) from None
        except engine.MalformedInput as error:
            raise TableError("malformed", str(error)) from None
        self.version += 1
        self.record(events)
        try:
            # before anyone hears of the move, the last one too: a restart keeps it, and a
            # process that lost the table can neither play on nor end the game
            await self.persist()
        except Exception as error:
            # not kept, so it never happened: nobody hears of it, the player may try again
            self.state, self.version, self.seq, logged, unsent = before
            del self.log[logged:], self.unsent[unsent:]
            self.lost_if_taken(error)
            log.exception("a move could not be kept", extra={"table": self.id})
            raise TableError("unavailable", "the move could not be kept; try again") from None
        self.acted_at = time.time()
        if self.metrics is not None and isinstance(action, engine.Move):
            self.metrics.moves.inc()
        if self.state.phase == Phase.FINISHED:
            await self.finish_game()

    def lost_if_taken(self, error: Exception) -> None:
        """``error`` of a write: if another process owns the table now, it stops here."""
        if isinstance(error, LeaseLost):
            self.services.on_lost(self)
            raise TableError("moved", "the table moved to another server") from None

    def unrated_because(self, shared: bool | None = None) -> str | None:
        """Why a game here would not move points: the table changed its room's rules
        ("table_rules"), bots play in a room that rates only people ("bots"), or two seats
        share an address or a device ("shared_address": one person's accounts, likely;
        ``shared``: whether they did, by default as they sit now, or sat when the running
        game began)."""
        if self.changes:
            return "table_rules"
        if not self.room.rated_with_bots and any(info.bot for info in self.seats):
            return "bots"
        if shared is None:
            shared = self.game_shared if self.in_game else self.shared_seats()
        if self.services.policy.shared_address_unrated and shared:
            return "shared_address"
        return None

    async def finish_game(self) -> None:
        assert self.state is not None and self.game_id is not None
        # as the game began: a seat left since (an escaper's) changes nothing
        unrated_because = self.unrated_because(self.game_shared)
        rated = unrated_because is None
        stood_in = sorted(self.stood_in)
        try:
            scored = await self.store.game_finished(
                self.game_id, self.state, self.players, rated=rated, stood_in=stood_in
            )
        except Exception:
            # the game ends all the same, unscored, and says so; never left running
            log.exception(
                "a finished game could not be stored",
                extra={"table": self.id, "game": self.game_id},
            )
            await self.store.game_unscored(self.game_id, "not_stored")
            scored = Scored([0] * len(self.seats), 0)
            rated, unrated_because = False, "not_stored"
        self.last_points = scored.points
        self.scoring = {
            "rated": rated,
            "unrated_because": unrated_because,
            "stake": scored.stake,
            "stood_in": stood_in,
            # the same people's how-many-th rated game in a day, and the share of its points
            # kept (``server.store``): the result card says so
            "repeat": scored.repeat,
            "factor": scored.factor,
        }
        try:
            await self.services.keeper.drop(self.id, self.epoch)
        except LeaseLost:  # taken over since its end was kept: the new owner ends it too
            log.warning("a finished game's table was taken over", extra={"table": self.id})
        assert self.state.result is not None
        log.info(
            "game finished",
            extra={"table": self.id, "game": self.game_id, "reason": self.state.result.reason},
        )
        for seat, info in enumerate(self.seats):
            if rated and info.user_id is not None:
                info.points += scored.points[seat]  # the new title shows at once
            info.ready = info.bot
            info.away_until = None
            info.taken_over = info.asked_stand_in = False
            if info.user_id is not None and not self.watchers.get(info.user_id):
                # players who left are not kept seated
                info.user_id, info.name = None, None
        self.record(
            [
                Event(
                    "points", {"game_id": self.game_id, "points": self.last_points, **self.scoring}
                )
            ],
            seats_changed=True,
        )
        self.services.on_change(self)

    def bot_plays(self, seat: int) -> bool:
        info = self.seats[seat]
        return info.bot or info.taken_over

    def wake_bots(self) -> None:
        """Let every seat a bot plays (bots, and with 托管 the players who are away) decide on
        the new state, each in the background."""
        if self.bots.think is None or not self.in_game or self.state is None:
            return
        for seat, info in enumerate(self.seats):
            if self.bot_plays(seat):
                if not info.bot:
                    self.stood_in.add(seat)
                    self.bots.take_over(seat, self.state)
                self.bots.wake(seat, info.level, self.state, self.version)

    async def bot_act(self, seat: int, version: int, action: dict[str, Any]) -> None:
        """A bot's ``action`` for ``seat``, decided at table ``version``: it runs in the actor."""

        async def act() -> None:
            if self.bot_plays(seat):  # a player who came back plays again
                await self.act_as(seat, version, action)

        await self.call(act)

    def record(self, events: list[Event], seats_changed: bool = False) -> None:
        """Number ``events`` into the game's log; they go out when the command is done."""
        numbered = []
        for event in events:
            self.seq += 1
            numbered.append((self.seq, event))
        self.log += [kept_event(event) for _, event in numbered]
        self.unsent += numbered
        self.changed_seats |= seats_changed
        self.bots.learn(self.state, numbered)

    def seats_changed(self) -> None:
        self.version += 1
        self.changed_seats = True
        self.services.on_change(self)

    def flush(self) -> None:
        """Send what the last command changed, as one update rendered for each viewer: during
        play a patch on the previous update (``server.updates``), else whole snapshots."""
        if not self.unsent and not self.changed_seats:
            return
        if not self.sure():  # held back until the lease is renewed, or lost with the table
            return
        events, seats_changed = self.unsent, self.changed_seats
        self.unsent, self.changed_seats = [], False
        self.sent, update = updates.render_update(self, events, seats_changed)
        self.broker.publish(f"table:{self.id}", update)
        self.wake_bots()

    def players_by_user(self) -> dict[str, int]:
        """The seat of each seated user (by user id, as a JSON key)."""
        return {str(s.user_id): seat for seat, s in enumerate(self.seats) if s.user_id is not None}

    def viewers(self) -> set[int | None]:
        """Whose view someone watches: the seats of watching players, None for spectators."""
        return {self.seat_of(user) for user, sockets in self.watchers.items() if sockets}

    # --- watching (the gateway's commands) ----------------------------------------------------

    async def open_for(self, user_id: int, socket: str, since: int | None) -> dict[str, Any]:
        """A ``socket`` of ``user_id`` opens the table (or again): the ``table`` message it
        gets (``message``), with the events missed since event ``since``, and the number of
        the last update its snapshot shows (``update``: the gateway passes on only later ones)."""
        self.flush()  # what was held back (``sure``) goes first, so the snapshot follows it
        await self.connection_changed(user_id, socket, True)
        viewer = self.seat_of(user_id)
        missed = (
            []
            if since is None
            else [
                (seq, event_of(kept))
                for seq, kept in enumerate(self.log, self.log_start)
                if seq > since
            ]
        )
        number = 0 if self.sent is None else self.sent.number
        return {"update": number, "message": updates.table_message(self, viewer, missed)}

    async def close_for(self, user_id: int, socket: str) -> None:
        await self.connection_changed(user_id, socket, False)

    # --- what clients see ---------------------------------------------------------------------

    @property
    def status(self) -> str:
        if self.in_game:
            return "playing"
        return "finished" if self.state is not None else "waiting"

    def entry(self) -> dict[str, Any]:
        """What every process's lobby keeps of the table: its listing, the seat of each user
        (never sent as such) and the running game's id."""
        return {
            "listing": self.listing(),
            "players": self.players_by_user(),
            "game": self.game_id,
            "creator": self.creator,
            "creator_address": self.creator_address,
            "quick": self.quick,
        }

    def listing(self) -> dict[str, Any]:
        """The table as the lobby lists it (public)."""
        return {
            "id": self.id,
            "room": self.room.id,
            "variant": self.variant.key,
            "board": self.variant.board_key,
            "options": self.options,
            "changes": self.changes,
            "rated": self.unrated_because() is None,
            "unrated_because": self.unrated_because(),
            "quick": self.quick,
            "status": self.status,
            "host": self.host,
            "creator": self.creator_name,
            "spectators": sum(
                1 for uid, n in self.watchers.items() if n and self.seat_of(uid) is None
            ),
            "bots": any(s.bot for s in self.seats),
            "stand_in": self.stand_ins,
            "seats": [
                {
                    "seat": i,
                    "bot": s.bot,
                    "level": s.level if s.bot else None,
                    "name": s.name,
                    "points": s.points if s.name else None,
                    "title": title_for(s.points).name if s.name else None,
                    "ready": s.ready,
                    "away": s.away_until is not None,
                    "away_until": s.away_until,
                    "taken_over": s.taken_over,
                    "swap_with": self.swaps.get(i),
                }
                for i, s in enumerate(self.seats)
            ],
        }

    def snapshot(self, viewer: int | None) -> dict[str, Any]:
        """Everything ``viewer`` needs to draw the table now (``server.updates``)."""
        return updates.snapshot(self, viewer)

    def may(self, viewer: int | None) -> list[str]:
        """The table commands the viewer may send now (a spectator's: sitting down; what the
        game itself allows is in the game's view), so that a client offers no other."""
        free = any(not s.taken for s in self.seats)
        if viewer is None:
            return ["sit"] if free and not self.in_game else []
        info = self.seats[viewer]
        if not self.in_game:
            others = any(s.user_id is not None for i, s in enumerate(self.seats) if i != viewer)
            return [
                "unready" if info.ready else "ready",
                "stand",
                *(["sit"] if free else []),
                *(["swap"] if others else []),
                *self.bot_commands(),
            ]
        assert self.state is not None
        if not self.state.seats[viewer].alive:  # out of the game: free to go
            return ["leave", "stand"]
        return ["leave", "stand_in_off" if info.taken_over else "stand_in_on"]

    def bot_commands(self) -> list[str]:
        """What a player of the table, or its creator, may do with bots now."""
        if self.in_game:
            return []
        return [
            *(["add_bot"] if any(not s.taken for s in self.seats) else []),
            *(["remove_bot"] if any(s.bot for s in self.seats) else []),
        ]
