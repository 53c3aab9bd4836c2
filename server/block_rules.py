"""Blocks (屏蔽) at the tables and in chat, for one socket (``server.realtime.Connection``).

- Chat lines and quick phrases of a user one blocks are not passed on to one's sockets (lobby,
  table and spectators' chat alike): filtered at delivery, by the speaker's name.
- No one sits at a table where a user is seated whom they block or who blocks them.
- No one watches a table where a user is seated who blocks them (a player seated at it watches
  it whatever happens: a block made during a game does not part the players).

The socket reads whom its user blocks at the first chat line it gets, and follows each change
the user's topic tells (``BlocksNotice``, from ``server.friends``).
"""

from __future__ import annotations

from typing import Any

from server import social
from server.errors import TableError
from server.listing import LobbyEntry
from server.lobby import Lobby
from server.messages import BlocksNotice


class BlockRules:
    """The blocks of one socket's user (``user_id``), at the tables of ``lobby``."""

    def __init__(self, lobby: Lobby, user_id: int) -> None:
        self.sessions = lobby.store.sessions
        self.entries = lobby.entries
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

    def changed(self, notice: BlocksNotice) -> None:
        """The user blocked or unblocked someone (``server.friends``), on any process."""
        self.changes += 1
        if self.hidden is not None:
            if notice["on"]:
                self.hidden.add(notice["name"])
            else:
                self.hidden.discard(notice["name"])

    def _others(self, entry: LobbyEntry | None) -> list[int]:
        if entry is None:
            return []  # no such table: the command says so itself
        return [int(u) for u in entry.players if int(u) != self.user_id]

    async def may_sit(self, table_id: str) -> None:
        """Refuse (``blocked``) a seat at a table where a user sits whom this one blocks, or
        who blocks this one."""
        others = self._others(self.entries.get(table_id))
        if others and await social.blocked_pairs(self.sessions, [self.user_id, *others]):
            raise TableError("blocked", "one of you blocks the other")

    async def may_watch(self, table_id: str) -> None:
        """Refuse (``blocked``) to open a table where a user sits who blocks this one, unless
        this one sits at it too."""
        entry = self.entries.get(table_id)
        if entry is None or entry.seat_of(self.user_id) is not None:
            return
        others = self._others(entry)
        if others:
            async with self.sessions() as session:
                if await social.blockers_of(session, self.user_id, others):
                    raise TableError("blocked", "a player at this table blocks you")
