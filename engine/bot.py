"""A simple bot: it decides from a seat's view alone (exactly what a human in that seat sees),
so it is fair by construction, and its decisions go through the same actions as a human's.

This is the first, modest player: sensible defaults before play, automatic layouts, and in play
a one-move look-ahead over what the view shows (known ranks, revealed flags, scouting) with a
preference for probing unknown pieces with small ones. The belief-tracking, searching bots of
the bots issue will replace ``choose_move``.
"""

from __future__ import annotations

import random
from typing import Any

from engine.combat import combat
from engine.deployment import auto_layout
from engine.pieces import OFFICER_STRENGTH, Rank

# how much a piece is worth to keep (a rough scale for trades)
VALUE = {
    "supreme_marshal": 12,
    "field_marshal": 10,
    "general": 8,
    "major_general": 6,
    "brigadier": 5,
    "colonel": 4,
    "major": 3,
    "captain": 2,
    "lieutenant": 1.5,
    "engineer": 2.5,
    "bomb": 6,
    "missile": 6,
    "landmine": 2,
    "flag": 100,
    "fortress": 3,
}


def choose_action(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """The action (in its JSON form, without seat and time) this seat takes now, or None when
    it has nothing to decide."""
    seat = view["viewer"]
    phase = view["phase"]
    deal = view.get("deal") or {}
    if phase == "picking" and seat in deal.get("waiting", []):
        free = [c for c in range(len(view["seats"])) if c not in deal["picks"]]
        return {"type": "pick_colour", "colour": rng.choice(free)}
    if phase == "redealing" and seat in deal.get("waiting", []):
        return {"type": "answer_redeal", "redeal": bool(deal.get("may_ask_redeal"))}
    if phase == "bidding" and seat in deal.get("waiting", []):
        return {"type": "bid", "level": _bid(deal)}
    if phase == "deploying" and not view["seats"][seat]["confirmed"]:
        hand = None
        if deal.get("hand") is not None:
            hand = [
                (Rank(p["rank"]), None if p["army"] == seat else p["army"]) for p in deal["hand"]
            ]
        layout = auto_layout(
            view["variant"],
            seat,
            rng.randrange(10**9),
            hand=hand,
            banker=deal.get("banker") == seat,
        )
        return {"type": "place_layout", "layout": dict(layout), "confirm": True}
    if phase != "playing":
        return None
    me = view["seats"][seat]
    if me.get("raise_flag_by") is not None:
        hqs = [
            p["station"]
            for p in view["pieces"]
            if p.get("seat") == seat
            and p["station"].endswith(("62", "64"))
            and p["station"].startswith(f"{seat}:")
        ]
        if hqs:
            return {"type": "raise_flag", "station": rng.choice(sorted(hqs))}
    proposal = view.get("proposal")
    if proposal and seat in proposal["waiting"]:
        return {"type": "answer_proposal", "accept": False}
    if view.get("to_move") == seat and view.get("legal_moves"):
        origin, target = choose_move(view, rng)
        return {"type": "move", "origin": origin, "target": target}
    if view.get("to_move") == seat and view.get("flippable"):
        return {"type": "flip", "station": rng.choice(view["flippable"])}
    return None


def _bid(deal: dict[str, Any]) -> int:
    """Bid by the strength of the hand: big officers and bombs."""
    strong = sum(1 for p in deal["hand"] if p["rank"] in ("field_marshal", "general", "bomb"))
    top = max((b for b in deal["bids"] if b is not None), default=0)
    want = 2 if strong >= 4 else 1 if strong >= 2 else 0
    return want if want > top else 0


def choose_move(view: dict[str, Any], rng: random.Random) -> tuple[str, str]:
    """The best-looking legal move by a one-move look-ahead on what the view shows."""
    seat = view["viewer"]
    pieces = {p["station"]: p for p in view["pieces"]}
    options = [(o, t) for o, targets in view["legal_moves"].items() for t in targets]
    scored = []
    for origin, target in options:
        mine = pieces[origin]
        score = rng.random() * 0.5  # break ties, vary play
        other = pieces.get(target)
        if other is not None and other.get("seat") != seat:
            score += _attack_value(mine.get("rank"), other.get("rank"))
        elif target.startswith(("c:",)) or not target.startswith(f"{seat}:"):
            score += 0.3  # go forward
        if target.endswith(("62", "64")) and not target.startswith(f"{seat}:"):
            score += 0.2  # an enemy HQ may hold the flag
        scored.append((score, origin, target))
    _, origin, target = max(scored)
    return origin, target


def _attack_value(attacker: str | None, defender: str | None) -> float:
    """The expected gain of an attack: exact when the defender's rank is known, else a probe
    that is cheap with small pieces and costly with big ones."""
    if attacker is None:
        return 0.0
    mine = VALUE.get(attacker, 2)
    if defender is None:
        return 1.2 - mine * 0.25 if attacker in OFFICER_STRENGTH or attacker == "bomb" else 0.0
    outcome = combat(attacker, defender)
    theirs = VALUE.get(defender, 2)
    if outcome == "attacker":
        return theirs
    if outcome == "both":
        return theirs - mine
    return -mine


def decide(view: dict[str, Any], seed: int) -> dict[str, Any] | None:
    """``choose_action`` for a worker process: a picklable entry point with its own seed."""
    return choose_action(view, random.Random(seed))
