"""Tables: a small coordinator of the parts a live table holds.

Each live table is an actor (``server.actor``): its commands run one at a time, so a table never
sees two changes at once, and a timer wakes it when a deadline (a turn, a phase, a disconnected
player's grace) has passed. It holds its seats (``server.seating``), who is at it
(``server.presence``), its current game (``server.game_driver``), its lease in a cluster
(``server.ownership.Lease``) and what is kept of it (``server.adoption``); the lobby lists it
(``server.listing``). Each command's changes go out when it is done, as one update on the
broker topic ``table:<id>``: the new events and snapshot rendered once for each seat and once
for spectators (only for those someone watches; ``server.updates``), so that the socket gateway
of any process passes each viewer its own text and nothing else. A running game is kept
(``server.keeping``) before anyone hears of a change, so that a restart or another process can
take the table back. Bots, and stand-ins (托管) for players, decide their moves outside the
actor (``server.bot_driver``) and send them in as players do.
"""

from __future__ import annotations

import functools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import engine
from engine import Event, GameState, Phase
from server import listing, messages, rematch, updates
from server.actor import Actor
from server.bot_driver import BotDriver, Think
from server.broker import InMemoryBroker
from server.config import RoomConfig, TablePolicy
from server.errors import TableError
from server.friend_rooms import PrivateRoom
from server.game_driver import GameDriver
from server.keeping import Keeper, LeaseLost
from server.match_core import SeatDraw
from server.observability import Metrics
from server.ownership import Lease
from server.presence import Gone, Presence
from server.seating import SeatInfo, Seating
from server.store import Scored, Store
from server.table_marks import TableMarks
from server.table_options import DEFAULT_PACE, PACES, Pace, TableRules
from server.tasks import cancel
from server.updates import Sent

T = TypeVar("T")
log = logging.getLogger("junqi")


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
    policy: TablePolicy = field(default_factory=TablePolicy)


class Table:
    def __init__(
        self, table_id: str, room: RoomConfig, services: Services, rules: TableRules
    ) -> None:
        self.id = table_id
        self.services = services
        self.policy = services.policy
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
        self.seating = Seating(len(self.variant.seats))
        self.presence = Presence()
        self.game = GameDriver()
        self.marks = TableMarks(services.store, services.broker)  # the players' private marks
        self.lease = Lease()
        self.actor = Actor(table_id, self.after_command, self.tick, self.next_alarm)
        self.bots = BotDriver(self.variant.key, services.think, self.bot_act)
        # the user who opened the table (may seat bots), the name the lobby shows, and where
        # they opened it from
        self.creator: int | None = None
        self.creator_name: str | None = None
        self.creator_address: str | None = None
        self.stand_ins = False  # 托管 at this table: a bot plays for a player who is away
        self.quick = False  # a table of play now (马上开始)
        self.private: PrivateRoom | None = None  # a friend room's (好友房) code and settings
        self.rematch = rematch.Rematch()  # who agreed to play again (再来一局)
        self.pace: Pace = DEFAULT_PACE  # how long its bots wait before a move (no rule)
        self.seat_draw: SeatDraw | None = None  # quick match's seats (``server.match_core``)
        self.version = 0
        self.changed_seats = False  # seats changed in the running command
        self.sent: Sent | None = None  # what the last update showed
        self.idle_since: float | None = time.time()  # nobody seated and no game on, since
        self.lonely_since: float | None = None  # no game on and all seated one person, since

    # --- what other modules read --------------------------------------------------------------

    @property
    def seats(self) -> list[SeatInfo]:
        return self.seating.seats

    @property
    def state(self) -> GameState | None:
        return self.game.state

    @property
    def game_id(self) -> str | None:
        return self.game.game_id

    @property
    def players(self) -> list[int | None]:
        """The user ids of the current game's seats."""
        return self.game.players

    @property
    def seq(self) -> int:
        return self.game.seq

    @property
    def last_points(self) -> list[int]:
        return self.game.last_points

    @property
    def scoring(self) -> dict[str, Any] | None:
        return self.game.scoring

    @property
    def in_game(self) -> bool:
        return self.game.in_game

    @property
    def status(self) -> str:
        return self.game.status

    @property
    def epoch(self) -> int:
        return self.lease.epoch

    @epoch.setter
    def epoch(self, epoch: int) -> None:
        self.lease.epoch = epoch

    def seat_of(self, user_id: int) -> int | None:
        return self.seating.seat_of(user_id)

    def players_by_user(self) -> dict[str, int]:
        """The seat of each seated user (by user id, as a JSON key)."""
        return {str(s.user_id): i for i, s in enumerate(self.seats) if s.user_id is not None}

    def viewers(self) -> set[int | None]:
        return self.presence.viewers(self.seat_of)

    def entry(self) -> listing.LobbyEntry:
        return listing.entry(self)

    def listing(self) -> dict[str, Any]:
        return listing.listing(self)

    def snapshot(self, viewer: int | None) -> dict[str, Any]:
        """Everything ``viewer`` needs to draw the table now (``server.updates``)."""
        return updates.snapshot(self, viewer)

    def may(self, viewer: int | None) -> list[str]:
        return listing.may(self, viewer)

    def bot_commands(self) -> list[str]:
        return listing.bot_commands(self)

    # --- the actor ----------------------------------------------------------------------------

    def start(self) -> None:
        self.actor.start()

    async def stop(self) -> None:
        await cancel(self.bots.tasks)
        await self.actor.stop()

    async def call(self, command: Callable[[], Awaitable[T]]) -> T:
        """Run ``command`` inside the actor, after every command sent before it."""
        return await self.actor.call(command)

    def spawn(self, command: Callable[[], Awaitable[Any]]) -> None:
        self.actor.spawn(command)

    def after_command(self) -> None:
        """Send what the command changed, and note who is left at the table."""
        try:
            self.flush()
            self.marks.send(self)
        finally:
            self.note_idle()

    def note_idle(self) -> None:
        """Note since when the table has had nobody seated and no game on, and since when
        no game on and nobody seated but one person (the lobby closes it after a while:
        ``Lobby._reap_idle_tables``)."""
        seated = bool(self.seating.people())
        if self.in_game or seated:
            self.idle_since = None
        elif self.idle_since is None:
            self.idle_since = time.time()
        if self.in_game or not self.seating.one_person():
            self.lonely_since = None
        elif self.lonely_since is None:
            self.lonely_since = time.time()

    async def close(self, idle_only: bool, why: messages.Closing = "idle") -> bool:
        """The table closes (no game may be on; ``idle_only``: nobody may be seated either,
        but one person for ``lonely_seconds``, ``why`` "lonely"); those watching it hear so,
        and ``why``. Returns whether it did."""
        self.note_idle()
        if self.in_game:
            return False
        since = self.lonely_since if why == "lonely" else self.idle_since
        if idle_only and since is None:
            return False
        self.publish(messages.closed(self.id, why))
        return True

    def next_alarm(self) -> float | None:
        """When the clock must wake the table next (None: never, or not while this process
        is unsure of its lease: the renewal sets it again, ``lease_renewed``)."""
        if not self.sure():
            return None
        times = [s.away_until for s in self.seats if s.away_until is not None]
        return min([*times, *self.game.deadlines()], default=None)

    async def tick(self) -> None:
        """The clock: graces run out (a player gone between games stands up, during one has
        escaped), then the game's deadlines."""
        if not self.sure():  # no verdict of the clock while the table may be another's
            return
        now = time.time()
        grace = self.rule_options.disconnect_grace_seconds
        for seat in self.presence.overdue(self.seats, now, grace, lambda: self.in_game):
            if not self.in_game:
                self.vacate(seat)  # gone between games: the seat is free again
            elif self.game.alive(seat):
                # gone for the whole grace: an escape, whether a bot stood in meanwhile
                # (托管) or not (docs/rules.md §11)
                await self.apply(engine.Escape(seat, now=now))
                await self.resume_if_all_back()
        action = self.game.due(now)
        if action is not None:
            await self.apply(action)

    # --- the lease (in a cluster) ---------------------------------------------------------------

    def sure(self) -> bool:
        """Whether this process is sure to own the table now (``Lease.sure``)."""
        return self.lease.sure()

    def lease_renewed(self, until: float) -> None:
        """The lease holds until ``until`` (monotonic). If it had lapsed meanwhile (this
        process froze, or the database was slow), the table catches up (``regained``)."""
        lapsed = self.lease.renewed(until)
        if lapsed is not None and not self.actor.stopped:
            self.spawn(functools.partial(self.regained, lapsed))

    async def regained(self, since: float) -> None:
        """Sure of the lease again after it lapsed at ``since``: the clocks and the graces stood
        still meanwhile, as nobody could be told anything (a pause and a resume, so the
        record keeps it); the updates held back go out after this command."""
        since = max(since, self.game.acted_at)
        stalled = time.time() - since
        if stalled > 0:
            for info in self.seats:
                if info.away_until is not None:
                    info.away_until += stalled
            if self.game.playing:
                await self.apply(engine.Pause(now=since))
                await self.apply(engine.Resume(now=time.time()))
        self.services.on_change(self)  # the lobby's entry, held back meanwhile too
        log.warning("lease regained", extra={"table": self.id, "stalled": round(stalled, 3)})

    async def hold_clocks(self, hold: bool) -> None:
        """Some players cannot be reached (Redis, between the processes, is away): the clocks
        stand still (``hold``) until they can again: a pause and a resume, in the record."""
        game = self.game
        state = game.state
        if state is None or state.phase != Phase.PLAYING:
            game.clocks_held = False
        elif hold and state.paused_since is None:
            await self.apply(engine.Pause(now=time.time()))
            game.clocks_held = True
        elif not hold and game.clocks_held:
            game.clocks_held = False
            if state.paused_since is not None:
                await self.apply(engine.Resume(now=time.time()))

    # --- seats (commands run inside the actor) ------------------------------------------------

    def vacate(self, seat: int) -> None:
        """Empty a seat; the host (桌主) passes to the next seated player."""
        self.seating.vacate(seat)
        self.seats_changed()

    async def start_if_ready(self) -> None:
        if not self.in_game and self.seating.all_ready():
            await self.start_game()

    def others_seated(self, user_id: int) -> bool:
        """Whether a person other than ``user_id`` sits at the table."""
        return self.seating.others_seated(user_id)

    def set_taken_over(self, seat: int, on: bool, why: str) -> None:
        """托管 starts or ends for ``seat`` (``why``: the player "asked", went "away", or is
        "back"); the game's log says so, for everyone to read."""
        info = self.seats[seat]
        if info.taken_over == on:
            return
        info.taken_over = on
        if self.in_game:
            self.record([Event("stand_in", {"seat": seat, "on": on, "why": why})])

    # --- restarts -----------------------------------------------------------------------------

    def kept_data(self) -> dict[str, Any]:
        """The table around its running game, as kept with it (JSON values): what a restart
        or another process needs to take it back (``server.adoption``)."""
        game, seating = self.game, self.seating
        return {
            "room": self.room_data,
            "changes": self.changes,
            "quick": self.quick,
            "private": None if self.private is None else self.private.kept(),
            "seats": [vars(info) for info in seating.seats],  # plain fields: JSON as they are
            "host": seating.host,
            "creator": self.creator,
            "creator_name": self.creator_name,
            "creator_address": self.creator_address,
            "stand_in": self.stand_ins,
            "pace": self.pace,
            "game_id": game.game_id,
            "players": game.players,
            "stood_in": sorted(game.stood_in),
            "shared": game.shared,
            "version": self.version,
            "seq": game.seq,
            "saved_at": time.time(),
        }

    async def persist(self) -> None:
        """Keep the running game and the table around it (with the events not kept yet), so
        that a restart or another process takes it back; raises ``LeaseLost`` if another
        process owns the table now."""
        game = self.game
        assert game.state is not None
        await self.services.keeper.save(
            self.id,
            self.kept_data(),
            game.state,
            game.saved_actions,
            game.unkept_events(),
            self.epoch,
        )
        game.kept()

    # --- the game -----------------------------------------------------------------------------

    async def act_as(self, seat: int, version: int, action: dict[str, Any]) -> None:
        """A player's (or a bot's) action for ``seat``, made at table ``version``."""
        if not self.in_game:
            raise TableError("not_playing", "the game is not running")
        if version != self.version:
            raise TableError("stale_version", f"the table is at version {self.version}")
        await self.apply(self.game.parse(seat, action))

    async def start_game(self) -> None:
        if self.rule_options.random_seats and self.seat_draw is None:  # quick match drew them
            self.seating.shuffle(secrets.SystemRandom())  # 随机防作弊: nobody chooses
        grace = self.rule_options.disconnect_grace_seconds
        for info in self.seats:
            if info.away_until is not None:  # away between games: the game's grace from now
                info.away_until = time.time() + grace
        self.game.begin(
            self.variant.key,
            self.rule_options,
            self.seating.host or 0,
            [s.user_id for s in self.seats],
            secrets.token_hex(16),
            self.seating.shared(),
        )
        game_id, state = self.game_id, self.state
        assert game_id is not None and state is not None
        self.bots.new_game(seat for seat, s in enumerate(self.seats) if s.bot)
        self.marks.begin(game_id)
        self.version += 1
        await self.services.store.game_started(game_id, state, self.room.id, self.game.players)
        self.record([Event("game_created", {"game_id": game_id})], seats_changed=True)
        await self.persist()
        log.info("game started", extra={"table": self.id, "game": game_id})
        self.services.on_change(self)

    async def apply(self, action: engine.Action) -> None:
        mark, version = self.game.mark(), self.version
        events = self.game.step(action)
        self.version += 1
        self.record(events)
        try:
            # before anyone hears of the move, the last one too: a restart keeps it, and a
            # process that lost the table can neither play on nor end the game
            await self.persist()
        except Exception as error:
            # not kept, so it never happened: nobody hears of it, the player may try again
            self.game.rollback(mark)
            self.version = version
            self.lost_if_taken(error)
            log.exception("a move could not be kept", extra={"table": self.id})
            raise TableError("unavailable", "the move could not be kept; try again") from None
        self.game.acted_at = time.time()
        await self.marks.follow(self, events)
        metrics = self.services.metrics
        if metrics is not None and isinstance(action, engine.Move):
            metrics.moves.inc()
        if self.state is not None and self.state.phase == Phase.FINISHED:
            await self.finish_game()

    def lost_if_taken(self, error: Exception) -> None:
        """``error`` of a write: if another process owns the table now, it stops here."""
        if isinstance(error, LeaseLost):
            self.services.on_lost(self)
            raise TableError("moved", "the table moved to another server") from None

    async def finish_game(self) -> None:
        game = self.game
        game_id, state = game.game_id, game.state
        assert game_id is not None and state is not None and state.result is not None
        # as the game began: a seat left since (an escaper's) changes nothing
        unrated_because = listing.unrated_because(self, game.shared)
        stood_in = sorted(game.stood_in)
        store = self.services.store
        try:
            scored = await store.game_finished(
                game_id, state, game.players, rated=unrated_because is None, stood_in=stood_in
            )
        except Exception:
            # the game ends all the same, unscored, and says so; never left running
            log.exception(
                "a finished game could not be stored", extra={"table": self.id, "game": game_id}
            )
            await store.game_unscored(game_id, "not_stored")
            scored, unrated_because = Scored([0] * len(self.seats), 0), "not_stored"
        rated = unrated_because is None
        game.last_points = scored.points
        game.scoring = {
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
        log.info(
            "game finished",
            extra={"table": self.id, "game": game_id, "reason": state.result.reason},
        )
        # players who left are not kept seated
        self.seating.game_over(scored.points if rated else None, self.presence.watching_users())
        points = {"game_id": game_id, "points": game.last_points, **game.scoring}
        self.record([Event("points", points)], seats_changed=True)
        self.services.on_change(self)

    # --- bots ---------------------------------------------------------------------------------

    def bot_plays(self, seat: int) -> bool:
        info = self.seats[seat]
        return info.bot or info.taken_over

    def wake_bots(self) -> None:
        """Let every seat a bot plays (bots, and with 托管 the players who are away) decide on
        the new state, each in the background."""
        state = self.state
        if self.bots.think is None or not self.in_game or state is None:
            return
        # the seat to move waits for the table's pace from the start of its turn (the last
        # action), so that people see one move before the next
        pace = PACES[self.pace] * self.policy.bot_pace_scale
        for seat, info in enumerate(self.seats):
            if self.bot_plays(seat):
                if not info.bot:
                    self.game.stood_in.add(seat)
                    self.bots.take_over(seat, state)
                moving = state.phase == Phase.PLAYING and state.to_move == seat
                not_before = self.game.acted_at + pace if moving else 0.0
                self.bots.wake(seat, info.level, state, self.version, not_before)

    async def bot_act(self, seat: int, version: int, action: dict[str, Any]) -> None:
        """A bot's ``action`` for ``seat``, decided at table ``version``: it runs in the actor."""

        async def act() -> None:
            if self.bot_plays(seat):  # a player who came back plays again
                await self.act_as(seat, version, action)

        await self.call(act)

    # --- updates ------------------------------------------------------------------------------

    def record(self, events: list[Event], seats_changed: bool = False) -> None:
        """Number ``events`` into the game's log; they go out when the command is done."""
        numbered = self.game.record(events)
        self.changed_seats |= seats_changed
        self.bots.learn(self.state, numbered)

    def seats_changed(self) -> None:
        self.version += 1
        self.changed_seats = True
        self.services.on_change(self)

    def publish(self, message: messages.TableNews) -> None:
        self.services.broker.publish(f"table:{self.id}", message)

    def flush(self) -> None:
        """Send what the last command changed, as one update rendered for each viewer: during
        play a patch on the previous update (``server.updates``), else whole snapshots."""
        game = self.game
        if not game.unsent and not self.changed_seats:
            return
        if not self.sure():  # held back until the lease is renewed, or lost with the table
            return
        events, seats_changed = game.unsent, self.changed_seats
        game.unsent, self.changed_seats = [], False
        self.sent, update = updates.render_update(self, events, seats_changed)
        self.publish(update)
        self.wake_bots()

    # --- who is at the table (the gateway's commands) -----------------------------------------

    async def connection_changed(
        self, user_id: int, socket: str | None = None, opened: bool = False
    ) -> None:
        """A ``socket`` of a user opened this table or closed it (none: only see where the user
        stands); a seated player with no socket left during a game gets the grace period to
        come back (``Presence.when_gone``: the clock runs on, 托管 plays, or in 三打一 play
        pauses meanwhile)."""
        change = self.presence.watch(user_id, socket, opened)
        if change is None:
            return  # opened again, or closed again: nothing changed
        before, watching = change
        seat = self.seat_of(user_id)
        if seat is None:
            if bool(before) != bool(watching):
                # the count of spectators: the lobby's, and the table's own in every viewer's
                # snapshot (an update of the listing, with no new version: nothing to act on)
                self.changed_seats = True
                self.services.on_change(self)
            return
        info = self.seats[seat]
        if watching == 0 and not self.in_game and not info.bot:
            # between games a player who closed the page stands up after a moment
            info.away_until = time.time() + self.services.policy.seat_grace_seconds
        elif watching == 0 and self.in_game:
            state = self.state
            assert state is not None
            info.away_until = time.time() + state.rules.disconnect_grace_seconds
            gone = Presence.when_gone(state, seat, self.stand_ins, socket is not None)
            if gone is Gone.STAND_IN:
                self.set_taken_over(seat, True, "away")  # 托管: a bot plays the grace
            elif gone is Gone.PAUSE:
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
