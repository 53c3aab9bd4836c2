"""Quick match (自动匹配): the queue's socket side and the matcher.

A socket joins the queue of a variant and an information mode (``queue``), leaves it
(``unqueue``, or by closing), and after ``quick_bots_seconds`` may take a table with bots instead
(``queue_bots``). Its process (``Matchmaker``, one per process) keeps its tickets (``local``) and
sends each ``queue_status`` every ``quick_status_seconds``; the queue itself is a
``server.queue_store`` (in memory, or in Redis for a cluster). One process at a time, the one
holding the matcher's lease, forms tables every ``quick_tick_seconds`` (``server.match_core``):
it takes the entries, draws the seats from the committed seed, makes the table in the variant's
quick-match room (the first open room of that variant and mode: docs/protocol.md, "Quick
match"), seats the players there (``seat_matched``) and tells every process (``MATCHED_TOPIC``),
whose sockets then hear ``matched``. An entry the process finds gone (Redis wiped) tells its
socket ``unqueued`` (``lost``), and the client joins again by itself.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from pydantic import BaseModel
from redis import asyncio as aioredis
from redis.exceptions import RedisError

from engine import get_variant
from server import inbound, messages, outbound, social
from server.broker import Subscription
from server.config import RoomConfig
from server.errors import TableError
from server.lobby import Lobby
from server.match_core import (
    BANDS,
    Waiting,
    band_range,
    commitment,
    draw_seats,
    form_groups,
    partner_pairs,
)
from server.models import User
from server.points_reader import PointsReader
from server.queue_store import MemoryQueue, QueueStore, RedisQueue
from server.quick_tables import keep_draws
from server.tasks import cancel

MATCHED_TOPIC = "quick:matched"  # a table was formed: every process tells its sockets
log = logging.getLogger("junqi")


class Queuer(Protocol):
    """What the matchmaker needs of a socket (``server.realtime.Connection``)."""

    @property
    def user(self) -> User: ...

    @property
    def address(self) -> str | None: ...

    @property
    def device(self) -> str | None: ...

    async def send(self, message: Any) -> None: ...


@dataclass(frozen=True)
class QuickSettings:
    bots_seconds: float = 60.0  # waited this long, a player may fill a table with bots
    widen_seconds: float = 20.0  # a player accepts one band more either way this often
    tick_seconds: float = 0.25  # how often the matcher forms tables
    status_seconds: float = 1.0  # how often a waiting socket hears ``queue_status``
    lease_seconds: float = 3.0  # the matcher's lease (with several processes)


@dataclass
class Ticket:
    connection: Queuer
    waiting: Waiting


def mode_of(room: RoomConfig) -> str:
    """A room's information mode (its ``information`` option, else its variant's)."""
    default = get_variant(room.variant).rules.information.value
    return str(room.options.get("information", default))


class Matchmaker:
    """Quick match in one process: its sockets' tickets, and the matcher when it leads."""

    def __init__(
        self, lobby: Lobby, store: QueueStore, node: str, settings: QuickSettings | None = None
    ) -> None:
        self.lobby = lobby
        self.store = store
        self.node = node
        self.settings = settings or QuickSettings()
        self.local: dict[int, Ticket] = {}  # user id -> the ticket of its socket here
        self.points = PointsReader(lobby.store.points)
        # the queue's calls of many sockets at once, a few at a time: Redis's connection
        # pool, shared with the broker and the rate limits, has a bound (100)
        self.gate = asyncio.Semaphore(16)
        self.tasks: list[asyncio.Task[None]] = []
        self.forming: set[asyncio.Task[None]] = set()
        self.subscription: Subscription | None = None
        self.redis: aioredis.Redis | None = None  # the queue's own Redis client, if any
        # as last read (``check_tickets``): players waiting by variant and mode, and the
        # commitment of the next seat seed
        self.counts: dict[tuple[str, str], int] = {}
        self.commitment = ""
        self.draws: list[tuple[str, dict[str, Any]]] = []  # of games begun, to keep with them

    async def start(self) -> None:
        self.subscription = self.lobby.broker.subscribe(MATCHED_TOPIC, self._matched)
        await self.lobby.broker.subscribed(MATCHED_TOPIC)
        self.tasks.append(asyncio.create_task(self._run(), name="matchmaker"))

    async def close(self) -> None:
        if self.subscription is not None:
            self.subscription.close()
        await cancel([*self.tasks, *self.forming])
        if self.redis is not None:
            await self.redis.aclose()

    def room_for(self, variant: str, mode: str | None) -> tuple[str, str]:
        """The quick-match room of a variant and mode (None: the variant's own), and the mode."""
        if mode is None and variant in {r.variant for r in self.lobby.rooms.values()}:
            mode = get_variant(variant).rules.information.value
        for room in self.lobby.rooms.values():
            if room.id in self.lobby.closed_rooms or room.variant != variant:
                continue
            if mode_of(room) == mode:
                return room.id, mode
        raise TableError("no_quick_match", f"no open room plays {variant} {mode or ''}")

    # --- a socket's commands ------------------------------------------------------------------

    async def join(self, who: Queuer, variant: str, mode: str | None) -> None:
        """Queue ``who`` (after standing them up from a table with no game on)."""
        user = who.user
        if user.id in self.local:
            raise TableError("already_queued", "you are waiting for a table already")
        _, mode = self.room_for(variant, mode)
        await self.lobby.stand_elsewhere(user.id)  # playing_elsewhere while in a game
        points = await self.points.points(variant, user.id)
        waiting = Waiting(
            uuid.uuid4().hex, user.id, user.name, variant, mode, points, time.time(),
            who.address, who.device, self.node,
        )  # fmt: skip
        async with self.gate:
            added = await self.store.add(waiting)
        if not added:
            raise TableError("already_queued", "you are waiting for a table already")
        self.local[user.id] = Ticket(who, waiting)
        if not self.commitment:
            self.commitment = commitment(await self.store.next_seed())
        await self.send_status(self.local[user.id], time.time())

    async def leave(self, who: Queuer) -> bool:
        """Take ``who``'s ticket out of the queue; whether it had one."""
        ticket = self.local.get(who.user.id)
        if ticket is None or ticket.connection is not who:
            return False
        del self.local[who.user.id]
        try:
            async with self.gate:
                await self.store.remove(who.user.id, ticket.waiting.entry)
        except RedisError:  # the entry may stay a while: its table goes on without this socket
            log.warning("quick match: a place could not be given up", exc_info=True)
        return True

    async def with_bots(self, who: Queuer) -> str:
        """Leave the queue for a table of the mode's room with bots (unrated); its id."""
        ticket = self.local.get(who.user.id)
        if ticket is None or ticket.connection is not who:
            raise TableError("not_queued", "join the queue first")
        w = ticket.waiting
        if time.time() - w.joined < self.settings.bots_seconds:
            raise TableError("bots_not_yet", "bots are offered after a while of waiting")
        if not await self.store.remove(w.user, w.entry):
            raise TableError("not_queued", "a table is being formed for you")
        del self.local[w.user]
        room, _ = self.room_for(w.variant, w.mode)
        user = who.user
        table = await self.lobby.play_now(room, user.id, user.name, w.address, w.device)
        await who.send(matched_message(table.id, w, None))
        return table.id

    async def command(self, who: Queuer, m: BaseModel) -> outbound.Answer | None:
        """A socket's message as quick match sees it: ``queue``, ``unqueue`` and ``queue_bots``
        answered here (what their ``ok`` carries); ``sit``, ``play_now`` and ``create_table``
        leave the queue first (a player seated otherwise waits no more), and, as every other
        message, are the gateway's to answer (None)."""
        if isinstance(m, inbound.Queue | inbound.Unqueue):
            return await quick_command(self, who, m)
        if isinstance(m, inbound.Sit | inbound.PlayNow | inbound.CreateTable):
            await self.leave(who)
        return None

    # --- the loop -----------------------------------------------------------------------------

    async def _run(self) -> None:
        last_status = 0.0
        while True:
            await asyncio.sleep(self.settings.tick_seconds)
            try:
                if await self.store.lead(self.node, self.settings.lease_seconds):
                    await self.match_round()
                if time.time() - last_status >= self.settings.status_seconds:
                    last_status = time.time()
                    await self.check_tickets()
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis away a moment, say: the next round tries again
                log.warning("quick match round failed", exc_info=True)

    async def read_queue(self) -> None:
        """Count the waiting players and read the next seat commitment (for ``queue_status``)."""
        counts: dict[tuple[str, str], int] = {}
        for w in await self.store.waiting():
            counts[w.variant, w.mode] = counts.get((w.variant, w.mode), 0) + 1
        self.counts = counts
        self.commitment = commitment(await self.store.next_seed())

    async def check_tickets(self) -> None:
        """Each waiting socket hears how the queue stands; one whose entry is gone, so."""
        states = await self.store.states(list(self.local))
        await self.read_queue()
        now = time.time()
        for user, state in states.items():
            ticket = self.local.get(user)
            if ticket is None or state == "taken":
                continue
            if state != ticket.waiting.entry:  # lost (Redis wiped): the client joins again
                del self.local[user]
                await ticket.connection.send(outbound.Unqueued(type="unqueued", why="lost"))
            else:
                await self.send_status(ticket, now)

    async def send_status(self, ticket: Ticket, now: float) -> None:
        w = ticket.waiting
        low, high = band_range(w, now, self.settings.widen_seconds)
        status: outbound.QueueStatus = {
            "type": "queue_status",
            "variant": w.variant,
            "mode": w.mode,
            "size": max(1, self.counts.get((w.variant, w.mode), 0)),
            "waited": round(now - w.joined, 1),
            "band": BANDS[w.band],
            "bands": [BANDS[low], BANDS[high]],
            "bots": now - w.joined >= self.settings.bots_seconds,
            "commitment": self.commitment,
        }
        await ticket.connection.send(status)

    async def match_round(self) -> None:
        """Form every table the queue allows now (the matcher's work)."""
        kinds: dict[tuple[str, str], list[Waiting]] = {}
        for w in await self.store.waiting():
            kinds.setdefault((w.variant, w.mode), []).append(w)
        full = {k: ws for k, ws in kinds.items() if len(ws) >= len(get_variant(k[0]).seats)}
        if not full:
            return
        users = [w.user for ws in full.values() for w in ws]
        blocked = await social.blocked_pairs(self.lobby.store.sessions, users)
        now, made = time.time(), []
        for (variant, _), ws in full.items():
            seats = len(get_variant(variant).seats)
            apart = self.lobby.policy.shared_address_unrated
            widen = self.settings.widen_seconds
            for group in form_groups(ws, seats, now, widen, blocked, apart):
                made.append(self.make_table(group))
        # a few at a time: each is a few writes to the database
        for start in range(0, len(made), 16):
            if start and not await self.store.lead(self.node, self.settings.lease_seconds):
                for late in made[start:]:
                    late.close()  # another process leads now (this one was too slow)
                return
            formed = await asyncio.gather(*made[start : start + 16])
            draws, self.draws = self.draws, []
            try:  # before anyone hears; without it, only the replay cannot check the seats
                await keep_draws(self.lobby.store.sessions, draws)
            except Exception:
                log.exception("the seat draws of new quick-match games could not be kept")
            for news in formed:
                if news is not None:
                    self.lobby.broker.publish(MATCHED_TOPIC, news)

    async def make_table(self, group: list[Waiting]) -> messages.MatchedNews | None:
        """Take ``group`` out of the queue, seat it at a new table of its room by the draw;
        the news to tell its players (None if it was not made)."""
        if not await self.store.take(group):
            return None  # one of them left meanwhile
        first = group[0]
        busy = [w for w in group if self.playing(w.user)]
        if busy:  # sat down elsewhere since (from another socket): out; the others wait on
            await self.store.done([w.user for w in busy])
            await self.store.give_back([w for w in group if w not in busy])
            return None
        try:
            for w in group:  # a seat at one table at a time: up from any with no game on
                await self.lobby.stand_elsewhere(w.user)
            room, _ = self.room_for(first.variant, first.mode)
            table_id, seats = await self.seat_group(room, group)
        except Exception:
            log.exception("a quick-match table could not be made: its players wait on")
            await self.store.give_back(group)
            return None
        entries = {str(w.user): w.entry for w in group}
        return {"table": table_id, "commitment": seats, "entries": entries}

    def playing(self, user: int) -> bool:
        """Whether the user plays a game at some table now."""
        entries = self.lobby.entries.values()
        return any(e.status == "playing" and e.seat_of(user) is not None for e in entries)

    async def seat_group(self, room: str, group: list[Waiting]) -> tuple[str, str]:
        """A new table of ``room`` with ``group`` seated by the draw; its id and the draw's
        commitment."""
        teams = get_variant(group[0].variant).teams
        by_name = {w.name: w for w in group}
        last = await self.store.partners([w.user for w in group])

        def repeats(a: str, b: str) -> bool:
            return last.get(by_name[a].user) == by_name[b].user

        seed = await self.store.use_seed()
        self.commitment = commitment(await self.store.next_seed())  # the next one's, as shown
        seated, attempt = draw_seats(seed, by_name, teams, repeats)
        names = sorted(by_name)
        repeated = [[a, b] for i, a in enumerate(names) for b in names[i + 1 :] if repeats(a, b)]
        draw = {"seed": seed, "players": names, "attempt": attempt, "repeated": repeated}
        players = [{k: v for k, v in asdict(by_name[n]).items() if k in SEATED} for n in seated]
        for p in players:
            p["user"] = by_name[p["name"]].user
        table = await self.lobby.create_table(room, quick=True)
        ran = await self.lobby.run(table.id, "seat_matched", players=players, draw=draw)
        if ran["result"] is not None:
            self.draws.append((ran["result"], draw))
        user = [by_name[name].user for name in seated]
        pairs = [(user[a], user[b]) for a, b in partner_pairs(teams)]
        await self.store.set_partners(pairs, [w.user for w in group])
        return table.id, commitment(seed)

    def _matched(self, news: messages.MatchedNews) -> None:
        """A table was formed (by this process or another): its sockets here hear so."""
        for user_text, entry in news["entries"].items():
            ticket = self.local.get(int(user_text))
            if ticket is None or ticket.waiting.entry != entry:
                continue
            del self.local[ticket.waiting.user]
            task = asyncio.create_task(self._tell(ticket, news["table"], news["commitment"]))
            self.forming.add(task)
            task.add_done_callback(self.forming.discard)

    async def _tell(self, ticket: Ticket, table_id: str, seats: str) -> None:
        w = ticket.waiting
        await self.store.done([w.user])
        await ticket.connection.send(matched_message(table_id, w, seats))


SEATED = ("name", "points", "address", "device")


def matched_message(table_id: str, w: Waiting, seats: str | None) -> outbound.Matched:
    """``matched``: ``seats`` the commitment of the table's seat draw, or None for a table
    with bots."""
    return {
        "type": "matched",
        "table": table_id,
        "variant": w.variant,
        "mode": w.mode,
        "bots": seats is None,
        "commitment": seats,
    }


async def start_matchmaker(lobby: Lobby, redis: Any, settings: Any) -> Matchmaker:
    """The process's matchmaker, its queue in Redis if ``redis`` (a cluster), else in memory;
    started (``settings``: ``server.config.Settings``)."""
    store: QueueStore = MemoryQueue()
    own = None
    if redis is not None:
        # connections of its own, waited for when all are busy: the app's pool (100, shared by
        # the broker and the rate limits) refuses at once when thousands send at once
        pool = aioredis.BlockingConnectionPool.from_url(
            settings.redis_url, max_connections=16, timeout=30, decode_responses=True
        )
        own = aioredis.Redis(connection_pool=pool)
        store = RedisQueue(own)
    quick = QuickSettings(
        settings.quick_bots_seconds,
        settings.quick_widen_seconds,
        settings.quick_tick_seconds,
        settings.quick_status_seconds,
        settings.lease_seconds,
    )
    matchmaker = Matchmaker(lobby, store, lobby.origin, quick)
    matchmaker.redis = own
    await matchmaker.start()
    return matchmaker


async def quick_command(
    matchmaker: Matchmaker, who: Queuer, m: inbound.Queue | inbound.Unqueue
) -> outbound.Answer:
    """A socket's ``queue``, ``unqueue`` or ``queue_bots``: what its ``ok`` carries (the
    table's id for ``queue_bots``)."""
    try:
        if isinstance(m, inbound.Queue):
            await matchmaker.join(who, m.variant, m.mode)
        elif m.type == "unqueue":
            await matchmaker.leave(who)
        else:
            return {"table": await matchmaker.with_bots(who)}
    except RedisError:  # Redis away a moment: the socket stays, the client tries again
        log.warning("quick match: Redis failed", exc_info=True)
        raise TableError("unavailable", "the queue is away for a moment; try again") from None
    return {}
