"""The game state machine (RULES.md §5-§9): dealing → deploying → playing → finished.

``new_game`` makes a state (``engine.state``), ``apply(state, action)`` returns the next state and
the events that happened. States are immutable; ``apply`` works on a mutable working copy
(``Game``) and freezes it. Every illegal or malformed action raises a typed error
(``engine.errors``) and changes nothing. Time is passed in with each action; the engine never
reads a clock.

Every variant runs through the same machine, which never asks which variant it plays: variants
are data (``engine.variants``: the board, the teams, the ``RuleOptions``) plus the hooks of their
rulebook (``engine.rulebook``, looked up in ``engine.rulebooks``), which the machine calls at fixed
points and which bring the handlers of the variant's own actions. The flag rules of dealt armies
(``FlagWatch``: one flag, two, none; raising one) are shared by 乱战 and 三打一 and live here.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engine.actions import (
    Action,
    AnswerProposal,
    Deadline,
    Escape,
    Move,
    Pause,
    PlaceLayout,
    ProposeDraw,
    RaiseFlag,
    Resume,
    Surrender,
    Timeout,
)
from engine.combat import Outcome, scouting_reveals
from engine.deal import seeded_rng
from engine.deployment import auto_layout, layout_pieces, layout_problems, split_key
from engine.errors import GamePaused, IllegalAction, IllegalLayout, MalformedInput, NotYourTurn
from engine.events import Audience, Event
from engine.movement import move_tables
from engine.offers import draw_refusal, surrender_refusal
from engine.outcome import Elimination, EliminationReason, EndReason, GameResult
from engine.pieces import Piece, Rank, piece_key, piece_of
from engine.position import Position
from engine.rulebook import Handler, Out, Rulebook, Setup
from engine.rulebooks import VARIANT_ACTIONS, rulebook_of
from engine.state import (
    ActionLog,
    DealState,
    FlagWatch,
    FlipState,
    GameState,
    Phase,
    Proposal,
    Reveals,
    SeatState,
)
from engine.variants import (
    EscapeRule,
    RuleOptions,
    Scouting,
    TurnDirection,
    Variant,
    get_variant,
)
from engine.visibility import open_pieces, rank_audience


def new_game(
    variant: str,
    *,
    seed: int | str,
    host: int = 0,
    options: Mapping[str, Any] | None = None,
    rules: RuleOptions | None = None,
    now: float = 0.0,
) -> GameState:
    """A game of ``variant``: dealing (乱战, 三打一), deploying, or for 翻棋 already in play.
    ``options`` override the variant's rule defaults (JSON values, checked); or ``rules`` are
    the rules already parsed (``Variant.rules_with``: a table's). The variant's fixed options
    win either way (``Variant.fixed``)."""
    v = get_variant(variant)
    if rules is None:
        rules = v.rules_with(options or {})
    elif options is not None:
        raise MalformedInput("rule options or parsed rules, not both")
    else:
        rules = v.with_fixed(rules)
    if isinstance(host, bool) or host not in v.seats:
        raise MalformedInput(f"no seat {host!r} in {variant}")
    n = len(v.seats)
    state = GameState(
        variant=v,
        rules=rules,
        seed=str(seed),
        host=host,
        first=host,
        created_at=now,
        setup=None,
        teams=v.teams,
        phase=Phase.DEPLOYING,
        deadline=now + rules.deploy_seconds,
        deal=DealState(),
        drafts=(None,) * n,
        confirmed=frozenset(),
        layouts=(),
        position=None,
        to_move=None,
        seats=(SeatState(),) * n,
        started_at=None,
        total_moves=0,
        quiet_moves=0,
        reveals=Reveals(),
        watches=(),
        flip=None,
        proposal=None,
        result=None,
        log=ActionLog(),
    )
    game = Game(state)
    game.book.start(game, now)
    return game.freeze()


def start_from(
    variant: str,
    pieces: Mapping[str, Sequence[Any]],
    *,
    seed: int | str,
    host: int = 0,
    options: Mapping[str, Any] | None = None,
    rules: RuleOptions | None = None,
    now: float = 0.0,
    setup: Setup | None = None,
) -> tuple[GameState, list[Event]]:
    """A game already in play from a set-up position, the host (三打一: the banker) to move:
    for tests, bots and teaching. ``pieces`` is ``{station: (seat, rank key[, army])}``; the
    layouts are not checked. ``setup`` is the variant's own set-up value, made by its module
    and read by its rulebook (``sandayi.Setup``: the banker and its contract; ``fanqi.Setup``:
    the face-down stations and the colours, with pieces as ``(colour, rank key)``); the other
    variants take none. The rules come from ``options`` or ``rules`` as in ``new_game``."""
    state = new_game(variant, seed=seed, host=host, options=options, rules=rules, now=now)
    recorded: dict[str, Any] = {"pieces": {sid: list(p) for sid, p in pieces.items()}}
    if setup is not None:
        recorded |= setup.to_json()
    game = Game(dataclasses.replace(state, setup=recorded, phase=Phase.DEPLOYING, deal=DealState()))
    if game.book.set_up(game, pieces, setup, now):
        return game.freeze(), game.events
    board = state.variant.board
    drafts: list[dict[str, str]] = [{} for _ in state.variant.seats]
    for sid, (seat, rank, *army) in pieces.items():
        game.check_seat(seat)
        key = rank if not army or army[0] is None else f"{rank}/{army[0]}"
        drafts[seat][board.station(sid).id] = key
    game.drafts = list(drafts)
    game.confirmed = frozenset(state.variant.seats)
    game.start_play(now)
    return game.freeze(), game.events


def apply(state: GameState, action: Action) -> tuple[GameState, list[Event]]:
    """The state after ``action`` and the events it caused; raises and changes nothing if the
    action is malformed (MalformedInput), out of turn (NotYourTurn) or illegal (IllegalAction)."""
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise MalformedInput(f"not an action: {action!r}")
    if state.phase == Phase.FINISHED:
        raise IllegalAction("the game is over")
    if isinstance(action.now, bool) or not isinstance(action.now, int | float):
        raise MalformedInput("'now' is a number of seconds")
    if state.paused_since is not None and not isinstance(action, Resume | Escape):
        raise GamePaused("the game is paused")
    game = Game(state)
    handler(game, action)
    game.log = game.log.appended(action)
    return game.freeze(), game.events


def moves_of(state: GameState, seat: int) -> dict[int, int]:
    """The legal moves of ``seat`` now: ``{origin index: destination mask}``."""
    if state.phase != Phase.PLAYING or state.position is None:
        return {}
    return rulebook_of(state.variant).moves(state, seat)


_LISTS = ("drafts", "seats", "watches")  # tuples in GameState, lists while being worked on
_FIELDS = tuple(f.name for f in dataclasses.fields(GameState))
_LIST_AT = tuple(_FIELDS.index(name) for name in _LISTS)
_VALUES = operator.attrgetter(*_FIELDS)  # every field at once: a copy is made for every action


class Game:
    """A mutable working copy of a GameState, used inside ``apply`` only: one attribute per
    GameState field (lists where the state holds tuples), frozen back into a new state; and the
    shared state machine's steps, which call the variant's rulebook (``book``) at fixed points.
    Rulebooks see it as an ``engine.rulebook.WorkingGame``."""

    state: GameState
    book: Rulebook
    variant: Variant
    rules: RuleOptions
    seed: str
    host: int
    first: int
    teams: tuple[int, ...]
    phase: Phase
    deadline: float
    deal: DealState
    drafts: list[Mapping[str, str] | None]
    confirmed: frozenset[int]
    layouts: tuple[Mapping[str, Piece], ...]
    position: Position | None
    to_move: int | None
    seats: list[SeatState]
    started_at: float | None
    total_moves: int
    quiet_moves: int
    reveals: Reveals
    watches: list[FlagWatch]
    flip: FlipState | None
    proposal: Proposal | None
    result: GameResult | None
    log: ActionLog
    paused_since: float | None

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.book = rulebook_of(state.variant)
        self.__dict__.update(zip(_FIELDS, _VALUES(state), strict=True))
        self.drafts = list(state.drafts)
        self.seats = list(state.seats)
        self.watches = list(state.watches)
        self.events: list[Event] = []

    def freeze(self) -> GameState:
        """The working copy as a new state."""
        values = list(_VALUES(self))
        for i in _LIST_AT:
            values[i] = tuple(values[i])
        return GameState(*values)

    # --- helpers ------------------------------------------------------------------------------

    @property
    def pos(self) -> Position:
        assert self.position is not None
        return self.position

    def emit(self, kind: str, audience: Audience = None, **data: Any) -> None:
        self.events.append(Event(kind, data, audience=audience))

    def check_seat(self, seat: int) -> None:
        if isinstance(seat, bool) or seat not in self.variant.seats:
            raise MalformedInput(f"no seat {seat!r} in {self.variant.key}")

    def require(self, phase: Phase) -> None:
        if self.phase != phase:
            raise IllegalAction(f"not possible while the game is {self.phase.value}")

    def alive(self, seat: int) -> bool:
        return self.seats[seat].elimination is None

    def team_alive(self, team: int) -> bool:
        return any(self.alive(s) for s, t in enumerate(self.teams) if t == team)

    @property
    def step(self) -> int:
        return 1 if self.rules.turn_direction == TurnDirection.CLOCKWISE else -1

    def next_seat(self, seat: int) -> int:
        return (seat + self.step) % len(self.seats)

    def set_seat(self, seat: int, **changes: Any) -> None:
        self.seats[seat] = dataclasses.replace(self.seats[seat], **changes)

    def audience(self, index: int) -> Audience:
        return rank_audience(self, index)

    def count_move(self, seat: int, quiet: bool) -> None:
        """Count a move of ``seat``: ``quiet`` ones, without combat, towards the draw limit."""
        self.set_seat(seat, moves=self.seats[seat].moves + 1)
        self.total_moves += 1
        self.quiet_moves = self.quiet_moves + 1 if quiet else 0

    # --- deployment ---------------------------------------------------------------------------

    def start_deploying(self, now: float) -> None:
        self.phase = Phase.DEPLOYING
        self.deadline = now + self.rules.deploy_seconds
        self.emit("deploying", deadline=self.deadline)

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

    # --- turns --------------------------------------------------------------------------------

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
        self.put_out(book.outs(self, a.seat))
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
        # 先攻先胜 / RULES.md §7: the defender's side goes out first; if that ends the game,
        # the attacker wins even when it has nothing left either.
        for loser, victor in ((defender.seat, seat), (seat, defender.seat)):
            if self.phase != Phase.PLAYING or not self.alive(loser):
                continue
            if not self.pos.has_live_pieces(loser):
                self.eliminate(loser, EliminationReason.NO_LIVE_PIECES, victor)

    # --- flags: reveals, and the flag raised by a dealt army without one (乱战, 三打一) ----------

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
        now raises one (RULES.md §7, §9.2 step 5)."""
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

    def check_draw_limits(self) -> None:
        limit = self.rules.no_capture_plies
        if limit is not None and self.quiet_moves >= limit:
            self.finish(EndReason.NO_CAPTURE, ())
        elif (most := self.rules.max_total_moves) is not None and self.total_moves >= most:
            self.finish(EndReason.MOVE_LIMIT, ())

    # --- eliminations and the end -------------------------------------------------------------

    def eliminate(
        self,
        seat: int,
        reason: EliminationReason,
        victor: int | None,
        decide: bool = True,
    ) -> None:
        """Take the seat out; unless ``decide`` is False, end the game if that decides it."""
        order = 1 + sum(not s.alive for s in self.seats)
        self.set_seat(seat, elimination=Elimination(reason, victor, order, self.total_moves))
        if self.watches and self.watches[seat].raise_by is not None:
            self.watches[seat] = dataclasses.replace(self.watches[seat], raise_by=None)
        mine = None if self.position is None else self.book.piece_seat(self, seat)
        if mine is not None:  # its pieces leave (RULES.md §7)
            gone = {i for i, p in self.pos.indexed() if p.seat == mine}
            self.position = self.pos.without_seat(mine)
            self.reveals = self.reveals.without(gone)
            self.flip = self.book.flip_after_removal(self, gone)
        self.emit("eliminated", seat=seat, reason=reason.value, victor=victor)
        if self.proposal is not None:
            self.proposal = None
            self.emit("proposal_cancelled", reason="a player was eliminated")
        winners = self.decided() if decide else None
        if winners is not None:
            self.finish(EndReason.ELIMINATION, winners)

    def put_out(self, outs: Iterable[Out]) -> None:
        """Eliminate the seats a variant's own ways to win put out, in order, while the game
        lasts (``Rulebook.outs``)."""
        for out in outs:
            if self.phase != Phase.PLAYING:
                return
            self.events += out.news
            self.eliminate(out.seat, out.reason, out.victor)

    def decided(self) -> tuple[int, ...] | None:
        """The winning seats once the game is decided, else None."""
        return self.book.decided(self)

    def finish(self, reason: EndReason, winners: tuple[int, ...]) -> None:
        self.phase = Phase.FINISHED
        self.to_move = None
        self.proposal = None
        self.result = self.book.score(self, reason, winners)
        pieces = open_pieces(self)
        layouts = [{sid: piece_key(p) for sid, p in layout.items()} for layout in self.layouts]
        self.emit(
            "game_over",
            result=self.result.to_dict(),
            pieces=pieces,
            layouts=layouts,
            seed=self.seed,
        )

    def after_elimination_outside_move(self, seat: int, now: float) -> None:
        if self.phase == Phase.PLAYING and self.to_move == seat:
            self.begin_turn(self.next_seat(seat), now)

    # --- draws, surrender, escape -------------------------------------------------------------

    def expire_proposal(self) -> None:
        """A proposal lapses when the turn passes unanswered [decision]."""
        if self.proposal is not None:
            self.proposal = None
            self.emit("proposal_cancelled", reason="the turn passed")

    def use_proposal(self, seat: int) -> None:
        self.set_seat(seat, proposals=self.seats[seat].proposals + 1)

    def propose_draw(self, a: ProposeDraw) -> None:
        self.check_seat(a.seat)
        if (why := draw_refusal(self.state, a.seat)) is not None:
            raise IllegalAction(why)
        self.use_proposal(a.seat)
        # every other player still in the game must agree; one out of it (eliminated, or an
        # escaper gone for good) has no say [decision, docs/engine.md]
        waiting = frozenset(s for s in range(len(self.seats)) if s != a.seat and self.alive(s))
        self.proposal = Proposal("draw", a.seat, waiting)
        self.emit("proposal", proposal="draw", seat=a.seat, waiting=sorted(waiting))

    def answer(self, a: AnswerProposal) -> None:
        self.require(Phase.PLAYING)
        self.check_seat(a.seat)
        p = self.proposal
        if p is None or a.seat not in p.waiting:
            raise IllegalAction(f"there is no proposal waiting for seat {a.seat}'s answer")
        if not isinstance(a.accept, bool):
            raise MalformedInput("accept is true or false")
        if not a.accept:
            self.proposal = None
            self.emit("proposal_declined", proposal=p.kind, seat=a.seat)
            return
        waiting = p.waiting - {a.seat}
        self.emit("proposal_accepted", proposal=p.kind, seat=a.seat)
        if waiting:
            self.proposal = Proposal(p.kind, p.seat, waiting)
        elif p.kind == "draw":
            self.finish(EndReason.AGREEMENT, ())
        else:
            self.proposal = None
            team = self.teams[p.seat]
            for seat in [s for s, t in enumerate(self.teams) if t == team and self.alive(s)]:
                if self.phase == Phase.PLAYING:
                    self.eliminate(seat, EliminationReason.SURRENDER, None)
                    self.after_elimination_outside_move(seat, a.now)

    def surrender(self, a: Surrender) -> None:
        self.check_seat(a.seat)
        if (why := surrender_refusal(self.state, a.seat, a.now)) is not None:
            raise IllegalAction(why)
        partners = frozenset(
            s
            for s, t in enumerate(self.teams)
            if t == self.teams[a.seat] and s != a.seat and self.alive(s)
        )
        if self.rules.surrender_counts_as_proposal:
            self.use_proposal(a.seat)
        if self.rules.surrender_needs_partner and partners:
            self.proposal = Proposal("surrender", a.seat, partners)
            self.emit("proposal", proposal="surrender", seat=a.seat, waiting=sorted(partners))
            return
        self.emit("surrendered", seat=a.seat)
        self.eliminate(a.seat, EliminationReason.SURRENDER, None)
        self.after_elimination_outside_move(a.seat, a.now)

    def escape(self, a: Escape) -> None:
        self.check_seat(a.seat)
        if not self.alive(a.seat):
            raise IllegalAction(f"seat {a.seat} is already out of the game")
        self.emit("escaped", seat=a.seat)
        if self.phase != Phase.PLAYING:
            # Nobody can play on without an army: the game ends, only the escaper scores.
            self.set_seat(a.seat, elimination=Elimination(EliminationReason.ESCAPE, None, 1, 0))
            self.finish(EndReason.ESCAPE, ())
            return
        self.declare_escape(a.seat, a.now)

    def declare_escape(self, seat: int, now: float) -> None:
        """逃跑 (RULES.md §11): out at once, then the variant's escape rule."""
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
            # must not stretch them (RULES.md §11)
            turns = self.seats[seat].moves + self.seats[seat].skips
            self.finish(EndReason.ESCAPE, opponents if turns >= LIANZHONG_ROUNDS else ())
        elif (winners := self.decided()) is not None:
            self.finish(EndReason.ESCAPE, winners)
        else:
            self.after_elimination_outside_move(seat, now)


LIANZHONG_ROUNDS = 15  # 乱战: an escape gives the opponents the game after 15 full rounds


def _piece(seat: int, key: str) -> Piece:
    try:
        rank, army = split_key(key)
    except ValueError:
        raise MalformedInput(f"unknown rank {key!r}") from None
    return piece_of(seat, rank, army)


_SHARED: dict[type[Action], Callable[[Game, Any], None]] = {
    PlaceLayout: Game.place_layout,
    Deadline: Game.deadline_passed,
    RaiseFlag: Game.raise_flag,
    Move: Game.move,
    Timeout: Game.timeout,
    Pause: Game.pause,
    Resume: Game.resume,
    ProposeDraw: Game.propose_draw,
    AnswerProposal: Game.answer,
    Surrender: Game.surrender,
    Escape: Game.escape,
}
_HANDLERS: dict[type, Callable[[Game, Any], None] | Handler] = {**_SHARED, **VARIANT_ACTIONS}
