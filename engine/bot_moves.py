"""A bot's move in play (``choose_move``): a quick score for every legal move, then the fights
and the best quiet moves searched on positions guessed from its beliefs (``engine.search``);
without a search, a fight is worth its expected gain (``attack_value``)."""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from functools import partial
from typing import Any

from engine.beliefs import straight
from engine.board import get_board
from engine.bot_goals import (
    NEAR_FLAG,
    NEAR_SHOWN_FLAG,
    distance,
    enemy_flags,
    flag_sides,
    flag_threats,
    homeward,
)
from engine.bot_hunt import Hunt
from engine.bot_levels import LEVEL, Level, first_stage
from engine.combat import combat
from engine.search import LOCKED, VALUE, defends_shown_flag, expected_gains, searchable
from engine.variants import get_variant

AGGRESSION = 0.8  # a fight's worth beyond its expected gain
PROGRESS = 0.35  # the worth of a step closer to an enemy HQ
REPEAT = 0.6  # the cost of undoing one's last move
CONCEAL = 0.5  # the cost of showing an engineer by a turn on the rail
HOME_WIDTH = 6  # steps back towards its flag searched beside the others, while a threat is near
GUARD = 10.0  # the worth of hitting an enemy next to one's flag: it may take the flag next
URGENCY = 10.0  # the extra lean towards fights as quiet moves near the draw limit, when ahead


Move = tuple[str, str]


def choose_move(
    view: dict[str, Any],
    rng: random.Random,
    guesses: Mapping[str, Mapping[str, float]],
    level: str = "normal",
    recent: Sequence[Move] = (),
    until: float | None = None,
    proven: Collection[str] = (),
) -> Move:
    """The best-looking legal move, with noise by level. Every move gets a quick score: progress
    towards the enemy HQs, a lean towards fights, above all (but at level easy) a hit on an enemy
    next to its flag; no undoing its last move for nothing, no showing an engineer by turning on
    the rail without a reason. Then the fights and the best quiet moves are searched on guessed
    positions (``engine.search``); at level easy, or with nothing to guess from (翻棋), a fight
    is worth its expected gain over the ranks the defender may have."""
    settings = LEVEL.get(level, LEVEL["normal"])
    scene = Scene(view, guesses, level)
    quick, fights = quick_scores(scene, rng, settings.noise, recent)
    if settings.samples and searchable(view) and scene.hunter is None:
        candidates = search_candidates(scene, quick, fights, settings.width)
        return searched_move(scene, rng, settings, quick, candidates, until, proven)
    pieces, board = scene.pieces, scene.board
    for origin, target in fights:
        locked = scene.movement.hq_lock and board.station(target).kind == "hq"
        quick[origin, target] += attack_value(
            pieces[origin].get("rank"), pieces[target].get("rank"), guesses.get(target), locked
        )
    return max(quick, key=quick.__getitem__)


class Scene:
    """What a seat's view tells a bot choosing a move: its pieces and its enemies, the enemy
    flags it makes for (``goals``), the enemies next to its own flag (``threats``), the rules
    its moves follow, and in 翻棋 the hunt."""

    def __init__(
        self, view: dict[str, Any], guesses: Mapping[str, Mapping[str, float]], level: str
    ) -> None:
        self.view, self.guesses, self.level = view, guesses, level
        self.seat = seat = view["viewer"]
        self.pieces = pieces = {p["station"]: p for p in view["pieces"]}
        self.team = team = view["seats"][seat]["team"]
        self.enemies = {
            s["seat"] for s in view["seats"] if s["team"] != team and s["eliminated"] is None
        }
        self.board = board = get_board(view["board"])
        self.goals = enemy_flags(view, board, pieces, self.enemies, guesses)
        self.threats = set() if level == "easy" else flag_threats(board, seat, pieces, self.enemies)
        variant = get_variant(view["variant"])
        self.rules = variant.rules
        self.movement = self.rules.movement
        hunting = variant.dealing == "fanqi" and level != "easy"
        self.hunter = Hunt(view, board, self.enemies, self.movement) if hunting else None

    def lean(self) -> float:
        """The worth of a fight beyond its gain: ``AGGRESSION``, and more as quiet moves near
        the draw limit, unless a draw is welcome (the bot's side is behind)."""
        rules, view = self.rules, self.view
        if not rules.no_capture_plies:
            return AGGRESSION
        alive = [s for s in view["seats"] if s["eliminated"] is None]
        ahead = sum(1 if s["team"] == self.team else -1 for s in alive)
        near: float = max(0.0, view["quiet_moves"] / rules.no_capture_plies - 0.5) * 2
        return AGGRESSION + URGENCY * near * (1.5 if ahead > 0 else 1.0 if ahead == 0 else 0.0)


def quick_scores(
    scene: Scene, rng: random.Random, noise: float, recent: Sequence[Move]
) -> tuple[dict[Move, float], list[Move]]:
    """Every legal move's quick score (with ``noise``), and the fights among them."""
    seat, pieces, board, goals = scene.seat, scene.pieces, scene.board, scene.goals
    movement, hunter, level, threats = scene.movement, scene.hunter, scene.level, scene.threats
    hq_lock, key, lean = movement.hq_lock, board.key, scene.lean()
    quick: dict[Move, float] = {}
    fights = []
    for origin, targets in scene.view["legal_moves"].items():
        mine = pieces[origin]
        for target in targets:
            score = rng.random() * noise
            other = pieces.get(target)
            # a piece ending in an HQ never moves again: worth it only to take a flag there
            stuck = hq_lock and board.station(target).kind == "hq" and target not in goals
            if other is not None and other.get("seat") != seat:
                fights.append((origin, target))
                # fights keep the game going (40 quiet moves draw it): lean towards them, but
                # not into an HQ that holds no flag, where a piece is thrown away
                score += (0.0 if stuck else lean) + (GUARD if target in threats else 0.0)
            elif stuck and mine.get("rank"):
                score -= LOCKED * VALUE[mine["rank"]]
            if not stuck:  # head for the enemy flags (a piece stuck in an HQ goes nowhere)
                score += PROGRESS * (
                    distance(key, origin, goals, movement) - distance(key, target, goals, movement)
                )
            if hunter is not None:
                score += hunter.worth(origin, target)
            if (target, origin) in recent[-2:]:
                score -= REPEAT  # back and forth gets nowhere
            quiet_engineer = mine.get("rank") == "engineer" and other is None and level != "easy"
            if quiet_engineer and not straight(board, origin, target):
                score -= CONCEAL  # a turn on the rail tells everyone it is an engineer
            quick[origin, target] = score
    return quick, fights


def search_candidates(
    scene: Scene, quick: Mapping[Move, float], fights: list[Move], width: int
) -> list[Move]:
    """The moves worth a search: every fight, every step beside its own flag (to block), the
    best steps back towards it while an enemy is near, the ``width`` best other quiet moves."""
    board, pieces = scene.board, scene.pieces
    sides = flag_sides(board, scene.seat, pieces)
    fought = set(fights)
    quiet = sorted((m for m in quick if m not in fought), key=quick.__getitem__)
    guards = [m for m in quiet if m[1] in sides]
    near = NEAR_SHOWN_FLAG if defends_shown_flag(scene.view) else NEAR_FLAG
    home = homeward(board, quiet, sides, pieces, scene.enemies, scene.movement, near)
    best = [m for m in quiet[-width:] if m[1] not in sides]
    return list(dict.fromkeys(fights + guards + home[-HOME_WIDTH:] + best))


def searched_move(
    scene: Scene,
    rng: random.Random,
    settings: Level,
    quick: Mapping[Move, float],
    candidates: list[Move],
    until: float | None,
    proven: Collection[str],
) -> Move:
    """The candidate best by quick score and searched worth; in two stages when the level has
    finalists, the best of the first weighed again on fresh guesses: a lucky first estimate
    wins nothing."""
    search = partial(
        expected_gains,
        scene.view,
        scene.guesses,
        rng,
        rounds=settings.rounds,
        proven=proven,
        risk=settings.risk,
    )
    finals = settings.finalists if 0 < settings.finalists < len(candidates) else 0
    if finals:
        least, deadline, most = first_stage(settings, until)
        gains = search(candidates, least, until=deadline, most=most)
        candidates = sorted(candidates, key=lambda m: quick[m] + gains[m])[-finals:]
    gains = search(candidates, settings.samples, until=until, most=settings.most)
    return max(candidates, key=lambda m: quick[m] + gains[m])


def attack_value(
    attacker: str | None,
    defender: str | None,
    guess: Mapping[str, float] | None,
    locked: bool = False,
) -> float:
    """The expected gain of an attack over the ranks the defender may have; ``locked``: the
    defender stands in an HQ, where a winner is stuck for good and loses ``LOCKED`` of its
    value (unless it took the flag), and the defender, stuck there too, is worth as little."""
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
        stuck = locked and rank != "flag"  # a piece in an HQ for good is worth LOCKED less
        theirs = VALUE.get(rank, 2) * (1 - LOCKED if stuck else 1.0)
        if outcome == "attacker":
            gain += p * (theirs - (LOCKED * mine if stuck else 0.0))
        elif outcome == "both":
            gain += p * (theirs - mine)
        else:
            gain -= p * mine
    return gain
