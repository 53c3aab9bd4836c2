"""Combat: who survives when a piece attacks another (docs/rules.md §4)."""

from __future__ import annotations

from enum import StrEnum
from functools import cache

from engine.errors import MalformedInput
from engine.pieces import IMMOBILE_RANKS, OFFICER_STRENGTH, Rank, parse_rank


class Outcome(StrEnum):
    """Result of an attack; the value is the stable key used in events and records."""

    ATTACKER = "attacker"  # defender removed, attacker takes the station
    DEFENDER = "defender"  # attacker removed
    BOTH = "both"  # both removed


# A missile beats 营长 and below and trades with 团长 and above (docs/rules.md §4 step 5).
_MISSILE_BEATS_UP_TO = OFFICER_STRENGTH[Rank.MAJOR]


def combat(
    attacker: str, defender: str, *, mine_trades: bool = False, bomb_takes_flag: bool = False
) -> Outcome:
    """The outcome of ``attacker`` moving onto ``defender`` (docs/rules.md §4 steps 1-6).

    ``hq_dig`` (step 0) depends on the defender's station: see ``resolve_combat``.
    """
    return _combat(parse_rank(attacker), parse_rank(defender), mine_trades, bomb_takes_flag)


def resolve_combat(
    attacker: Rank,
    defender: Rank,
    *,
    mine_trades: bool = False,
    bomb_takes_flag: bool = False,
    hq_dig: bool = False,
    defender_in_hq: bool = False,
) -> Outcome:
    """The outcome of an attack including step 0: with ``hq_dig`` an HQ occupant is dug."""
    if hq_dig and defender_in_hq:
        _check_attacker(attacker)
        return Outcome.ATTACKER
    return _combat(attacker, defender, mine_trades, bomb_takes_flag)


def _check_attacker(attacker: Rank) -> None:
    if attacker in IMMOBILE_RANKS:
        raise MalformedInput(f"a {attacker} never moves, so it cannot attack")


@cache
def _combat(attacker: Rank, defender: Rank, mine_trades: bool, bomb_takes_flag: bool) -> Outcome:
    _check_attacker(attacker)
    if defender == Rank.FLAG:
        if attacker == Rank.BOMB and not bomb_takes_flag:
            return Outcome.BOTH
        return Outcome.ATTACKER
    if Rank.BOMB in (attacker, defender):
        return Outcome.BOTH
    if defender == Rank.FORTRESS:
        return Outcome.DEFENDER
    if defender == Rank.LANDMINE:
        if attacker == Rank.ENGINEER:
            return Outcome.ATTACKER
        if attacker == Rank.MISSILE or mine_trades:
            return Outcome.BOTH
        return Outcome.DEFENDER
    if Rank.MISSILE in (attacker, defender):
        officer = defender if attacker == Rank.MISSILE else attacker
        if officer == Rank.MISSILE or OFFICER_STRENGTH[officer] > _MISSILE_BEATS_UP_TO:
            return Outcome.BOTH
        return Outcome.ATTACKER if attacker == Rank.MISSILE else Outcome.DEFENDER
    a, d = OFFICER_STRENGTH[attacker], OFFICER_STRENGTH[defender]
    if a == d:
        return Outcome.BOTH
    return Outcome.ATTACKER if a > d else Outcome.DEFENDER


def scouting_reveals(attacker: Rank, defender: Rank, outcome: Outcome) -> bool:
    """Whether 工兵侦察 reveals the defender: an engineer attacked an officer, engineer or
    missile and was removed (docs/rules.md §4, option ``engineer_scouting``)."""
    return (
        attacker == Rank.ENGINEER
        and outcome != Outcome.ATTACKER
        and (defender in OFFICER_STRENGTH or defender == Rank.MISSILE)
    )
