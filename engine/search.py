"""Determinized search for bots: guess the hidden armies, look a round ahead, average.

A bot cannot see enemy ranks, so it draws full positions from its beliefs (``sample_ranks``:
each army's unseen flag first, on one of its hidden pieces that may be it, then every hidden
piece a rank by its probability, an army's stock of each rank respected), plays each candidate
move on each of them, lets the other seats answer with their best capture (``rounds`` times round
the table; a capture the other side would take back at once, for more than it wins, is not the
best), and scores the result by material. A candidate's worth is the mean over the samples
minus ``risk`` (``RISK`` but by level) times their spread: a move that is fine on average but
ruinous on some guesses (walking the 司令 next to a piece that may be a bomb) is marked down.
It is an anytime search: ``samples`` positions at least, then more while its time lasts
(``until``).

The answering seats see the sampled ranks, which real players do not; so an enemy's answer counts
only ``ENEMY_SIGHT`` of its effect, but in full on a piece of ours that won a fight (the winner of
the move searched, or one of ``proven``): it has shown the loser's side that it is above what it
beat, and a 司令 that has just taken a 军长 in reach of a bomb is bombed. An enemy with no
capture worth more steps next to a flag of ours when it can. Then the threats to the flags
count: every enemy piece next to our flag costs ``EXPOSED``, one a move from there ``REACH``, one
two steps from there ``CLOSE`` (that is how a bot sees a threat moves away and blocks it or
strikes first); our own pieces next to an enemy flag, or a move from there, are worth a share of
that (``PRESS``, ``PRESS_FAR``): attack counts less than defence, as the enemy may get to our
flag first; once the enemies know where our flag is (our 司令 is dead, or the flag raised; with
the standard armies, ``defends_shown_flag``), the threats to it weigh ``FEAR`` times more. A seat
whose last pieces that can move are lost is skipped out of the game, so those last pieces cost
``STRANDED`` more; a seat's last 司令 costs ``SHOWN`` more while its flag is hidden, as its death
shows the flag.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from engine.beliefs import flags_known, layout_prior, own_flag_shown
from engine.board import Station, get_board
from engine.combat import Outcome
from engine.movement import fly_mask, legal_moves, move_tables, slide_mask
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
RISK = 0.3  # cost of one standard deviation of a move's worth over the samples (by default)
ENEMY_SIGHT = 0.6  # how much of an enemy's best (sampled, all-seeing) answer to expect
LATER = 0.8  # how much of our side's later answers to count: a gain now beats one later
EXPOSED = 12.0  # cost of an enemy piece standing next to one of our flags
REACH = 6.0  # cost of an enemy piece one move from standing next to one of our flags
CLOSE = 2.5  # cost of an enemy piece two steps or less from there
PRESS = 0.5  # the worth of our pieces next to an enemy flag, as a share of EXPOSED...
PRESS_FAR = 0.5  # ...and of those a move from there, as a further share of REACH
LOCKED = 0.5  # the share of a piece's value lost by entering an HQ: it never moves again
STRANDED = 4.0  # cost of each piece short of three that can still move, per seat of our team
SHOWN = 6.0  # cost of a seat's last 司令's death beyond its value while its flag is hidden
FEAR = 2.0  # how much more the threats to our flag weigh once the enemies know where it is


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
    there); in the standard armies no seat gets more copies of a rank than its army has, each
    army whose flag is unseen gets it on one of its hidden pieces (drawn first), and no seat
    whose flag is shown gets another. Then the most constrained pieces are drawn first."""
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
    if stock is not None:  # each army's flag first: it is on exactly one of its hidden pieces
        hidden = _place_flags(hidden, left, pieces, rng)
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


def _place_flags(
    hidden: list[tuple[int, str, Mapping[str, float]]],
    left: Mapping[int, Counter[str]],
    pieces: dict[str, tuple[int, str]],
    rng: random.Random,
) -> list[tuple[int, str, Mapping[str, float]]]:
    """Give every army whose flag is still unseen its flag on one of its hidden pieces (chosen
    by how likely each is to be it), into ``pieces``; the other hidden pieces, which are then
    no flag, are returned."""
    rest = []
    for seat in sorted({h[0] for h in hidden}):
        mine = [h for h in hidden if h[0] == seat]
        options = [h for h in mine if h[2].get(Rank.FLAG, 0.0) > 0]
        if left[seat][Rank.FLAG] <= 0 or not options:
            rest += mine
            continue
        flag = rng.choices(options, [h[2][Rank.FLAG] for h in options])[0]
        pieces[flag[1]] = (seat, Rank.FLAG.value)
        left[seat][Rank.FLAG] -= 1
        for h in mine:
            if h is not flag:
                others = {r: w for r, w in h[2].items() if r != Rank.FLAG}
                rest.append((h[0], h[1], others or h[2]))
    return rest


def _prior(variant: Variant, station: Station) -> dict[str, float]:
    return {rank.value: w for rank, w in layout_prior(variant, station).items()}


def expected_gains(
    view: Mapping[str, Any],
    guesses: Mapping[str, Mapping[str, float]],
    rng: random.Random,
    candidates: Sequence[Move],
    samples: int,
    rounds: int = 1,
    until: float | None = None,
    most: int = 1000,
    proven: Collection[str] = (),
    risk: float = RISK,
) -> dict[Move, float]:
    """Each candidate move's worth to the viewer's team: mean minus ``risk`` times spread, over
    ``samples`` guessed positions, of the material change after the move and ``rounds`` rounds of
    the other seats' best captures (see the module text). With ``until`` (a ``time.time()``
    instant) it is an anytime search: after ``samples`` it goes on drawing positions, up to
    ``most``, while there is time, and the estimate grows sharper. ``proven``: the stations of
    the viewer's pieces that won a fight (``Beliefs.proven``), whose strength the enemies have
    seen: an enemy's answer on one of them, or on the winner of the move searched, counts in
    full."""
    seat = view["viewer"]
    variant = get_variant(view["variant"])
    board = get_board(view["board"])
    teams = tuple(s["team"] for s in view["seats"])
    step = 1 if variant.rules.turn_direction == TurnDirection.CLOCKWISE else -1
    order = [(seat + step * k) % len(teams) for k in range(1, len(teams) * rounds)]

    worths: dict[Move, list[float]] = {m: [] for m in candidates}
    shown = frozenset(flags_known(view) - {seat})  # (the view shows its own flag anyway)
    fear = FEAR if defends_shown_flag(view) else 1.0
    known = sum(1 << board.station(s).index for s in proven)
    drawn = 0
    while drawn < samples or (until is not None and drawn < most and time.time() < until):
        drawn += 1
        position = Position.from_pieces(board, sample_ranks(view, guesses, rng))
        game = _Sample(position, variant.rules, teams, teams[seat], shown, fear)
        before = game.danger(position) - PRESS * game.pressure(position)
        for move in candidates:
            after, worth = game.play(position, seat, move)
            seen = game.seen_after(position, after, move, known)
            for other in order:
                after, gain, hit = game.answer(after, other)
                if teams[other] == teams[seat]:
                    worth += gain * LATER
                else:  # a piece of ours that won a fight has shown the enemy what it beat
                    worth += gain * (1.0 if hit >= 0 and seen >> hit & 1 else ENEMY_SIGHT)
            worths[move].append(
                worth - (game.danger(after) - PRESS * game.pressure(after) - before)
            )
    return {m: _mean(w) - risk * _spread(w) for m, w in worths.items()}


def defends_shown_flag(view: Mapping[str, Any]) -> bool:
    """Whether the bot defends its flag as shown (``FEAR``, and ``NEAR_SHOWN_FLAG`` in
    ``engine.bot_goals``): once the enemies know where it is (``own_flag_shown``), with the standard
    armies only. Where hands are dealt (乱战, 三打一) a flag is often shown from the start, and
    defending it harder all game long measured worse there (docs/engine.md)."""
    return get_variant(view["variant"]).dealing is None and own_flag_shown(view)


class _Sample:
    """The rules on one guessed position: fights, their worth to our team, other seats' answers.
    Flags do not move, so the stations next to them are found once."""

    def __init__(
        self,
        position: Position,
        rules: RuleOptions,
        teams: tuple[int, ...],
        team: int,
        shown: frozenset[int] = frozenset(),
        fear: float = 1.0,
    ):
        self.board = position.board
        self.tables = move_tables(self.board)
        self.rules = rules
        self.movement = rules.movement
        self.teams = teams
        self.team = team
        self.shown = shown  # the seats whose flags are shown: a 司令's death shows no more
        self.fear = fear  # the weight of the threats to our flag
        sides: dict[int, int] = dict.fromkeys(teams, 0)  # team -> stations next to its flags
        for i, piece in enumerate(position.cells):
            if piece is not None and piece.rank == Rank.FLAG:
                sides[teams[piece.seat]] |= self.tables.step[i]
        self.our_flag_sides = sides[team]
        self.our_flag_zone = self._around(self._around(sides[team])) & ~sides[team]
        self.enemy_flag_sides = {t: sum(m for u, m in sides.items() if u != t) for t in sides}

    def _around(self, mask: int) -> int:
        """``mask`` and the stations a step from it (no way leads on through an HQ, where a
        piece would stay)."""
        out = mask
        if self.movement.hq_lock:
            mask &= ~self.tables.hqs
        while mask:
            bit = mask & -mask
            mask ^= bit
            out |= self.tables.step[bit.bit_length() - 1]
        return out

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
            lost += self._loss(position, attacker, o)
        elif self.movement.hq_lock and self.tables.hqs >> t & 1 and defender.rank != Rank.FLAG:
            lost += LOCKED * VALUE[attacker.rank]  # the winner is stuck in that HQ for good
        if outcome != Outcome.DEFENDER:
            lost -= self._loss(position, defender, t)
            last_flag = defender.rank == Rank.FLAG and not any(
                p and p.seat == defender.seat and p.rank == Rank.FLAG for p in after.cells
            )
            if last_flag:
                lost -= sum(VALUE[p.rank] for p in after.cells if p and p.seat == defender.seat)
                after = after.without_seat(defender.seat)
        return after, -lost if self.teams[attacker.seat] == self.team else lost

    def seen_after(self, before: Position, after: Position, move: Move, seen: int) -> int:
        """The stations (a mask) of the pieces whose strength the enemies have seen once
        ``move`` is played from ``before``: those of ``seen`` still standing, the mover's
        new station if it was one of them and stands there, and there too if it beat the piece
        there."""
        origin, target = (self.board.station(s).index for s in move)
        stands = after.cells[target] is not None and after.cells[target] is before.cells[origin]
        beat = stands and before.cells[target] is not None
        moved = seen >> origin & 1
        seen &= ~(1 << origin | 1 << target)
        return seen | (1 << target if stands and (moved or beat) else 0)

    def answer(self, position: Position, seat: int) -> tuple[Position, float, int]:
        """``position`` after ``seat``'s best capture for its team (by the sampled ranks), its
        worth to our team and the station (index) it hit, -1 for none; a step next to an enemy
        flag counts as a capture worth ``EXPOSED``; with nothing worth doing, unchanged."""
        if not position.seat_masks[seat]:
            return position, 0.0, -1
        team = self.teams[seat]
        cells = position.cells
        enemies = sum(m for s, m in enumerate(position.seat_masks) if self.teams[s] != team)
        approach = self.enemy_flag_sides[team] & ~position.occupied
        best, best_gain = None, 0.0
        stepping = None
        for origin, mask in legal_moves(position, seat, self.teams, self.movement).items():
            hits = mask & enemies
            attacker = cells[origin]
            assert attacker is not None
            while hits:
                bit = hits & -hits
                hits ^= bit
                target = bit.bit_length() - 1
                gain = self._gain(position, attacker, origin, cells[target], target)
                if gain > best_gain:  # worth it before the answer: is it worth it after?
                    gain -= self._comeback(position, attacker, origin, target, enemies)
                if gain > best_gain:
                    best, best_gain = (origin, target), gain
            if stepping is None and mask & approach:
                stepping = (origin, ((mask & approach) & -(mask & approach)).bit_length() - 1)
        chosen = stepping if stepping and best_gain < EXPOSED else best
        if chosen is None:
            return position, 0.0, -1
        ids = self.board.stations
        after, gain = self.play(position, seat, (ids[chosen[0]], ids[chosen[1]]))
        return after, gain, chosen[1] if cells[chosen[1]] is not None else -1

    def _gain(
        self, position: Position, attacker: Piece, origin: int, defender: Piece | None, target: int
    ) -> float:
        """What hitting ``defender`` is worth to the attacker's team (as ``play`` counts it: a
        winner stuck in an HQ loses ``LOCKED`` of its value)."""
        assert defender is not None
        in_hq = bool(self.tables.hqs >> target & 1)
        outcome = self.rules.fight(attacker.rank, defender.rank, defender_in_hq=in_hq)
        theirs = self._loss(position, defender, target)
        if outcome == Outcome.ATTACKER:
            stuck = self.movement.hq_lock and in_hq and defender.rank != Rank.FLAG
            return theirs - (LOCKED * VALUE[attacker.rank] if stuck else 0.0)
        mine = self._loss(position, attacker, origin)
        return -mine if outcome == Outcome.DEFENDER else theirs - mine

    def _comeback(
        self, position: Position, attacker: Piece, origin: int, target: int, theirs: int
    ) -> float:
        """What the other side's (pieces on ``theirs``) best hit on ``attacker``, after it has
        taken the piece on ``target``, is worth to them (0 when it would not win there or none
        can strike)."""
        defender = position.cells[target]
        assert defender is not None
        if not self._beats(attacker, defender, target):
            return 0.0
        occupied = position.occupied & ~(1 << origin)
        hitters = self._hitters(position, target, theirs & ~(1 << target), occupied)
        best = 0.0
        while hitters:
            bit = hitters & -hitters
            hitters ^= bit
            index = bit.bit_length() - 1
            hitter = position.cells[index]
            assert hitter is not None
            best = max(best, self._gain(position, hitter, index, attacker, target))
        return best

    def _hitters(self, position: Position, target: int, pieces: int, occupied: int) -> int:
        """The pieces on ``pieces`` that can move onto ``target`` when ``occupied`` is taken:
        by a road, sliding straight along a rail or (engineers) flying over the rail network;
        each way runs the same both ways, so it is traced from ``target``."""
        t = self.tables
        movers = self._movers(position, pieces)
        reach = t.step[target]
        if t.rail >> target & 1:
            reach |= slide_mask(t, target, occupied) & ~position.flyers
            reach |= fly_mask(t, target, occupied) & position.flyers
        return reach & movers

    def _beats(self, attacker: Piece, defender: Piece, target: int) -> bool:
        """Whether ``attacker`` hitting ``defender`` on ``target`` wins (and stands there)."""
        in_hq = bool(self.tables.hqs >> target & 1)
        outcome = self.rules.fight(attacker.rank, defender.rank, defender_in_hq=in_hq)
        return outcome == Outcome.ATTACKER

    def _worth(self, piece: Piece, index: int) -> float:
        """A piece's value; in an HQ (but the flag) it can never move nor guard a way again,
        so it is worth only what a winner stuck there keeps: ``1 - LOCKED`` of it."""
        stuck = self.movement.hq_lock and self.tables.hqs >> index & 1 and piece.rank != Rank.FLAG
        return VALUE[piece.rank] * (1 - LOCKED if stuck else 1.0)

    def _loss(self, position: Position, piece: Piece, index: int) -> float:
        """What losing ``piece`` (on ``index``) of ``position`` costs its team: its worth, and
        ``SHOWN`` more for a seat's last 司令 while its flag is hidden (its death shows the
        flag: the enemies know where to go)."""
        shows = (
            piece.rank == Rank.FIELD_MARSHAL
            and self.rules.marshal_death_reveals_flag
            and piece.seat not in self.shown
            and position.count(piece.seat, Rank.FIELD_MARSHAL) == 1
        )
        return self._worth(piece, index) + (SHOWN if shows else 0.0)

    def danger(self, position: Position) -> float:
        """The threat to our flags: ``EXPOSED`` for each enemy piece next to them, ``REACH`` for
        each one a move from that, ``CLOSE`` for each two steps or less from there (``near``);
        and ``STRANDED`` for each piece short of three that a seat of ours can still move (with
        none, it is skipped out of the game)."""
        masks = position.seat_masks
        free = position.mobile & ~self.tables.hqs if self.movement.hq_lock else position.mobile
        short = sum(
            max(0, 3 - (m & free).bit_count())
            for s, m in enumerate(masks)
            if m and self.teams[s] == self.team
        )
        enemies = sum(m for s, m in enumerate(masks) if self.teams[s] != self.team)
        next_to, reaching = self.near(position, self.our_flag_sides, enemies)
        close_by = (self.our_flag_zone & self._movers(position, enemies)).bit_count()
        threat = EXPOSED * next_to + REACH * reaching + CLOSE * close_by
        return self.fear * threat + STRANDED * short

    def pressure(self, position: Position) -> float:
        """Our threat to the enemies' flags: ``EXPOSED`` for each of our pieces next to one,
        ``PRESS_FAR`` of ``REACH`` for each a move from that."""
        ours = sum(m for s, m in enumerate(position.seat_masks) if self.teams[s] == self.team)
        next_to, reaching = self.near(position, self.enemy_flag_sides[self.team], ours)
        return EXPOSED * next_to + PRESS_FAR * REACH * reaching

    def near(self, position: Position, sides: int, attackers: int) -> tuple[int, int]:
        """Of the pieces on ``attackers`` that can still move: how many stand on ``sides``
        (the stations next to some flags), and how many others can get there in one move
        (onto an empty station, or by beating the piece there)."""
        movers = self._movers(position, attackers)
        if not sides or not movers:
            return 0, 0
        seats = [s for s, m in enumerate(position.seat_masks) if m & movers]
        return (sides & movers).bit_count(), sum(self._reaching(position, s, sides) for s in seats)

    def _movers(self, position: Position, pieces: int) -> int:
        """The pieces on ``pieces`` that can still move (one in an HQ never will)."""
        movers = pieces & position.mobile
        return movers & ~self.tables.hqs if self.movement.hq_lock else movers

    def _reaching(self, position: Position, seat: int, sides: int) -> int:
        """How many of ``seat``'s pieces not yet on ``sides`` can get there in one move."""
        cells = position.cells
        count = 0
        for origin, mask in legal_moves(position, seat, self.teams, self.movement).items():
            if sides >> origin & 1 or not mask & sides:
                continue
            attacker = cells[origin]
            assert attacker is not None
            landing = mask & sides
            while landing:
                bit = landing & -landing
                landing ^= bit
                target = bit.bit_length() - 1
                held = cells[target]
                if held is None or self._beats(attacker, held, target):
                    count += 1
                    break
        return count


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _spread(values: list[float]) -> float:
    mean = _mean(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
