"""The ``junqi`` command: a small command-line front end to the rules engine.

junqi demo [--variant siguo] [--seed 1] [--plies 12]   deploy every seat and play random moves
junqi layout [--variant siguo] [--seat 0] [--seed 1]   print an automatic layout (布局文件)
junqi check FILE [--variant siguo] [--seat 0]          validate a layout file
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.actions import Flip, Move
from engine.deployment import auto_layout, layout_problems
from engine.errors import MalformedInput
from engine.game import apply, moves_of, new_game
from engine.notation import format_layout, parse_layout
from engine.pieces import CHINESE_NAME
from engine.sampling import random_action
from engine.state import Phase
from engine.variants import VARIANTS, get_variant


def demo(variant: str, seed: int, plies: int) -> None:
    """A whole game through the real state machine: every seat takes the defaults (automatic
    layouts; in 三打一 the first bidder bids 1), then random legal moves, shown with all ranks."""
    v = get_variant(variant)
    state = new_game(variant, seed=seed)
    print(f"{v.name} ({variant}): {len(v.board.stations)} stations, seats {list(v.seats)}")
    print(f"deal commitment {state.commitment}")
    rng = random.Random(seed)
    while state.phase not in (Phase.PLAYING, Phase.FINISHED):
        state, events = apply(state, random_action(state, rng))
        for event in events:
            if event.kind in ("colour_picked", "bid", "banker", "redealt"):
                print(f"  {event.kind}: {dict(event.data)}")
    board = v.board
    for owner, layout in enumerate(state.layouts):
        arm = {sid: p.rank for sid, p in layout.items() if board.station(sid).seat == owner}
        print(f"\nseat {owner} (team {state.teams[owner]}) deploys:")
        print(format_layout(arm), end="")
    print(f"\n{plies} random moves (ranks shown here; players would see only outcomes):")
    for ply in range(1, plies + 1):
        if state.to_move is None:
            break
        action = random_action(state, rng)
        position = state.board_position
        state, events = apply(state, action)
        if isinstance(action, Flip):
            piece = position.piece_at(action.station)
            assert piece is not None
            print(f"{ply:3}. seat {action.seat} flips {action.station}: {CHINESE_NAME[piece.rank]}")
            continue
        assert isinstance(action, Move)
        attacker, defender = position.piece_at(action.origin), position.piece_at(action.target)
        assert attacker is not None
        line = f"{ply:3}. seat {action.seat}: {CHINESE_NAME[attacker.rank]} "
        line += f"{action.origin} -> {action.target}"
        if defender is not None:
            outcome = events[0].data["outcome"]
            line += f" attacks {CHINESE_NAME[defender.rank]} of seat {defender.seat}: {outcome}"
        print(line)
        for event in events:
            if event.kind == "eliminated":
                print(f"     seat {event.data['seat']} is out: {event.data['reason']}")
    if state.result is not None:
        print(f"\nthe game is over: {state.result.reason.value}, won by {state.result.winners}")
    counts = {s: len(moves_of(state, s)) for s in v.seats}
    print(f"\npieces with a legal move, per seat: {counts}")


def check(path: Path, variant: str, seat: int) -> int:
    try:
        layout = parse_layout(path.read_text(encoding="utf-8"), seat)
    except MalformedInput as e:
        print(f"{path}: {e}")
        return 1
    problems = layout_problems(variant, seat, layout)
    for p in problems:
        where = f" at {', '.join(p.stations)}" if p.stations else ""
        print(f"{path}: {p.code.value}{where}: {p.detail}")
    if not problems:
        print(f"{path}: a legal {variant} layout")
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="junqi", description="Junqi (军棋) rules engine")
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("demo", "layout", "check"):
        sub = commands.add_parser(name)
        sub.add_argument("--variant", choices=sorted(VARIANTS), default="siguo")
        if name == "check":
            sub.add_argument("file", type=Path)
        if name != "demo":
            sub.add_argument("--seat", type=int, default=0)
        if name != "check":
            sub.add_argument("--seed", type=int, default=1)
        if name == "demo":
            sub.add_argument("--plies", type=int, default=12)
    args = parser.parse_args(argv)
    if args.command == "demo":
        demo(args.variant, args.seed, args.plies)
    elif args.command == "layout":
        print(format_layout(auto_layout(args.variant, args.seat, args.seed)), end="")
    else:
        return check(args.file, args.variant, args.seat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
