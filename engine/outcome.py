"""Game results and scoring (docs/rules.md §7, §9.4, §10, §11).

The engine says who won, lost, drew or escaped, who eliminated whom, how many moves each seat
made, and the points each seat gets in the variant's unit: stakes (四国, 二人: the platform
multiplies by the table's stake) or raw points (三国's X/Y/Z). A variant with a table of its own
(三打一's contract, ``engine.sandayi``) passes its points in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from engine.variants import EscapeRule, RuleOptions


class EliminationReason(StrEnum):
    FLAG_CAPTURED = "flag_captured"
    NO_LIVE_PIECES = "no_live_pieces"  # only landmines, flags and fortresses left
    SKIPS = "skips"  # the skip counter reached the limit
    BLOCKED = "blocked"  # no legal move with blocked_is_defeat
    SURRENDER = "surrender"
    ESCAPE = "escape"


@dataclass(frozen=True, slots=True)
class Elimination:
    """How a seat went out: why, by whom (the victor of docs/rules.md §7, if any), in what order."""

    reason: EliminationReason
    victor: int | None
    order: int  # 1 for the first seat out
    at_move: int  # total moves made when it happened

    def to_dict(self) -> dict[str, object]:
        return {
            "reason": self.reason.value,
            "victor": self.victor,
            "order": self.order,
            "at_move": self.at_move,
        }


class EndReason(StrEnum):
    ELIMINATION = "elimination"  # one side is left
    ESCAPE = "escape"  # an escape ended the game (docs/rules.md §11)
    NO_CAPTURE = "no_capture"  # no_capture_plies moves without combat: draw
    MOVE_LIMIT = "move_limit"  # max_total_moves reached: draw
    AGREEMENT = "agreement"  # draw by agreement
    DISSOLVED = "dissolved"  # the platform ended the game (a moderator): nobody scores

    @property
    def is_draw(self) -> bool:
        return self in (EndReason.NO_CAPTURE, EndReason.MOVE_LIMIT, EndReason.AGREEMENT)


class SeatOutcome(StrEnum):
    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"
    ESCAPE = "escape"
    UNSCORED = "unscored"  # the game ended by someone else's escape and this seat scores nothing


class PointsUnit(StrEnum):
    STAKE = "stake"  # multiply by the table's stake (docs/rules.md §10)
    RAW = "raw"  # already points (三国 X/Y/Z)


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int
    outcome: SeatOutcome
    points: int
    moves: int
    elimination: Elimination | None


@dataclass(frozen=True, slots=True)
class GameResult:
    reason: EndReason
    winners: tuple[int, ...]  # seats of the winning side, eliminated partners included
    seats: tuple[SeatResult, ...]
    points_unit: PointsUnit

    def to_dict(self) -> dict[str, object]:
        return {
            "reason": self.reason.value,
            "winners": list(self.winners),
            "points_unit": self.points_unit.value,
            "seats": [
                {
                    "seat": r.seat,
                    "outcome": r.outcome.value,
                    "points": r.points,
                    "moves": r.moves,
                    "elimination": None if r.elimination is None else r.elimination.to_dict(),
                }
                for r in self.seats
            ],
        }


def score(
    rules: RuleOptions,
    teams: Sequence[int],
    eliminations: Sequence[Elimination | None],
    moves: Sequence[int],
    reason: EndReason,
    winners: Sequence[int],
    *,
    points: Sequence[int] | None = None,
) -> GameResult:
    """The result of a finished game, scored by the rules' escape rule and scoring table;
    ``points``, in stakes, are the variant's own (三打一's table), unless 三国's rule applies."""
    seats = range(len(teams))
    unit = PointsUnit.STAKE
    if rules.escape_rule == EscapeRule.SANGUO:
        table = _sanguo_points(rules, eliminations, reason, winners)
        unit = PointsUnit.RAW
    elif points is not None:
        table = list(points)
    else:
        table = [_stake_points(s, eliminations[s], reason, winners) for s in seats]
    escapers = {s for s, e in enumerate(eliminations) if e and e.reason == EliminationReason.ESCAPE}
    if rules.escape_rule == EscapeRule.LIANZHONG and reason == EndReason.ESCAPE:
        # 乱战: the escaper's partner scores nothing either way [decision of docs/rules.md §11]
        for s in seats:
            if s not in escapers and any(teams[s] == teams[e] for e in escapers):
                table[s] = 0
    results = []
    for s in seats:
        e = eliminations[s]
        if s in escapers:
            outcome = SeatOutcome.ESCAPE
        elif table[s] == 0 and reason == EndReason.ESCAPE and s not in winners:
            outcome = SeatOutcome.UNSCORED
        elif s in winners:
            outcome = SeatOutcome.WIN
        elif reason.is_draw:
            # a team's draw is every member's; a 三国 player already out has lost
            outcome = (
                SeatOutcome.LOSS if e is not None and unit == PointsUnit.RAW else SeatOutcome.DRAW
            )
        elif reason == EndReason.ESCAPE and not winners:
            outcome = SeatOutcome.UNSCORED
        else:
            outcome = SeatOutcome.LOSS
        results.append(SeatResult(s, outcome, table[s], moves[s], e))
    return GameResult(reason, tuple(sorted(winners)), tuple(results), unit)


ESCAPE_STAKES = 2  # an escaper always loses twice the stake (docs/rules.md §11)


def _stake_points(
    seat: int, elimination: Elimination | None, reason: EndReason, winners: Sequence[int]
) -> int:
    if elimination is not None and elimination.reason == EliminationReason.ESCAPE:
        return -ESCAPE_STAKES
    if reason.is_draw or not winners:
        return 0
    return 1 if seat in winners else -1


def _sanguo_points(
    rules: RuleOptions,
    eliminations: Sequence[Elimination | None],
    reason: EndReason,
    winners: Sequence[int],
) -> list[int]:
    """三国 (docs/rules.md §9.4): first loser -X and its victor +X, second loser -Y, survivor +Z;
    an escaper -Z, after which the two left play a duel for ±X (one left: nothing more)."""
    x, y, z = rules.score_x, rules.score_y, rules.score_z
    points = [0] * len(eliminations)
    escaped = duel = False
    out = sorted((e.order, s, e) for s, e in enumerate(eliminations) if e is not None)
    for _, seat, e in out:
        if e.reason == EliminationReason.ESCAPE:
            points[seat] -= z
            escaped = True
        elif escaped:
            points[seat] -= x
            duel = True
        elif e.order == 1:
            points[seat] -= x
            if e.victor is not None:
                points[e.victor] += x
        else:
            points[seat] -= y
    if reason == EndReason.ELIMINATION:
        for seat in winners:
            if not escaped:
                points[seat] += z
            elif duel:
                points[seat] += x
    return points
