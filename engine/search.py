"""Determinized search for bots: guess the hidden ranks, look a round ahead, average.

A bot cannot see enemy ranks, so it draws ``samples`` full positions from its beliefs
(``sample_ranks``: every hidden piece gets a rank by its probability, an army's stock of each rank
respected), plays each candidate move on each of them, lets the other seats answer with their best
capture (``rounds`` times round the table), and scores the result by material. A candidate's worth
is the mean over the samples minus ``RISK`` times their spread: a move that is fine on average but
ruinous on some guesses (walking the 司令 next to a piece that may be a bomb) is marked down.

The answering seats see the sampled ranks, which real players do not; so an enemy's answer counts
only ``ENEMY_SIGHT`` of its effect. An enemy with no capture worth more steps next to a flag of
ours when it can, and every enemy standing next to our flag afterwards costs ``EXPOSED``: that is
how a bot sees a threat two moves away and blocks it or strikes first. A seat whose last pieces
that can move are lost is skipped out of the game, so those last pieces cost ``STRANDED`` more.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from engine.beliefs import flags_known, layout_prior
from engine.board import Station, get_board
from engine.combat import Outcome
from engine.movement import legal_moves, move_tables
from engine.pieces import Piece, Rank
from engine.position import Position
from engine.variants import RuleOptions, TurnDirection, Variant, get_variant

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
    ``guesses`` (station -> {rank: probability}; without one, what the layout rules allow
    there); in the standard armies no seat gets more copies of a rank than its army has, and
    no seat whose flag is shown gets another. The most constrained pieces are drawn first."""
    variant = get_variant(view["variant"])
    board = get_board(view["board"])
    stock = variant.army if variant.dealing is None else None
    flagged = flags_known(view)
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
            station = p["station"]
            chances = guesses.get(station) or _prior(variant, board.station(station))
            if seat in flagged:  # its flags are all shown: the rest are other ranks
                chances = {r: w for r, w in chances.items() if r != Rank.FLAG} or chances
            hidden.append((seat, station, chances))
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


def _prior(variant: Variant, station: Station) -> dict[str, float]:
    return {rank.value: w for rank, w in layout_prior(variant, station).items()}


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
            lost -= self._worth(defender, t)
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
        for origin, mask in legal_moves(position, seat, self.teams, self.rules.hq_lock).items():
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
        """What hitting ``defender`` is worth to the attacker's team (as ``play`` counts it: a
        winner stuck in an HQ loses ``LOCKED`` of its value)."""
        assert defender is not None
        in_hq = bool(self.tables.hqs >> target & 1)
        outcome = self.rules.fight(attacker.rank, defender.rank, defender_in_hq=in_hq)
        theirs = self._worth(defender, target)
        if outcome == Outcome.ATTACKER:
            stuck = self.rules.hq_lock and in_hq and defender.rank != Rank.FLAG
            return theirs - (LOCKED * VALUE[attacker.rank] if stuck else 0.0)
        if outcome == Outcome.DEFENDER:
            return -VALUE[attacker.rank]
        return theirs - VALUE[attacker.rank]

    def _worth(self, piece: Piece, index: int) -> float:
        """A piece's value; in an HQ (but the flag) it can never move nor guard a way again,
        so it is worth only what a winner stuck there keeps: ``1 - LOCKED`` of it."""
        stuck = self.rules.hq_lock and self.tables.hqs >> index & 1 and piece.rank != Rank.FLAG
        return VALUE[piece.rank] * (1 - LOCKED if stuck else 1.0)

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
