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

from engine.combat import resolve_combat
from engine.deployment import auto_layout, layout_problems
from engine.errors import MalformedInput
from engine.movement import legal_move_list, move_tables
from engine.notation import format_layout, parse_layout
from engine.pieces import CHINESE_NAME, Rank
from engine.sampling import opening_position
from engine.variants import VARIANTS, get_variant


def demo(variant: str, seed: int, plies: int) -> None:
    v = get_variant(variant)
    position = opening_position(variant, seed)
    print(f"{v.name} ({variant}): {len(v.board.stations)} stations, seats {list(v.seats)}")
    for seat in v.seats:
        layout = {s: p.rank for s, p in position.pieces().items() if p.seat == seat}
        print(f"\nseat {seat} (team {v.teams[seat]}) deploys:")
        print(format_layout(layout), end="")
    rng = random.Random(seed)
    hqs = move_tables(v.board).hqs
    print(f"\n{plies} random moves (ranks shown here; players would see only outcomes):")
    seat = 0
    for ply in range(1, plies + 1):
        moves = legal_move_list(position, seat, v.teams, v.rules.hq_lock)
        if not moves:
            print(f"{ply:3}. seat {seat} has no legal move")
            break
        origin, target = rng.choice(moves)
        attacker, defender = position.piece_at(origin), position.piece_at(target)
        assert attacker is not None
        line = f"{ply:3}. seat {seat}: {CHINESE_NAME[attacker.rank]} {origin} -> {target}"
        outcome = None
        if defender is not None:
            outcome = resolve_combat(
                attacker.rank,
                defender.rank,
                mine_trades=v.rules.mine_trades,
                bomb_takes_flag=v.rules.bomb_takes_flag,
                hq_dig=v.rules.hq_dig,
                defender_in_hq=bool(hqs >> v.board.station(target).index & 1),
            )
            line += f" attacks {CHINESE_NAME[defender.rank]} of seat {defender.seat}: {outcome}"
        print(line)
        position = position.with_move(origin, target, outcome)
        if defender is not None and defender.rank == Rank.FLAG:
            print(f"     seat {defender.seat}'s flag is captured: its army leaves the board")
            position = position.without_seat(defender.seat)
        seat = (seat + 1) % len(v.seats)
    counts = {s: len(legal_move_list(position, s, v.teams)) for s in v.seats}
    print(f"\nlegal moves per seat now: {counts}")


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
