"""The game state machine: deploying → playing → finished (RULES.md §5-§9).

``new_game`` makes a state, ``apply(state, action)`` returns the next state and the events that
happened. States are immutable; ``apply`` works on a private mutable copy (``_Game``) and freezes
it. Every illegal or malformed action raises a typed error (``engine.errors``) and changes nothing.
Time is passed in with each action; the engine never reads a clock.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.actions import (
    Action,
    AnswerProposal,
    DeployDeadline,
    Escape,
    Move,
    PlaceLayout,
    ProposeDraw,
    Surrender,
    Timeout,
)
from engine.combat import Outcome, resolve_combat, scouting_reveals
from engine.deployment import auto_layout, layout_problems
from engine.errors import IllegalAction, MalformedInput, NotYourTurn
from engine.events import Audience, Event
from engine.movement import destination_mask, friendly_mask, legal_moves, move_tables
from engine.outcome import (
    Elimination,
    EliminationReason,
    EndReason,
    GameResult,
    score,
)
from engine.pieces import Piece, Rank, parse_rank
from engine.position import Position
from engine.variants import (
    EscapeRule,
    Information,
    RuleOptions,
    Scouting,
    TurnDirection,
    Variant,
    get_variant,
)


class Phase(StrEnum):
    DEPLOYING = "deploying"
    PLAYING = "playing"
    FINISHED = "finished"


class IllegalLayout(IllegalAction):
    """A confirmed layout breaks the deployment rules; ``problems`` lists them all."""

    def __init__(self, message: str, problems: list[Any]) -> None:
        super().__init__(message)
        self.problems = problems


@dataclass(frozen=True, slots=True)
class SeatState:
    skips: int = 0  # forfeited turns: timeouts and forced skips (RULES.md §6.2)
    timeouts: int = 0
    moves: int = 0
    proposals: int = 0  # draw proposals made
    elimination: Elimination | None = None

    @property
    def alive(self) -> bool:
        return self.elimination is None


@dataclass(frozen=True, slots=True)
class Proposal:
    """A pending draw proposal, or a surrender waiting for the partner's consent."""

    kind: str  # "draw" | "surrender"
    seat: int
    waiting: frozenset[int]  # seats that have not answered yet


@dataclass(frozen=True, slots=True)
class Reveals:
    """Ranks made visible by the rules (flag reveals, scouting), by station index."""

    public: frozenset[int] = frozenset()
    private: frozenset[tuple[int, int]] = frozenset()  # (station index, seat that sees it)

    def after_move(self, origin: int, target: int, outcome: Outcome | None) -> Reveals:
        """Reveals follow their piece; a removed piece takes its reveals with it."""

        def moved(index: int) -> int | None:
            if index == origin:
                return target if outcome in (None, Outcome.ATTACKER) else None
            if index == target and outcome in (Outcome.ATTACKER, Outcome.BOTH):
                return None
            return index

        public = {m for i in self.public if (m := moved(i)) is not None}
        private = {(m, s) for i, s in self.private if (m := moved(i)) is not None}
        return Reveals(frozenset(public), frozenset(private))

    def without(self, indices: set[int]) -> Reveals:
        return Reveals(
            self.public - indices, frozenset(p for p in self.private if p[0] not in indices)
        )


@dataclass(frozen=True, slots=True)
class GameState:
    variant: Variant
    rules: RuleOptions
    seed: str
    host: int  # 桌主: moves first
    teams: tuple[int, ...]  # team id of each seat
    phase: Phase
    deadline: float  # of the deployment, then of the current turn
    drafts: tuple[Mapping[str, str] | None, ...]  # layouts being edited while deploying
    confirmed: frozenset[int]  # seats that confirmed their layout (出征)
    layouts: tuple[Mapping[str, Rank], ...]  # the layouts the game started with
    position: Position | None
    to_move: int | None
    seats: tuple[SeatState, ...]
    started_at: float | None  # when play began
    total_moves: int
    quiet_moves: int  # moves in a row without combat
    reveals: Reveals
    proposal: Proposal | None
    result: GameResult | None
    log: tuple[Action, ...]  # every action applied since play began

    @property
    def board_position(self) -> Position:
        if self.position is None:
            raise IllegalAction("the game has not started")
        return self.position


def new_game(
    variant: str,
    *,
    seed: int | str,
    host: int = 0,
    options: Mapping[str, Any] | None = None,
    now: float = 0.0,
) -> GameState:
    """A game of ``variant`` in its deployment phase; ``options`` override rule defaults."""
    v = get_variant(variant)
    rules = v.rules.with_changes(options or {})
    if host not in v.seats:
        raise MalformedInput(f"no seat {host!r} in {variant}")
    n = len(v.seats)
    return GameState(
        variant=v,
        rules=rules,
        seed=str(seed),
        host=host,
        teams=v.teams,
        phase=Phase.DEPLOYING,
        deadline=now + rules.deploy_seconds,
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
        proposal=None,
        result=None,
        log=(),
    )


def start_from(
    variant: str,
    pieces: Mapping[str, tuple[int, str]],
    *,
    seed: int | str,
    host: int = 0,
    options: Mapping[str, Any] | None = None,
    now: float = 0.0,
) -> tuple[GameState, list[Event]]:
    """A game already in play from any position (``{station: (seat, rank key)}``), the host to
    move: for set-up positions, tests, bots and record replay. Layouts are not checked."""
    state = new_game(variant, seed=seed, host=host, options=options, now=now)
    game = _Game(state)
    drafts: list[dict[str, str]] = [{} for _ in state.variant.seats]
    for sid, (seat, rank) in pieces.items():
        game.check_seat(seat)
        drafts[seat][state.variant.board.station(sid).id] = rank
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
    game = _Game(state)
    handler(game, action)
    if state.phase == Phase.PLAYING:
        game.log = (*game.log, action)
    return game.freeze(), game.events


def rank_audience(state: GameState, index: int) -> Audience:
    """Who may see the rank of the piece on station ``index`` (None: everyone)."""
    return _audience(state.rules, state.teams, state.phase, state.reveals, state.position, index)


def _audience(
    rules: RuleOptions,
    teams: tuple[int, ...],
    phase: Phase,
    reveals: Reveals,
    position: Position | None,
    index: int,
) -> Audience:
    if phase == Phase.FINISHED or rules.information == Information.OPEN:
        return None
    if index in reveals.public:
        return None
    piece = position.cells[index] if position is not None else None
    if piece is None:
        raise MalformedInput(f"no piece on station index {index}")
    seats = {piece.seat} | {s for i, s in reveals.private if i == index}
    if rules.information == Information.PARTNERS_OPEN:
        seats |= {s for s, t in enumerate(teams) if t == teams[piece.seat]}
    return frozenset(seats)


def has_live_pieces(position: Position, seat: int) -> bool:
    """Whether the seat still has a piece that is not a landmine, flag or fortress."""
    return bool(position.seat_masks[seat] & position.mobile)


class _Game:
    """A mutable working copy of a GameState, used inside ``apply`` only."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.variant = state.variant
        self.rules = state.rules
        self.teams = state.teams
        self.phase = state.phase
        self.deadline = state.deadline
        self.drafts = list(state.drafts)
        self.confirmed = state.confirmed
        self.layouts = state.layouts
        self.position = state.position
        self.to_move = state.to_move
        self.seats = list(state.seats)
        self.started_at = state.started_at
        self.total_moves = state.total_moves
        self.quiet_moves = state.quiet_moves
        self.reveals = state.reveals
        self.proposal = state.proposal
        self.result = state.result
        self.log = state.log
        self.events: list[Event] = []

    def freeze(self) -> GameState:
        return dataclasses.replace(
            self.state,
            phase=self.phase,
            deadline=self.deadline,
            drafts=tuple(self.drafts),
            confirmed=self.confirmed,
            layouts=self.layouts,
            position=self.position,
            to_move=self.to_move,
            seats=tuple(self.seats),
            started_at=self.started_at,
            total_moves=self.total_moves,
            quiet_moves=self.quiet_moves,
            reveals=self.reveals,
            proposal=self.proposal,
            result=self.result,
            log=self.log,
        )

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

    def next_seat(self, seat: int) -> int:
        step = 1 if self.rules.turn_direction == TurnDirection.CLOCKWISE else -1
        return (seat + step) % len(self.seats)

    def set_seat(self, seat: int, **changes: Any) -> None:
        self.seats[seat] = dataclasses.replace(self.seats[seat], **changes)

    def audience(self, index: int) -> Audience:
        return _audience(self.rules, self.teams, self.phase, self.reveals, self.position, index)

    # --- deployment ---------------------------------------------------------------------------

    def place_layout(self, a: PlaceLayout) -> None:
        self.require(Phase.DEPLOYING)
        self.check_seat(a.seat)
        if a.seat in self.confirmed:
            raise IllegalAction(f"seat {a.seat} has already confirmed its layout")
        if a.now > self.deadline:
            raise IllegalAction("the deployment time is over")
        if not isinstance(a.layout, Mapping):
            raise MalformedInput("a layout maps station ids to rank keys")
        layout = dict(a.layout)
        if a.confirm:
            problems = layout_problems(self.variant.key, a.seat, layout)
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

    def deploy_deadline(self, a: DeployDeadline) -> None:
        self.require(Phase.DEPLOYING)
        if a.now < self.deadline:
            raise IllegalAction(f"the deployment runs until {self.deadline}")
        for seat in self.variant.seats:
            if seat not in self.confirmed:
                draft = self.drafts[seat]
                seed = f"{self.state.seed}/auto"
                self.drafts[seat] = auto_layout(self.variant.key, seat, seed, partial=draft)
                self.emit("auto_deployed", seat=seat)
        self.confirmed = frozenset(self.variant.seats)
        self.start_play(a.now)

    def start_play(self, now: float) -> None:
        layouts = []
        pieces: dict[str, tuple[int, str]] = {}
        for seat, draft in enumerate(self.drafts):
            assert draft is not None
            layouts.append({sid: parse_rank(r) for sid, r in draft.items()})
            pieces.update({sid: (seat, r) for sid, r in draft.items()})
        self.layouts = tuple(layouts)
        self.drafts = [None] * len(self.seats)
        self.position = Position.from_pieces(self.variant.board, pieces)
        self.phase = Phase.PLAYING
        self.started_at = now
        board = self.variant.board
        self.emit(
            "game_started",
            host=self.state.host,
            pieces=[{"station": board.stations[i], "seat": p.seat} for i, p in _cells(self.pos)],
        )
        for seat in self.variant.seats:  # possible only in set-up positions
            if self.phase == Phase.PLAYING and not has_live_pieces(self.pos, seat):
                self.eliminate(seat, EliminationReason.NO_LIVE_PIECES, None)
        self.begin_turn(self.state.host, now)

    # --- turns --------------------------------------------------------------------------------

    def begin_turn(self, seat: int, now: float) -> None:
        """Give the turn to ``seat`` or the next seat that can move, skipping the others."""
        while self.phase == Phase.PLAYING:
            if not self.alive(seat):
                seat = self.next_seat(seat)
                continue
            if legal_moves(self.pos, seat, self.teams, self.rules.hq_lock):
                self.to_move = seat
                self.deadline = now + self.rules.move_seconds
                self.emit("turn", seat=seat, deadline=self.deadline)
                return
            if self.rules.blocked_is_defeat:
                self.eliminate(seat, EliminationReason.BLOCKED, None)
            else:
                self.forfeit(seat, "no_legal_move")
            seat = self.next_seat(seat)

    def forfeit(self, seat: int, why: str, timeout: bool = False) -> None:
        s = self.seats[seat]
        skips, timeouts = s.skips + 1, s.timeouts + timeout
        self.set_seat(seat, skips=skips, timeouts=timeouts)
        self.emit("skipped", seat=seat, reason=why, skips=skips)
        if skips >= self.rules.max_skips:
            escape = self.rules.timeouts_are_escape and timeouts == skips
            reason = EliminationReason.ESCAPE if escape else EliminationReason.SKIPS
            self.eliminate(seat, reason, None)

    def timeout(self, a: Timeout) -> None:
        self.require(Phase.PLAYING)
        if a.now < self.deadline:
            raise IllegalAction(f"seat {self.to_move}'s clock runs until {self.deadline}")
        seat = self.to_move
        assert seat is not None
        self.expire_proposal()
        self.forfeit(seat, "timeout", timeout=True)
        self.begin_turn(self.next_seat(seat), a.now)

    def move(self, a: Move) -> None:
        self.require(Phase.PLAYING)
        self.check_seat(a.seat)
        if a.seat != self.to_move:
            raise NotYourTurn(f"it is seat {self.to_move}'s turn, not seat {a.seat}'s")
        if a.now > self.deadline:
            raise IllegalAction(f"seat {a.seat}'s clock ran out at {self.deadline}")
        board = self.variant.board
        origin, target = board.station(a.origin).index, board.station(a.target).index
        pos = self.pos
        attacker = pos.cells[origin]
        if attacker is None or attacker.seat != a.seat:
            raise IllegalAction(f"seat {a.seat} has no piece on {a.origin}")
        t = move_tables(board)
        friends = friendly_mask(pos, a.seat, self.teams)
        if not destination_mask(t, pos, origin, friends, self.rules.hq_lock) >> target & 1:
            raise IllegalAction(f"{a.origin} -> {a.target} is not a legal move")
        self.expire_proposal()
        defender = pos.cells[target]
        outcome = None
        secrets: dict[str, tuple[Any, Audience]] = {
            "rank": (attacker.rank.value, self.audience(origin))
        }
        if defender is not None:
            outcome = resolve_combat(
                attacker.rank,
                defender.rank,
                mine_trades=self.rules.mine_trades,
                bomb_takes_flag=self.rules.bomb_takes_flag,
                hq_dig=self.rules.hq_dig,
                defender_in_hq=bool(t.hqs >> target & 1),
            )
            secrets["defender_rank"] = (defender.rank.value, self.audience(target))
        self.events.append(
            Event(
                "moved",
                {
                    "seat": a.seat,
                    "origin": a.origin,
                    "target": a.target,
                    "outcome": None if outcome is None else outcome.value,
                    "defender": None if defender is None else defender.seat,
                },
                secrets,
            )
        )
        self.position = pos.with_move(a.origin, a.target, outcome)
        self.reveals = self.reveals.after_move(origin, target, outcome)
        self.set_seat(a.seat, moves=self.seats[a.seat].moves + 1)
        self.total_moves += 1
        self.quiet_moves = 0 if defender is not None else self.quiet_moves + 1
        if defender is not None and outcome is not None:
            self.after_combat(a.seat, attacker, defender, target, outcome)
        if self.phase == Phase.PLAYING:
            self.check_draw_limits()
        if self.phase == Phase.PLAYING:
            self.begin_turn(self.next_seat(a.seat), a.now)

    def after_combat(
        self, seat: int, attacker: Piece, defender: Piece, target: int, outcome: Outcome
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
                    self.reveals = Reveals(self.reveals.public | {target}, self.reveals.private)
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
        if defender.rank == Rank.FLAG and outcome != Outcome.DEFENDER:
            self.eliminate(defender.seat, EliminationReason.FLAG_CAPTURED, seat)
        for piece in (attacker, defender):
            if piece.rank == Rank.FIELD_MARSHAL and self.alive(piece.seat):
                self.reveal_flags(piece.seat)
        # 先攻先胜 / RULES.md §7: the defender's side goes out first; if that ends the game,
        # the attacker wins even when it has nothing left either.
        for loser, victor in ((defender.seat, seat), (seat, defender.seat)):
            if self.phase != Phase.PLAYING or not self.alive(loser):
                continue
            if not has_live_pieces(self.pos, loser):
                self.eliminate(loser, EliminationReason.NO_LIVE_PIECES, victor)

    def reveal_flags(self, seat: int) -> None:
        """司令 death shows the seat's flag to everyone (RULES.md §7; not in 三国)."""
        if not self.rules.marshal_death_reveals_flag or self.phase != Phase.PLAYING:
            return
        if self.pos.count(seat, Rank.FIELD_MARSHAL):
            return
        board = self.variant.board
        for index, piece in _cells(self.pos):
            if piece.seat == seat and piece.rank == Rank.FLAG and index not in self.reveals.public:
                self.reveals = Reveals(self.reveals.public | {index}, self.reveals.private)
                self.emit("flag_revealed", seat=seat, station=board.stations[index])

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
        ends_as: EndReason = EndReason.ELIMINATION,
    ) -> None:
        order = 1 + sum(not s.alive for s in self.seats)
        self.set_seat(seat, elimination=Elimination(reason, victor, order, self.total_moves))
        gone = {i for i, p in _cells(self.pos) if p.seat == seat}
        self.position = self.pos.without_seat(seat)
        self.reveals = self.reveals.without(gone)
        self.emit("eliminated", seat=seat, reason=reason.value, victor=victor)
        if self.proposal is not None:
            self.proposal = None
            self.emit("proposal_cancelled", reason="a player was eliminated")
        alive_teams = {self.teams[s] for s in range(len(self.seats)) if self.alive(s)}
        if len(alive_teams) <= 1:
            winners = tuple(s for s, t in enumerate(self.teams) if t in alive_teams)
            self.finish(ends_as, winners)

    def finish(self, reason: EndReason, winners: tuple[int, ...]) -> None:
        self.phase = Phase.FINISHED
        self.to_move = None
        self.proposal = None
        self.result = score(
            self.rules,
            self.teams,
            [s.elimination for s in self.seats],
            [s.moves for s in self.seats],
            reason,
            winners,
        )
        board = self.variant.board
        pieces = (
            [
                {"station": board.stations[i], "seat": p.seat, "rank": p.rank.value}
                for i, p in _cells(self.pos)
            ]
            if self.position is not None
            else []
        )
        layouts = [{sid: r.value for sid, r in layout.items()} for layout in self.layouts]
        self.emit("game_over", result=self.result.to_dict(), pieces=pieces, layouts=layouts)

    def after_elimination_outside_move(self, seat: int, now: float) -> None:
        if self.phase == Phase.PLAYING and self.to_move == seat:
            self.begin_turn(self.next_seat(seat), now)

    # --- draws, surrender, escape -------------------------------------------------------------

    def expire_proposal(self) -> None:
        """A proposal lapses when the turn passes unanswered [decision]."""
        if self.proposal is not None:
            self.proposal = None
            self.emit("proposal_cancelled", reason="the turn passed")

    def propose_draw(self, a: ProposeDraw) -> None:
        self.require(Phase.PLAYING)
        self.check_seat(a.seat)
        team = self.teams[a.seat]
        if not self.team_alive(team):
            raise IllegalAction(f"seat {a.seat}'s side is out of the game")
        self.check_proposal_allowed()
        used = self.seats[a.seat].proposals
        if used >= self.rules.draw_proposals:
            raise IllegalAction(f"seat {a.seat} has used all {self.rules.draw_proposals} proposals")
        waiting = frozenset(
            s for s, t in enumerate(self.teams) if s != a.seat and self.team_alive(t)
        )
        self.set_seat(a.seat, proposals=used + 1)
        self.proposal = Proposal("draw", a.seat, waiting)
        self.emit("proposal", proposal="draw", seat=a.seat, waiting=sorted(waiting))

    def check_proposal_allowed(self) -> None:
        if self.proposal is not None:
            raise IllegalAction("another proposal is waiting for answers")
        if self.total_moves < self.rules.proposals_after_moves:
            raise IllegalAction(
                f"proposals are allowed after {self.rules.proposals_after_moves} moves"
            )

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
        self.require(Phase.PLAYING)
        self.check_seat(a.seat)
        if not self.rules.surrender_allowed:
            raise IllegalAction(f"there is no surrender in {self.variant.name}")
        if not self.alive(a.seat):
            raise IllegalAction(f"seat {a.seat} is already out of the game")
        assert self.started_at is not None
        if a.now - self.started_at < self.rules.surrender_after_seconds:
            raise IllegalAction(
                f"no surrender in the first {self.rules.surrender_after_seconds} s of play"
            )
        partners = frozenset(
            s
            for s, t in enumerate(self.teams)
            if t == self.teams[a.seat] and s != a.seat and self.alive(s)
        )
        if self.rules.surrender_needs_partner and partners:
            self.check_proposal_allowed()
            self.proposal = Proposal("surrender", a.seat, partners)
            self.emit("proposal", proposal="surrender", seat=a.seat, waiting=sorted(partners))
            return
        self.emit("surrendered", seat=a.seat)
        self.eliminate(a.seat, EliminationReason.SURRENDER, None)
        self.after_elimination_outside_move(a.seat, a.now)

    def escape(self, a: Escape) -> None:
        if self.phase not in (Phase.DEPLOYING, Phase.PLAYING):
            raise IllegalAction("the game is over")
        self.check_seat(a.seat)
        if not self.alive(a.seat):
            raise IllegalAction(f"seat {a.seat} is already out of the game")
        self.emit("escaped", seat=a.seat)
        if self.phase == Phase.DEPLOYING:
            # Nobody can play on without an army: the game ends, only the escaper scores.
            self.set_seat(a.seat, elimination=Elimination(EliminationReason.ESCAPE, None, 1, 0))
            self.finish(EndReason.ESCAPE, ())
            return
        self.eliminate(a.seat, EliminationReason.ESCAPE, None, ends_as=EndReason.ESCAPE)
        if self.phase != Phase.PLAYING:
            return
        if self.rules.escape_rule == EscapeRule.QQ:
            # RULES.md §11: the game ends; the opponents win only if the escaper's side is out.
            team = self.teams[a.seat]
            winners = (
                ()
                if self.team_alive(team)
                else tuple(s for s, t in enumerate(self.teams) if t != team)
            )
            self.finish(EndReason.ESCAPE, winners)
            return
        self.after_elimination_outside_move(a.seat, a.now)


def _cells(position: Position) -> list[tuple[int, Piece]]:
    return [(i, p) for i, p in enumerate(position.cells) if p is not None]


_HANDLERS: dict[type, Callable[[_Game, Any], None]] = {
    PlaceLayout: _Game.place_layout,
    DeployDeadline: _Game.deploy_deadline,
    Move: _Game.move,
    Timeout: _Game.timeout,
    ProposeDraw: _Game.propose_draw,
    AnswerProposal: _Game.answer,
    Surrender: _Game.surrender,
    Escape: _Game.escape,
}
