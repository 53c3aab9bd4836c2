"""Blocks (屏蔽) at the tables and in chat, for one socket (``server.realtime.Connection``).

- Chat lines and quick phrases of a user one blocks are not passed on to one's sockets (lobby,
  table and spectators' chat alike): filtered at delivery, by the speaker's name.
- No one sits at a table where a user is seated whom they block or who blocks them.
- No one watches a table where a user is seated who blocks them (a player seated at it watches
  it whatever happens: a block made during a game does not part the players). One who watches
  already stops (``closed``, ``why: "blocked"``) when they are blocked by a player seated there,
  or when a player who blocks them sits down there.

The socket reads whom its user blocks at the first chat line it gets, and follows each change
its user's topic tells: ``BlocksNotice`` (its user blocked or unblocked someone, from
``server.friends``) and ``BlockedByNotice`` (someone blocked its user, or sat down at a table
while blocking them: from ``server.friends`` and ``may_sit``).
"""

from __future__ import annotations

from typing import Any, Protocol

from sqlalchemy import select

from server import social
from server.errors import TableError
from server.listing import LobbyEntry
from server.lobby import Lobby
from server.messages import BlockedByNotice, BlocksNotice, user_topic
from server.models import Block
from server.outbound import Closed


class Socket(Protocol):
    """What the rules use of their socket (``server.realtime.Connection``)."""

    lobby: Lobby
    watching: set[str]

    async def close_table(self, table_id: str) -> None: ...

    async def send(self, message: Any) -> None: ...


class BlockRules:
    """The blocks of the user ``user_id`` of ``socket``."""

    def __init__(self, socket: Socket, user_id: int) -> None:
        self.socket = socket
        self.lobby = socket.lobby
        self.sessions = socket.lobby.store.sessions
        self.user_id = user_id
        self.hidden: set[str] | None = None  # the names of those the user blocks, once read
        self.changes = 0  # notices had: one that comes during a read makes it read again

    async def hides(self, line: Any) -> bool:
        """Whether a chat line or phrase (``outbound.Chat``, ``outbound.Phrase``) is of a user
        this one blocks."""
        while self.hidden is None:
            changes = self.changes
            async with self.sessions() as session:
                hidden = await social.blocked_names(session, self.user_id)
            if changes == self.changes:
                self.hidden = hidden
        return line["from"] in self.hidden

    async def notice(self, notice: BlocksNotice | BlockedByNotice) -> None:
        """A change of blocks told on the user's topic, by any process."""
        if notice["type"] == "blocked_by":
            await self._leave(notice["by"], notice["table"])
            return
        self.changes += 1
        if self.hidden is not None:
            if notice["on"]:
                self.hidden.add(notice["name"])
            else:
                self.hidden.discard(notice["name"])

    async def _leave(self, blocker: int, table: str | None) -> None:
        """Stop watching the tables where ``blocker`` sits and this user does not: ``table``,
        where the blocker is sitting down, or (None) every one."""
        for table_id in sorted(self.socket.watching):
            entry = self.lobby.entries.get(table_id)
            if entry is None or entry.seat_of(self.user_id) is not None:
                continue
            if table_id == table or (table is None and entry.seat_of(blocker) is not None):
                await self.socket.close_table(table_id)
                await self.socket.send(Closed(type="closed", table=table_id, why="blocked"))

    def _others(self, entry: LobbyEntry | None) -> list[int]:
        if entry is None:
            return []  # no such table: the command says so itself
        return [int(u) for u in entry.players if int(u) != self.user_id]

    async def may_sit(self, table_id: str) -> None:
        """Refuse (``blocked``) a seat at a table where a user sits whom this one blocks, or
        who blocks this one; else those this one blocks stop watching the table."""
        others = self._others(self.lobby.entries.get(table_id))
        if others and await social.blocked_pairs(self.sessions, [self.user_id, *others]):
            raise TableError("blocked", "one of you blocks the other")
        async with self.sessions() as session:
            blocked = await session.scalars(
                select(Block.blocked_id).where(Block.blocker_id == self.user_id)
            )
        notice: BlockedByNotice = {"type": "blocked_by", "by": self.user_id, "table": table_id}
        for user_id in blocked:
            self.lobby.broker.publish(user_topic(user_id), notice)

    async def may_watch(self, table_id: str) -> None:
        """Refuse (``blocked``) to open a table where a user sits who blocks this one, unless
        this one sits at it too."""
        entry = self.lobby.entries.get(table_id)
        if entry is None or entry.seat_of(self.user_id) is not None:
            return
        others = self._others(entry)
        if others:
            async with self.sessions() as session:
                if await social.blockers_of(session, self.user_id, others):
                    raise TableError("blocked", "a player at this table blocks you")
