"""Pure-Python rules engine for Junqi (军棋): boards, movement, combat, deployment, games.

The names below are the stable public façade (``../shared/DESIGN.md`` §2); other programs,
bots and test suites rely on them::

    import engine
    board = engine.get_board("siguo")               # "siguo" | "liangguo" | "sanguo"
    board.stations                                  # station ids, docs/rules.md §2.1 notation
    board.station("0:62").kind                      # "post" | "camp" | "hq" | "centre"
    engine.destinations("siguo", {"0:51": (0, "engineer")}, "0:51")   # -> set of station ids
    engine.combat("engineer", "landmine")           # -> "attacker" | "defender" | "both"
    engine.deployment_problems("siguo", 0, layout)  # -> [] when legal

Games: ``new_game`` / ``start_from`` make a state (rule ``options`` as JSON values, or ``rules``
already parsed), ``apply(state, action)`` returns the next state and its events,
``view(state, viewer)`` and ``event.for_viewer(viewer)`` are what a seat or a spectator may see,
``record_of`` / ``replay`` save and rebuild whole games.
"""

from engine.actions import (
    PLATFORM_ACTIONS,
    Action,
    AnswerProposal,
    AnswerRedeal,
    Bid,
    Deadline,
    Escape,
    Flip,
    Move,
    Pause,
    PickColour,
    PlaceLayout,
    ProposeDraw,
    RaiseFlag,
    Resume,
    Surrender,
    Timeout,
    action_from_dict,
    action_to_dict,
)
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
from engine.errors import (
    EngineError,
    GamePaused,
    IllegalAction,
    IllegalLayout,
    MalformedInput,
    NotYourTurn,
)
from engine.events import Event
from engine.game import apply, new_game, start_from
from engine.jql import format_jql, parse_jql
from engine.movement import destinations, legal_move_list, legal_moves
from engine.notation import format_layout, parse_layout
from engine.outcome import (
    Elimination,
    EliminationReason,
    EndReason,
    GameResult,
    PointsUnit,
    SeatOutcome,
    SeatResult,
)
from engine.pieces import CHINESE_NAME, STANDARD_ARMY, Piece, Rank
from engine.position import Position
from engine.records import GameRecord, history, record_of, replay, state_after, states
from engine.state import GameState, Phase
from engine.variants import (
    VARIANTS,
    EscapeRule,
    Information,
    MovementRules,
    RuleOptions,
    Scouting,
    TurnDirection,
    Variant,
    get_variant,
)
from engine.views import open_pieces, view, view_changes

__all__ = [
    "CHINESE_NAME",
    "PLATFORM_ACTIONS",
    "STANDARD_ARMY",
    "VARIANTS",
    "Action",
    "AnswerProposal",
    "AnswerRedeal",
    "Bid",
    "Board",
    "Deadline",
    "Elimination",
    "EliminationReason",
    "EndReason",
    "EngineError",
    "Escape",
    "EscapeRule",
    "Event",
    "Flip",
    "GamePaused",
    "GameRecord",
    "GameResult",
    "GameState",
    "IllegalAction",
    "IllegalLayout",
    "Information",
    "MalformedInput",
    "Move",
    "MovementRules",
    "NotYourTurn",
    "Outcome",
    "Pause",
    "Phase",
    "PickColour",
    "Piece",
    "PlaceLayout",
    "PointsUnit",
    "Position",
    "Problem",
    "ProblemCode",
    "ProposeDraw",
    "RaiseFlag",
    "Rank",
    "Resume",
    "RuleOptions",
    "Scouting",
    "SeatOutcome",
    "SeatResult",
    "Station",
    "StationKind",
    "Surrender",
    "Timeout",
    "TurnDirection",
    "Variant",
    "action_from_dict",
    "action_to_dict",
    "apply",
    "auto_layout",
    "combat",
    "deploy_stations",
    "deployment_problems",
    "destinations",
    "format_jql",
    "format_layout",
    "get_board",
    "get_variant",
    "history",
    "layout_problems",
    "legal_move_list",
    "legal_moves",
    "new_game",
    "open_pieces",
    "parse_jql",
    "parse_layout",
    "record_of",
    "replay",
    "resolve_combat",
    "scouting_reveals",
    "start_from",
    "state_after",
    "states",
    "view",
    "view_changes",
]
