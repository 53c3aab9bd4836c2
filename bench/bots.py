"""Bot thinking time: prints figures, asserts nothing.

Usage: ``.venv/bin/python bench/bots.py [--games 6]``

Plays whole bot games of 四国 and 乱战 and times every decision of every level (median, p95,
max), the way the server runs them: the seat's view and its beliefs in, an action out. The
server runs these in worker processes, so they never block the event loop; the target is a p95
well under the move clock (300 ms at the normal level).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine.beliefs import Beliefs
from engine.bot import LEVELS, choose_action


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    args = parser.parse_args()
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
