"""Flags (docs/rules.md §7, §9.2 step 5): shown to everyone when the last 司令 dies or a variant
shows them at the start, watched for capture (``FlagWatch``: one flag, two, none and either HQ,
or the flag raised), and raised by a dealt army without one (乱战, 三打一) once its last 司令 is
dead."""

from __future__ import annotations

import dataclasses

from engine.actions import RaiseFlag
from engine.deal import seeded_rng
from engine.errors import IllegalAction
from engine.events import Event
from engine.pieces import Rank
from engine.state import FlagWatch, Phase
from engine.working import Working


class Flags(Working):
    """The working game's flags: watches, reveals and the flag raised."""

    def flag_watch(self, seat: int) -> FlagWatch:
        board = self.variant.board
        mine = [(i, p) for i, p in self.pos.indexed() if p.seat == seat]
        hqs = frozenset(
            board.station(s).index for s in board.arm(seat) if board.station(s).kind == "hq"
        )
        marshal = any(p.rank == Rank.FIELD_MARSHAL for _, p in mine)
        return FlagWatch(
            flags=frozenset(i for i, p in mine if p.rank == Rank.FLAG),
            hqs=hqs,
            can_raise=marshal and self.book.may_raise_flag(self, seat),
        )

    def reveal_flags(self, seat: int, when_marshals_gone: bool = True) -> None:
        """Show the seat's flags to everyone: by default only once it has no 司令 left."""
        if self.phase != Phase.PLAYING:
            return
        if when_marshals_gone and self.pos.count(seat, Rank.FIELD_MARSHAL):
            return
        board = self.variant.board
        for index, piece in self.pos.indexed():
            if piece.seat == seat and piece.rank == Rank.FLAG and index not in self.reveals.public:
                self.reveals = self.reveals.with_public(index)
                self.emit("flag_revealed", seat=seat, station=board.stations[index])

    def last_marshal_check(self, seat: int, now: float) -> None:
        """After a 司令 died: reveal the flags if it was the last; with no flag, the player
        now raises one (docs/rules.md §7, §9.2 step 5)."""
        if self.pos.count(seat, Rank.FIELD_MARSHAL):
            return
        if self.rules.marshal_death_reveals_flag:
            self.reveal_flags(seat)
        watch = self.watches[seat]
        if not watch.flags and watch.can_raise and watch.raised is None and watch.raise_by is None:
            by = now + self.rules.move_seconds
            self.watches[seat] = dataclasses.replace(watch, raise_by=by)
            self.emit("raise_flag_due", seat=seat, deadline=by)

    def raise_flag(self, a: RaiseFlag) -> None:
        self.require(Phase.PLAYING)
        self.check_seat(a.seat)
        watch = self.watches[a.seat]
        if watch.raise_by is None or not self.alive(a.seat):
            raise IllegalAction(f"seat {a.seat} has no flag to raise")
        if a.now > watch.raise_by:
            raise IllegalAction(f"the time to raise the flag ran out at {watch.raise_by}")
        index = self.variant.board.station(a.station).index
        if index not in watch.hqs or index in watch.taken:
            raise IllegalAction(f"{a.station} is not one of seat {a.seat}'s HQs still held")
        self.set_raised(a.seat, index)

    def set_raised(self, seat: int, index: int) -> None:
        self.watches[seat] = dataclasses.replace(self.watches[seat], raised=index, raise_by=None)
        piece = self.pos.cells[index]
        self.reveals = self.reveals.with_public(index)
        self.events.append(
            Event(
                "flag_raised",
                {"seat": seat, "station": self.variant.board.stations[index]},
                {"rank": (None if piece is None else piece.rank.value, None)},
            )
        )

    def raise_overdue_flags(self, now: float) -> None:
        overdue = [
            s
            for s, w in enumerate(self.watches)
            if w.raise_by is not None and w.raise_by <= now and self.alive(s)
        ]
        if not overdue:
            raise IllegalAction("no deadline has passed")
        for seat in overdue:
            watch = self.watches[seat]
            held = sorted(watch.hqs - watch.taken)
            self.set_raised(seat, seeded_rng(self.seed, "raise", seat).choice(held))
