"""The WebSocket gateway: one socket per client, JSON messages validated by pydantic.

Protocol (docs/protocol.md has every message with an example): the client sends typed messages
(``type`` is the discriminator) with an optional ``id`` that the reply echoes as ``ref``; the
server answers ``ok`` or ``error`` and pushes ``lobby``, ``table``, ``update`` and ``chat``
messages, each a typed dict of ``server.outbound`` (the client's are ``server.inbound``). Every
table update carries the table's events numbered per table and filtered for the viewer through
the engine, and a fresh snapshot of the table as that viewer may see it: the table renders both
for each viewer (``server.updates``); a connection passes its user's on, handed each update by
the process's feed of that table (``server.feeds``). Table commands go through ``Lobby.run``,
so a socket on any process reaches a table of any process.

A socket signs in by its first message (``server.sign_in``); a user has at most
``sockets_per_user`` of them in this process. What a connection sends goes through its bounded
``Outbox`` (``server.outbox``): a client too far behind is closed rather than held in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
import uuid
from collections import Counter
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import orjson
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ValidationError

from server import block_rules, gathering, inbound, messages, moderation, outbound
from server.accounts import token_hash
from server.addresses import connection_address
from server.errors import TableError
from server.feeds import Feeds, Handler
from server.limits import RateLimits
from server.lobby import LOBBY_TOPIC, Lobby
from server.models import User
from server.outbound import BANNED, FOREIGN_PAGE, TOO_FAR_BEHIND, TOO_MANY_SOCKETS, UNAUTHORIZED
from server.outbox import Outbox
from server.penalties import escape_standing
from server.sign_in import rights_of, sign_in
from server.updates import json_text, viewer_key

router = APIRouter()
log = logging.getLogger("junqi")


class Connection:
    """One client socket: its user, its subscriptions and the tables it watches."""

    def __init__(
        self,
        ws: WebSocket,
        user: User,
        lobby: Lobby,
        token_hash: str,
        device: str | None = None,
    ) -> None:
        self.ws = ws
        self.user = user  # as last read (``check_rights``): its role and bans
        self.lobby = lobby
        self.token_hash = token_hash  # the socket's token, as stored (a logout closes its sockets)
        self.expires_at: datetime | None = None  # the token's end, as last read
        # where the client is (``server.addresses``) and the id its browser keeps for itself:
        # seats sharing either play unrated (``Table.unrated_because``)
        self.address = connection_address(ws)
        self.device = device
        self.settings = ws.app.state.settings
        self.feeds: Feeds = ws.app.state.feeds
        self.following: set[str] = set()  # topics
        self.watching: set[str] = set()
        self.seen: dict[str, int] = {}  # table id -> the last event number passed on
        self.id = uuid.uuid4().hex  # how the tables it watches tell it from the user's others
        # table id -> the epoch and number of the last update passed on, and whose view it was
        self.updates: dict[str, tuple[int, int, str]] = {}
        self.opening: dict[str, asyncio.Event] = {}  # tables whose snapshot is on its way
        # chat lines per user, shared by all of the user's sockets
        self.limits: RateLimits = ws.app.state.limits
        self.blocks = block_rules.BlockRules(self, user.id)  # whom the user blocks, or is by
        self.outbox = Outbox(
            ws,
            self.settings.socket_backlog_messages,
            self.settings.socket_backlog_bytes,
            self.fell_behind,
        )
        self.receiving: asyncio.Task[Any] | None = None  # while waiting for the client's frame
        self.done = False  # the socket is closed, or given up: its loop ends

    async def send(self, message: outbound.ServerMessage) -> None:
        """Pass ``message`` on (it never waits: the outbox queues it if it must)."""
        self.outbox.put(json_text(message))

    async def send_text(self, text: str) -> None:
        """Pass on a message rendered already (an ``outbound.Update``, once for every viewer)."""
        self.outbox.put(text)

    async def receive(self) -> Any:
        """The client's next frame (an ASGI message); None once the socket is ``done``."""
        if self.done:
            return None
        task = self.receiving = asyncio.current_task()
        try:
            return await self.ws.receive()
        except asyncio.CancelledError:
            # ours (``stop``), unless the task was cancelled for another reason too
            if self.done and task is not None and task.uncancel() == 0:
                return None
            raise
        finally:
            self.receiving = None

    def stop(self) -> None:
        """End the socket's loop, even while it waits for a frame: a client that reads nothing
        may send nothing either, nor take the close frame that would end the wait."""
        self.done = True
        if self.receiving is not None:
            self.receiving.cancel()

    def fell_behind(self) -> None:
        """The client reads too slowly (``Outbox``): its socket's loop ends, and closes it."""
        self.stop()

    async def close(self, code: int, reason: str) -> None:
        """Close the socket after the messages already sent to it, and end its loop."""
        await self.outbox.close(code, reason)
        self.stop()

    async def follow(self, topic: str, handle: Handler) -> None:
        """Pass broker messages of ``topic`` through ``handle`` until unfollowed."""
        if topic not in self.following:
            self.following.add(topic)
            await self.feeds.follow(topic, self, handle)

    def unfollow(self, topic: str) -> None:
        if topic in self.following:
            self.following.discard(topic)
            self.feeds.unfollow(topic, self)

    # --- messages -----------------------------------------------------------------------------

    async def handle(self, raw: str) -> None:
        if self.expires_at is not None and datetime.now(UTC) >= self.expires_at:
            await self.close(UNAUTHORIZED, "the login expired")
            return
        if len(raw.encode()) > self.settings.max_message_bytes:
            await self.error(
                None, "too_large", f"messages are at most {self.settings.max_message_bytes} bytes"
            )
            return
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            await self.error(None, "bad_json", "messages are JSON objects")
            return
        ref = _echoable(data.get("id")) if isinstance(data, dict) else None
        try:
            message = inbound.parse.validate_python(data)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            await self.error(ref, "bad_message", f"{where}: {first['msg']}")
            return
        try:
            extra = await self.dispatch(message)
        except TableError as error:
            await self.error(ref, error.code, error.message)
            return
        if not isinstance(message, inbound.Ping):
            await self.send(outbound.Ok(type="ok", ref=ref, **(extra or {})))

    async def check_rights(self) -> bool:
        """Read the socket's token and user again: a token revoked or expired closes the
        socket (4401), a ban too (4003); else the user's role and bans are as they are now.
        Returns whether the socket stays open."""
        async with self.lobby.store.sessions() as session:
            rights = await rights_of(session, [self.token_hash])
        return await self.apply_rights(rights.get(self.token_hash))

    async def apply_rights(self, found: tuple[datetime, User] | None) -> bool:
        """What ``check_rights`` does with what it read (``found``: the token's end and
        its user, None if the token is gone)."""
        if self.done:
            return False
        if found is None or found[0] <= datetime.now(UTC):
            await self.send(outbound.LoggedOut(type="logged_out"))
            await self.close(UNAUTHORIZED, "logged out" if found is None else "the login expired")
            return False
        self.expires_at, self.user = found
        if self.user.banned(datetime.now(UTC)):
            banned = moderation.ban_message(self.user)
            await self.send(outbound.Banned(type="banned", message=banned))
            await self.close(BANNED, "banned")
            return False
        return True

    async def check_escape_ban(self) -> None:
        """Repeat escapers may not join tables for a while (``server.penalties``); a table of
        bots (play now) stays open to them."""
        async with self.lobby.store.sessions() as session:
            standing = await escape_standing(session, self.user.id)
        if standing.banned_until is not None:
            raise TableError("escape_ban", standing.message())

    async def error(self, ref: object, code: str, message: str) -> None:
        await self.send(outbound.Error(type="error", ref=ref, code=code, message=message))

    async def dispatch(self, m: BaseModel) -> outbound.Answer | None:
        user = self.user
        limit = inbound.LIMITED.get(type(m))
        if limit is not None and not await getattr(self.limits, limit).admit(user.id):
            raise TableError("rate_limited", f"too many {inbound.RATE_WORDS[limit]}; wait a little")
        if (quick := await self.ws.app.state.matchmaker.command(self, m)) is not None:
            return quick or None  # 自动匹配 (``server.matchmaking``)
        if isinstance(m, inbound.Ping):
            await self.send(outbound.Pong(type="pong", ref=m.id, at=time.time()))
        elif isinstance(m, inbound.WatchLobby):
            await self.follow(LOBBY_TOPIC, self.lobby_update)
            await self.follow("chat:lobby", self.chat_message)
            await self.lobby_update(self.lobby.listing())
        elif isinstance(m, gathering.MESSAGES):  # tables made, friend rooms, invites, rematch
            return await gathering.handle(self, m)
        elif isinstance(m, inbound.OpenTable):
            await self.blocks.may_watch(m.table)
            await self.open_table(m.table, m.since)
        elif isinstance(m, inbound.CloseTable):
            await self.close_table(m.table)
        elif isinstance(m, inbound.Sit):
            await self.check_escape_ban()
            await self.blocks.may_sit(m.table)
            await self.lobby.stand_elsewhere(user.id, m.table)
            await self.lobby.run(
                m.table,
                "sit",
                user_id=user.id,
                name=user.name,
                seat=m.seat,
                address=self.address,
                device=self.device,
            )
            return {"version": await self.open_table(m.table, None)}
        elif isinstance(m, inbound.PlayNow):
            room = m.room or self.lobby.default_room()
            table = await self.lobby.play_now(
                room, user.id, user.name, self.address, self.device, m.pace
            )
            return {"table": table.id, "version": await self.open_table(table.id, None)}
        elif isinstance(m, inbound.Chat):
            await self.chat(m)
        elif isinstance(m, inbound.Phrase):
            await self.phrase(m)
        elif isinstance(m, inbound.Mark):
            await self.lobby.run(m.table, "mark", user_id=user.id, station=m.station, mark=m.mark)
        elif isinstance(m, inbound.Kick | inbound.Dissolve):
            return await self.moderate(m)
        elif (command := seat_command(m)) is not None:
            table_id, name, args = command
            ran = await self.lobby.run(table_id, name, user_id=user.id, **args)
            return {"version": ran["version"]}
        return None

    async def moderate(self, m: inbound.Kick | inbound.Dissolve) -> outbound.Answer:
        """A moderator's kick or dissolve, with their rights as they are now."""
        if not await self.check_rights():
            raise TableError("unauthorized", "sign in again")
        user = self.user
        sessions = self.lobby.store.sessions
        if isinstance(m, inbound.Kick):
            done = await moderation.kick(
                sessions, self.lobby, m.table, m.seat, m.penalty, user, m.reason
            )
        else:
            done = await moderation.dissolve(sessions, self.lobby, m.table, user, m.reason)
        return {"version": done["version"]}

    async def open_table(self, table_id: str, since: int | None) -> int:
        """Watch a table: a snapshot now (plus the events missed since ``since``), then every
        update as it happens; returns the table's version in the snapshot. Once more when
        the table moved to another process (which counts this socket anew), or this socket
        may have missed updates."""
        opened = self.opening[table_id] = asyncio.Event()  # updates wait for the snapshot
        try:
            await self.follow(f"table:{table_id}", functools.partial(self.table_update, table_id))
            await self.follow(f"chat:{table_id}", self.chat_message)
            try:
                ran = await self.lobby.run(
                    table_id, "open_for", user_id=self.user.id, socket=self.id, since=since
                )
            except TableError:
                if table_id not in self.watching:
                    self.unfollow(f"table:{table_id}")
                    self.unfollow(f"chat:{table_id}")
                raise
            self.watching.add(table_id)
            message: outbound.Table = ran["result"]["message"]
            epoch, have = message["epoch"], self.updates.get(table_id)
            if have is None or epoch >= have[0]:  # else a process that lost the table answered
                key = viewer_key(message["snapshot"]["you"])
                self.updates[table_id] = epoch, ran["result"]["update"], key
                self.seen[table_id] = message["snapshot"]["seq"]
                await self.send(message)
                if ran["result"]["marks"] is not None:  # the user's own marks, after the board
                    await self.send(ran["result"]["marks"])
        finally:
            opened.set()
            if self.opening.get(table_id) is opened:
                del self.opening[table_id]
        return int(message["snapshot"]["version"])

    def stop_watching(self, table_id: str) -> bool:
        """Follow the table no more; False if it was not watched."""
        if table_id not in self.watching:
            return False
        self.watching.discard(table_id)
        self.updates.pop(table_id, None)
        self.unfollow(f"table:{table_id}")
        self.unfollow(f"chat:{table_id}")
        return True

    async def close_table(self, table_id: str) -> None:
        if not self.stop_watching(table_id):
            return
        with contextlib.suppress(TableError):  # a table gone, or moving, counts us no more
            await self.lobby.run(table_id, "close_for", user_id=self.user.id, socket=self.id)

    async def table_update(self, table_id: str, news: messages.TableNews) -> None:
        if news["kind"] == "closed":  # nobody sat at it for a while, or its game was lost
            if self.user.id in news.get("users", [self.user.id]) and self.stop_watching(table_id):
                await self.send(outbound.Closed(type="closed", table=table_id, why=news["why"]))
                if news["why"] == "private":  # shown out of a friend room's game, which goes on
                    await gathering.shown_out(self, table_id)
            return
        opening = self.opening.get(table_id)
        if opening is not None:
            await opening.wait()
        have = self.updates.get(table_id)
        if have is None:
            return  # not watched (any more)
        # "moved": a new owner took the table over; "resync": Redis was away, and updates
        # with it; an update of a newer epoch: the new owner's, whose "moved" was lost
        if news["kind"] == "resync" or news["epoch"] > have[0]:
            with contextlib.suppress(TableError):
                await self.open_table(table_id, self.seen.get(table_id))
            return
        if news["kind"] != "update":
            return
        epoch, number = news["epoch"], news["update"]
        if epoch < have[0] or number <= have[1]:
            return  # from a process that lost the table, or already in this socket's snapshot
        key = viewer_key(news["players"].get(str(self.user.id)))
        if news["patch"] and (number - 1 > have[1] or key != have[2]):
            # a patch on an update this socket missed, or on another viewer's snapshot
            with contextlib.suppress(TableError):
                await self.open_table(table_id, self.seen.get(table_id))
            return
        text = news["views"].get(key)
        if text is not None:  # None: sent before the table knew of this socket
            self.updates[table_id] = epoch, number, key
            self.seen[table_id] = news["seq"]
            await self.send_text(text)

    async def lobby_update(self, listing: dict[str, Any]) -> None:
        await self.send(outbound.Lobby(type="lobby", lobby=listing))

    # --- chat ---------------------------------------------------------------------------------

    async def check_mute(self) -> None:
        """Refuse a muted user's chat and phrases (``muted``)."""
        async with self.lobby.store.sessions() as session:
            me = await session.get(User, self.user.id)  # a mute may have come since connecting
        if me is not None and me.muted(datetime.now(UTC)):
            raise TableError("muted", moderation.mute_message(me))

    async def chat(self, m: inbound.Chat) -> None:
        await self.check_mute()
        limit = self.settings.chat_max_chars
        if len(m.text) > limit:
            raise TableError("too_long", f"chat lines are at most {limit} characters")
        text = inbound.chat_text(m.text)
        if not text:
            raise TableError("empty_chat", "a chat line needs some text to show")
        if m.channel != "lobby":
            if m.table is None:
                raise TableError("bad_message", "table chat names its table")
            if m.table not in self.lobby.entries:
                raise TableError("no_table", f"no table {m.table!r}")
            seated = self.lobby.seat_of(m.table, self.user.id) is not None
            if (m.channel == "table") != seated:
                raise TableError("wrong_channel", "players chat at the table, spectators apart")
            if m.channel == "spectators" and m.table not in self.watching:
                raise TableError("not_watching", "open the table to chat with its spectators")
        if not await self.limits.chat.admit(self.user.id):
            raise TableError("rate_limited", "too many chat lines; wait a little")
        line: outbound.Chat = {
            "type": "chat",
            "channel": m.channel,
            "table": m.table,
            "from": self.user.name,
            "text": text,
            "at": time.time(),
        }
        if m.channel == "lobby":
            await self.follow("chat:lobby", self.chat_message)
            self.lobby.broker.publish("chat:lobby", line)
        else:
            self.lobby.broker.publish(f"chat:{m.table}", line)

    async def phrase(self, m: inbound.Phrase) -> None:
        """A quick phrase: its key alone goes on, to the table's players from a player, to its
        spectators from a spectator, where chat goes."""
        if m.key not in inbound.PHRASES:
            raise TableError("unknown_phrase", f"no quick phrase {m.key!r}")
        if m.table not in self.lobby.entries:
            raise TableError("no_table", f"no table {m.table!r}")
        if m.table not in self.watching:
            raise TableError("not_watching", "open the table to say a phrase at it")
        await self.check_mute()
        if not await self.limits.phrases.admit(self.user.id):
            raise TableError("rate_limited", "too many quick phrases; wait a little")
        seat = self.lobby.seat_of(m.table, self.user.id)
        line: outbound.Phrase = {
            "type": "phrase",
            "channel": "table" if seat is not None else "spectators",
            "table": m.table,
            "from": self.user.name,
            "seat": seat,
            "key": m.key,
            "at": time.time(),
        }
        self.lobby.broker.publish(f"chat:{m.table}", line)

    async def chat_message(self, line: outbound.Chat | outbound.Phrase) -> None:
        if line["channel"] != "lobby":
            table = line["table"]  # named: ``chat`` refuses a line of either without one
            seated = table is not None and self.lobby.seat_of(table, self.user.id) is not None
            if (line["channel"] == "table") != seated:
                return  # players and spectators do not read each other's chat
        if not await self.blocks.hides(line):  # nothing of a user this one blocks
            await self.send(line)

    async def notice(self, message: Any) -> None:
        """A moderator's word for this user (``outbound.Banned`` or ``outbound.Muted``, from
        ``server.moderation``): passed on; a ban also closes the socket. A logout notice
        (``server.accounts``) closes the sockets of its token, or all of the user's (no
        ``token_hash``) but those of the token named ``except`` (a password change); the
        token's hash is not passed on."""
        if message["type"] in ("blocks", "blocked_by"):  # blocks made or undone
            return await self.blocks.notice(message)
        if message["type"] == "logged_out":
            mine = message.get("token_hash") in (None, self.token_hash)
            if mine and message.get("except") != self.token_hash:
                await self.send(outbound.LoggedOut(type="logged_out"))
                await self.close(UNAUTHORIZED, "logged out")
            return
        await self.send(message)
        if message["type"] == "banned":
            await self.close(BANNED, "banned")

    async def closed(self) -> None:
        await self.ws.app.state.matchmaker.leave(self)  # a closed page leaves the queue
        for table_id in list(self.watching):
            await self.close_table(table_id)
        for topic in list(self.following):
            self.unfollow(topic)


def _echoable(ident: Any) -> Any:
    """A client's ``id`` as its answer can carry it (``ref``): orjson writes at most 254 nested
    levels, so a deeper one goes unechoed."""
    try:
        orjson.dumps(ident)
    except orjson.JSONEncodeError:
        return None
    return ident


def origin_allowed(ws: WebSocket, allowed: list[str]) -> bool:
    """A browser names the page that opens a socket (Origin): only our own pages, and those
    configured, may (so another site cannot play with a visitor's token). Clients that are not
    browsers send no Origin."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    return origin in allowed or urlsplit(origin).netloc == ws.headers.get("host")


class SilenceLimit:
    """Closes a socket whose client has sent nothing (not even a ping) for ``seconds``. One
    timer per socket, moved on once per period, not a timeout around every receive: that cost
    a task per message, and a waiting task per idle socket."""

    def __init__(self, connection: Connection, seconds: float) -> None:
        self.connection = connection
        self.seconds = seconds
        self.loop = asyncio.get_running_loop()
        self.last = self.loop.time()
        self.timer = self.loop.call_later(seconds, self._check)
        self.closing: asyncio.Task[None] | None = None

    def heard(self) -> None:
        self.last = self.loop.time()

    def _check(self) -> None:
        silent = self.loop.time() - self.last
        if silent < self.seconds:
            self.timer = self.loop.call_later(self.seconds - silent, self._check)
        else:  # closing the socket ends its receive loop with a disconnect
            self.closing = asyncio.create_task(self._close())

    async def _close(self) -> None:
        await self.connection.close(1000, "silent too long")

    def stop(self) -> None:
        self.timer.cancel()


@router.websocket("/ws")
async def socket(ws: WebSocket) -> None:
    app = ws.app
    settings = app.state.settings
    if not origin_allowed(ws, settings.allowed_origins):
        await ws.close(code=FOREIGN_PAGE, reason="this page may not open sockets here")
        return
    await ws.accept()
    try:
        signed_in = await sign_in(ws)
    except (WebSocketDisconnect, RuntimeError):
        return  # gone meanwhile
    if signed_in is None:
        return
    user, token, device = signed_in
    sockets: Counter[int] = app.state.sockets_per_user  # counted in this process
    if sockets[user.id] >= settings.sockets_per_user:
        with contextlib.suppress(Exception):
            await ws.close(code=TOO_MANY_SOCKETS, reason="too many sockets")
        return
    sockets[user.id] += 1
    app.state.metrics.connections.inc()
    connection = Connection(ws, user, app.state.lobby, token_hash(token), device)
    silence = SilenceLimit(connection, settings.heartbeat_seconds * 3)
    app.state.connections.add(connection)
    try:
        me = outbound.User(id=user.id, name=user.name, role=user.role)
        await connection.send(outbound.Welcome(type="welcome", user=me))
        await connection.follow(messages.user_topic(user.id), connection.notice)
        # read once more now that notices reach it (a logout meanwhile closes it), and its
        # token's end with it
        if not await connection.check_rights():
            return
        while True:
            frame = await connection.receive()
            if frame is None or frame["type"] == "websocket.disconnect":
                break
            silence.heard()
            raw = frame.get("text")
            if raw is None:  # a binary frame
                await connection.error(None, "bad_json", "messages are JSON text frames")
                continue
            await connection.handle(raw)
    except (WebSocketDisconnect, RuntimeError):
        pass  # gone, or closed while we were answering
    finally:
        silence.stop()
        app.state.connections.discard(connection)
        sockets[user.id] -= 1
        if not sockets[user.id]:
            del sockets[user.id]
        app.state.metrics.connections.dec()
        await connection.closed()
        if connection.outbox.overflowed:
            app.state.metrics.sockets_behind.inc()
            await connection.outbox.close(TOO_FAR_BEHIND, "too far behind")
        else:
            await connection.outbox.close()


def seat_command(m: BaseModel) -> tuple[str, str, dict[str, Any]] | None:
    """The table, the table command (``server.table_commands``) and its arguments of a seat
    command or a game action, which all answer with the table's version; None for another
    message."""
    if isinstance(m, inbound.AddBot):
        level = {"level": m.level} if m.type == "add_bot" else {}
        return m.table, m.type, {"seat": m.seat, **level}
    if isinstance(m, inbound.Swap):
        return m.table, "swap", {"seat": m.seat}
    if isinstance(m, inbound.Stand | inbound.Leave):
        return m.table, m.type, {}
    if isinstance(m, inbound.Ready):
        return m.table, "ready", {"ready": m.ready}
    if isinstance(m, inbound.StandIn):
        return m.table, "stand_in", {"on": m.on}
    if isinstance(m, inbound.SetPace):
        return m.table, "set_pace", {"pace": m.pace}
    if isinstance(m, inbound.Act):
        return m.table, "act", {"version": m.version, "action": m.action}
    return None
