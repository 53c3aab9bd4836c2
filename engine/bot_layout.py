"""A bot's layout before play (``choose_layout``): strong, never the same, the flag shut in by
its landmines (``lock_the_flag``) and the layouts weighed by ``layout_strength``."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from engine.board import Board, get_board
from engine.deployment import auto_layout, deployment_problems, split_key
from engine.pieces import IMMOBILE_RANKS, Rank
from engine.search import VALUE
from engine.variants import get_variant

LAYOUT_DRAFTS = 24  # automatic layouts a bot draws before play...
LAYOUT_PICK = 6  # ...and how many of the strongest it chooses from at random


def choose_layout(
    variant: str,
    seat: int,
    rng: random.Random,
    hand: Sequence[tuple[Rank, int | None]] | None = None,
    banker: bool = False,
) -> dict[str, str]:
    """A strong layout that does not give itself away: of ``LAYOUT_DRAFTS`` automatic layouts
    (landmines next to the flag first: ``lock_the_flag``), one of the best ``LAYOUT_PICK`` by
    ``layout_strength``, at random."""
    drafts = []
    for _ in range(LAYOUT_DRAFTS):
        layout = auto_layout(variant, seat, rng.randrange(10**9), hand=hand, banker=banker)
        drafts.append(lock_the_flag(variant, seat, layout, hand, banker))
    board = get_board(get_variant(variant).board_key)
    drafts.sort(key=lambda d: layout_strength(board, d), reverse=True)
    return rng.choice(drafts[:LAYOUT_PICK])


def layout_strength(board: Board, layout: Mapping[str, str]) -> float:
    """How well a layout keeps its flag and uses its pieces: landmines beside the flag, a
    landmine, a bomb or a strong piece in front of it, engineers not buried in the last row
    (they dig out landmines), the 司令 and 军长 on the rails of the first three rows (where they
    can strike at once), bombs right behind the front line (rows 2 and 3, ready to meet the piece
    that has just taken one of the front row's)."""
    ranks = {s: split_key(k)[0] for s, k in layout.items()}
    score = 0.0
    for station, rank in ranks.items():
        info = board.station(station)
        row = info.row or 0
        if rank == Rank.FLAG:
            for side in board.neighbours(station):
                guard = ranks.get(side)
                if guard == Rank.LANDMINE:
                    score += 2.0
                elif guard in (Rank.BOMB, Rank.FIELD_MARSHAL, Rank.GENERAL, Rank.MAJOR_GENERAL):
                    score += 1.0
                elif guard in (Rank.ENGINEER, Rank.LIEUTENANT, Rank.CAPTAIN) or guard is None:
                    score -= 1.0
        elif rank == Rank.ENGINEER and row == 6:
            score -= 0.5
        striker = rank in (Rank.FIELD_MARSHAL, Rank.GENERAL) and info.rail and row <= 3
        if striker or (rank == Rank.BOMB and 2 <= row <= 3):
            score += 0.5
    return score


def lock_the_flag(
    variant: str,
    seat: int,
    layout: Mapping[str, str],
    hand: Sequence[tuple[Rank, int | None]] | None,
    banker: bool,
) -> dict[str, str]:
    """``layout`` with its landmines swapped onto the stations next to its flag first (a flag
    shut in by landmines falls only to an engineer or a bomb, even once the enemies know where
    it is), then into the other HQ; with none left for it, the cheapest piece that could move
    stands there (a piece in an HQ never moves again). Each swap is kept only if the layout
    stays legal."""
    board = get_board(get_variant(variant).board_key)
    out = dict(layout)

    def rank(station: str) -> Rank:
        return split_key(out[station])[0]

    def swap(a: str, b: str) -> None:
        swapped = {**out, a: out[b], b: out[a]}
        if not deployment_problems(variant, seat, swapped, hand=hand, banker=banker):
            out.update(swapped)

    def spare() -> list[str]:  # the landmines not yet beside the flag
        return [s for s in out if rank(s) == Rank.LANDMINE and s not in sides]

    flags = [s for s in out if rank(s) == Rank.FLAG]
    sides = sorted({n for f in flags for n in board.neighbours(f) if n in out})
    for side in sides:
        if rank(side) != Rank.LANDMINE and spare():
            swap(side, spare()[0])
    hqs = [s for s in out if board.station(s).kind == "hq" and rank(s) not in IMMOBILE_RANKS]
    for hq in hqs:
        cheap = sorted(
            (s for s in out if board.station(s).kind != "hq" and rank(s) not in IMMOBILE_RANKS),
            key=lambda s: VALUE[rank(s)],
        )
        if spare() or cheap:
            swap(hq, (spare() or cheap)[0])
    return out
