"""Variants: which board, which teams, which armies and which rule options (docs/rules.md §9).

A variant is data. Every *(option)* of docs/rules.md is a field of ``RuleOptions`` with the
variant's default; a table overrides them with ``Variant.rules_with`` (checked, typed), which keeps
the options the variant fixes (``Variant.fixed``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Literal

from engine.board import Board, get_board
from engine.combat import Outcome, resolve_combat
from engine.errors import MalformedInput
from engine.pieces import STANDARD_ARMY, Rank


class Scouting(StrEnum):
    """Who sees a rank revealed by 工兵侦察 (docs/rules.md §4)."""

    OFF = "off"
    ALL = "all"  # every player (seed 001)
    TEAM = "team"  # the engineer's own team (乱战, seed 000)


class Information(StrEnum):
    """What players see of each other's ranks (docs/rules.md §8)."""

    HIDDEN = "hidden"  # 暗棋
    PARTNERS_OPEN = "partners_open"  # 双明: partners see each other's ranks
    OPEN = "open"  # 明棋: everyone sees everything


class TurnDirection(StrEnum):
    CLOCKWISE = "clockwise"
    COUNTER_CLOCKWISE = "counter_clockwise"


class EscapeRule(StrEnum):
    """How an escape (逃跑) is scored for the others (docs/rules.md §11, §9.3, §9.4)."""

    QQ = "qq"  # opponents win only if the escaper's side is now out; else nobody else scores
    LIANZHONG = "lianzhong"  # 乱战: opponents win after 15 full rounds
    SANGUO = "sanguo"  # the escaper loses Z; the others play on
    SANDAYI = "sandayi"


@dataclass(frozen=True, slots=True)
class MovementRules:
    """The rule options movement follows (docs/rules.md §3): one small object that move generation,
    the search and the bots take whole (``RuleOptions.movement``), so that a new movement option
    is a field here and in ``RuleOptions`` and nothing more."""

    hq_lock: bool = True  # a piece in an HQ never moves (off only in 翻棋)


STANDARD_MOVEMENT = MovementRules()  # the standard game's: what callers that pass none get


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """Every per-table rule option of docs/rules.md, with the default of the standard game."""

    # combat (§4)
    mine_trades: bool = False  # any non-engineer hitting a landmine dies with it
    bomb_takes_flag: bool = False  # a bomb captures a flag instead of trading with it
    hq_dig: bool = False  # any attacker removes an HQ occupant (乱战)
    engineer_scouting: Scouting = Scouting.OFF
    # movement (§3) and deployment (§5)
    hq_lock: bool = True  # a piece in an HQ never moves (off only in 翻棋)
    bombs_in_front_row: bool = False  # 三国 allows bombs in row 1
    dealt_flags: bool = False  # 乱战 flag rules: no flag, or one/two flags and the rest 军长
    extra_mines_row4: bool = False  # n > 5 landmines: up to n - 5 of them in row 4 (乱战)
    deploy_seconds: int = 90
    # turns (§6)
    turn_direction: TurnDirection = TurnDirection.CLOCKWISE
    move_seconds: int = 30
    max_skips: int = 5  # skips (timeouts and forced) that eliminate a seat
    blocked_is_defeat: bool = False  # no legal move eliminates at once (三打一, 翻棋)
    timeouts_are_escape: bool = False  # reaching max_skips by timeouts alone is an escape (乱战)
    # draws and surrender (§6.3, §6.4)
    no_capture_plies: int | None = 40  # moves in a row without combat that draw the game
    max_total_moves: int | None = None  # total moves that draw the game (三打一: 500)
    draw_proposals: int = 3  # per player per game
    proposals_after_moves: int = 0  # draw/surrender only after this many total moves (三打一)
    surrender_counts_as_proposal: bool = False  # 三打一: 5 requests of draw and surrender together
    surrender_allowed: bool = True
    surrender_after_seconds: int = 90  # of play; earlier surrenders are invalid
    surrender_needs_partner: bool = False
    # information (§8) and flags (§7)
    information: Information = Information.HIDDEN
    marshal_death_reveals_flag: bool = True  # 司令 death shows the flag (not in 三国)
    announce_commander_deaths: bool = False  # 三打一: a 司令's or 帅's death is public, with rank
    redeals: int = 3  # 乱战: at most this many redeals a game
    # escapes and scoring (§9.4, §10, §11)
    escape_rule: EscapeRule = EscapeRule.QQ
    disconnect_grace_seconds: int = 60
    pause_on_disconnect: bool = False  # 三打一: play pauses while a player is away
    score_x: int = 2  # 三国: first loser -X, its victor +X
    score_y: int = 2  # 三国: second loser -Y
    score_z: int = 6  # 三国: last survivor +Z; an escaper -Z
    random_seats: bool = False  # 三国 随机防作弊: the platform seats players at random
    # not an option: the movement options above as one object, made with the options, so that
    # move generation reads them without building anything (``MovementRules``)
    movement: MovementRules = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        values = {name: getattr(self, name) for name in _MOVEMENT_OPTIONS}
        object.__setattr__(self, "movement", MovementRules(**values))

    def fight(self, attacker: Rank, defender: Rank, *, defender_in_hq: bool) -> Outcome:
        """The outcome of ``attacker`` hitting ``defender`` under these options."""
        return resolve_combat(
            attacker,
            defender,
            mine_trades=self.mine_trades,
            bomb_takes_flag=self.bomb_takes_flag,
            hq_dig=self.hq_dig,
            defender_in_hq=defender_in_hq,
        )

    def with_changes(self, changes: Mapping[str, Any]) -> RuleOptions:
        """These options with ``changes`` applied; MalformedInput on an unknown name or value."""
        values: dict[str, Any] = {}
        for name, value in changes.items():
            if name not in _OPTIONS:
                raise MalformedInput(f"unknown rule option {name!r}")
            values[name] = _coerce(name, getattr(self, name), value)
        return dataclasses.replace(self, **values)

    def to_dict(self) -> dict[str, Any]:
        """The options as JSON-ready values (enums as their keys)."""
        return {
            name: value.value if isinstance(value := getattr(self, name), StrEnum) else value
            for name in _OPTIONS
        }


_MOVEMENT_OPTIONS = tuple(f.name for f in dataclasses.fields(MovementRules))
_OPTIONS = tuple(f.name for f in dataclasses.fields(RuleOptions) if f.init)  # not ``movement``


def _coerce(name: str, current: Any, value: Any) -> Any:
    if isinstance(current, StrEnum):
        try:
            return type(current)(value)
        except ValueError:
            raise MalformedInput(f"rule option {name}: {value!r} is not allowed") from None
    if isinstance(current, bool):
        if not isinstance(value, bool):
            raise MalformedInput(f"rule option {name}: expected true or false, not {value!r}")
        return value
    if name in ("no_capture_plies", "max_total_moves") and value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise MalformedInput(f"rule option {name}: expected a whole number >= 0, not {value!r}")
    return value


Dealing = Literal["luanzhan", "sandayi", "fanqi"] | None


@dataclass(frozen=True, slots=True)
class Variant:
    """A game variant: its board, the team of each seat, its army and its default options."""

    key: str
    name: str  # Chinese name shown to players
    board_key: str
    teams: tuple[int, ...]  # teams[seat] == team id; partners share a team (三打一: at bidding)
    rules: RuleOptions = field(default_factory=RuleOptions)
    army: Mapping[Rank, int] = field(default_factory=lambda: STANDARD_ARMY)
    dealing: Dealing = None  # how armies are dealt; None: every seat gets the standard army
    # options that are rules of the variant: it plays them at its own value whatever a table or
    # a record asks (翻棋's blocked_is_defeat, docs/rules.md §9.6: its records from before that was
    # an option hold false, which the engine of the time ignored for 翻棋)
    fixed: frozenset[str] = frozenset()

    @property
    def board(self) -> Board:
        return get_board(self.board_key)

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(range(len(self.teams)))

    def rules_with(self, changes: Mapping[str, Any]) -> RuleOptions:
        """The variant's rules with ``changes`` (``RuleOptions.with_changes``), but its fixed
        options."""
        return self.with_fixed(self.rules.with_changes(changes))

    def with_fixed(self, rules: RuleOptions) -> RuleOptions:
        """``rules`` with the variant's own value of each of its fixed options."""
        if not self.fixed:
            return rules
        own = {name: getattr(self.rules, name) for name in self.fixed}
        return dataclasses.replace(rules, **own)


VARIANTS: Mapping[str, Variant] = MappingProxyType(
    {
        "siguo": Variant("siguo", "四国军棋", "siguo", teams=(0, 1, 0, 1)),
        "liangguo": Variant("liangguo", "二人暗棋", "liangguo", teams=(0, 1)),
        "luanzhan": Variant(
            "luanzhan",
            "乱战四国",
            "siguo",
            teams=(0, 1, 0, 1),
            rules=RuleOptions(
                mine_trades=True,
                bomb_takes_flag=True,
                hq_dig=True,
                engineer_scouting=Scouting.TEAM,
                dealt_flags=True,
                extra_mines_row4=True,
                timeouts_are_escape=True,
                escape_rule=EscapeRule.LIANZHONG,
            ),
            dealing="luanzhan",
        ),
        "sandayi": Variant(
            "sandayi",
            "三打一",
            "siguo",
            teams=(0, 0, 0, 0),
            rules=RuleOptions(
                dealt_flags=True,
                extra_mines_row4=True,
                turn_direction=TurnDirection.COUNTER_CLOCKWISE,
                move_seconds=20,
                max_skips=3,
                blocked_is_defeat=True,
                no_capture_plies=None,
                max_total_moves=500,
                draw_proposals=5,
                proposals_after_moves=50,
                surrender_counts_as_proposal=True,
                surrender_after_seconds=0,
                surrender_needs_partner=True,
                marshal_death_reveals_flag=False,
                announce_commander_deaths=True,
                escape_rule=EscapeRule.SANDAYI,
                disconnect_grace_seconds=300,
                pause_on_disconnect=True,
            ),
            dealing="sandayi",
        ),
        "fanqi": Variant(
            "fanqi",
            "翻棋",
            "liangguo",
            teams=(0, 1),
            rules=RuleOptions(
                hq_lock=False, blocked_is_defeat=True, marshal_death_reveals_flag=False
            ),
            dealing="fanqi",
            fixed=frozenset({"blocked_is_defeat"}),
        ),
        "sanguo": Variant(
            "sanguo",
            "三国军棋",
            "sanguo",
            teams=(0, 1, 2),
            rules=RuleOptions(
                bomb_takes_flag=True,
                bombs_in_front_row=True,
                marshal_death_reveals_flag=False,
                surrender_allowed=False,
                escape_rule=EscapeRule.SANGUO,
            ),
        ),
    }
)


def get_variant(key: str) -> Variant:
    """The variant registered under ``key``; MalformedInput if there is none."""
    try:
        return VARIANTS[key]
    except KeyError:
        raise MalformedInput(
            f"unknown variant {key!r}; expected one of {tuple(VARIANTS)}"
        ) from None
