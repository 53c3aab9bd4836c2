"""Bots: they decide from a seat's view alone and from beliefs built from that seat's events
(``engine.beliefs``), so they are fair by construction; their decisions go through the same
actions as a human's.

Before play they take sensible defaults (automatic layouts, picks, bids by hand strength). In
play a move is scored by a one-move look-ahead: an attack by its expected gain over the ranks the
defender may still have, a quiet move by progress; the ``hard`` level also avoids leaving a
valuable piece next to enemies that probably beat it; ``easy`` plays with much noise.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from engine.beliefs import straight
from engine.board import get_board
from engine.combat import combat
from engine.deployment import auto_layout
from engine.pieces import Rank

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


LEVELS = ("easy", "normal", "hard")
NOISE = {"easy": 6.0, "normal": 0.5, "hard": 0.2}
AGGRESSION = 0.8  # a fight's worth beyond its expected gain
PROGRESS = 0.35  # the worth of a step closer to an enemy HQ
REPEAT = 0.6  # the cost of undoing one's last move
CONCEAL = 0.5  # the cost of showing an engineer by a turn on the rail
GUARD = 10.0  # the worth of hitting an enemy next to one's flag: it may take the flag next


def choose_action(
    view: dict[str, Any],
    rng: random.Random,
    guesses: Mapping[str, Mapping[str, float]] | None = None,
    level: str = "normal",
    recent: Sequence[tuple[str, str]] = (),
) -> dict[str, Any] | None:
    """The action (in its JSON form, without seat and time) this seat takes now, or None when
    it has nothing to decide. ``guesses`` are the beliefs about hidden enemy pieces (station ->
    {rank: probability}); ``recent`` the seat's own last moves."""
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
        origin, target = choose_move(view, rng, guesses or {}, level, recent)
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


def choose_move(
    view: dict[str, Any],
    rng: random.Random,
    guesses: Mapping[str, Mapping[str, float]],
    level: str = "normal",
    recent: Sequence[tuple[str, str]] = (),
) -> tuple[str, str]:
    """The best-looking legal move by a one-move look-ahead on what the view and the beliefs
    show, with noise by level; above all (but at level easy) it hits an enemy next to its flag;
    it does not undo its last move for nothing, and does not show an engineer by turning on the
    rail without a reason."""
    seat = view["viewer"]
    pieces = {p["station"]: p for p in view["pieces"]}
    options = [(o, t) for o, targets in view["legal_moves"].items() for t in targets]
    noise = NOISE.get(level, NOISE["normal"])
    team = view["seats"][seat]["team"]
    enemies = {s["seat"] for s in view["seats"] if s["team"] != team and s["eliminated"] is None}
    goals = enemy_hqs(view["board"], enemies)
    threats = set() if level == "easy" else flag_threats(view["board"], seat, pieces, enemies)
    scored = []
    for origin, target in options:
        mine = pieces[origin]
        score = rng.random() * noise
        other = pieces.get(target)
        if other is not None and other.get("seat") != seat:
            # fights keep the game going (40 quiet moves draw it): lean towards them
            score += AGGRESSION + attack_value(
                mine.get("rank"), other.get("rank"), guesses.get(target)
            )
            if target in threats:
                score += GUARD
        # head for the enemy HQs, where the flags are
        score += PROGRESS * (
            distance(view["board"], origin, goals) - distance(view["board"], target, goals)
        )
        if (target, origin) in recent[-2:]:
            score -= REPEAT  # back and forth gets nowhere
        quiet_engineer = mine.get("rank") == "engineer" and other is None and level != "easy"
        if quiet_engineer and not straight(get_board(view["board"]), origin, target):
            score -= CONCEAL  # a turn on the rail tells everyone it is an engineer
        if level == "hard" and mine.get("rank"):
            score -= danger(view, target, mine["rank"], guesses, pieces)
        scored.append((score, origin, target))
    _, origin, target = max(scored)
    return origin, target


def attack_value(
    attacker: str | None, defender: str | None, guess: Mapping[str, float] | None
) -> float:
    """The expected gain of an attack over the ranks the defender may have."""
    if attacker is None or attacker in ("landmine", "flag", "fortress"):
        return 0.0
    if defender is not None:
        chances: Mapping[str, float] = {defender: 1.0}
    elif guess:
        chances = guess
    else:  # nothing known: a probe, cheap with small pieces, costly with big ones
        return 1.2 - VALUE.get(attacker, 2) * 0.25
    mine = VALUE.get(attacker, 2)
    gain = 0.0
    for rank, p in chances.items():
        outcome = combat(attacker, rank)
        theirs = VALUE.get(rank, 2)
        if outcome == "attacker":
            gain += p * theirs
        elif outcome == "both":
            gain += p * (theirs - mine)
        else:
            gain -= p * mine
    return gain


def danger(
    view: dict[str, Any],
    target: str,
    rank: str,
    guesses: Mapping[str, Mapping[str, float]],
    pieces: Mapping[str, dict[str, Any]],
) -> float:
    """How much a piece standing on ``target`` may lose to the enemies next to it."""
    board = get_board(view["board"])
    if board.station(target).kind in ("camp", "hq"):
        return 0.0
    worst = 0.0
    for station in board.neighbours(target):
        enemy = pieces.get(station)
        if enemy is None or enemy.get("seat") in (None, view["viewer"]):
            continue
        chances = {enemy["rank"]: 1.0} if "rank" in enemy else guesses.get(station, {})
        loss = sum(
            p * VALUE.get(rank, 2)
            for r, p in chances.items()
            if r not in ("landmine", "flag", "fortress") and combat(r, rank) != "defender"
        )
        worst = max(worst, loss)
    return worst * 0.5


def flag_threats(
    board_key: str, seat: int, pieces: Mapping[str, dict[str, Any]], enemies: set[int]
) -> set[str]:
    """Stations of enemy pieces next to ``seat``'s flag, from where they could take it."""
    board = get_board(board_key)
    flags = [s for s, p in pieces.items() if p.get("seat") == seat and p.get("rank") == "flag"]
    return {
        n
        for flag in flags
        for n in board.neighbours(flag)
        if n in pieces and pieces[n].get("seat") in enemies
    }


def enemy_hqs(board_key: str, enemies: set[int]) -> frozenset[str]:
    board = get_board(board_key)
    return frozenset(
        s
        for s in board.stations
        if board.station(s).kind == "hq" and board.station(s).seat in enemies
    )


def distance(board_key: str, station: str, goals: frozenset[str]) -> int:
    """Steps (along any edge) from ``station`` to the nearest of ``goals``."""
    if not goals:
        return 0
    table = _distances(board_key)[station]
    return min(table[g] for g in goals)


@cache
def _distances(board_key: str) -> dict[str, dict[str, int]]:
    board = get_board(board_key)
    out = {}
    for start in board.stations:
        seen = {start: 0}
        frontier = deque([start])
        while frontier:
            here = frontier.popleft()
            for nxt in board.neighbours(here):
                if nxt not in seen:
                    seen[nxt] = seen[here] + 1
                    frontier.append(nxt)
        out[start] = seen
    return out


def decide(
    view: dict[str, Any],
    seed: int,
    guesses: Mapping[str, Mapping[str, float]] | None = None,
    level: str = "normal",
    recent: Sequence[tuple[str, str]] = (),
) -> dict[str, Any] | None:
    """``choose_action`` for a worker process: a picklable entry point with its own seed."""
    return choose_action(view, random.Random(seed), guesses, level, recent)
