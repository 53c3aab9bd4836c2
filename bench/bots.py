"""Bots: strength and thinking time. Prints figures, asserts nothing.

Usage: ``.venv/bin/python bench/bots.py [--matches 60] [--games 1]``, or the gate:
``.venv/bin/python bench/bots.py gate [--games 200] [--variant siguo] [--level normal]
[--against baseline|easy|normal|hard] [--seed 0] [--budget-scale 0]``

Strength: in 四国, a bot level on seats 0 and 2 against an opponent on 1 and 3, then the other way
round on the same deal (seat rotation, shared deals): the normal bot against random-move players,
against a greedy one-ply player (takes any piece it sees and beats, else moves at random), and
against the easy bot; the hard bot against the normal one. Win/draw/loss rates of the first side
with 95% Wilson intervals.
Thinking time: 四国 and 乱战 games in which seat 0 thinks the way the server's bots do, in worker
processes within its level's budget (``engine.bot.thinking_deadline``); every move timed from
asking to answer (median, p95, max) against the budget.

Gate: today's bot (``engine``) against the frozen baseline (``bench/baseline_bot.py``) at one
level, or against today's bot at another level (``--against``), on shared deals, in every
variant, each deal played once per side or seat so that neither bot gets the better deals or
seats (``pairing``):
- two fixed teams (四国, 乱战, 二人, 翻棋): each deal twice, the new bot on team 0 and then on
  team 1;
- 三打一: each deal twice, the new bot on the banker's side (one seat) against the old one on the
  three idle seats, then the other way round; the old bot bids on both plays, so the same seat
  becomes banker, and the bots take their seats by role once it is known (``ByRole``); the
  banker's side's own win rate is shown too (the variant's imbalance, which the pairing cancels);
- 三国 (every seat alone): each deal three times, the new bot on each seat in turn and the old
  one on the other two. A game has at most one winner (the last seat standing; a drawn game has
  none, and a seat already out has lost), so equal strength would win a third of the games
  that have a winner: that is the figure the new bot's win rate is shown against, with no
  score, Elo or SPRT (three players alone, not a duel).
The deals are spread over a pool of worker processes: wins, draws and losses of the new bot,
its win rate with a 95% Wilson interval, each side's time per move (median, p95) and, but in
三国, its score (draws count half; equal strength 50%) as Elo and an SPRT that may stop early
(after ``--min-games``). Bots take their levels' fixed samples (the same games for the same
seeds) unless ``--budget-scale`` (and ``--against-budget-scale``) give them that share of
their levels' thinking time.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.baseline_bot import FROZEN_FROM, BaselineBot
from engine.arena import Bot, GreedyPlayer, Player, RandomPlayer, play
from engine.bot import LEVEL, LEVELS, decide, thinking_deadline
from engine.outcome import GameResult, SeatOutcome
from engine.variants import VARIANTS, get_variant

OPPONENTS: dict[str, Callable[[int], Player]] = {
    "random": lambda seat: RandomPlayer(),
    "greedy": lambda seat: GreedyPlayer(),
    "easy": lambda seat: Bot("siguo", seat, "easy"),
    "normal": lambda seat: Bot("siguo", seat, "normal"),
}


def match(seed: int, level: str, opponent: str, first: tuple[int, ...]) -> str:
    """One 四国 game of ``level`` on the ``first`` seats against ``opponent``: win, draw, loss."""
    players = {
        seat: Bot("siguo", seat, level) if seat in first else OPPONENTS[opponent](seat)
        for seat in range(4)
    }
    result = play("siguo", seed, players).result
    assert result is not None
    return outcome(result, first)


def outcome(result: GameResult, seats: tuple[int, ...]) -> str:
    """A game's result for the side on ``seats``: win, draw or loss (in 三国 a seat already out
    when the game is drawn has lost)."""
    if set(seats) & set(result.winners):
        return "win"
    if not result.winners and any(result.seats[s].outcome != SeatOutcome.LOSS for s in seats):
        return "draw"
    return "loss"


def wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return (0.0, 0.0)
    z, p = 1.96, k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def strength(level: str, opponent: str, matches: int) -> None:
    results = [
        match(seed // 2, level, opponent, (0, 2) if seed % 2 == 0 else (1, 3))
        for seed in range(matches)
    ]
    n = len(results)
    wins, draws, losses = (results.count(r) for r in ("win", "draw", "loss"))
    low, high = wilson(wins, n)
    print(
        f"  {level:<6} vs {opponent:<6}  win {wins / n:6.1%} (95% CI {low:.1%}-{high:.1%})  "
        f"draw {draws / n:5.1%}  loss {losses / n:5.1%}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=60, help="games per pairing")
    parser.add_argument("--games", type=int, default=1, help="timed games per variant and level")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    commands = parser.add_subparsers(dest="command")
    g = commands.add_parser("gate", help="the new bot against the frozen baseline")
    g.add_argument(
        "--games", type=int, default=200, help="games at most (two per deal; 三国 three)"
    )
    g.add_argument("--variant", default="siguo", choices=tuple(VARIANTS))
    g.add_argument("--level", default="normal", choices=LEVELS)
    g.add_argument(
        "--against",
        default="baseline",
        choices=("baseline", *LEVELS),
        help="the frozen baseline at the same level, or today's bot at this level",
    )
    g.add_argument(
        "--budget-scale",
        type=float,
        default=0.0,
        help="the new bot thinks this share of its level's budget a move (0: fixed samples)",
    )
    g.add_argument(
        "--against-budget-scale",
        type=float,
        default=0.0,
        help="the same for today's bot at level --against",
    )
    g.add_argument("--seed", type=int, default=0, help="the first deal's seed")
    g.add_argument("--workers", type=int, default=2, help="worker processes")
    g.add_argument("--elo0", type=float, default=0.0)
    g.add_argument("--elo1", type=float, default=50.0)
    g.add_argument("--alpha", type=float, default=0.05)
    g.add_argument("--beta", type=float, default=0.05)
    g.add_argument("--min-games", type=int, default=20, help="before the SPRT may stop")
    args = parser.parse_args()
    if args.command == "gate":
        gate(args)
        return
    print(f"strength in 四国 ({args.matches} games each, seats rotated on shared deals):")
    for level, opponent in (
        ("normal", "random"),
        ("normal", "greedy"),
        ("normal", "easy"),
        ("hard", "normal"),
    ):
        strength(level, opponent, args.matches)
    print("targets: the normal bot beats random players in >= 95% and the greedy one in >= 65%")
    budgets(args.games, args.workers)


# --- thinking time: each level within its budget, in worker processes --------------------------


class PooledBot(Bot):
    """A bot that thinks as at a table: its decision is sent to a pool of worker processes with
    the deadline ``thinking_deadline`` gives at the moment it is asked (so time spent waiting
    for a free worker counts), and the time from asking to the answer goes into ``times``."""

    def __init__(
        self, variant: str, seat: int, level: str, pool: ProcessPoolExecutor, times: list[float]
    ) -> None:
        super().__init__(variant, seat, level)
        self.pool, self.times = pool, times

    def decide(self, view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
        self.beliefs.follow(self.unread, view)
        self.unread = []
        asked = time.time()
        until = thinking_deadline(self.level, asked, None)  # the arena's clock is simulated
        beliefs = self.beliefs
        job = (view, rng.randrange(2**31), beliefs.table(), self.level, beliefs.recent)
        action = self.pool.submit(decide, *job, until, sorted(beliefs.proven)).result()
        if action is not None and action["type"] in ("move", "flip"):
            self.times.append(time.time() - asked)
        return action


def budgets(games: int, workers: int) -> None:
    """Per variant and level: seat 0 a bot that thinks in worker processes as at a table (the
    others the normal bot on its fixed samples), every move's time from asking to answer."""
    print(f"thinking time per move, asked to answered, in {workers} worker processes:")
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pool.submit(
            decide, {"viewer": 0, "phase": "over"}, 0
        ).result()  # started before the clock runs
        for variant in ("siguo", "luanzhan"):
            for level in LEVELS:
                times: list[float] = []
                for seed in range(games):
                    players: dict[int, Player] = {s: Bot(variant, s) for s in range(1, 4)}
                    players[0] = PooledBot(variant, 0, level, pool, times)
                    play(variant, seed, players)
                budget = LEVEL[level].budget
                print(
                    f"  {variant:<9} {level:<7} budget {budget:4.1f} s  {len(times):4} moves  "
                    f"median {statistics.median(times) * 1000:7.1f} ms  "
                    f"p95 {percentile(times, 0.95) * 1000:7.1f} ms  "
                    f"max {max(times) * 1000:7.1f} ms  "
                    f"p95 within budget + 10%: {percentile(times, 0.95) <= budget * 1.1 + 0.05}",
                    flush=True,
                )
    print("target: p95 within each level's budget plus 10% (easy: instant, 50 ms allowed)")


# --- the gate: the new bot against the frozen baseline ------------------------------------------


class Timed:
    """A player whose every move (or flip) is timed into ``times``."""

    def __init__(self, player: Player, times: list[float]) -> None:
        self.player, self.times = player, times

    def observe(self, event: Mapping[str, Any] | None) -> None:
        self.player.observe(event)

    def decide(self, view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
        start = time.perf_counter()
        action = self.player.decide(view, rng)
        if action is not None and action["type"] in ("move", "flip"):
            self.times.append(time.perf_counter() - start)
        return action


class ByRole:
    """三打一: a seat whose player is known only once the bidding has made a banker. The old bot
    bids (on both plays of a deal, so the same seat becomes banker on both); from then on the
    new bot plays the seat if it is on the new bot's side (the banker's with ``new_banks``, else
    the idle players'), the old one if not. Both follow every event all along."""

    def __init__(self, seat: int, new: Player, old: Player, new_banks: bool) -> None:
        self.seat, self.new, self.old, self.new_banks = seat, new, old, new_banks

    def observe(self, event: Mapping[str, Any] | None) -> None:
        self.new.observe(event)
        self.old.observe(event)

    def decide(self, view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
        banker = (view.get("deal") or {}).get("banker")
        if banker is not None and (banker == self.seat) == self.new_banks:
            return self.new.decide(view, rng)
        return self.old.decide(view, rng)


@dataclass
class Game:
    result: str  # the new bot's: win, draw or loss
    new: list[float]  # seconds per move of each side
    old: list[float]
    decided: bool  # somebody won (三国: the equal-strength expectation counts these)
    side: str = ""  # 三打一: the new bot's side, banker or idle


@dataclass(frozen=True)
class Sides:
    """The gate's two bots: the new one (today's, at ``level``) and the old one (the baseline
    at the same level, or today's bot at level ``against``), each with its share of its
    level's budget (0: its fixed samples)."""

    variant: str
    level: str
    against: str = "baseline"
    budget_scale: float = 0.0
    against_budget_scale: float = 0.0

    def new(self, seat: int, times: list[float]) -> Player:
        return Timed(Bot(self.variant, seat, self.level, self.budget_scale), times)

    def old(self, seat: int, times: list[float]) -> Player:
        if self.against == "baseline":
            return Timed(BaselineBot(self.variant, seat, self.level), times)
        return Timed(Bot(self.variant, seat, self.against, self.against_budget_scale), times)

    def play(self, seed: int, ours: tuple[int, ...]) -> Game:
        """Deal ``seed`` with the new bot on the seats ``ours``, the old one on the others."""
        new: list[float] = []
        old: list[float] = []
        seats = get_variant(self.variant).seats
        players = {s: self.new(s, new) if s in ours else self.old(s, old) for s in seats}
        result = play(self.variant, seed, players).result
        assert result is not None
        return Game(outcome(result, ours), new, old, bool(result.winners))


def team_games(sides: Sides, seed: int) -> list[Game]:
    """Two fixed teams (四国, 乱战, 二人, 翻棋): the new bot on team 0, then on team 1."""
    teams = get_variant(sides.variant).teams
    return [sides.play(seed, tuple(s for s, t in enumerate(teams) if t == k)) for k in (0, 1)]


def seat_games(sides: Sides, seed: int) -> list[Game]:
    """Every seat alone (三国): the new bot on each seat in turn, the old one on the others."""
    return [sides.play(seed, (seat,)) for seat in get_variant(sides.variant).seats]


def banker_games(sides: Sides, seed: int) -> list[Game]:
    """三打一: the new bot on the banker's side and the old one on the idle side, then the other
    way round, the same seat banker on both (``ByRole``)."""
    seats = get_variant(sides.variant).seats
    games, bankers = [], set()
    for new_banks in (True, False):
        new: list[float] = []
        old: list[float] = []
        players = {s: ByRole(s, sides.new(s, new), sides.old(s, old), new_banks) for s in seats}
        final = play(sides.variant, seed, players)
        assert final.result is not None and final.deal.banker is not None
        banker = final.deal.banker
        bankers.add(banker)
        ours = (banker,) if new_banks else tuple(s for s in seats if s != banker)
        side = "banker" if new_banks else "idle"
        games.append(Game(outcome(final.result, ours), new, old, bool(final.result.winners), side))
    assert len(bankers) == 1, f"deal {seed}: the bidding made different bankers"
    return games


PAIRINGS: dict[str, Callable[[Sides, int], list[Game]]] = {
    "teams": team_games,
    "seats": seat_games,
    "banker": banker_games,
}
PAIRED = {
    "teams": "teams swapped",
    "seats": "the new bot on each seat in turn",
    "banker": "the new bot banker, then idle",
}


def pairing(variant: str) -> str:
    """How the gate pairs the bots in ``variant``: teams, seats (every seat alone) or banker."""
    v = get_variant(variant)
    if v.dealing == "sandayi":
        return "banker"
    if sorted(set(v.teams)) == [0, 1]:
        return "teams"
    if len(set(v.teams)) == len(v.teams):
        return "seats"
    raise SystemExit(f"the gate has no pairing for {variant}")


def gate_deal(
    variant: str,
    level: str,
    seed: int,
    against: str = "baseline",
    budget_scale: float = 0.0,
    against_budget_scale: float = 0.0,
) -> list[Game]:
    """Deal ``seed`` played by ``variant``'s pairing, the new bot at ``level`` against the
    baseline or today's bot at level ``against``: two games (teams, banker), or one a seat."""
    sides = Sides(variant, level, against, budget_scale, against_budget_scale)
    return PAIRINGS[pairing(variant)](sides, seed)


def tally(games: list[Game]) -> tuple[int, int, int]:
    """The new bot's wins, draws and losses."""
    results = [g.result for g in games]
    return results.count("win"), results.count("draw"), results.count("loss")


def expected_score(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def sprt_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of Elo ``elo1`` against ``elo0`` (the normal approximation of
    the generalised SPRT over game scores 1, 1/2, 0)."""
    n = wins + draws + losses
    if n == 0:
        return 0.0
    score = (wins + draws / 2) / n
    var = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / n
    var = max(var, 1e-3)  # all alike so far: not certainty
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * (s1 - s0) * (2 * score - s0 - s1) / (2 * var)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0


def sprt_bounds(args: argparse.Namespace) -> tuple[float, float]:
    """The LLR at or below which H0 is accepted, and at or above which H1 is."""
    return math.log(args.beta / (1 - args.alpha)), math.log((1 - args.beta) / args.alpha)


def sprt_verdict(llr: float, args: argparse.Namespace) -> str:
    """What the SPRT accepts at ``llr``: H0, H1, or nothing yet ("")."""
    lower, upper = sprt_bounds(args)
    h0, h1 = f"H0 ({args.elo0:+g} Elo)", f"H1 ({args.elo1:+g} Elo)"
    if llr <= lower:
        return f"{h0} accepted against {h1}"
    if llr >= upper:
        return f"{h1} accepted against {h0}"
    return ""


def gate(args: argparse.Namespace) -> None:
    kind = pairing(args.variant)
    other = f"the baseline frozen from {FROZEN_FROM}"
    if args.against != "baseline":
        other = f"today's bot at level {args.against}"
    per_deal = len(get_variant(args.variant).seats) if kind == "seats" else 2
    deals = [args.seed + k for k in range(-(-args.games // per_deal))]
    sprt = kind != "seats"  # 三国: three players alone, no duel to score
    lower, upper = sprt_bounds(args)
    test = (
        f"SPRT elo0={args.elo0:g} elo1={args.elo1:g} alpha={args.alpha:g} beta={args.beta:g} "
        f"(LLR bounds {lower:.2f}, {upper:.2f})"
        if sprt
        else "no SPRT (three players, not a duel): every game played"
    )
    print(
        f"gate: {args.variant} {args.level}, the new bot against {other}: "
        f"{len(deals)} deals x {per_deal} ({PAIRED[kind]}), seeds {deals[0]}-{deals[-1]}, "
        f"{args.workers} workers, budgets x{args.budget_scale:g} (new) and "
        f"x{args.against_budget_scale:g}; {test}",
        flush=True,
    )
    games: list[Game] = []
    stopped = False  # by the SPRT, before every deal was played
    shown = 0
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        pending: set[Future[list[Game]]] = {
            pool.submit(
                gate_deal,
                args.variant,
                args.level,
                seed,
                args.against,
                args.budget_scale,
                args.against_budget_scale,
            )
            for seed in deals
        }
        while pending and not stopped:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                games += future.result()
            wins, draws, losses = tally(games)
            llr = sprt_llr(wins, draws, losses, args.elo0, args.elo1)
            if len(games) // 20 > shown // 20 or not pending:
                shown = len(games)
                line = f"  {len(games):4} games  {wins}-{draws}-{losses}"
                print(line + (f"  LLR {llr:+.2f}" if sprt else ""), flush=True)
            early = sprt and bool(pending) and len(games) >= args.min_games
            stopped = early and sprt_verdict(llr, args) != ""
        for future in pending:
            future.cancel()
    report(games, kind, stopped, args, time.perf_counter() - started)


def report(
    games: list[Game], kind: str, stopped: bool, args: argparse.Namespace, seconds: float
) -> None:
    n = len(games)
    wins, draws, losses = tally(games)
    low, high = wilson(wins, n)
    print(f"result after {n} games ({seconds:.0f} s): new bot W-D-L {wins}-{draws}-{losses}")
    print(f"  win rate {wins / n:.1%} (95% Wilson CI {low:.1%}-{high:.1%})")
    if kind == "seats":
        # one winner at most (the last seat standing): with the new bot on each seat in turn,
        # equal strength wins a third of the games that have a winner
        decided = sum(g.decided for g in games)
        d_low, d_high = wilson(wins, decided)
        print(
            f"  equal strength would win {decided / n / 3:.1%} (a third of the {decided} games "
            f"with a winner); of those the new bot won {wins / max(decided, 1):.1%} "
            f"(95% Wilson CI {d_low:.1%}-{d_high:.1%})"
        )
        print("  no score, Elo or SPRT: three players alone, not a duel")
    else:
        score = (wins + draws / 2) / n
        var = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / n
        spread = math.sqrt(var / n)

        def elo(s: float) -> str:
            value = -400 * math.log10(1 / min(max(s, 1e-6), 1 - 1e-6) - 1)
            return f"{value:+.0f}" if round(value) else "0"

        s_low, s_high = score - 1.96 * spread, score + 1.96 * spread
        print(
            f"  score {score:.1%} (draws half; 95% CI {s_low:.1%}-{s_high:.1%}; equal strength "
            f"50%), Elo {elo(score)} ({elo(s_low)} to {elo(s_high)})"
        )
        llr = sprt_llr(wins, draws, losses, args.elo0, args.elo1)
        verdict = sprt_verdict(llr, args) or "undecided"
        when = f"stopped after {n} games" if stopped else "not stopped early"
        print(f"  SPRT: LLR {llr:+.2f}, {verdict} ({when})")
    if kind == "banker":
        for side in ("banker", "idle"):
            w, d, lost = tally([g for g in games if g.side == side])
            print(f"  the new bot as {side}: W-D-L {w}-{d}-{lost}")
        banker = sum(g.result == ("win" if g.side == "banker" else "loss") for g in games)
        b_low, b_high = wilson(banker, n)
        print(
            f"  the banker's side won {banker} of {n} ({banker / n:.1%}, 95% Wilson CI "
            f"{b_low:.1%}-{b_high:.1%}), draws {draws}: the variant's own imbalance, which "
            f"the pairing cancels"
        )
    for side in ("new", "old"):
        times = [t for g in games for t in getattr(g, side)]
        print(
            f"  {side} bot: {len(times)} moves, median {statistics.median(times) * 1000:.1f} ms, "
            f"p95 {percentile(times, 0.95) * 1000:.1f} ms per move"
        )


if __name__ == "__main__":
    main()
