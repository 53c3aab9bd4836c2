"""Move-generation benchmark: prints figures, asserts nothing.

Usage: ``.venv/bin/python bench/engine.py [--positions 60] [--repeat 300] [--games 20] [--views 20]
[--views-only]``

Positions are typical mid-game 四国 positions: four auto-deployed armies after 40-240 random
legal moves with combat (50-95 pieces left). For the side to move it times
- all legal moves of the seat, as ``{origin: destination mask}`` (the engine's native form) and
  as a list of ``(origin, target)`` id pairs;
- one piece's destinations, through the public façade ``engine.destinations`` (from a
  ``{station: (seat, rank)}`` dict) and on a prepared ``Position``;
and, for scale, a seat's moves through the slow, literal reference generator of the test suite.
Figures are medians over positions of the mean time per call, on one core.

Then views: ``engine.view`` of mid-game states of every variant (real games through
``engine.apply``: the defaults before play, then 40-240 random legal moves, or flips, with the
variant's default rules; 四国 once more with team engineer scouting, whose private reveals the
view looks through), against the plain view it replaced (``tests.engine.view_reference``), for
the seat to move (which also gets its legal moves), the other seats and a spectator; and per
view when every seat and a spectator look at a new state once, as the server does after every
action (the view's per-position cache starts cold).

Then whole games: random playouts of every variant through ``engine.apply`` (the defaults before
play — automatic layouts, picks, bids — then uniformly random legal moves, or flips, until the
game ends): games per second and microseconds per ``apply``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine.movement import destination_mask, friendly_mask, move_tables
from engine.sampling import random_action, random_position
from tests.engine.reference import reference_destinations
from tests.engine.view_reference import reference_view

# The fastest public pure-Python 四国 move generator we know of (DEVELOPERS' guide), same machine.
PUBLIC_BEST_SEAT_US = 78.0
PUBLIC_BEST_PIECE_US = 10.0


def per_call_us(calls: Sequence[Callable[[], object]], repeat: int) -> float:
    """Median over ``calls`` of the mean time of one call, in microseconds."""
    times = []
    for call in calls:
        call()
        start = time.perf_counter_ns()
        for _ in range(repeat):
            call()
        times.append((time.perf_counter_ns() - start) / repeat / 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--views", type=int, default=20, help="mid-game states per variant")
    parser.add_argument("--views-only", action="store_true", help="time views only")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    if args.views_only:
        view_benchmark(args.views, max(1, args.repeat // 6))
        return

    v = engine.get_variant("siguo")
    t = move_tables(v.board)
    samples = [
        random_position("siguo", seed, 40 + seed * 200 // args.positions)
        for seed in range(args.positions)
    ]
    pieces_left = [bin(p.occupied).count("1") for p, _ in samples]
    moves = [len(engine.legal_move_list(p, s, v.teams)) for p, s in samples]
    print(
        f"{len(samples)} mid-game 四国 positions: {min(pieces_left)}-{max(pieces_left)} pieces "
        f"(median {statistics.median(pieces_left):.0f}), "
        f"{statistics.median(moves):.0f} legal moves for the side to move (median)"
    )

    seat_masks = per_call_us(
        [partial(engine.legal_moves, p, s, v.teams) for p, s in samples], args.repeat
    )
    seat_pairs = per_call_us(
        [partial(engine.legal_move_list, p, s, v.teams) for p, s in samples], args.repeat
    )

    # one movable piece of the side to move per position, on rail where possible
    single_facade: list[Callable[[], object]] = []
    single_position: list[Callable[[], object]] = []
    for p, s in samples:
        mine = [sid for sid in p.stations_of(s) if engine.destinations("siguo", as_dict(p), sid)]
        rail = [sid for sid in mine if v.board.station(sid).rail] or mine
        origin = rail[len(rail) // 2]
        d = as_dict(p)
        index = v.board.station(origin).index
        friends = friendly_mask(p, s, v.teams)
        single_facade.append(partial(engine.destinations, "siguo", d, origin))
        single_position.append(partial(destination_mask, t, p, index, friends))
    piece_facade = per_call_us(single_facade, args.repeat)
    piece_position = per_call_us(single_position, args.repeat)
    seat_reference = per_call_us(
        [partial(reference_seat, as_dict(p), s, v.teams) for p, s in samples],
        max(1, args.repeat // 10),
    )

    def row(name: str, us: float, best: float | None = None) -> None:
        ratio = f"   {best / us:5.1f}x faster than the public best" if best else ""
        print(f"  {name:<52} {us:8.2f} µs  {1e6 / us:>10,.0f}/s{ratio}")

    print("all legal moves of a seat:")
    row("legal_moves  ({origin: destination mask})", seat_masks, PUBLIC_BEST_SEAT_US)
    row("legal_move_list  ([(origin, target), ...])", seat_pairs, PUBLIC_BEST_SEAT_US)
    print("one piece's destinations:")
    row("destinations(variant, pieces dict, origin)  façade", piece_facade, PUBLIC_BEST_PIECE_US)
    row("destination_mask(position, origin)", piece_position, PUBLIC_BEST_PIECE_US)
    print("for scale:")
    row("a seat's moves by the slow reference generator", seat_reference)
    print(f"  legal_move_list vs slow reference: {seat_reference / seat_pairs:.1f}x faster")
    print(
        f"target: a seat's legal moves under 200 µs (median): "
        f"{'met' if seat_pairs < 200 else 'NOT met'}"
    )

    view_benchmark(args.views, max(1, args.repeat // 6))

    print(f"random playouts ({args.games} games per variant):")
    for variant in sorted(engine.VARIANTS):
        start = time.perf_counter()
        played, in_apply = 0, 0.0
        for seed in range(args.games):
            n, seconds = random_game(variant, seed)
            played += n
            in_apply += seconds
        elapsed = time.perf_counter() - start
        print(
            f"  {variant:<9} {args.games / elapsed:6.1f} games/s   "
            f"{played / args.games:5.0f} actions/game   {in_apply / played * 1e6:6.1f} µs per apply"
        )
    print("target: at least 10 complete random 四国 games per second")


VIEW_CASES: list[tuple[str, dict[str, str]]] = [
    ("siguo", {}),
    ("siguo", {"engineer_scouting": "team"}),
    ("luanzhan", {}),
    ("sandayi", {}),
    ("sanguo", {}),
    ("liangguo", {}),
    ("fanqi", {}),
]


def view_benchmark(count: int, repeat: int) -> None:
    """Median µs per view over ``count`` mid-game states per case: plain view → engine.view."""
    print(
        f"views of mid-game states ({count} per variant), µs per view, "
        "plain reference view → engine.view:"
    )
    print(
        f"  {'':<28} {'seat to move':>20} {'other seats':>20} {'spectator':>20} "
        f"{'every viewer, new state':>26}"
    )
    siguo_ratio = 0.0
    for variant, options in VIEW_CASES:
        states = [
            midgame_state(variant, seed, 40 + seed * 200 // count, options) for seed in range(count)
        ]
        cells = []
        for kind in ("to move", "other seats", "spectator", "round"):
            n = len(viewers_of(states[0], kind))  # the same for every state of a variant
            old = per_call_us([view_call(reference_view, s, kind) for s in states], repeat) / n
            new = per_call_us([view_call(engine.view, s, kind) for s in states], repeat) / n
            cells.append(f"{old:6.1f} → {new:5.1f} {old / new:4.1f}x")
            if variant == "siguo" and not options and kind == "round":
                siguo_ratio = old / new
        name = variant + "".join(f" {k}={v}" for k, v in options.items())
        print(f"  {name:<28} {cells[0]:>20} {cells[1]:>20} {cells[2]:>20} {cells[3]:>26}")
    print(
        f"target: engine.view at least 3x faster than the plain view on mid-game 四国 "
        f"(every viewer, new state): {siguo_ratio:.1f}x, {'met' if siguo_ratio >= 3 else 'NOT met'}"
    )


def midgame_state(variant: str, seed: int, moves: int, options: dict[str, str]) -> engine.GameState:
    """The state of a random game (``random_action``) once ``moves`` moves were made in play,
    or its last state in play if it ended sooner."""
    rng = random.Random(f"view/{variant}/{seed}")
    state = engine.new_game(variant, seed=seed, options=options)
    last = None
    while state.phase != "finished":
        if state.phase == "playing":
            last = state
            if state.total_moves >= moves:
                break
        state, _ = engine.apply(state, random_action(state, rng))
    assert last is not None
    return last


def viewers_of(state: engine.GameState, kind: str) -> list[int | None]:
    """The viewers timed together: the seat to move, the other seats, a spectator, or (a
    ``round``) every seat and a spectator."""
    seats: list[int | None] = list(state.variant.seats)
    groups: dict[str, list[int | None]] = {
        "to move": [state.to_move],
        "other seats": [s for s in seats if s != state.to_move],
        "spectator": [None],
        "round": [*seats, None],
    }
    return groups[kind]


def view_call(
    view: Callable[[engine.GameState, int | None], object], state: engine.GameState, kind: str
) -> Callable[[], None]:
    """One call: the views of ``viewers_of(state, kind)``."""
    viewers = viewers_of(state, kind)

    def call() -> None:
        for viewer in viewers:
            view(state, viewer)

    return call


def random_game(variant: str, seed: int) -> tuple[int, float]:
    """Play one random game to its end; return its actions and the seconds spent in apply."""
    rng = random.Random(seed)
    state = engine.new_game(variant, seed=seed)
    actions, in_apply = 0, 0.0
    while state.phase != "finished":
        action = random_action(state, rng)
        start = time.perf_counter()
        state, _ = engine.apply(state, action)
        in_apply += time.perf_counter() - start
        actions += 1
    return actions, in_apply


def reference_seat(pieces: dict[str, tuple[int, str]], seat: int, teams: tuple[int, ...]) -> int:
    board = engine.get_board("siguo")
    return sum(
        len(reference_destinations(board, pieces, origin, teams))
        for origin, (owner, _) in pieces.items()
        if owner == seat
    )


def as_dict(position: engine.Position) -> dict[str, tuple[int, str]]:
    return {sid: (p.seat, p.rank.value) for sid, p in position.pieces().items()}


if __name__ == "__main__":
    main()
