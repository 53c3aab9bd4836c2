"""Presence: who is at a table, and what becomes of a player who is not.

The sockets watching the table (``watchers``), each seated player's grace while no socket of
theirs does (``SeatInfo.away_until``), and when each last made a move (``played_at``). A player
is present while a socket of theirs watches the table, or a move of theirs was applied within
the grace (a socket that missed a takeover still plays its turns); nothing else counts, so a
command refused, or sent to a paused game, holds nobody hostage. A player gone for the whole
grace has escaped, whether a bot stood in meanwhile or not (docs/rules.md §11, "Leaving a
game"). The plain core: the table (``server.tables``) applies what it decides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from enum import Enum

from engine import GameState, Phase
from server.seating import SeatInfo


class Gone(Enum):
    """What a running game does when a seated player's last socket leaves it."""

    WAIT = "wait"  # the clock runs on through the grace
    STAND_IN = "stand_in"  # 托管 at this table: a bot plays through the grace
    PAUSE = "pause"  # 三打一: play pauses until every player is back


class Presence:
    def __init__(self) -> None:
        self.watchers: dict[int, set[str]] = {}  # user id -> the sockets watching the table
        self.played_at: dict[int, float] = {}  # user id -> when a move of theirs was applied

    def watch(self, user_id: int, socket: str | None, opened: bool) -> tuple[int, int] | None:
        """A ``socket`` of the user opened the table or closed it (None: none did, only look
        where the user stands): how many of the user's sockets watched before and watch now,
        or None if nothing changed (a socket that opens the table again counts once)."""
        sockets = self.watchers.pop(user_id, set())
        before = len(sockets)
        if socket is not None:
            (sockets.add if opened else sockets.discard)(socket)
        if sockets:
            self.watchers[user_id] = sockets
        if socket is not None and len(sockets) == before:
            return None
        return before, len(sockets)

    def watching(self, user_id: int | None) -> bool:
        return user_id is not None and bool(self.watchers.get(user_id))

    def watching_users(self) -> set[int]:
        return {user for user, sockets in self.watchers.items() if sockets}

    def viewers(self, seat_of: Callable[[int], int | None]) -> set[int | None]:
        """Whose view someone watches: the seats of watching players, None for spectators."""
        return {seat_of(user) for user in self.watching_users()}

    def spectators(self, seat_of: Callable[[int], int | None]) -> int:
        """How many people watch without a seat."""
        return sum(1 for user in self.watching_users() if seat_of(user) is None)

    def played(self, user_id: int, now: float) -> None:
        self.played_at[user_id] = now

    @staticmethod
    def when_gone(state: GameState, seat: int, stand_ins: bool, socket: bool) -> Gone:
        """What the game does now that the player on ``seat`` has no socket on the table
        (``socket``: one just closed it; False: only looked again, after a takeover, when
        every player looks away for a moment and no bot should take over)."""
        if not state.seats[seat].alive:
            return Gone.WAIT
        if stand_ins:
            return Gone.STAND_IN if socket else Gone.WAIT
        if (
            state.rules.pause_on_disconnect
            and state.phase == Phase.PLAYING
            and state.paused_since is None
        ):
            return Gone.PAUSE
        return Gone.WAIT

    def overdue(
        self, seats: list[SeatInfo], now: float, grace: float, in_game: Callable[[], bool]
    ) -> Iterator[int]:
        """The seats whose grace ran out by ``now``, one by one (each no longer away when it
        comes: between games it stands up, during one it has escaped, which may end the game
        and the graces of the others). A player who made a move within the grace, though no
        socket of theirs watches here, gets the grace from that move."""
        for seat, info in enumerate(seats):
            if info.away_until is None or now < info.away_until:
                continue
            played = self.played_at.get(info.user_id or 0, 0.0)
            if in_game() and now - played < grace:
                info.away_until = played + grace
                continue
            info.away_until = None
            yield seat
