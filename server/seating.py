"""Seating: who sits where at a table, ready or not, the host (桌主) and the swaps asked for.

The plain core of a table's seats: no game, no clock, no I/O, so a test drives it with a few
calls. The table (``server.tables``) checks first what depends on the game (seats change only
between games) and tells the lobby and the players afterwards.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine.levels import title_for
from server.errors import TableError


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


class Seating:
    """The seats of a table (``seats``), its host (the first seat filled) and the swaps asked
    for (seat -> the seat it asked to swap with)."""

    def __init__(self, count: int) -> None:
        self.seats = [SeatInfo() for _ in range(count)]
        self.host: int | None = None
        self.swaps: dict[int, int] = {}

    def seat_of(self, user_id: int) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s.user_id == user_id), None)

    def people(self) -> list[SeatInfo]:
        """The seats a person sits on."""
        return [s for s in self.seats if s.user_id is not None]

    def free(self) -> int | None:
        """The first seat nobody takes."""
        return next((i for i, s in enumerate(self.seats) if not s.taken), None)

    def others_seated(self, user_id: int) -> bool:
        """Whether a person other than ``user_id`` sits at the table."""
        return any(s.user_id not in (None, user_id) for s in self.seats)

    def one_person(self) -> bool:
        """Whether somebody sits and everybody seated may be one person: one account, or
        accounts that share an address or a device."""
        people = self.people()
        return bool(people) and persons(people)[1] == 1

    def shared(self) -> bool:
        """Whether two seated accounts share an address or a device (one person's accounts,
        likely: a game between them proves nothing)."""
        accounts, people = persons(self.people())
        return people < accounts

    def all_ready(self) -> bool:
        return all(s.taken and s.ready for s in self.seats)

    def check_seat(self, seat: int) -> SeatInfo:
        if seat not in range(len(self.seats)):
            raise TableError("bad_seat", f"no seat {seat}")
        return self.seats[seat]

    def check_sit(self, seat: int, user_id: int) -> None:
        """Whether the user may sit on ``seat`` (``bad_seat``, ``seat_taken`` if not)."""
        taken = self.check_seat(seat)
        if taken.bot or taken.user_id not in (None, user_id):
            raise TableError("seat_taken", f"seat {seat} is taken")

    def sit(self, seat: int, info: SeatInfo) -> None:
        """The person of ``info`` sits on ``seat`` (leaving the one they had)."""
        assert info.user_id is not None
        self.check_sit(seat, info.user_id)
        old = self.seat_of(info.user_id)
        if old is not None:
            self.seats[old] = SeatInfo()
        self.seats[seat] = info
        if self.host is None or self.host == old:
            self.host = seat

    def swap(self, user_id: int, seat: int) -> None:
        """Ask to swap seats with the player on ``seat``; the swap happens when that player
        asks for this one in turn."""
        mine = self.seat_of(user_id)
        if mine is None:
            raise TableError("not_seated", "sit down first")
        if seat not in range(len(self.seats)) or seat == mine:
            raise TableError("bad_seat", f"no other seat {seat}")
        if self.seats[seat].user_id is None:
            raise TableError("bad_seat", f"seat {seat} is empty: sit there instead")
        if self.swaps.get(seat) != mine:
            self.swaps[mine] = seat
            return
        del self.swaps[seat]
        self.seats[mine], self.seats[seat] = self.seats[seat], self.seats[mine]
        self.seats[mine].ready = self.seats[seat].ready = False
        if self.host in (mine, seat):
            self.host = seat if self.host == mine else mine

    def vacate(self, seat: int) -> None:
        """Empty a seat; the host passes to the next seated player."""
        self.seats[seat] = SeatInfo()
        self.swaps = {s: o for s, o in self.swaps.items() if seat not in (s, o)}
        if self.host == seat:
            self.host = next((i for i, s in enumerate(self.seats) if s.user_id), None)

    def set_ready(self, user_id: int, ready: bool) -> None:
        seat = self.seat_of(user_id)
        if seat is None:
            raise TableError("not_seated", "sit down first")
        self.seats[seat].ready = ready

    def add_bot(self, seat: int, level: str) -> None:
        """A bot of ``level`` takes an empty seat, ready at once."""
        if seat not in range(len(self.seats)) or self.seats[seat].taken:
            raise TableError("bad_seat", f"seat {seat} is not free")
        self.seats[seat] = SeatInfo(name=f"机器人{seat}", bot=True, ready=True, level=level)
        if self.host is None:
            self.host = seat

    def remove_bot(self, seat: int) -> None:
        if seat not in range(len(self.seats)) or not self.seats[seat].bot:
            raise TableError("bad_seat", f"no bot on seat {seat}")
        self.seats[seat] = SeatInfo()

    def shuffle(self, rng: random.Random) -> None:
        """随机防作弊: the seats in an order nobody chose, the first seat the host."""
        rng.shuffle(self.seats)
        self.host = 0

    def game_over(self, points: list[int] | None, still_here: set[int]) -> None:
        """After a game: each player's new points (``points``: None if unrated), nobody ready
        but the bots, no grace and no 托管 left, and the players not ``still_here`` (no
        socket of theirs watches) no longer seated."""
        for seat, info in enumerate(self.seats):
            if points is not None and info.user_id is not None:
                info.points += points[seat]  # the new title shows at once
            info.ready = info.bot
            info.away_until = None
            info.taken_over = info.asked_stand_in = False
            if info.user_id is not None and info.user_id not in still_here:
                info.user_id, info.name = None, None

    def listed(self) -> list[dict[str, Any]]:
        """The seats as the lobby lists them (public: no address, no device)."""
        return [
            {
                "seat": i,
                "bot": s.bot,
                "level": s.level if s.bot else None,
                "name": s.name,
                "points": s.points if s.name else None,
                "title": title_for(s.points).name if s.name else None,
                "title_level": title_for(s.points).level if s.name else None,
                "ready": s.ready,
                "away": s.away_until is not None,
                "away_until": s.away_until,
                "taken_over": s.taken_over,
                "swap_with": self.swaps.get(i),
            }
            for i, s in enumerate(self.seats)
        ]
