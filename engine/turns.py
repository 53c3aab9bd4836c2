"""Turns, clocks and skips (docs/rules.md §6, §11): the seat to move and its deadline, seats skipped
for want of a legal move or a clock run out, the skip limit and escapes, the draw limits, and
play standing still while paused."""

from __future__ import annotations

import dataclasses

from engine.actions import Pause, Resume, Timeout
from engine.errors import IllegalAction, NotYourTurn
from engine.outcome import EliminationReason, EndReason
from engine.state import Phase
from engine.variants import EscapeRule
from engine.working import Working

LIANZHONG_ROUNDS = 15  # 乱战: an escape gives the opponents the game after 15 full rounds


class Turns(Working):
    """The working game's turns: whose turn it is, skips, timeouts, escapes and pauses."""

    def begin_turn(self, seat: int, now: float) -> None:
        """Give the turn to ``seat`` or the next seat that can move, skipping the others."""
        while self.phase == Phase.PLAYING:
            if not self.alive(seat):
                seat = self.next_seat(seat)
                continue
            if self.book.can_act(self, seat):
                self.to_move = seat
                self.deadline = now + self.rules.move_seconds
                self.emit("turn", seat=seat, deadline=self.deadline)
                return
            if self.rules.blocked_is_defeat:
                self.eliminate(seat, EliminationReason.BLOCKED, None)
            else:
                self.forfeit(seat, "no_legal_move", now)
            seat = self.next_seat(seat)

    def end_turn(self, seat: int, now: float) -> None:
        """After ``seat``'s move: the draw limits, then the next seat's turn."""
        if self.phase == Phase.PLAYING:
            self.check_draw_limits()
        if self.phase == Phase.PLAYING:
            self.begin_turn(self.next_seat(seat), now)

    def forfeit(self, seat: int, why: str, now: float, timeout: bool = False) -> None:
        s = self.seats[seat]
        skips, timeouts = s.skips + 1, s.timeouts + timeout
        self.set_seat(seat, skips=skips, timeouts=timeouts)
        self.emit("skipped", seat=seat, reason=why, skips=skips)
        if skips >= self.rules.max_skips:
            if self.rules.timeouts_are_escape and timeouts == skips:
                self.declare_escape(seat, now)
            else:
                self.eliminate(seat, EliminationReason.SKIPS, None)

    def timeout(self, a: Timeout) -> None:
        self.require(Phase.PLAYING)
        if a.now < self.deadline:
            raise IllegalAction(f"seat {self.to_move}'s clock runs until {self.deadline}")
        seat = self.to_move
        assert seat is not None
        self.expire_proposal()
        self.forfeit(seat, "timeout", a.now, timeout=True)
        if self.phase == Phase.PLAYING:
            self.begin_turn(self.next_seat(seat), a.now)

    def check_turn(self, seat: int, now: float) -> None:
        self.require(Phase.PLAYING)
        self.check_seat(seat)
        if seat != self.to_move:
            raise NotYourTurn(f"it is seat {self.to_move}'s turn, not seat {seat}'s")
        if now > self.deadline:
            raise IllegalAction(f"seat {seat}'s clock ran out at {self.deadline}")

    def check_draw_limits(self) -> None:
        limit = self.rules.no_capture_plies
        if limit is not None and self.quiet_moves >= limit:
            self.finish(EndReason.NO_CAPTURE, ())
        elif (most := self.rules.max_total_moves) is not None and self.total_moves >= most:
            self.finish(EndReason.MOVE_LIMIT, ())

    def after_elimination_outside_move(self, seat: int, now: float) -> None:
        if self.phase == Phase.PLAYING and self.to_move == seat:
            self.begin_turn(self.next_seat(seat), now)

    def declare_escape(self, seat: int, now: float) -> None:
        """逃跑 (docs/rules.md §11): out at once, then the variant's escape rule."""
        self.eliminate(seat, EliminationReason.ESCAPE, None, decide=False)
        team = self.teams[seat]
        opponents = tuple(s for s, t in enumerate(self.teams) if t != team)
        rule = self.rules.escape_rule
        if rule == EscapeRule.QQ:
            # the game ends; the opponents win only if the escaper's side is out
            self.finish(EndReason.ESCAPE, () if self.team_alive(team) else opponents)
        elif rule == EscapeRule.LIANZHONG:
            # the game ends; the opponents win only after 15 full rounds, counted by the
            # escaper's own turns (moves and skips): seats out of the game and skipped turns
            # must not stretch them (docs/rules.md §11)
            turns = self.seats[seat].moves + self.seats[seat].skips
            self.finish(EndReason.ESCAPE, opponents if turns >= LIANZHONG_ROUNDS else ())
        elif (winners := self.decided()) is not None:
            self.finish(EndReason.ESCAPE, winners)
        else:
            self.after_elimination_outside_move(seat, now)

    def pause(self, a: Pause) -> None:
        self.require(Phase.PLAYING)
        self.paused_since = a.now
        self.emit("paused", at=a.now)

    def resume(self, a: Resume) -> None:
        if self.paused_since is None:
            raise IllegalAction("the game is not paused")
        stood = max(0.0, a.now - self.paused_since) + a.bonus
        self.paused_since = None
        self.deadline += stood
        self.watches = [
            w if w.raise_by is None else dataclasses.replace(w, raise_by=w.raise_by + stood)
            for w in self.watches
        ]
        self.emit("resumed", at=a.now, deadline=self.deadline)
