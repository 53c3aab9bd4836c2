"""The game's state: immutable records of everything a game is at one moment (docs/rules.md §5-§9).

``engine.game`` moves from one ``GameState`` to the next; nothing here changes anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import islice
from typing import Any, overload

from engine.actions import Action, Flip, Move
from engine.combat import Outcome
from engine.deal import DealtPiece, commitment
from engine.errors import IllegalAction
from engine.events import Event
from engine.outcome import Elimination, GameResult
from engine.pieces import Piece
from engine.position import Position
from engine.variants import RuleOptions, Variant


class Phase(StrEnum):
    PICKING = "picking"  # 乱战: engineer colours are picked
    REDEALING = "redealing"  # 乱战: weak hands may ask for a redeal
    BIDDING = "bidding"  # 三打一
    DEPLOYING = "deploying"
    PLAYING = "playing"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class SeatState:
    skips: int = 0  # forfeited turns: timeouts and forced skips (docs/rules.md §6.2)
    timeouts: int = 0
    moves: int = 0
    proposals: int = 0  # draw proposals (三打一: and surrender requests) made
    elimination: Elimination | None = None

    @property
    def alive(self) -> bool:
        return self.elimination is None


@dataclass(frozen=True, slots=True)
class Proposal:
    """A pending draw proposal, or a surrender waiting for the partners' consent."""

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

    def with_public(self, index: int) -> Reveals:
        return Reveals(self.public | {index}, self.private)


@dataclass(frozen=True, slots=True)
class DealState:
    """The dealt variants' state before play: hands, picks, redeals, bids, the banker."""

    number: int = 0  # deals so far (redeals included)
    hands: tuple[tuple[DealtPiece, ...] | None, ...] = ()  # each seat's pieces, once known
    order: tuple[int, ...] = ()  # who picks (乱战) or bids (三打一), in order
    picks: tuple[int | None, ...] = ()  # 乱战: the colour each seat picked
    bids: tuple[int | None, ...] = ()  # 三打一: each seat's bid (0 passes)
    redeals: int = 0
    redeal_asked: bool = False
    waiting: frozenset[int] = frozenset()  # seats whose decision is due
    banker: int | None = None
    contract: int = 0


@dataclass(frozen=True, slots=True)
class FlagWatch:
    """How a seat can lose by its flag (docs/rules.md §7, §9.2 step 5): the flags it started with,
    its HQs and which of them the enemy took, and the flag raised after the last 司令 died."""

    flags: frozenset[int] = frozenset()  # stations holding the seat's flags at the start
    hqs: frozenset[int] = frozenset()
    taken: frozenset[int] = frozenset()  # flag or HQ stations whose occupant an enemy removed
    can_raise: bool = False  # no flag but a 司令: the flag is raised when the last one dies
    raised: int | None = None
    raise_by: float | None = None  # deadline of a pending choice

    def lost(self) -> bool:
        if len(self.flags) == 1:
            return bool(self.flags & self.taken)
        if self.flags:
            return self.flags <= self.taken
        if self.raised is not None:
            return self.raised in self.taken
        if self.can_raise:  # while a 司令 lives (or the choice is pending) either HQ counts
            return bool(self.hqs & self.taken)
        return self.hqs <= self.taken


@dataclass(frozen=True, slots=True)
class FlipState:
    """翻棋: which pieces are face down, who plays which colour, the flag carry."""

    face_down: int = 0  # mask of face-down stations
    colours: tuple[int, ...] | None = None  # colour played by each seat, once assigned
    carrier: int | None = None  # station of the piece carrying its own flag
    mines_dug: tuple[int, int] = (0, 0)  # by colour: opponent landmines its engineers dug


class ActionLog:
    """The actions applied to a game so far: an immutable sequence, like a tuple.

    Each move's state has a log one action longer than the last state's. A new tuple for each
    would copy the whole log on every move and leave a fresh object of hundreds of references
    for the garbage collector to go through at every young pass, for every running game. So
    the logs of a game's states share one list and each knows its own length: ``appended``
    adds to that list in place when the log is the list's newest, and copies only when an
    older state's log is extended (a branch), or when another thread got there first.

    The list holds moves and flips, nearly all of a game's actions, as plain tuples of their
    fields (``_packed``): a tuple of numbers and strings leaves the collector's lists at its
    first pass, where an action object would stay in them and be gone through again at every
    pass of its generation, for as long as its game runs. Reading the log makes them anew."""

    __slots__ = ("_items", "_length")

    def __init__(self, actions: Iterable[Action] = ()) -> None:
        self._items: list[Action | tuple[Any, ...]] = [_packed(a) for a in actions]
        self._length = len(self._items)

    def appended(self, action: Action) -> ActionLog:
        """This log with ``action`` after it."""
        items, length, item = self._items, self._length, _packed(action)
        if len(items) == length:
            items.append(item)
            if items[length] is not item:  # another thread appended between the two lines
                items = [*items[:length], item]
        else:
            items = [*items[:length], item]
        log = ActionLog.__new__(ActionLog)
        log._items, log._length = items, length + 1
        return log

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[Action]:
        return map(_unpacked, islice(self._items, self._length))

    @overload
    def __getitem__(self, index: int) -> Action: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Action, ...]: ...
    def __getitem__(self, index: int | slice) -> Action | tuple[Action, ...]:
        """An action, or a slice of the log as a tuple."""
        items = self._items
        if isinstance(index, slice):
            return tuple(_unpacked(items[i]) for i in range(*index.indices(self._length)))
        return _unpacked(items[range(self._length)[index]])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ActionLog):
            return self._length == other._length and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"ActionLog({tuple(self)!r})"

    def __reduce__(self) -> tuple[type[ActionLog], tuple[tuple[Action, ...]]]:
        return ActionLog, (tuple(self),)  # its own actions only, not the shared list


def _packed(action: Action) -> Action | tuple[Any, ...]:
    """A move or a flip as the tuple of its fields (told apart by length); others as they are."""
    if type(action) is Move:
        return (action.seat, action.origin, action.target, action.now)
    if type(action) is Flip:
        return (action.seat, action.station, action.now)
    return action


def _unpacked(item: Action | tuple[Any, ...]) -> Action:
    if isinstance(item, tuple):  # no action is a tuple
        return Move(*item) if len(item) == 4 else Flip(*item)
    return item


class Tracking:
    """What each viewer has proven in one state (``engine.tracker``), worked out when first
    asked (``seen``: each viewer's, by seat, spectators last): until then the state before it
    and the events that led from there (``before``, ``events``). A state without events since
    the one before shares that one's. Kept here, beside the state that holds it, so that the
    state needs nothing of the tracker."""

    __slots__ = ("before", "counts", "events", "seen")

    def __init__(self, before: GameState | None, events: Sequence[Event]) -> None:
        self.before = before  # None: play starts with this state
        self.events = events
        self.seen: tuple[Any, ...] | None = None  # engine.tracker's Tracks, once worked out
        self.counts: list[dict[str, Any] | None] = []  # by viewer (as ``seen``), once made


@dataclass(frozen=True, slots=True)
class GameState:
    variant: Variant
    rules: RuleOptions
    seed: str
    host: int  # 桌主
    first: int  # who moves first: the host (三打一: the banker)
    created_at: float
    # a game made by start_from: its pieces and its variant's set-up value, as JSON values
    # ({"pieces": ..., **setup.to_json()}), for its record
    setup: Mapping[str, Any] | None
    teams: tuple[int, ...]  # team id of each seat
    phase: Phase
    deadline: float  # of the current phase's decision, then of the current turn
    deal: DealState
    drafts: tuple[Mapping[str, str] | None, ...]  # layouts being edited while deploying
    confirmed: frozenset[int]  # seats that confirmed their layout (出征)
    layouts: tuple[Mapping[str, Piece], ...]  # the pieces each seat started play with
    position: Position | None
    to_move: int | None
    seats: tuple[SeatState, ...]
    started_at: float | None  # when play began
    total_moves: int
    quiet_moves: int  # moves in a row without combat
    reveals: Reveals
    watches: tuple[FlagWatch, ...]
    flip: FlipState | None
    proposal: Proposal | None
    result: GameResult | None
    log: ActionLog  # every action applied
    paused_since: float | None = None  # play stands still (三打一: a player is away)
    # in play: what each viewer has proven, worked out when first asked (engine.tracker)
    tracks: Tracking | None = field(default=None, compare=False, repr=False)

    @property
    def board_position(self) -> Position:
        if self.position is None:
            raise IllegalAction("the game has not started")
        return self.position

    @property
    def commitment(self) -> str:
        """The hash of the seed, published before the deal (``engine.deal.verify``)."""
        return commitment(self.seed)
