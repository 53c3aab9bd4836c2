"""What a table may change of its room's rules, and within which bounds.

A room's rule options are the operator's (``server.config``); a table opened in it may change
only the clock, the draw limits and engineer scouting, each within bounds. Scoring, seat
randomisation (随机防作弊), the information mode and every other rule stay the room's. A table
whose rules differ from its room's plays unrated: points are earned under the room's rules only.

Every whole-number option has bounds, for rooms too (looser: the operator's), so that no
option carries an unbounded number into a game's points and from there into the database. A room
an admin makes or edits over REST (``server.admin``) keeps the tables' bounds for the options a
table may change, and the operator's for the others. No room may change an option its variant
fixes (``Variant.fixed``: 翻棋's ``blocked_is_defeat``), which the engine would ignore.

A table's rules are parsed once, when it is made (``table_rules``; ``kept_rules`` when a table
is taken back): the table keeps the ``RuleOptions`` it plays by.

Besides its rules a table has a pace (``PACES``): how long its bots wait at least, from the
start of their turn, before their move, so that people can follow. It is no rule: it changes
neither a game's record nor whether the table is rated, and its creator may change it any time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from engine import MalformedInput, RuleOptions, get_variant

Pace = Literal["fast", "normal", "slow"]
# a bot's least wait before its move, from the start of its turn, at each pace (seconds; the
# operator may scale them: ``TablePolicy.bot_pace_scale``)
PACES: dict[Pace, float] = {"fast": 0.5, "normal": 1.5, "slow": 3.0}
DEFAULT_PACE: Pace = "normal"
assert set(PACES) == set(get_args(Pace))

# what a table may set: option -> (least, most)
TABLE_BOUNDS: dict[str, tuple[int, int]] = {
    "deploy_seconds": (30, 600),
    "move_seconds": (10, 300),
    "max_skips": (1, 10),
    "no_capture_plies": (10, 500),
    "max_total_moves": (100, 5000),
    "draw_proposals": (0, 10),
    "surrender_after_seconds": (0, 600),
    "disconnect_grace_seconds": (10, 600),
}
# what a room may set (the operator's configuration: tests run clocks of a second)
SCORE_BOUNDS = (0, 100)  # score_x, score_y, score_z of 三国
ROOM_MOST = 100_000  # any other whole number

# The platform's rules for every room, under the room's own options (an operator may still set
# them otherwise): whoever lets the clock run out to the skip limit has left the game, an escape
# in every variant, as a closed page is (docs/rules.md §11). The standard game
# makes it one in 乱战 only; forced skips (no legal move) never are.
PLATFORM_RULES: dict[str, Any] = {"timeouts_are_escape": True}

# the options a table may change; the others are its room's alone
TABLE_MAY_CHANGE = frozenset(
    {
        "deploy_seconds",
        "move_seconds",
        "max_skips",
        "no_capture_plies",
        "max_total_moves",
        "draw_proposals",
        "surrender_after_seconds",
        "disconnect_grace_seconds",
        "engineer_scouting",
    }
)


class BadOption(ValueError):
    """An option a table (or room) may not set, or a value out of its bounds."""


@dataclass(frozen=True)
class TableRules:
    """A table's rules: its own ``changes`` to its room's options (JSON values, as listed and
    kept), and every rule it plays by (``options``: the variant's defaults with the room's
    options and those changes)."""

    changes: dict[str, Any]
    options: RuleOptions


def checked_room_options(variant: str, options: dict[str, Any]) -> dict[str, Any]:
    """A room's options, checked: known names, valid values, numbers within bounds."""
    _check(
        variant, options, lambda name: SCORE_BOUNDS if name.startswith("score_") else None, options
    )
    return dict(options)


def checked_admin_options(variant: str, options: dict[str, Any]) -> dict[str, Any]:
    """A room's options as an admin sets them (``/admin/rooms``): as ``checked_room_options``,
    but the options a table may change within the tables' own bounds (``TABLE_BOUNDS``): a room
    made over REST is for people, with no clock of a second."""

    def bounds(name: str) -> tuple[int, int] | None:
        return TABLE_BOUNDS.get(name) or (SCORE_BOUNDS if name.startswith("score_") else None)

    _check(variant, options, bounds, options)
    return dict(options)


def table_rules(variant: str, room: dict[str, Any], options: dict[str, Any]) -> TableRules:
    """The rules of a new table that asks for ``options``: its changes are those that differ
    from the room's rules, each allowed and within bounds; ``BadOption`` names the first
    that is not."""
    room = {**PLATFORM_RULES, **room}
    rules = get_variant(variant).rules_with(room).to_dict()
    for name in options:
        if name not in rules:
            raise BadOption(f"unknown rule option {name!r}")
        if name not in TABLE_MAY_CHANGE:
            raise BadOption(f"rule option {name} is the room's: a table may not change it")
    merged = _check(variant, {**room, **options}, TABLE_BOUNDS.get, options)
    values = merged.to_dict()
    changes = {name: options[name] for name in options if values[name] != rules[name]}
    return TableRules(changes, merged)


def kept_rules(variant: str, room: dict[str, Any], changes: dict[str, Any]) -> TableRules:
    """The rules of a table taken back with the ``changes`` it was made with (checked then);
    ``MalformedInput`` if this version cannot read them."""
    rules = get_variant(variant).rules_with({**PLATFORM_RULES, **room, **changes})
    return TableRules(dict(changes), rules)


def _check(
    variant: str,
    options: dict[str, Any],
    bounds: Callable[[str], tuple[int, int] | None],
    bounded: dict[str, Any],
) -> RuleOptions:
    """The variant's rules with ``options``, the whole numbers of ``bounded`` within
    ``bounds`` (or 0-``ROOM_MOST``), and none of them other than a rule the variant fixes
    (which the engine would ignore)."""
    v = get_variant(variant)
    try:
        rules = v.rules_with(options)
    except MalformedInput as error:
        raise BadOption(str(error)) from None
    own = v.rules.to_dict()
    for name in v.fixed & bounded.keys():
        if bounded[name] != own[name]:
            raise BadOption(f"rule option {name} is a rule of {v.name}: a room may not change it")
    for name, value in bounded.items():
        if isinstance(value, int) and not isinstance(value, bool):
            least, most = bounds(name) or (0, ROOM_MOST)
            if not least <= value <= most:
                raise BadOption(f"rule option {name}: {value} is outside {least}-{most}")
    return rules
