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
level, or against today's bot at another level (``--against``), on shared deals with the teams
swapped (each deal played twice, the new bot on one team and then on the other), the deals
spread over a pool of worker processes: wins, draws and losses of the new bot, its win rate
with a 95% Wilson interval, its score (draws count half) as Elo, an SPRT that may stop early,
and each side's time per move (median, p95). Bots take their levels' fixed samples (the same
games for the same seeds) unless ``--budget-scale`` (and ``--against-budget-scale``) give them
that share of their levels' thinking time.
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
from engine.outcome import GameResult
from engine.variants import get_variant

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
    """A game's result for the side on ``seats``: win, draw or loss."""
    if result.reason.is_draw or not result.winners:
        return "draw"
    return "win" if set(seats) & set(result.winners) else "loss"


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
    g.add_argument("--games", type=int, default=200, help="games at most (two per deal)")
    g.add_argument("--variant", default="siguo", help="siguo, luanzhan, liangguo or fanqi")
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
        job = (view, rng.randrange(2**31), self.beliefs.table(), self.level, self.beliefs.recent)
        action = self.pool.submit(decide, *job, until).result()
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


@dataclass
class Game:
    result: str  # the new bot's: win, draw or loss
    new: list[float]  # seconds per move of each side
    old: list[float]


def gate_teams(variant: str) -> tuple[int, ...]:
    """The seats' teams, for variants of two fixed teams (四国, 乱战, 二人, 翻棋)."""
    teams = get_variant(variant).teams
    if sorted(set(teams)) != [0, 1]:
        raise SystemExit(f"the gate plays two fixed teams: not {variant}")
    return teams


def gate_deal(
    variant: str,
    level: str,
    seed: int,
    against: str = "baseline",
    budget_scale: float = 0.0,
    against_budget_scale: float = 0.0,
) -> list[Game]:
    """Deal ``seed`` played twice: the new bot on team 0 against the other (the baseline, or
    today's bot at level ``against``), then on team 1."""
    teams = gate_teams(variant)
    games = []
    for new_team in (0, 1):
        new: list[float] = []
        old: list[float] = []
        players: dict[int, Player] = {
            seat: Timed(Bot(variant, seat, level, budget_scale), new)
            if team == new_team
            else Timed(opponent(variant, seat, level, against, against_budget_scale), old)
            for seat, team in enumerate(teams)
        }
        result = play(variant, seed, players).result
        assert result is not None
        ours = tuple(s for s, t in enumerate(teams) if t == new_team)
        games.append(Game(outcome(result, ours), new, old))
    return games


def opponent(variant: str, seat: int, level: str, against: str, budget_scale: float) -> Player:
    if against == "baseline":
        return BaselineBot(variant, seat, level)
    return Bot(variant, seat, against, budget_scale)


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


def gate(args: argparse.Namespace) -> None:
    gate_teams(args.variant)
    other = f"the baseline frozen from {FROZEN_FROM}"
    if args.against != "baseline":
        other = f"today's bot at level {args.against}"
    deals = [args.seed + k for k in range((args.games + 1) // 2)]
    lower = math.log(args.beta / (1 - args.alpha))
    upper = math.log((1 - args.beta) / args.alpha)
    print(
        f"gate: {args.variant} {args.level}, the new bot against {other}: "
        f"{len(deals)} deals x 2 (teams swapped), seeds {deals[0]}-{deals[-1]}, "
        f"{args.workers} workers, budgets x{args.budget_scale:g} (new) and "
        f"x{args.against_budget_scale:g}; SPRT elo0={args.elo0:g} elo1={args.elo1:g} "
        f"alpha={args.alpha:g} beta={args.beta:g} (LLR bounds {lower:.2f}, {upper:.2f})",
        flush=True,
    )
    games: list[Game] = []
    verdict = "undecided"
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
        while pending and verdict == "undecided":
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                games += future.result()
            wins, draws, losses = tally(games)
            llr = sprt_llr(wins, draws, losses, args.elo0, args.elo1)
            if len(games) % 20 < 2 or not pending:
                print(
                    f"  {len(games):4} games  {wins}-{draws}-{losses}  LLR {llr:+.2f}", flush=True
                )
            if len(games) >= args.min_games and llr <= lower:
                verdict = f"H0 ({args.elo0:+g} Elo) accepted against H1 ({args.elo1:+g} Elo)"
            elif len(games) >= args.min_games and llr >= upper:
                verdict = f"H1 ({args.elo1:+g} Elo) accepted against H0 ({args.elo0:+g} Elo)"
        for future in pending:
            future.cancel()
    report(games, verdict, args, time.perf_counter() - started)


def report(games: list[Game], verdict: str, args: argparse.Namespace, seconds: float) -> None:
    n = len(games)
    wins, draws, losses = tally(games)
    low, high = wilson(wins, n)
    score = (wins + draws / 2) / n
    var = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / n
    spread = math.sqrt(var / n)

    def elo(s: float) -> str:
        value = -400 * math.log10(1 / min(max(s, 1e-6), 1 - 1e-6) - 1)
        return f"{value:+.0f}" if round(value) else "0"

    print(f"result after {n} games ({seconds:.0f} s): new bot W-D-L {wins}-{draws}-{losses}")
    print(f"  win rate {wins / n:.1%} (95% Wilson CI {low:.1%}-{high:.1%})")
    s_low, s_high = score - 1.96 * spread, score + 1.96 * spread
    print(
        f"  score {score:.1%} (draws half; 95% CI {s_low:.1%}-{s_high:.1%}), "
        f"Elo {elo(score)} ({elo(s_low)} to {elo(s_high)})"
    )
    llr = sprt_llr(wins, draws, losses, args.elo0, args.elo1)
    print(f"  SPRT: LLR {llr:+.2f}, {verdict}")
    for side in ("new", "old"):
        times = [t for g in games for t in getattr(g, side)]
        print(
            f"  {side} bot: {len(times)} moves, median {statistics.median(times) * 1000:.1f} ms, "
            f"p95 {percentile(times, 0.95) * 1000:.1f} ms per move"
        )


if __name__ == "__main__":
    main()
