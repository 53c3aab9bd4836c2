"""The rulebook: the hooks by which a variant changes the shared game, with neutral defaults.

The state machine (``engine.game``) runs every variant alike and never asks which one it plays:
at fixed points it calls the variant's ``Rulebook`` (looked up by ``engine.rulebooks``) — at the
start, for a set-up position, for moves, after a move or fight, to know whether the game is
decided, for flags shown at the start, for deployment's arguments, in the view and for the score.
The defaults are the standard game's rules (四国, 二人, 三国); 乱战 (``engine.luanzhan``), 三打一
(``engine.sandayi``) and 翻棋 (``engine.fanqi``) override what they change and bring the handlers
of their own actions. A difference the standard game could also choose is a ``RuleOptions`` flag
(``engine.variants``), not a hook.

Most hooks return a value — a decision, a refusal, the winners, the score, 翻棋's face-down
state after a move, the seats a variant's own way to win puts out (``Out``) — and read the game
through ``GameLike``, which a ``GameState`` and the working ``engine.game.Game`` both are. The
hooks whose work is to change the game — ``start`` and ``set_up`` (a deal, a phase, a board),
``phase_deadline`` (the decision not made in time, which moves the game on) and 翻棋's flag
carry (``special_move``, a move of its own) — and the variants' action handlers see
``WorkingGame``, the working game inside ``apply`` with the few steps of the shared machine they
call. Both are protocols, so that this module and the variants need nothing of ``engine.game``
(which is above them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Protocol

from engine.actions import Action, Move
from engine.combat import Outcome
from engine.errors import MalformedInput
from engine.events import Audience, Event
from engine.movement import destination_mask, friendly_mask, legal_moves, move_tables
from engine.outcome import EliminationReason, EndReason, GameResult, score
from engine.pieces import Piece
from engine.position import Position
from engine.state import DealState, FlagWatch, FlipState, Phase, Reveals, SeatState
from engine.variants import RuleOptions, Variant


class GameLike(Protocol):
    """What hooks read of a game: a ``GameState``, or the working game inside ``apply``."""

    @property
    def variant(self) -> Variant: ...
    @property
    def rules(self) -> RuleOptions: ...
    @property
    def seed(self) -> str: ...
    @property
    def teams(self) -> tuple[int, ...]: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def deal(self) -> DealState: ...
    @property
    def position(self) -> Position | None: ...
    @property
    def reveals(self) -> Reveals: ...
    @property
    def flip(self) -> FlipState | None: ...
    @property
    def seats(self) -> Sequence[SeatState]: ...


@dataclass(frozen=True, slots=True)
class Out:
    """A seat that a variant's own way to win puts out of the game (``Rulebook.outs``)."""

    seat: int
    reason: EliminationReason
    victor: int | None
    news: tuple[Event, ...] = ()  # announced just before (翻棋: ``flag_carried_home``)


class WorkingGame(GameLike, Protocol):
    """The working game inside ``apply`` (``engine.game.Game``) as the hooks that change it and
    the variants' own actions see it: the fields they set, and the steps of the shared machine
    they call."""

    host: int
    first: int
    teams: tuple[int, ...]
    phase: Phase
    deadline: float
    deal: DealState
    position: Position | None
    started_at: float | None
    reveals: Reveals
    watches: list[FlagWatch]
    flip: FlipState | None

    @property
    def pos(self) -> Position: ...
    @property
    def step(self) -> int: ...
    def emit(self, kind: str, audience: Audience = None, **data: Any) -> None: ...
    def check_seat(self, seat: int) -> None: ...
    def require(self, phase: Phase) -> None: ...
    def check_turn(self, seat: int, now: float) -> None: ...
    def count_move(self, seat: int, quiet: bool) -> None: ...
    def expire_proposal(self) -> None: ...
    def start_deploying(self, now: float) -> None: ...
    def begin_turn(self, seat: int, now: float) -> None: ...
    def end_turn(self, seat: int, now: float) -> None: ...
    def put_out(self, outs: Iterable[Out]) -> None: ...


Handler = Callable[[WorkingGame, Any], None]


class Setup(Protocol):
    """A variant's own set-up value for ``start_from``, made by its module (三打一's
    ``sandayi.Setup``, 翻棋's ``fanqi.Setup``) and read by its rulebook's ``set_up``."""

    def to_json(self) -> dict[str, Any]:
        """Its fields as JSON values, kept beside the pieces in a record's ``setup``."""
        ...


@dataclass(frozen=True, slots=True)
class Marks:
    """How a game with face-down pieces (翻棋) marks the pieces in a view."""

    face_down: int  # stations (a mask) of face-down pieces: nobody sees their rank
    carriers: int  # stations (a mask) of pieces carrying their own flag
    owners: tuple[int | None, ...]  # by a piece's ``seat`` field (its colour): the seat playing it


class Rulebook:
    """A variant's hooks; each default is the standard game's rule at that point."""

    actions: ClassVar[Mapping[type[Action], Handler]] = MappingProxyType({})
    """The handlers of the variant's own actions (each refuses a game it does not fit)."""

    # --- the start ----------------------------------------------------------------------------

    def start(self, g: WorkingGame, now: float) -> None:
        """A new game, made in the deploying phase: a variant deals or starts another phase."""

    def set_up(
        self,
        g: WorkingGame,
        pieces: Mapping[str, Sequence[Any]],
        setup: Setup | None,
        now: float,
    ) -> bool:
        """``start_from``'s set-up position, with the variant's own set-up value (``setup``;
        the standard game has none): True when the variant has put the game in play itself,
        False to place ``pieces`` as layouts."""
        if setup is not None:
            raise MalformedInput(f"{g.variant.key} takes no set-up value, not {setup!r}")
        return False

    def read_setup(self, data: Mapping[str, Any]) -> Setup | None:
        """The variant's set-up value from a record's ``setup`` (its ``to_json`` fields beside
        the pieces; a record written before set-up values holds every variant's fields, and
        each variant reads its own)."""
        return None

    def phase_deadline(self, g: WorkingGame, now: float) -> None:
        """The deadline of one of the variant's own phases before deployment has passed."""
        raise AssertionError(f"no phase {g.phase.value} in {g.variant.key}")

    def deploy_args(self, g: GameLike, seat: int) -> dict[str, Any]:
        """The arguments of ``layout_problems`` and ``auto_layout`` for ``seat``'s layout."""
        return {}

    def shows_flags_at_start(self, g: GameLike, seat: int) -> bool:
        """Whether ``seat``'s flags are shown to everyone when play begins."""
        return False

    def may_raise_flag(self, g: GameLike, seat: int) -> bool:
        """Whether ``seat``, dealt no flag but a 司令, raises one when the last 司令 dies."""
        return True

    # --- moves --------------------------------------------------------------------------------

    def piece_seat(self, g: GameLike, seat: int) -> int | None:
        """The ``seat`` field of the pieces ``seat`` plays (None: none yet)."""
        return seat

    def owner(self, g: GameLike, piece: Piece) -> int | None:
        """The seat playing ``piece`` (None: nobody yet)."""
        return piece.seat

    def moves(self, g: GameLike, seat: int) -> dict[int, int]:
        """The legal moves of ``seat``: ``{origin index: destination mask}``."""
        assert g.position is not None
        return legal_moves(g.position, seat, g.teams, g.rules.movement)

    def can_act(self, g: GameLike, seat: int) -> bool:
        """Whether ``seat`` has a legal action on its turn."""
        assert g.position is not None
        return bool(legal_moves(g.position, seat, g.teams, g.rules.movement, first_only=True))

    def mover_refusal(self, g: GameLike, a: Move, origin: int) -> str | None:
        """Why the variant refuses a move from ``origin`` before the shared checks (the piece
        is the mover's, the target in reach), or None."""
        return None

    def targets(self, g: GameLike, seat: int, origin: int) -> int:
        """Where ``seat``'s piece on ``origin`` may go: a mask of station indices."""
        pos = g.position
        assert pos is not None
        friends = friendly_mask(pos, seat, g.teams)
        t = move_tables(g.variant.board)
        return destination_mask(t, pos, origin, friends, g.rules.movement)

    def special_move(self, g: WorkingGame, a: Move, origin: int, target: int) -> bool:
        """Play a move that is not a step or an attack (翻棋's flag carry) and say True."""
        return False

    standard_aftermath: ClassVar[bool] = True
    """Whether a fight has the standard game's aftermath (scouting, flags and HQs taken, a
    司令's death, 先攻先胜: ``engine.game.Game.after_combat``); 翻棋's has none but ``outs``."""

    def flip_after_move(
        self,
        g: GameLike,
        attacker: Piece,
        defender: Piece | None,
        origin: int,
        target: int,
        outcome: Outcome | None,
    ) -> FlipState | None:
        """The face-down state (翻棋's ``flip``) once a move stands; the game's as it is in a
        game played face up."""
        return g.flip

    def flip_after_removal(self, g: GameLike, gone: set[int]) -> FlipState | None:
        """The face-down state once an eliminated seat's pieces (the stations ``gone``) have
        left the board."""
        return g.flip

    def outs(self, g: GameLike, seat: int) -> Sequence[Out]:
        """The seats the variant's own ways to win put out after ``seat``'s move, in the order
        they go out (each while the game lasts); the standard game's are the shared machine's."""
        return ()

    # --- the end ------------------------------------------------------------------------------

    def decided(self, g: GameLike) -> tuple[int, ...] | None:
        """The winning seats once the game is decided, else None: one team is left."""
        seats = g.seats
        alive_teams = {g.teams[s] for s in g.variant.seats if seats[s].alive}
        if len(alive_teams) <= 1:
            return tuple(s for s, t in enumerate(g.teams) if t in alive_teams)
        return None

    def score(self, g: GameLike, reason: EndReason, winners: tuple[int, ...]) -> GameResult:
        """The finished game's result (``engine.outcome.score``)."""
        return score(
            g.rules,
            g.teams,
            [s.elimination for s in g.seats],
            [s.moves for s in g.seats],
            reason,
            winners,
        )

    # --- who sees what, and the view ----------------------------------------------------------

    def face_down(self, g: GameLike) -> int | None:
        """In a game played face down (翻棋), the stations (a mask) of face-down pieces, whose
        ranks nobody sees while every other rank is public; None: ranks are seen by the rules
        of information (``RuleOptions.information``, the seats' own pieces, reveals)."""
        return None

    def marks(self, g: GameLike) -> Marks | None:
        """Face-down pieces and flag carriers (翻棋), or None: every piece is face up, its
        ``seat`` field the seat playing it, and a rank is seen by the rules of information."""
        return None

    def deal_view(self, g: GameLike, viewer: int | None) -> dict[str, Any] | None:
        """The view's ``deal`` (the dealt variants' hands, picks, bids), or None for none."""
        return None

    def board_view(self, g: GameLike) -> Mapping[str, Any]:
        """Entries of the view after the pieces, in play and after."""
        return _NOTHING

    def turn_view(self, g: GameLike) -> Mapping[str, Any]:
        """Entries of the view of the seat to move, after its legal moves."""
        return _NOTHING


_NOTHING: Mapping[str, Any] = {}  # never changed: views only read it
