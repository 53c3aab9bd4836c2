"""The garbage collector's young pass over running games: prints figures, asserts nothing.

Usage: ``.venv/bin/python bench/collector.py [--games 150] [--moves 150] [--rounds 9]``

A server holds the current state of every running game, and every move makes that state anew,
so at each young pass of the collector those states are young and it goes through all of them
(its passes stall every table at once: ``server/app.py``). This plays ``--games`` random 四国
games ``--moves`` actions into play, freezes everything made so far (as the server does after
start-up), then for each round makes one move in every game and times one young pass
(``gc.collect(0)``): once with the states' action logs as the engine keeps them
(``engine.state.ActionLog``: the states of a game share one list) and once with each new
state's log copied into a tuple of every action, as states held them before. Median of the
rounds, both in one run, and their ratio.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine.sampling import random_action
from engine.state import ActionLog


def running_games(count: int, moves: int) -> list[tuple[engine.GameState, random.Random]]:
    """``count`` random 四国 games, each ``moves`` actions into play (or at its last state in
    play, if it ended sooner), with the generator that plays them on."""
    games = []
    for seed in range(count):
        rng = random.Random(seed)
        state = engine.new_game("siguo", seed=str(seed))
        last = state
        while state.phase != "finished" and (state.phase != "playing" or state.total_moves < moves):
            last = state
            state, _ = engine.apply(state, random_action(state, rng))
        games.append((state if state.phase == "playing" else last, rng))
    return games


def as_tuples(state: engine.GameState) -> engine.GameState:
    """The state with its log as a tuple of every action, as states held it before."""
    return dataclasses.replace(state, log=tuple(state.log))  # type: ignore[arg-type]


def young_pass_ms(games: list[tuple[engine.GameState, random.Random]]) -> float:
    """Make one move in every game, then time the young pass that follows (milliseconds).
    A game whose state holds its log as a tuple goes on with it as a tuple."""
    for n, (state, rng) in enumerate(games):
        if state.phase == "playing":
            as_tuple = isinstance(state.log, tuple)
            if as_tuple:
                state = dataclasses.replace(state, log=ActionLog(state.log))
            state, _ = engine.apply(state, random_action(state, rng))
            if as_tuple:
                state = as_tuples(state)
        games[n] = state, rng
    start = time.perf_counter()
    gc.collect(0)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--moves", type=int, default=150, help="actions into play")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    games = running_games(args.games, args.moves)
    logs = statistics.median(len(state.log) for state, _ in games)
    # the same games, their logs as tuples
    copies = [(as_tuples(s), random.Random()) for s, _ in games]
    for (_, rng), (_, copy) in zip(games, copies, strict=True):
        copy.setstate(rng.getstate())
    gc.collect()
    gc.freeze()
    gc.disable()  # only the passes timed here
    shared: list[float] = []
    tuples: list[float] = []
    for _ in range(args.rounds):  # alternated, so that the machine's drift hits both alike
        shared.append(young_pass_ms(games))
        tuples.append(young_pass_ms(copies))
    a, b = statistics.median(shared), statistics.median(tuples)
    print(f"{args.games} running 四国 games, median {logs:.0f} actions in their logs")
    print("young pass after one move in every game (median of rounds):")
    print(f"  logs as tuples of every action         {b:6.2f} ms")
    print(f"  one shared list per game (ActionLog) {a:6.2f} ms   {b / a:.1f}x shorter")


if __name__ == "__main__":
    main()
