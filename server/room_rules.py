"""A room's rules as facts for clients (``GET /api/rooms/{room}/rules``): what the rules page of
the web client words, so that the client holds no rules of its own (docs/protocol.md, "Rules").

Every fact is read from the engine: the rule options the room's tables play by (the variant's
defaults with the platform's rules and the room's options, or a table's changes on top), the
board's counts, the pieces of a game as the variant's deal makes them (the deal run on a fixed
seed: its hands are the counts), the fights of every pair of ranks under those options, the
deployment's rows, the stakes and the escape penalties.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cache
from typing import Any

from fastapi import APIRouter, Request

from engine import RuleOptions, StationKind, get_variant
from engine.deal import (
    IDLE_LIEUTENANTS,
    SANDAYI_EXTRAS,
    DealtPiece,
    deal_luanzhan,
    deal_sandayi,
    standard_armies,
)
from engine.deployment import FRONT_ROW, LANDMINE_ROWS, MINE_FREE_ROWS
from engine.fanqi import LANDMINES_TO_DIG
from engine.levels import STAKES
from engine.outcome import ESCAPE_STAKES
from engine.pieces import IMMOBILE_RANKS, OFFICER_STRENGTH, RAIL_FLYERS, Rank
from engine.turns import LIANZHONG_ROUNDS
from server.accounts import refusal
from server.capabilities import capabilities
from server.penalties import BANS, MEMORY
from server.table_options import TABLE_MAY_CHANGE, kept_rules

router = APIRouter(prefix="/api", tags=["lobby"])

# the order pieces are listed and fought in: officers strongest first, then the others
ORDER = (
    *sorted(OFFICER_STRENGTH, key=OFFICER_STRENGTH.__getitem__, reverse=True),
    Rank.BOMB,
    Rank.MISSILE,
    Rank.LANDMINE,
    Rank.FORTRESS,
    Rank.FLAG,
)
SEED = "rules"  # any seed deals hands of the same sizes


def _counts(pieces: Iterable[DealtPiece]) -> dict[str, int]:
    counts = Counter(rank for rank, _ in pieces)
    return {rank.value: counts[rank] for rank in ORDER if counts[rank]}


@cache
def pieces(variant_key: str) -> dict[str, Any]:
    """The pieces of a game of the variant: every piece in play (``all``), and each seat's
    army (``army``: the same for every seat) or the hands the deal makes (``hands``)."""
    v = get_variant(variant_key)
    seats = len(v.seats)
    match v.dealing:
        case None:
            army = {rank.value: v.army[rank] for rank in ORDER if v.army.get(rank)}
            return {"all": {k: n * seats for k, n in army.items()}, "army": army, "hands": None}
        case "luanzhan":  # a colour's engineer and the hand paired with it
            colours = deal_luanzhan(SEED)
            every = [p for colour in v.seats for p in colours.hand_for(colour)]
            hand = len(colours.hand_for(0))
            return {"all": _counts(every), "army": None, "hands": {"each": hand}}
        case "sandayi":  # hands, the bottom, the banker's share of it, the idle players' extras
            deal = deal_sandayi(SEED)
            hand = len(deal.hands[0])
            every = [*standard_armies(seats), *SANDAYI_EXTRAS]
            every += [(Rank.LIEUTENANT, None)] * (IDLE_LIEUTENANTS * (seats - 1))
            return {
                "all": _counts(every),
                "army": None,
                "hands": {
                    "each": hand,
                    "bottom": len(deal.bottom),
                    "banker_keeps": len(deal.kept),
                    "banker": hand + len(deal.kept),
                    "idle": hand + IDLE_LIEUTENANTS,
                    "idle_extra": {Rank.LIEUTENANT.value: IDLE_LIEUTENANTS},
                    "specials": _counts(SANDAYI_EXTRAS),
                },
            }
        case "fanqi":  # two armies face down
            every = standard_armies(seats)
            return {"all": _counts(every), "army": None, "hands": {"face_down": len(every)}}
    raise AssertionError(v.dealing)


@cache
def board(variant_key: str) -> dict[str, Any]:
    """The variant's board's counts: stations by kind, those on the railway, edges and straight
    lines, the rows and columns of an arm."""
    b = get_variant(variant_key).board
    kinds = Counter(b.station(sid).kind for sid in b.stations)
    arm = [b.station(sid) for sid in b.arm(b.seats[0])]
    rows = [s.row for s in arm if s.row is not None]
    cols = [s.col for s in arm if s.col is not None]
    return {
        "key": b.key,
        "seats": len(b.seats),
        "stations": len(b.stations),
        "rail_stations": sum(b.station(sid).rail for sid in b.stations),
        "camps": kinds[StationKind.CAMP],
        "hqs": kinds[StationKind.HQ],
        "centre": kinds[StationKind.CENTRE],
        "posts": kinds[StationKind.POST],
        "rail_edges": len(b.rail_edges),
        "road_edges": len(b.road_edges),
        "lines": len(b.lines),
        "arm": {"rows": max(rows), "cols": max(cols)},
    }


def combat(rules: RuleOptions, ranks: Iterable[str]) -> dict[str, Any]:
    """Every fight of the ranks in play: the officers strongest first, and
    ``outcomes[attacker][defender]`` (``attacker``,
    ``defender`` or ``both`` removed), a defender out of an HQ; ``hq_dig``: a defender in an
    HQ loses to any attacker."""
    present = [Rank(k) for k in ranks]
    movers = [r for r in present if r not in IMMOBILE_RANKS]
    return {
        "officers": [r.value for r in present if r in OFFICER_STRENGTH],
        "attackers": [r.value for r in movers],
        "defenders": [r.value for r in present],
        "outcomes": {
            a.value: {d.value: rules.fight(a, d, defender_in_hq=False).value for d in present}
            for a in movers
        },
    }


def facts(variant_key: str, rules: RuleOptions) -> dict[str, Any]:
    """The facts of a room (or table) of ``variant_key`` whose tables play by ``rules``."""
    v = get_variant(variant_key)
    game = pieces(variant_key)
    return {
        "variant": {
            "key": v.key,
            "seats": len(v.seats),
            "teams": list(v.teams),
            "capabilities": capabilities(v.key),
            "fixed": sorted(v.fixed),
        },
        "rules": rules.to_dict(),
        "board": board(variant_key),
        "pieces": game,
        "movement": {
            "immobile": [r.value for r in ORDER if r in IMMOBILE_RANKS and r.value in game["all"]],
            "rail_turners": [r.value for r in ORDER if r in RAIL_FLYERS and r.value in game["all"]],
        },
        "deployment": {
            "landmine_rows": sorted(LANDMINE_ROWS),
            "front_row": FRONT_ROW,
            "mines_before_row4": MINE_FREE_ROWS,
        },
        "combat": combat(rules, game["all"]),
        "flag_carry": {"landmines": LANDMINES_TO_DIG} if v.dealing == "fanqi" else None,
        "scoring": {
            "stakes": {stage.value: stake for stage, stake in STAKES.items()},
            "escape_stakes": ESCAPE_STAKES,
            "escape_rounds": LIANZHONG_ROUNDS,  # escape rule ``lianzhong``: opponents win after
        },
        "penalties": {
            "memory_days": MEMORY.days,
            "bans_minutes": [int(ban.total_seconds() // 60) for ban in BANS],
        },
        "table_may_change": sorted(TABLE_MAY_CHANGE),
    }


@router.get("/rooms/{room_id}/rules")
async def room_rules(room_id: str, request: Request, table: str | None = None) -> dict[str, Any]:
    """The rules of a room's tables as facts (docs/protocol.md, "Rules"); with ``table``, those
    of that table of the room (the room's with the table's own changes)."""
    lobby = request.app.state.lobby
    room = lobby.rooms.get(room_id)
    if room is None:
        raise refusal(404, "no_room", "no_room: no room of that id")
    changes: dict[str, Any] = {}
    if table is not None:
        entry = lobby.entries.get(table)
        if entry is None or entry.room != room_id:
            raise refusal(404, "no_table", "no_table: no such table in this room")
        changes = dict(entry.listing.get("changes") or {})
    rules = kept_rules(room.variant, room.options, changes).options
    return {
        "room": {
            "id": room.id,
            "name": room.name,
            "name_en": room.name_en,
            "variant": room.variant,
            "owner": room.owner,
            "rated_with_bots": room.rated_with_bots,
            "rated_friend_rooms": room.rated_friend_rooms,
            "closed": room_id in lobby.closed_rooms,
        },
        "table": {"id": table, "changes": changes} if table is not None else None,
        **facts(room.variant, rules),
    }
