"""Pure-Python rules engine for Junqi (军棋): boards, movement, combat and deployment.

The names below are the stable public façade (``../shared/DESIGN.md`` §2); other programs,
bots and test suites rely on them::

    import engine
    board = engine.get_board("siguo")               # "siguo" | "liangguo" | "sanguo"
    board.stations                                  # station ids, RULES.md §2.1 notation
    board.station("0:62").kind                      # "post" | "camp" | "hq" | "centre"
    engine.destinations("siguo", {"0:51": (0, "engineer")}, "0:51")   # -> set of station ids
    engine.combat("engineer", "landmine")           # -> "attacker" | "defender" | "both"
    engine.deployment_problems("siguo", 0, layout)  # -> [] when legal
"""

from engine.board import Board, Station, StationKind, get_board
from engine.combat import Outcome, combat, resolve_combat, scouting_reveals
from engine.deployment import (
    Problem,
    ProblemCode,
    auto_layout,
    deploy_stations,
    deployment_problems,
    layout_problems,
)
from engine.errors import EngineError, IllegalAction, MalformedInput, NotYourTurn
from engine.movement import destinations, legal_move_list, legal_moves
from engine.notation import format_layout, parse_layout
from engine.pieces import CHINESE_NAME, STANDARD_ARMY, Piece, Rank
from engine.position import Position
from engine.variants import VARIANTS, RuleOptions, Scouting, Variant, get_variant

__all__ = [
    "CHINESE_NAME",
    "STANDARD_ARMY",
    "VARIANTS",
    "Board",
    "EngineError",
    "IllegalAction",
    "MalformedInput",
    "NotYourTurn",
    "Outcome",
    "Piece",
    "Position",
    "Problem",
    "ProblemCode",
    "Rank",
    "RuleOptions",
    "Scouting",
    "Station",
    "StationKind",
    "Variant",
    "auto_layout",
    "combat",
    "deploy_stations",
    "deployment_problems",
    "destinations",
    "format_layout",
    "get_board",
    "get_variant",
    "layout_problems",
    "legal_move_list",
    "legal_moves",
    "parse_layout",
    "resolve_combat",
    "scouting_reveals",
]
