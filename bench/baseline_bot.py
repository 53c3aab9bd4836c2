"""Today's bot, frozen: the baseline the gate (``bench/bots.py gate``) measures new bots against.

Frozen from commit e95e972 (before the other-HQ fix of issue #23): the decision code of
``engine/bot.py``, the search of ``engine/search.py`` and the ``Beliefs`` of
``engine/beliefs.py``, copied as they were, so that later changes to the bot, its search or
its beliefs leave this baseline as it is. Only the rules are imported from the engine (board,
combat, movement, positions, variants) and the automatic layouts of ``engine.deployment``;
``tests/engine/test_baseline.py`` notices when ``auto_layout`` changes, so that today's
version can be copied here first. Do not edit the copied code: freeze a new baseline instead.
"""

from __future__ import annotations

import math
import random
from collections import Counter, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from engine.board import Board, get_board
from engine.combat import Outcome, combat
from engine.deployment import auto_layout, deployment_problems, split_key
from engine.movement import legal_moves, move_tables
from engine.pieces import IMMOBILE_RANKS, RAIL_FLYERS, STANDARD_ARMY, Piece, Rank
from engine.position import Position
from engine.variants import RuleOptions, TurnDirection, get_variant

FROZEN_FROM = "e95e972"

# --- engine/beliefs.py ----------------------------------------------------------------------


ALL_RANKS = frozenset(STANDARD_ARMY)


@dataclass
class Guess:
    """One hidden piece: its owner and the ranks it may still have, with weights."""

    seat: int
    weights: dict[Rank, float] = field(default_factory=dict)

    def keep(self, allowed: Iterable[Rank]) -> None:
        allowed = set(allowed)
        narrowed = {r: w for r, w in self.weights.items() if r in allowed}
        if narrowed:  # never drop to nothing: the rules beyond this model (deals) may surprise
            self.weights = narrowed

    def probabilities(self) -> dict[Rank, float]:
        total = sum(self.weights.values())
        return {r: w / total for r, w in self.weights.items()}

    @property
    def certain(self) -> Rank | None:
        return next(iter(self.weights)) if len(self.weights) == 1 else None


def straight(board: Board, origin: str, target: str) -> bool:
    """Whether a piece could go from ``origin`` to ``target`` without turning on the rail."""
    if target in board.neighbours(origin):
        return True
    return any(origin in line and target in line for line in board.lines)


class Beliefs:
    def __init__(self, variant: str, seat: int) -> None:
        self.variant = get_variant(variant)
        self.board: Board = get_board(self.variant.board_key)
        self.seat = seat
        self.pieces: dict[str, Guess] = {}  # station -> belief about the enemy piece there
        self.dead: Counter[tuple[int, Rank]] = Counter()  # ranks seen to die, per seat
        self.known: dict[str, Rank] = {}  # our own pieces' ranks, by station, as last seen
        self.recent: list[tuple[str, str]] = []  # our own last moves, newest last
        self.standard = self.variant.dealing is None  # dealt armies: no stock to count

    # --- the view ---------------------------------------------------------------------------

    def follow(self, events: Iterable[Mapping[str, Any] | None], view: Mapping[str, Any]) -> None:
        """Take in what the seat was just sent: its events (as ``Event.for_viewer`` gave them;
        None for those it did not get), then its new view."""
        for event in events:
            if event is not None:
                self.observe(event)
        self.update(view)

    def update(self, view: Mapping[str, Any]) -> None:
        """Take in the pieces of a view: new unknown pieces get their priors, shown ranks are
        certain, pieces gone are forgotten."""
        present = set()
        self.known = {}
        for p in view.get("pieces", []):
            station, seat = p["station"], p.get("seat")
            if seat == self.seat and "rank" in p:
                self.known[station] = Rank(p["rank"])
            if seat is None or seat == self.seat or p.get("face_down"):
                continue
            present.add(station)
            guess = self.pieces.get(station)
            if guess is None or guess.seat != seat:
                guess = self.pieces[station] = Guess(seat, self.prior(station))
            if "rank" in p:
                guess.weights = {Rank(p["rank"]): 1.0}
        for station in list(self.pieces):
            if station not in present:
                del self.pieces[station]
        self.count_stock()

    def prior(self, station: str) -> dict[Rank, float]:
        army = self.variant.army if self.standard else dict.fromkeys(ALL_RANKS, 1)
        st = self.board.station(station)
        weights = {}
        for rank, count in army.items():
            if rank == Rank.FLAG and st.kind != "hq":
                continue
            if self.standard and rank == Rank.LANDMINE and st.row not in (5, 6):
                continue
            if self.standard and rank == Rank.BOMB and st.row == 1:
                continue
            weights[rank] = float(count)
        return weights

    # --- events -----------------------------------------------------------------------------

    def observe(self, event: Mapping[str, Any]) -> None:
        """Take in one event as this seat saw it."""
        known = self.known
        if event.get("kind") != "moved":
            return
        origin, target, outcome = event["origin"], event["target"], event.get("outcome")
        ours = known.get(origin) if event.get("seat") == self.seat else None
        if event.get("seat") == self.seat:
            self.recent = [*self.recent[-3:], (origin, target)]
        mover = self.pieces.pop(origin, None)
        defender = self.pieces.get(target)
        if mover is not None:
            mover.keep(ALL_RANKS - IMMOBILE_RANKS)
            if not self.straight(origin, target):
                mover.keep(RAIL_FLYERS)
        self.follow_own_pieces(ours, origin, target, outcome)
        if outcome is None:
            if mover is not None:
                self.pieces[target] = mover
            return
        if mover is not None and target in known:  # an enemy attacked one of ours
            mine = known[target]
            mover.keep(
                r for r in mover.weights if r not in IMMOBILE_RANKS and combat(r, mine) == outcome
            )
            self.after_fight(mover, target, survived=outcome == "attacker")
            if outcome != "defender":
                del known[target]
        elif mover is None and ours is not None and defender is not None:  # we attacked
            defender.keep(r for r in defender.weights if combat(ours, r) == outcome)
            if outcome != "defender":
                self.pieces.pop(target, None)
                self.died(defender)
        elif mover is not None and defender is not None:  # two other seats fought
            if outcome == "both":
                self.pieces.pop(target, None)
                self.died(defender)
                self.died(mover)
            elif outcome == "attacker":
                self.pieces[target] = mover
                self.died(defender)
            else:
                self.died(mover)
        self.count_stock()

    def follow_own_pieces(
        self, rank: Rank | None, origin: str, target: str, outcome: str | None
    ) -> None:
        """Keep ``known`` true between views: one of our pieces moved (and maybe fought)."""
        if rank is None:
            return
        del self.known[origin]
        if outcome in (None, "attacker"):
            self.known[target] = rank

    def after_fight(self, mover: Guess, target: str, survived: bool) -> None:
        if survived:
            self.pieces[target] = mover
        else:
            self.died(mover)

    def died(self, guess: Guess) -> None:
        if guess.certain is not None:
            self.dead[guess.seat, guess.certain] += 1

    def straight(self, origin: str, target: str) -> bool:
        return straight(self.board, origin, target)

    def count_stock(self) -> None:
        """When all copies of a rank of an army are accounted for, no other piece has it."""
        if not self.standard:
            return
        changed = True
        while changed:
            changed = False
            for seat in {g.seat for g in self.pieces.values()}:
                sure = Counter(g.certain for g in self.pieces.values() if g.seat == seat)
                for rank, count in self.variant.army.items():
                    if sure[rank] + self.dead[seat, rank] < count:
                        continue
                    for guess in self.pieces.values():
                        if guess.seat == seat and guess.certain is None and rank in guess.weights:
                            guess.keep(r for r in guess.weights if r != rank)
                            changed = True

    def table(self) -> dict[str, dict[str, float]]:
        """The beliefs as plain data: station -> {rank key: probability} (the keys are
        ``Rank`` members, which are their own keys as strings)."""
        out: dict[str, dict[str, float]] = {}
        for station, guess in self.pieces.items():
            total = sum(guess.weights.values())
            out[station] = {rank: weight / total for rank, weight in guess.weights.items()}
        return out


# --- engine/search.py -----------------------------------------------------------------------


# how much a piece is worth to keep (a rough scale for trades)
VALUE: Mapping[str, float] = {
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
RISK = 0.3  # cost of one standard deviation of a move's worth over the samples
ENEMY_SIGHT = 0.6  # how much of an enemy's best (sampled, all-seeing) answer to expect
LATER = 0.8  # how much of our side's later answers to count: a gain now beats one later
EXPOSED = 12.0  # cost of an enemy piece standing next to one of our flags
LOCKED = 0.5  # the share of a piece's value lost by entering an HQ: it never moves again
STRANDED = 4.0  # cost of each piece short of three that can still move, per seat of our team


Move = tuple[str, str]


def searchable(view: Mapping[str, Any]) -> bool:
    """Whether the view can be searched: 翻棋's face-down pieces have no owner to guess."""
    return view.get("pieces") is not None and not any(p.get("face_down") for p in view["pieces"])


def sample_ranks(
    view: Mapping[str, Any],
    guesses: Mapping[str, Mapping[str, float]],
    rng: random.Random,
) -> dict[str, tuple[int, str]]:
    """Every piece of the view with a rank: shown ranks as they are, hidden ones drawn from
    ``guesses`` (station -> {rank: probability}); in the standard armies no seat gets more
    copies of a rank than its army has. The most constrained pieces are drawn first."""
    variant = get_variant(view["variant"])
    stock = variant.army if variant.dealing is None else None
    pieces: dict[str, tuple[int, str]] = {}
    hidden: list[tuple[int, str, Mapping[str, float]]] = []
    left: dict[int, Counter[str]] = {}
    for p in view["pieces"]:
        seat = p["seat"]
        if stock is not None and seat not in left:
            left[seat] = Counter({r.value: n for r, n in stock.items()})
        if "rank" in p:
            pieces[p["station"]] = (seat, p["rank"])
            if stock is not None:
                left[seat][p["rank"]] -= 1
        else:
            chances = guesses.get(p["station"]) or _prior(stock)
            hidden.append((seat, p["station"], chances))
    hidden.sort(key=lambda h: len(h[2]))
    for seat, station, chances in hidden:
        ranks = list(chances)
        weights = [chances[r] * (1 if stock is None else max(left[seat][r], 0)) for r in ranks]
        if not any(weights):  # the stock is spent (beliefs can be off): the guess alone
            weights = [chances[r] for r in ranks]
        rank = rng.choices(ranks, weights)[0]
        pieces[station] = (seat, rank)
        if stock is not None:
            left[seat][rank] -= 1
    return pieces


def _prior(stock: Mapping[Rank, int] | None) -> dict[str, float]:
    if stock is None:
        return {r: 1.0 for r in VALUE if r != "flag"}
    return {r.value: float(n) for r, n in stock.items()}


def expected_gains(
    view: Mapping[str, Any],
    guesses: Mapping[str, Mapping[str, float]],
    rng: random.Random,
    candidates: Sequence[Move],
    samples: int,
    rounds: int = 1,
) -> dict[Move, float]:
    """Each candidate move's worth to the viewer's team: mean minus ``RISK`` times spread, over
    ``samples`` guessed positions, of the material change after the move and ``rounds`` rounds of
    the other seats' best captures (see the module text)."""
    seat = view["viewer"]
    variant = get_variant(view["variant"])
    board = get_board(view["board"])
    teams = tuple(s["team"] for s in view["seats"])
    step = 1 if variant.rules.turn_direction == TurnDirection.CLOCKWISE else -1
    order = [(seat + step * k) % len(teams) for k in range(1, len(teams) * rounds)]

    worths: dict[Move, list[float]] = {m: [] for m in candidates}
    for _ in range(samples):
        position = Position.from_pieces(board, sample_ranks(view, guesses, rng))
        game = _Sample(position, variant.rules, teams, teams[seat])
        before = game.danger(position)
        for move in candidates:
            after, worth = game.play(position, seat, move)
            for other in order:
                after, gain = game.answer(after, other)
                worth += gain * (ENEMY_SIGHT if teams[other] != teams[seat] else LATER)
            worths[move].append(worth - (game.danger(after) - before))
    return {m: _mean(w) - RISK * _spread(w) for m, w in worths.items()}


class _Sample:
    """The rules on one guessed position: fights, their worth to our team, other seats' answers.
    Flags do not move, so the stations next to them are found once."""

    def __init__(self, position: Position, rules: RuleOptions, teams: tuple[int, ...], team: int):
        self.board = position.board
        self.tables = move_tables(self.board)
        self.rules = rules
        self.teams = teams
        self.team = team
        sides: dict[int, int] = dict.fromkeys(teams, 0)  # team -> stations next to its flags
        for i, piece in enumerate(position.cells):
            if piece is not None and piece.rank == Rank.FLAG:
                sides[teams[piece.seat]] |= self.tables.step[i]
        self.our_flag_sides = sides[team]
        self.enemy_flag_sides = {t: sum(m for u, m in sides.items() if u != t) for t in sides}

    def play(self, position: Position, seat: int, move: Move) -> tuple[Position, float]:
        """``position`` after ``seat`` plays ``move`` (a seat whose last flag falls is taken off
        the board), and what that is worth to our team in material."""
        origin, target = move
        o, t = self.board.station(origin).index, self.board.station(target).index
        attacker, defender = position.cells[o], position.cells[t]
        if attacker is None:
            return position, 0.0
        if defender is None:
            return position.with_move(origin, target), 0.0
        outcome = self.rules.fight(
            attacker.rank, defender.rank, defender_in_hq=bool(self.tables.hqs >> t & 1)
        )
        after = position.with_move(origin, target, outcome)
        lost = 0.0  # by the attacker's team
        if outcome != Outcome.ATTACKER:
            lost += VALUE[attacker.rank]
        elif self.rules.hq_lock and self.tables.hqs >> t & 1 and defender.rank != Rank.FLAG:
            lost += LOCKED * VALUE[attacker.rank]  # the winner is stuck in that HQ for good
        if outcome != Outcome.DEFENDER:
            lost -= VALUE[defender.rank]
            last_flag = defender.rank == Rank.FLAG and not any(
                p and p.seat == defender.seat and p.rank == Rank.FLAG for p in after.cells
            )
            if last_flag:
                lost -= sum(VALUE[p.rank] for p in after.cells if p and p.seat == defender.seat)
                after = after.without_seat(defender.seat)
        return after, -lost if self.teams[attacker.seat] == self.team else lost

    def answer(self, position: Position, seat: int) -> tuple[Position, float]:
        """``position`` after ``seat``'s best capture for its team (by the sampled ranks) and
        its worth to our team; a step next to an enemy flag counts as a capture worth
        ``EXPOSED``; with nothing worth doing, unchanged."""
        if not position.seat_masks[seat]:
            return position, 0.0
        team = self.teams[seat]
        cells = position.cells
        enemies = sum(m for s, m in enumerate(position.seat_masks) if self.teams[s] != team)
        approach = self.enemy_flag_sides[team] & ~position.occupied
        best, best_gain = None, 0.0
        stepping = None
        for origin, mask in legal_moves(position, seat, self.teams, self.rules.movement).items():
            hits = mask & enemies
            attacker = cells[origin]
            assert attacker is not None
            while hits:
                bit = hits & -hits
                hits ^= bit
                target = bit.bit_length() - 1
                gain = self._gain(attacker, cells[target], target)
                if gain > best_gain:
                    best, best_gain = (origin, target), gain
            if stepping is None and mask & approach:
                stepping = (origin, ((mask & approach) & -(mask & approach)).bit_length() - 1)
        chosen = stepping if stepping and best_gain < EXPOSED else best
        if chosen is None:
            return position, 0.0
        ids = self.board.stations
        return self.play(position, seat, (ids[chosen[0]], ids[chosen[1]]))

    def _gain(self, attacker: Piece, defender: Piece | None, target: int) -> float:
        """What hitting ``defender`` is worth to the attacker's team."""
        assert defender is not None
        outcome = self.rules.fight(
            attacker.rank, defender.rank, defender_in_hq=bool(self.tables.hqs >> target & 1)
        )
        if outcome == Outcome.ATTACKER:
            return VALUE[defender.rank]
        if outcome == Outcome.DEFENDER:
            return -VALUE[attacker.rank]
        return VALUE[defender.rank] - VALUE[attacker.rank]

    def danger(self, position: Position) -> float:
        """``EXPOSED`` for each enemy piece next to our flags, ``STRANDED`` for each piece short
        of three that a seat of ours can still move (with none, it is skipped out of the game)."""
        masks = position.seat_masks
        enemies = sum(m for s, m in enumerate(masks) if self.teams[s] != self.team)
        near = (self.our_flag_sides & enemies & position.mobile).bit_count()
        free = position.mobile & ~self.tables.hqs if self.rules.hq_lock else position.mobile
        short = sum(
            max(0, 3 - (m & free).bit_count())
            for s, m in enumerate(masks)
            if m and self.teams[s] == self.team
        )
        return EXPOSED * near + STRANDED * short


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _spread(values: list[float]) -> float:
    mean = _mean(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


# --- engine/bot.py (the decision code) -----------------------------------------------------


@dataclass(frozen=True)
class Level:
    """How a level thinks: ``noise`` added to every move's score; ``samples`` guessed positions
    searched per move (0: a one-move look-ahead only), ``rounds`` of the other seats' answers in
    each, and ``width`` quiet moves searched beside every capture."""

    noise: float
    samples: int
    rounds: int
    width: int


LEVEL = {
    "easy": Level(noise=6.0, samples=0, rounds=0, width=0),
    "normal": Level(noise=0.5, samples=8, rounds=1, width=10),
    "hard": Level(noise=0.2, samples=16, rounds=2, width=16),
}
LEVELS = tuple(LEVEL)
AGGRESSION = 0.8  # a fight's worth beyond its expected gain
PROGRESS = 0.35  # the worth of a step closer to an enemy HQ
REPEAT = 0.6  # the cost of undoing one's last move
CONCEAL = 0.5  # the cost of showing an engineer by a turn on the rail
GUARD = 10.0  # the worth of hitting an enemy next to one's flag: it may take the flag next
URGENCY = 10.0  # the extra lean towards fights as quiet moves near the draw limit, when ahead


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
        layout = mine_in_the_other_hq(
            view["variant"], seat, layout, hand, deal.get("banker") == seat
        )
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
        origin, target = choose_move(view, rng, guesses or {}, level, recent)
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


def mine_in_the_other_hq(
    variant: str,
    seat: int,
    layout: Mapping[str, str],
    hand: Sequence[tuple[Rank, int | None]] | None,
    banker: bool,
) -> dict[str, str]:
    """``layout`` with a landmine swapped into the HQ beside the flag when a piece that could
    move stands there: a piece in an HQ never moves, and a seat whose last movable pieces are
    stuck is skipped out of the game."""
    board = get_board(get_variant(variant).board_key)
    hqs = [s for s in layout if board.station(s).kind == "hq"]
    other = [s for s in hqs if split_key(layout[s])[0] not in (Rank.FLAG, Rank.LANDMINE)]
    mines = [s for s in layout if s not in hqs and split_key(layout[s])[0] == Rank.LANDMINE]
    if len(hqs) != 2 or not other or not mines:
        return dict(layout)
    swapped = {**layout, other[0]: layout[mines[0]], mines[0]: layout[other[0]]}
    problems = deployment_problems(variant, seat, swapped, hand=hand, banker=banker)
    return dict(layout) if problems else swapped


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
    goals = enemy_hqs(view["board"], enemies)
    board = get_board(view["board"])
    threats = set() if level == "easy" else flag_threats(board, seat, pieces, enemies)
    rules = get_variant(view["variant"]).rules
    hq_lock = rules.hq_lock
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
            if other is not None and other.get("seat") != seat:
                fights.append((origin, target))
                # fights keep the game going (40 quiet moves draw it): lean towards them
                score += lean + (GUARD if target in threats else 0.0)
            elif hq_lock and board.station(target).kind == "hq" and mine.get("rank"):
                score -= LOCKED * VALUE[mine["rank"]] + PROGRESS * 2
            # head for the enemy HQs, where the flags are
            score += PROGRESS * (
                distance(view["board"], origin, goals) - distance(view["board"], target, goals)
            )
            if (target, origin) in recent[-2:]:
                score -= REPEAT  # back and forth gets nowhere
            quiet_engineer = mine.get("rank") == "engineer" and other is None and level != "easy"
            if quiet_engineer and not straight(board, origin, target):
                score -= CONCEAL  # a turn on the rail tells everyone it is an engineer
            quick[origin, target] = score
    if settings.samples and searchable(view):
        # every fight, every step beside its own flag (to block), the best other quiet moves
        sides = flag_sides(board, seat, pieces)
        fought = set(fights)
        quiet = sorted((m for m in quick if m not in fought), key=quick.__getitem__)
        guards = [m for m in quiet if m[1] in sides]
        candidates = fights + guards + [m for m in quiet[-settings.width :] if m[1] not in sides]
        gains = expected_gains(view, guesses, rng, candidates, settings.samples, settings.rounds)
        return max(candidates, key=lambda m: quick[m] + gains[m])
    for origin, target in fights:
        quick[origin, target] += attack_value(
            pieces[origin].get("rank"), pieces[target].get("rank"), guesses.get(target)
        )
    return max(quick, key=quick.__getitem__)


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


def flag_sides(board: Board, seat: int, pieces: Mapping[str, dict[str, Any]]) -> set[str]:
    """The stations next to ``seat``'s flag (as far as the seat knows where it is)."""
    return {
        n
        for s, p in pieces.items()
        if p.get("seat") == seat and p.get("rank") == "flag"
        for n in board.neighbours(s)
    }


def flag_threats(
    board: Board, seat: int, pieces: Mapping[str, dict[str, Any]], enemies: set[int]
) -> set[str]:
    """Stations of enemy pieces next to ``seat``'s flag, from where they could take it."""
    return {
        n
        for n in flag_sides(board, seat, pieces)
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


# --- a player for engine.arena.play ------------------------------------------------------------


class BaselineBot:
    """The frozen bot at a level, following its own events with the frozen ``Beliefs``: the
    same interface as ``engine.arena.Bot``."""

    def __init__(self, variant: str, seat: int, level: str = "normal") -> None:
        self.beliefs = Beliefs(variant, seat)
        self.level = level
        self.unread: list[Mapping[str, Any] | None] = []

    def observe(self, event: Mapping[str, Any] | None) -> None:
        self.unread.append(event)

    def decide(self, view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
        self.beliefs.follow(self.unread, view)
        self.unread = []
        guesses = self.beliefs.table()
        return choose_action(view, rng, guesses, self.level, self.beliefs.recent)
