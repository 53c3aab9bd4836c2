"""Bots: strength and thinking time. Prints figures, asserts nothing.

Usage: ``.venv/bin/python bench/bots.py [--games 6] [--matches 40]``

Strength: the normal bot (seats 0 and 2, then 1 and 3 on the same deal: seat rotation, shared
deals) against random-move players and against a greedy one-ply player (takes any piece it can
see it beats, else a random move), in 四国; win/draw/loss rates with 95% Wilson intervals.
Time: whole bot games of 四国 and 乱战, every decision of every level timed (median, p95, max),
the way the server runs them: the seat's view and its beliefs in, an action out. The server runs
these in worker processes, so they never block the event loop.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine.beliefs import Beliefs
from engine.bot import LEVELS, attack_value, choose_action
from engine.sampling import random_action


def timed_game(variant: str, seed: int, level: str) -> list[float]:
    rng = random.Random(seed)
    state = engine.new_game(variant, seed=seed)
    beliefs = {s: Beliefs(variant, s) for s in state.variant.seats}
    times = []
    for step in range(3000):
        if state.phase == "finished":
            break
        action, seat = None, -1
        for seat in state.variant.seats:
            view = engine.view(state, seat)
            start = time.perf_counter()
            action = choose_action(view, rng, beliefs[seat].table(), level)
            if action is not None:
                times.append(time.perf_counter() - start)
                break
        if action is None:
            action = {"type": "timeout" if state.phase == "playing" else "deadline"}
        else:
            action = {**action, "seat": seat}
        action["now"] = min(state.deadline, float(step))
        state, events = engine.apply(state, engine.action_from_dict(action))
        if state.position is not None:
            for s, b in beliefs.items():
                b.follow((e.for_viewer(s) for e in events), engine.view(state, s))
    return times


def greedy(view: dict[str, object], rng: random.Random) -> tuple[str, str]:
    """One ply, what it sees only: the best sure gain, else a random legal move."""
    pieces = {p["station"]: p for p in view["pieces"]}  # type: ignore[attr-defined]
    moves = [(o, t) for o, ts in view["legal_moves"].items() for t in ts]  # type: ignore[attr-defined]
    best = max(
        moves,
        key=lambda m: (
            attack_value(pieces[m[0]].get("rank"), pieces[m[1]]["rank"], None)
            if m[1] in pieces and "rank" in pieces[m[1]]
            else 0.0,
            rng.random(),
        ),
    )
    return best


def match(seed: int, bots: tuple[int, ...], opponent: str) -> str:
    """One 四国 game: the normal bot on ``bots``, ``opponent`` on the other seats."""
    rng = random.Random(seed)
    state = engine.new_game("siguo", seed=seed)
    beliefs = {s: Beliefs("siguo", s) for s in bots}
    for step in range(4000):
        if state.phase == "finished":
            break
        action: engine.Action | None = None
        if state.phase == "playing" and state.to_move is not None and state.to_move not in bots:
            if opponent == "greedy":
                origin, target = greedy(engine.view(state, state.to_move), rng)
                action = engine.Move(state.to_move, origin, target, now=state.deadline)
            else:
                action = random_action(state, rng)
        else:
            for seat in bots:
                a = choose_action(engine.view(state, seat), rng, beliefs[seat].table())
                if a is not None:
                    a = {**a, "seat": seat, "now": min(state.deadline, float(step))}
                    action = engine.action_from_dict(a)
                    break
        state, events = engine.apply(state, action or random_action(state, rng))
        if state.position is not None:
            for s, b in beliefs.items():
                b.follow((e.for_viewer(s) for e in events), engine.view(state, s))
    assert state.result is not None
    if state.result.reason == "elimination":
        return "win" if bots[0] in state.result.winners else "loss"
    return "draw"


def wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return (0.0, 0.0)
    z, p = 1.96, k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--matches", type=int, default=40)
    args = parser.parse_args()
    print(f"strength of the normal bot in 四国 ({args.matches} games each, seats rotated):")
    for opponent in ("random", "greedy"):
        results = [
            match(seed // 2, (0, 2) if seed % 2 == 0 else (1, 3), opponent)
            for seed in range(args.matches)
        ]
        n = len(results)
        wins, draws, losses = (results.count(r) for r in ("win", "draw", "loss"))
        low, high = wilson(wins, n)
        print(
            f"  vs {opponent:<6}  win {wins / n:5.1%} (95% CI {low:.1%}-{high:.1%})  "
            f"draw {draws / n:5.1%}  loss {losses / n:5.1%}"
        )
    print("targets: beat random players in >= 95% of games and the greedy one in >= 65%")
    print("bot decision times (view and beliefs in, action out), one core:")
    for variant in ("siguo", "luanzhan"):
        for level in LEVELS:
            times = sorted(
                t for seed in range(args.games) for t in timed_game(variant, seed, level)
            )
            p95 = times[int(len(times) * 0.95)]
            print(
                f"  {variant:<9} {level:<7} {len(times):6} decisions   "
                f"median {statistics.median(times) * 1000:6.2f} ms   p95 {p95 * 1000:6.2f} ms   "
                f"max {times[-1] * 1000:6.2f} ms"
            )
    print("target: p95 under 300 ms at the normal level")


if __name__ == "__main__":
    main()
