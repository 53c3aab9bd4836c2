"""Bots: they decide from a seat's view alone and from beliefs built from that seat's events
(``engine.beliefs``), so they are fair by construction; their decisions go through the same
actions as a human's.

Before play they take sensible defaults (picks, bids by hand strength) and strong layouts of
their own (``choose_layout``). In play every legal move gets a quick score (progress, a lean
towards fights, flag defence, no undoing, no needless engineer turns); the fights, the steps
back towards its flag while an enemy is near it and the best quiet moves are then searched on
positions guessed from the beliefs (``engine.search``), by level hard in two stages (its best
candidates weighed again on fresh guesses). Levels differ in noise, samples, depth, width, stages,
the risk they take and thinking time (``LEVEL``, ``thinking_deadline``).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from engine.bot_layout import choose_layout
from engine.bot_levels import CLOCK_MARGIN, LEVEL, LEVELS, thinking_deadline
from engine.bot_moves import attack_value, choose_move
from engine.pieces import Rank

__all__ = [  # the decisions, and the levels the platform and the benchmarks name
    "CLOCK_MARGIN",
    "LEVEL",
    "LEVELS",
    "choose_action",
    "choose_layout",
    "decide",
    "sure_gains",
    "thinking_deadline",
]


def choose_action(
    view: dict[str, Any],
    rng: random.Random,
    guesses: Mapping[str, Mapping[str, float]] | None = None,
    level: str = "normal",
    recent: Sequence[tuple[str, str]] = (),
    until: float | None = None,
    proven: Collection[str] = (),
) -> dict[str, Any] | None:
    """The action (in its JSON form, without seat and time) this seat takes now, or None when
    it has nothing to decide. ``guesses`` are the beliefs about hidden enemy pieces (station ->
    {rank: probability}); ``recent`` the seat's own last moves; ``until`` the ``time.time()``
    instant by which to decide (``thinking_deadline``; None: the level's fixed samples only,
    the same decision for the same seed); ``proven`` its pieces that won a fight
    (``Beliefs.proven``)."""
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
        layout = choose_layout(view["variant"], seat, rng, hand, deal.get("banker") == seat)
        return {"type": "place_layout", "layout": layout, "confirm": True}
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
    if view.get("to_move") != seat:
        return None
    flips = view.get("flippable") or []
    if flips and not (view.get("legal_moves") and max(sure_gains(view).values()) > 0):
        # 翻棋: with nothing to win by a move, turn a piece up (a flip also resets the draw count)
        return {"type": "flip", "station": rng.choice(flips)}
    if view.get("legal_moves"):
        origin, target = choose_move(view, rng, guesses or {}, level, recent, until, proven)
        return {"type": "move", "origin": origin, "target": target}
    return None


def sure_gains(view: dict[str, Any]) -> dict[tuple[str, str], float]:
    """Every legal move with what it surely wins: hitting a piece whose rank the seat sees is
    worth ``attack_value``; anything else 0."""
    pieces = {p["station"]: p for p in view["pieces"]}
    gains = {}
    for origin, targets in view["legal_moves"].items():
        for target in targets:
            seen = pieces.get(target, {}).get("rank")
            rank = pieces[origin].get("rank")
            gains[origin, target] = 0.0 if seen is None else attack_value(rank, seen, None)
    return gains


def _bid(deal: dict[str, Any]) -> int:
    """Bid by the strength of the hand: big officers and bombs."""
    strong = sum(1 for p in deal["hand"] if p["rank"] in ("field_marshal", "general", "bomb"))
    top = max((b for b in deal["bids"] if b is not None), default=0)
    want = 2 if strong >= 4 else 1 if strong >= 2 else 0
    return want if want > top else 0


def decide(
    view: dict[str, Any],
    seed: int,
    guesses: Mapping[str, Mapping[str, float]] | None = None,
    level: str = "normal",
    recent: Sequence[tuple[str, str]] = (),
    until: float | None = None,
    proven: Collection[str] = (),
) -> dict[str, Any] | None:
    """``choose_action`` for a worker process: a picklable entry point with its own seed."""
    return choose_action(view, random.Random(seed), guesses, level, recent, until, proven)
