"""Bots: strength and thinking time. Prints figures, asserts nothing.

Usage: ``.venv/bin/python bench/bots.py [--matches 60] [--games 4]``

Strength: in 四国, a bot level on seats 0 and 2 against an opponent on 1 and 3, then the other way
round on the same deal (seat rotation, shared deals): the normal bot against random-move players,
against a greedy one-ply player (takes any piece it sees and beats, else moves at random), and
against the easy bot; the hard bot against the normal one. Win/draw/loss rates of the first side
with 95% Wilson intervals.
Time: whole bot games of 四国 and 乱战 at every level, every decision timed (median, p95, max),
the way the server runs them: the seat's view and its beliefs in, an action out. The server runs
these in worker processes, so they never block the event loop.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.arena import Bot, GreedyPlayer, Player, RandomPlayer, play
from engine.bot import LEVELS

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
    if result.reason in ("elimination", "surrender"):
        return "win" if first[0] in result.winners else "loss"
    return "draw"


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
    parser.add_argument("--games", type=int, default=4, help="timed games per variant and level")
    args = parser.parse_args()
    print(f"strength in 四国 ({args.matches} games each, seats rotated on shared deals):")
    for level, opponent in (
        ("normal", "random"),
        ("normal", "greedy"),
        ("normal", "easy"),
        ("hard", "normal"),
    ):
        strength(level, opponent, args.matches)
    print("targets: the normal bot beats random players in >= 95% and the greedy one in >= 65%")
    print("bot decision times (view and beliefs in, action out), one core:")
    for variant in ("siguo", "luanzhan"):
        for level in LEVELS:
            times: list[float] = []
            for seed in range(args.games):
                seats = range(4)
                play(variant, seed, {s: Bot(variant, s, level) for s in seats}, times)
            times.sort()
            p95 = times[int(len(times) * 0.95)]
            print(
                f"  {variant:<9} {level:<7} {len(times):6} decisions   "
                f"median {statistics.median(times) * 1000:6.2f} ms   p95 {p95 * 1000:6.2f} ms   "
                f"max {times[-1] * 1000:6.2f} ms",
                flush=True,
            )
    print("target: p95 under 300 ms at the normal level")


if __name__ == "__main__":
    main()
