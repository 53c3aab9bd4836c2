"""A move in play (docs/rules.md §3, §4, §7): its checks, the fight it starts and the fight's
aftermath — scouting, flags and HQs taken, a 司令's death, sides left without a piece that can
move (先攻先胜)."""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.actions import Move
from engine.combat import Outcome, scouting_reveals
from engine.errors import IllegalAction
from engine.events import Audience, Event
from engine.flags import Flags
from engine.movement import move_tables
from engine.outcome import EliminationReason
from engine.pieces import Piece, Rank
from engine.state import Phase, Reveals
from engine.turns import Turns
from engine.variants import Scouting


class Play(Flags, Turns):
    """The working game's moves and fights."""

    def move(self, a: Move) -> None:
        self.check_turn(a.seat, a.now)
        board = self.variant.board
        origin, target = board.station(a.origin).index, board.station(a.target).index
        pos = self.pos
        attacker = pos.cells[origin]
        book = self.book
        if (why := book.mover_refusal(self, a, origin)) is not None:
            raise IllegalAction(why)
        if attacker is None or attacker.seat != book.piece_seat(self, a.seat):
            raise IllegalAction(f"seat {a.seat} has no piece to move on {a.origin}")
        if not book.targets(self, a.seat, origin) >> target & 1:
            raise IllegalAction(f"{a.origin} -> {a.target} is not a legal move")
        self.expire_proposal()
        if not book.special_move(self, a, origin, target):
            self.play_move(a, attacker, pos.cells[target], origin, target)
        if outs := book.outs(self, a.seat):
            self.put_out(outs)
        self.end_turn(a.seat, a.now)

    def play_move(
        self, a: Move, attacker: Piece, defender: Piece | None, origin: int, target: int
    ) -> None:
        t = move_tables(self.variant.board)
        outcome = None
        secrets: dict[str, tuple[Any, Audience]] = {
            "rank": (attacker.rank.value, self.audience(origin))
        }
        if defender is not None:
            outcome = self.rules.fight(
                attacker.rank, defender.rank, defender_in_hq=bool(t.hqs >> target & 1)
            )
            secrets["defender_rank"] = (defender.rank.value, self.audience(target))
        data = {
            "seat": a.seat,
            "origin": a.origin,
            "target": a.target,
            "outcome": None if outcome is None else outcome.value,
            "defender": None if defender is None else self.book.owner(self, defender),
        }
        self.events.append(Event("moved", data, secrets))
        self.position = self.pos.with_move(a.origin, a.target, outcome)
        self.reveals = self.reveals.after_move(origin, target, outcome)
        self.count_move(a.seat, quiet=defender is None)
        book = self.book
        if self.flip is not None:  # a game played face down
            self.flip = book.flip_after_move(self, attacker, defender, origin, target, outcome)
        if outcome is not None and defender is not None and book.standard_aftermath:
            self.after_combat(a.seat, attacker, defender, target, outcome, a.now)

    def after_combat(
        self,
        seat: int,
        attacker: Piece,
        defender: Piece,
        target: int,
        outcome: Outcome,
        now: float,
    ) -> None:
        board = self.variant.board
        scouting = self.rules.engineer_scouting
        if scouting != Scouting.OFF and scouting_reveals(attacker.rank, defender.rank, outcome):
            if scouting == Scouting.ALL:
                audience: Audience = None
            else:
                team = self.teams[seat]
                audience = frozenset(s for s, t in enumerate(self.teams) if t == team)
            if outcome == Outcome.DEFENDER:
                if audience is None:
                    self.reveals = self.reveals.with_public(target)
                else:
                    pairs = {(target, s) for s in audience}
                    self.reveals = Reveals(self.reveals.public, self.reveals.private | pairs)
            self.events.append(
                Event(
                    "scouted",
                    {"station": board.stations[target], "seat": defender.seat},
                    {"rank": (defender.rank.value, audience)},
                )
            )
        removed = []
        if outcome != Outcome.ATTACKER:
            removed.append(attacker)
        if outcome != Outcome.DEFENDER:
            removed.append(defender)
            watch = self.watches[defender.seat]
            if target in watch.flags | watch.hqs:
                self.watches[defender.seat] = dataclasses.replace(
                    watch, taken=watch.taken | {target}
                )
        if self.rules.announce_commander_deaths:
            for piece in removed:
                if piece.rank in (Rank.FIELD_MARSHAL, Rank.SUPREME_MARSHAL):
                    self.emit("commander_died", seat=piece.seat, rank=piece.rank.value)
        if self.watches[defender.seat].lost():
            self.eliminate(defender.seat, EliminationReason.FLAG_CAPTURED, seat)
        for piece in removed:
            if piece.rank == Rank.FIELD_MARSHAL and self.alive(piece.seat):
                self.last_marshal_check(piece.seat, now)
        # 先攻先胜 / docs/rules.md §7: the defender's side goes out first; if that ends the game,
        # the attacker wins even when it has nothing left either.
        for loser, victor in ((defender.seat, seat), (seat, defender.seat)):
            if self.phase != Phase.PLAYING or not self.alive(loser):
                continue
            if not self.pos.has_live_pieces(loser):
                self.eliminate(loser, EliminationReason.NO_LIVE_PIECES, victor)
