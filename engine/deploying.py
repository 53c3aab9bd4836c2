"""Deployment and the start of play (docs/rules.md §5): drafts and confirmed layouts, the deadline
that completes every unconfirmed one (``auto_layout``), and the board they make when play
begins."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.actions import Deadline, PlaceLayout
from engine.deployment import auto_layout, layout_pieces, layout_problems, split_key
from engine.errors import IllegalAction, IllegalLayout, MalformedInput
from engine.flags import Flags
from engine.outcome import EliminationReason
from engine.pieces import Piece, piece_of
from engine.position import Position
from engine.state import Phase
from engine.turns import Turns


class Deploying(Flags, Turns):
    """The working game's deployment and the start of play."""

    def deploy_args(self, seat: int) -> dict[str, Any]:
        return self.book.deploy_args(self, seat)

    def place_layout(self, a: PlaceLayout) -> None:
        self.require(Phase.DEPLOYING)
        self.check_seat(a.seat)
        if a.seat in self.confirmed:
            raise IllegalAction(f"seat {a.seat} has already confirmed its layout")
        if a.now > self.deadline:
            raise IllegalAction(f"the deployment time ran out at {self.deadline}")
        if not isinstance(a.layout, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in a.layout.items()
        ):
            raise MalformedInput("a layout maps station ids to rank keys")
        layout = dict(a.layout)
        most = len(self.variant.board.stations)  # a draft too is kept: held to the board
        if len(layout) > most:
            raise MalformedInput(f"a layout has at most {most} stations")
        if a.confirm:
            problems = layout_problems(self.variant.key, a.seat, layout, **self.deploy_args(a.seat))
            if problems:
                codes = ", ".join(p.code.value for p in problems)
                raise IllegalLayout(f"the layout is not legal: {codes}", problems)
            self.drafts[a.seat] = layout
            self.confirmed |= {a.seat}
            self.emit("deployed", seat=a.seat)
            if len(self.confirmed) == len(self.seats):
                self.start_play(a.now)
        else:
            self.drafts[a.seat] = layout
            self.emit("draft_saved", audience=frozenset({a.seat}), seat=a.seat)

    def deadline_passed(self, a: Deadline) -> None:
        if self.phase == Phase.PLAYING:
            self.raise_overdue_flags(a.now)
            return
        if a.now < self.deadline:
            raise IllegalAction(f"the {self.phase.value} phase runs until {self.deadline}")
        if self.phase != Phase.DEPLOYING:
            self.book.phase_deadline(self, a.now)
        else:
            for seat in self.variant.seats:
                if seat not in self.confirmed:
                    self.drafts[seat] = auto_layout(
                        self.variant.key,
                        seat,
                        f"{self.seed}/auto",
                        partial=self.drafts[seat],
                        **self.deploy_args(seat),
                    )
                    self.emit("auto_deployed", seat=seat)
            self.confirmed = frozenset(self.variant.seats)
            self.start_play(a.now)

    def start_play(self, now: float) -> None:
        board = self.variant.board
        layouts = []
        for seat, draft in enumerate(self.drafts):
            assert draft is not None
            if self.deal.hands:
                layouts.append(
                    layout_pieces(self.variant.key, seat, draft, **self.deploy_args(seat))
                )
            else:
                layouts.append({s: _piece(seat, key) for s, key in draft.items()})
        self.layouts = tuple(layouts)
        self.drafts = [None] * len(self.seats)
        cells: list[Piece | None] = [None] * len(board.stations)
        for layout in layouts:
            for sid, piece in layout.items():
                cells[board.station(sid).index] = piece
        self.position = Position.from_cells(board, tuple(cells))
        self.phase = Phase.PLAYING
        self.started_at = now
        self.watches = [self.flag_watch(seat) for seat in self.variant.seats]
        self.emit(
            "game_started",
            first=self.first,
            pieces=[
                {"station": board.stations[i], "seat": p.seat, "army": p.colour}
                for i, p in self.pos.indexed()
            ],
        )
        for seat in self.variant.seats:
            if self.book.shows_flags_at_start(self, seat):
                self.reveal_flags(seat, when_marshals_gone=False)
        for seat in self.variant.seats:  # possible only in set-up positions
            if self.phase == Phase.PLAYING and not self.pos.has_live_pieces(seat):
                self.eliminate(seat, EliminationReason.NO_LIVE_PIECES, None)
        self.begin_turn(self.first, now)


def _piece(seat: int, key: str) -> Piece:
    try:
        rank, army = split_key(key)
    except ValueError:
        raise MalformedInput(f"unknown rank {key!r}") from None
    return piece_of(seat, rank, army)
