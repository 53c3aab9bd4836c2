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
import time
from collections import deque
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import Any

from engine.beliefs import flags_known, straight
from engine.board import Board, get_board
from engine.combat import combat
from engine.deployment import auto_layout, deployment_problems, split_key
from engine.movement import legal_moves
from engine.pieces import IMMOBILE_RANKS, Rank
from engine.position import Position
from engine.search import LOCKED, RISK, VALUE, defends_shown_flag, expected_gains, searchable
from engine.variants import MovementRules, get_variant


@dataclass(frozen=True)
class Level:
    """How a level thinks: ``noise`` added to every move's score; ``samples`` guessed positions
    searched per move at least (0: a one-move look-ahead only), ``rounds`` of the other seats'
    answers in each, and ``width`` quiet moves searched beside every capture (the best by the
    quick score; ``EVERY_MOVE``: all of them); ``budget``: the seconds a move may take at a
    table, spent on more guessed positions (``most`` at most). With ``finalists``, the search
    runs in two stages: every candidate on ``samples`` positions (on a clock: as many of them as
    ``FIRST_STAGE`` of the time allows, ``FIRST_STAGE_LEAST`` at least), then the ``finalists``
    best of them weighed again, on fresh positions, for the rest of the time (0: one stage).
    ``risk``: what a standard deviation of a move's worth over the positions costs it."""

    noise: float
    samples: int
    rounds: int
    width: int
    budget: float = 0.0
    most: int = 0
    finalists: int = 0
    risk: float = RISK


EVERY_MOVE = 1 << 30  # a width that searches every quiet move: a step back out of reach too

LEVEL = {
    "easy": Level(noise=6.0, samples=0, rounds=0, width=0),
    "normal": Level(noise=0.5, samples=8, rounds=1, width=10, budget=0.5, most=400),
    "hard": Level(
        noise=0.2,
        samples=32,
        rounds=2,
        width=EVERY_MOVE,
        budget=2.5,
        most=1500,
        finalists=8,
        risk=RISK / 3,  # sharp means on many positions; two rounds spread a fight wider
    ),
}
FIRST_STAGE = 0.4  # the share of its time a two-stage search may spend on its first stage...
FIRST_STAGE_LEAST = 8  # ...and the positions its first stage takes even when that share is spent
CLOCK_MARGIN = 2.0  # seconds of the move clock a bot leaves unused (transport, its pause)
LEVELS = tuple(LEVEL)
AGGRESSION = 0.8  # a fight's worth beyond its expected gain
PROGRESS = 0.35  # the worth of a step closer to an enemy HQ
REPEAT = 0.6  # the cost of undoing one's last move
CONCEAL = 0.5  # the cost of showing an engineer by a turn on the rail
HUNT = 0.6  # 翻棋: the worth of a step towards an enemy piece in sight that one beats
EXPOSED_TO = 0.5  # 翻棋: the share of a piece's value at stake where one that beats it strikes
LAYOUT_DRAFTS = 24  # automatic layouts a bot draws before play...
LAYOUT_PICK = 6  # ...and how many of the strongest it chooses from at random
HOME_WIDTH = 6  # steps back towards its flag searched beside the others, while a threat is near
NEAR_FLAG = 4  # how near its flag (in steps) an enemy piece makes a threat...
NEAR_SHOWN_FLAG = 6  # ...and once the enemies know where that flag is
GUARD = 10.0  # the worth of hitting an enemy next to one's flag: it may take the flag next
URGENCY = 10.0  # the extra lean towards fights as quiet moves near the draw limit, when ahead


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


def choose_layout(
    variant: str,
    seat: int,
    rng: random.Random,
    hand: Sequence[tuple[Rank, int | None]] | None = None,
    banker: bool = False,
) -> dict[str, str]:
    """A strong layout that does not give itself away: of ``LAYOUT_DRAFTS`` automatic layouts
    (landmines next to the flag first: ``lock_the_flag``), one of the best ``LAYOUT_PICK`` by
    ``layout_strength``, at random."""
    drafts = []
    for _ in range(LAYOUT_DRAFTS):
        layout = auto_layout(variant, seat, rng.randrange(10**9), hand=hand, banker=banker)
        drafts.append(lock_the_flag(variant, seat, layout, hand, banker))
    board = get_board(get_variant(variant).board_key)
    drafts.sort(key=lambda d: layout_strength(board, d), reverse=True)
    return rng.choice(drafts[:LAYOUT_PICK])


def layout_strength(board: Board, layout: Mapping[str, str]) -> float:
    """How well a layout keeps its flag and uses its pieces: landmines beside the flag, a
    landmine, a bomb or a strong piece in front of it, engineers not buried in the last row
    (they dig out landmines), the 司令 and 军长 on the rails of the first three rows (where they
    can strike at once), bombs right behind the front line (rows 2 and 3, ready to meet the piece
    that has just taken one of the front row's)."""
    ranks = {s: split_key(k)[0] for s, k in layout.items()}
    score = 0.0
    for station, rank in ranks.items():
        info = board.station(station)
        row = info.row or 0
        if rank == Rank.FLAG:
            for side in board.neighbours(station):
                guard = ranks.get(side)
                if guard == Rank.LANDMINE:
                    score += 2.0
                elif guard in (Rank.BOMB, Rank.FIELD_MARSHAL, Rank.GENERAL, Rank.MAJOR_GENERAL):
                    score += 1.0
                elif guard in (Rank.ENGINEER, Rank.LIEUTENANT, Rank.CAPTAIN) or guard is None:
                    score -= 1.0
        elif rank == Rank.ENGINEER and row == 6:
            score -= 0.5
        striker = rank in (Rank.FIELD_MARSHAL, Rank.GENERAL) and info.rail and row <= 3
        if striker or (rank == Rank.BOMB and 2 <= row <= 3):
            score += 0.5
    return score


def lock_the_flag(
    variant: str,
    seat: int,
    layout: Mapping[str, str],
    hand: Sequence[tuple[Rank, int | None]] | None,
    banker: bool,
) -> dict[str, str]:
    """``layout`` with its landmines swapped onto the stations next to its flag first (a flag
    shut in by landmines falls only to an engineer or a bomb, even once the enemies know where
    it is), then into the other HQ; with none left for it, the cheapest piece that could move
    stands there (a piece in an HQ never moves again). Each swap is kept only if the layout
    stays legal."""
    board = get_board(get_variant(variant).board_key)
    out = dict(layout)

    def rank(station: str) -> Rank:
        return split_key(out[station])[0]

    def swap(a: str, b: str) -> None:
        swapped = {**out, a: out[b], b: out[a]}
        if not deployment_problems(variant, seat, swapped, hand=hand, banker=banker):
            out.update(swapped)

    def spare() -> list[str]:  # the landmines not yet beside the flag
        return [s for s in out if rank(s) == Rank.LANDMINE and s not in sides]

    flags = [s for s in out if rank(s) == Rank.FLAG]
    sides = sorted({n for f in flags for n in board.neighbours(f) if n in out})
    for side in sides:
        if rank(side) != Rank.LANDMINE and spare():
            swap(side, spare()[0])
    hqs = [s for s in out if board.station(s).kind == "hq" and rank(s) not in IMMOBILE_RANKS]
    for hq in hqs:
        cheap = sorted(
            (s for s in out if board.station(s).kind != "hq" and rank(s) not in IMMOBILE_RANKS),
            key=lambda s: VALUE[rank(s)],
        )
        if spare() or cheap:
            swap(hq, (spare() or cheap)[0])
    return out


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
    until: float | None = None,
    proven: Collection[str] = (),
) -> tuple[str, str]:
    """The best-looking legal move, with noise by level. Every move gets a quick score: progress
    towards the enemy HQs, a lean towards fights, above all (but at level easy) a hit on an enemy
    next to its flag; no undoing its last move for nothing, no showing an engineer by turning on
    the rail without a reason. Then the fights and the best quiet moves are searched on guessed
    positions (``engine.search``); at level easy, or with nothing to guess from (翻棋), a fight
    is worth its expected gain over the ranks the defender may have."""
    seat = view["viewer"]
    settings = LEVEL.get(level, LEVEL["normal"])
    pieces = {p["station"]: p for p in view["pieces"]}
    team = view["seats"][seat]["team"]
    enemies = {s["seat"] for s in view["seats"] if s["team"] != team and s["eliminated"] is None}
    board = get_board(view["board"])
    goals = enemy_flags(view, board, pieces, enemies, guesses)
    threats = set() if level == "easy" else flag_threats(board, seat, pieces, enemies)
    variant = get_variant(view["variant"])
    rules = variant.rules
    movement = rules.movement
    hunting = variant.dealing == "fanqi" and level != "easy"
    hunter = Hunt(view, board, enemies, movement) if hunting else None
    lean = AGGRESSION
    if rules.no_capture_plies:  # a draw by quiet moves is near: fight, unless a draw is welcome
        alive = [s for s in view["seats"] if s["eliminated"] is None]
        ahead = sum(1 if s["team"] == team else -1 for s in alive)
        near = max(0.0, view["quiet_moves"] / rules.no_capture_plies - 0.5) * 2
        lean += URGENCY * near * (1.5 if ahead > 0 else 1.0 if ahead == 0 else 0.0)
    quick: dict[tuple[str, str], float] = {}
    fights = []
    for origin, targets in view["legal_moves"].items():
        mine = pieces[origin]
        for target in targets:
            score = rng.random() * settings.noise
            other = pieces.get(target)
            # a piece ending in an HQ never moves again: worth it only to take a flag there
            stuck = movement.hq_lock and board.station(target).kind == "hq" and target not in goals
            if other is not None and other.get("seat") != seat:
                fights.append((origin, target))
                # fights keep the game going (40 quiet moves draw it): lean towards them, but
                # not into an HQ that holds no flag, where a piece is thrown away
                score += (0.0 if stuck else lean) + (GUARD if target in threats else 0.0)
            elif stuck and mine.get("rank"):
                score -= LOCKED * VALUE[mine["rank"]]
            if not stuck:  # head for the enemy flags (a piece stuck in an HQ goes nowhere)
                score += PROGRESS * (
                    distance(view["board"], origin, goals, movement)
                    - distance(view["board"], target, goals, movement)
                )
            if hunter is not None:
                score += hunter.worth(origin, target)
            if (target, origin) in recent[-2:]:
                score -= REPEAT  # back and forth gets nowhere
            quiet_engineer = mine.get("rank") == "engineer" and other is None and level != "easy"
            if quiet_engineer and not straight(board, origin, target):
                score -= CONCEAL  # a turn on the rail tells everyone it is an engineer
            quick[origin, target] = score
    if settings.samples and searchable(view) and hunter is None:
        # every fight, every step beside its own flag (to block), the best steps back towards
        # it while an enemy is near, the best other quiet moves
        sides = flag_sides(board, seat, pieces)
        fought = set(fights)
        quiet = sorted((m for m in quick if m not in fought), key=quick.__getitem__)
        guards = [m for m in quiet if m[1] in sides]
        near = NEAR_SHOWN_FLAG if defends_shown_flag(view) else NEAR_FLAG
        home = homeward(board, quiet, sides, pieces, enemies, movement, near)
        best = [m for m in quiet[-settings.width :] if m[1] not in sides]
        candidates = list(dict.fromkeys(fights + guards + home[-HOME_WIDTH:] + best))
        finals = settings.finalists if 0 < settings.finalists < len(candidates) else 0

        search = partial(
            expected_gains,
            view,
            guesses,
            rng,
            rounds=settings.rounds,
            proven=proven,
            risk=settings.risk,
        )
        if finals:  # the best weighed again on fresh guesses: a lucky first estimate wins nothing
            least, deadline, most = first_stage(settings, until)
            gains = search(candidates, least, until=deadline, most=most)
            candidates = sorted(candidates, key=lambda m: quick[m] + gains[m])[-finals:]
        gains = search(candidates, settings.samples, until=until, most=settings.most)
        return max(candidates, key=lambda m: quick[m] + gains[m])
    for origin, target in fights:
        locked = movement.hq_lock and board.station(target).kind == "hq"
        quick[origin, target] += attack_value(
            pieces[origin].get("rank"), pieces[target].get("rank"), guesses.get(target), locked
        )
    return max(quick, key=quick.__getitem__)


def first_stage(settings: Level, until: float | None) -> tuple[int, float | None, int]:
    """A two-stage search's first stage: the positions it takes at least, until when it may go
    on, and the positions it takes at most. Without a clock, the level's fixed samples; on one,
    up to as many in ``FIRST_STAGE`` of the time left, so that a short clock still leaves time
    for the finalists."""
    if until is None:
        return settings.samples, None, settings.samples
    now = time.time()
    least = min(settings.samples, FIRST_STAGE_LEAST)
    return least, now + FIRST_STAGE * max(0.0, until - now), settings.samples


class Hunt:
    """翻棋, where most ranks are in sight and the game is won by taking every enemy piece that
    moves: what a move is worth to the hunt (``worth``). Face-down pieces neither move nor can
    be attacked; every face-up piece's rank and owner is known; pieces move by ``movement``."""

    def __init__(
        self,
        view: Mapping[str, Any],
        board: Board,
        enemies: set[int],
        movement: MovementRules,
    ) -> None:
        self.board, self.enemies, self.movement = board, enemies, movement
        self.seat = view["viewer"]
        self.teams = tuple(s["team"] for s in view["seats"])
        cells: dict[str, tuple[int, str]] = {}
        self.frozen = 0
        for p in view["pieces"]:
            if p.get("face_down") or p.get("rank") is None or p.get("seat") is None:
                # a stand-in that takes no part: it neither moves nor can be struck
                self.frozen |= 1 << board.station(p["station"]).index
                cells[p["station"]] = (self.seat, Rank.LANDMINE.value)
            else:
                cells[p["station"]] = (p["seat"], p["rank"])
        self.position = Position.from_pieces(board, cells)
        self.ranks = {s: r for s, (_, r) in cells.items() if not self._frozen(s)}
        self.owners = {s: o for s, (o, _) in cells.items() if not self._frozen(s)}

    def _frozen(self, station: str) -> bool:
        return bool(self.frozen >> self.board.station(station).index & 1)

    def worth(self, origin: str, target: str) -> float:
        """``HUNT`` for each step closer to an enemy piece the mover beats; the mover's value
        (``EXPOSED_TO`` of it) lost if it ends where an enemy piece that beats it can strike
        next (along the rails too), gained if it leaves such a place."""
        rank = self.ranks.get(origin)
        if rank is None or rank in (Rank.LANDMINE, Rank.FLAG):
            return 0.0
        prey = frozenset(
            s
            for s, r in self.ranks.items()
            if self.owners[s] in self.enemies and s != target and combat(rank, r) == "attacker"
        )
        score = HUNT * (
            distance(self.board.key, origin, prey) - distance(self.board.key, target, prey)
        )
        defender = self.ranks.get(target)
        outcome = None if defender is None else combat(rank, defender)
        if outcome not in (None, "attacker"):
            return score  # the mover does not stand there afterwards
        after = self.position.with_move(origin, target, outcome)
        exposed = self._exposed(self.position, origin, rank) - self._exposed(after, target, rank)
        return score + EXPOSED_TO * VALUE[rank] * exposed

    def _exposed(self, position: Position, station: str, rank: str) -> int:
        """Whether an enemy piece that beats ``rank`` can strike ``station`` next."""
        bit = 1 << self.board.station(station).index
        for seat in self.enemies:
            moves = legal_moves(position, seat, self.teams, self.movement, self.frozen)
            for origin, mask in moves.items():
                if mask & bit:
                    theirs = position.cells[origin]
                    if theirs is not None and combat(theirs.rank, rank) == "attacker":
                        return 1
        return 0


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


def flag_sides(board: Board, seat: int, pieces: Mapping[str, dict[str, Any]]) -> set[str]:
    """The stations next to ``seat``'s flag (as far as the seat knows where it is)."""
    return {
        n
        for s, p in pieces.items()
        if p.get("seat") == seat and p.get("rank") == "flag"
        for n in board.neighbours(s)
    }


def homeward(
    board: Board,
    moves: Sequence[tuple[str, str]],
    sides: set[str],
    pieces: Mapping[str, dict[str, Any]],
    enemies: set[int],
    movement: MovementRules,
    near: int = NEAR_FLAG,
) -> list[tuple[str, str]]:
    """Of ``moves`` (quiet ones, in order), those that bring a piece closer to the stations
    beside its flag (``sides``) while an enemy piece stands ``near`` steps or less from
    them: the defenders a threat calls back, which the search then weighs (a blocker on the
    way, a piece that can strike the attacker)."""
    goal = frozenset(sides)
    if not goal:
        return []
    threat = any(
        p.get("seat") in enemies and distance(board.key, s, goal, movement) <= near
        for s, p in pieces.items()
    )
    if not threat:
        return []
    return [
        (o, t)
        for o, t in moves
        if t not in sides
        and distance(board.key, t, goal, movement) < distance(board.key, o, goal, movement)
    ]


def flag_threats(
    board: Board, seat: int, pieces: Mapping[str, dict[str, Any]], enemies: set[int]
) -> set[str]:
    """Stations of enemy pieces next to ``seat``'s flag, from where they could take it."""
    return {
        n
        for n in flag_sides(board, seat, pieces)
        if n in pieces and pieces[n].get("seat") in enemies
    }


def enemy_flags(
    view: Mapping[str, Any],
    board: Board,
    pieces: Mapping[str, dict[str, Any]],
    enemies: set[int],
    guesses: Mapping[str, Mapping[str, float]],
) -> frozenset[str]:
    """Where the enemies' flags may stand (the goals of progress): a seat's flags once they are
    shown or raised (none of its other pieces is one, ``flags_known``), else its HQs holding a
    hidden piece of its own that may be its flag. 翻棋: every enemy HQ (a carried flag wins
    there)."""
    hqs = enemy_hqs(board.key, enemies)
    if get_variant(view["variant"]).dealing == "fanqi":
        return hqs
    known = flags_known(view)
    goals: set[str] = set()
    for seat in enemies:
        if seat in known:
            raised = view["seats"][seat].get("flag_raised")
            shown = {
                s for s, p in pieces.items() if p.get("seat") == seat and p.get("rank") == "flag"
            }
            goals |= shown | ({raised} if raised else set())
            continue
        held = {
            s
            for s in hqs
            if board.station(s).seat == seat
            and pieces.get(s, {}).get("seat") == seat
            and "rank" not in pieces[s]
            and (s not in guesses or guesses[s].get(Rank.FLAG, 0.0) > 0)
        }
        goals |= held or {s for s in hqs if board.station(s).seat == seat}
    return frozenset(goals)


def enemy_hqs(board_key: str, enemies: set[int]) -> frozenset[str]:
    board = get_board(board_key)
    return frozenset(
        s
        for s in board.stations
        if board.station(s).kind == "hq" and board.station(s).seat in enemies
    )


def distance(
    board_key: str, station: str, goals: frozenset[str], movement: MovementRules | None = None
) -> int:
    """Steps (along any edge) from ``station`` to the nearest of ``goals``; by the ``movement``
    options if given: with ``hq_lock`` no way leads through an HQ (a piece entering one stays
    there)."""
    if not goals:
        return 0
    table = _distances(board_key, movement is not None and movement.hq_lock)[station]
    far = len(table)  # no way there
    return min(table.get(g, far) for g in goals)


@cache
def _distances(board_key: str, hq_lock: bool) -> dict[str, dict[str, int]]:
    board = get_board(board_key)
    out = {}
    for start in board.stations:
        seen = {start: 0}
        frontier = deque([start])
        while frontier:
            here = frontier.popleft()
            if here != start and hq_lock and board.station(here).kind == "hq":
                continue  # reached, but a dead end
            for nxt in board.neighbours(here):
                if nxt not in seen:
                    seen[nxt] = seen[here] + 1
                    frontier.append(nxt)
        out[start] = seen
    return out


def thinking_deadline(
    level: str, now: float, clock_deadline: float | None, scale: float = 1.0
) -> float:
    """Until when a bot of ``level`` may think on a move asked for at ``now``: its budget (times
    ``scale``), but never past the move clock (``clock_deadline``, less ``CLOCK_MARGIN``)."""
    until = now + LEVEL.get(level, LEVEL["normal"]).budget * scale
    return until if clock_deadline is None else max(now, min(until, clock_deadline - CLOCK_MARGIN))


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
