"""Provably fair deals: every shuffle is derived from a server-side seed.

The platform publishes ``commitment(seed)`` (a SHA-256 hash) before dealing and the seed itself
after the game; anyone can then re-derive every deal with the functions below and check it with
``verify``. Same seed, same deal, always: the shuffles use a SHA-256-seeded ``random.Random`` over
pieces in a fixed canonical order, so they do not depend on the platform or the Python version.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import MalformedInput
from engine.pieces import STANDARD_ARMY, Rank

# A dealt piece: its rank and its army colour (0-3 for the four standard armies, None for the
# 三打一 extras, which take the colour of whoever holds them).
DealtPiece = tuple[Rank, int | None]


def commitment(seed: str) -> str:
    """The hash published before the deal; ``verify`` checks a revealed seed against it."""
    return hashlib.sha256(f"junqi-deal:{seed}".encode()).hexdigest()


def verify(seed: str, published: str) -> bool:
    """Whether ``seed`` is the one behind the published commitment."""
    return commitment(seed) == published


def seeded_rng(seed: str, *labels: object) -> random.Random:
    """An independent random stream for one purpose (``labels``) of a game's seed."""
    digest = hashlib.sha256("/".join(["junqi", seed, *map(str, labels)]).encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def standard_armies(count: int) -> list[DealtPiece]:
    """``count`` standard armies in canonical order (army by army, rank by rank)."""
    return [
        (rank, army) for army in range(count) for rank, n in STANDARD_ARMY.items() for _ in range(n)
    ]


@dataclass(frozen=True, slots=True)
class LuanzhanDeal:
    """乱战四国 (docs/rules.md §9.2 step 1): ``hands[c]`` (24 pieces) goes with colour c's
    engineer."""

    number: int
    hands: tuple[tuple[DealtPiece, ...], ...]

    def hand_for(self, colour: int) -> tuple[DealtPiece, ...]:
        """The 25 pieces of whoever picks ``colour``: its engineer and the paired hand."""
        return ((Rank.ENGINEER, colour), *self.hands[colour])


def deal_luanzhan(seed: str, number: int = 0) -> LuanzhanDeal:
    """Set aside one engineer of each colour, shuffle the other 96, cut them into 4 × 24."""
    pieces = standard_armies(4)
    for colour in range(4):
        pieces.remove((Rank.ENGINEER, colour))
    seeded_rng(seed, "luanzhan", number).shuffle(pieces)
    return LuanzhanDeal(number, tuple(tuple(pieces[24 * c : 24 * (c + 1)]) for c in range(4)))


SANDAYI_EXTRAS: tuple[DealtPiece, ...] = (
    (Rank.SUPREME_MARSHAL, None),
    (Rank.FORTRESS, None),
    (Rank.MISSILE, None),
)
IDLE_LIEUTENANTS = 5  # each idle player's extra 排长 (docs/rules.md §9.3 step 4)
BANKER_KEEPS = 19  # of the 23 bottom pieces


@dataclass(frozen=True, slots=True)
class SandayiDeal:
    """三打一 (docs/rules.md §9.3 steps 2 and 4): four hands of 20, a bottom of 23 (the 20 other
    standard pieces and the three specials), of which the banker gets ``kept`` (19)."""

    number: int
    hands: tuple[tuple[DealtPiece, ...], ...]
    bottom: tuple[DealtPiece, ...]
    kept: tuple[DealtPiece, ...]


def deal_sandayi(seed: str, number: int = 0) -> SandayiDeal:
    pieces = standard_armies(4)
    seeded_rng(seed, "sandayi", number).shuffle(pieces)
    hands = tuple(tuple(pieces[20 * s : 20 * (s + 1)]) for s in range(4))
    bottom = (*pieces[80:], *SANDAYI_EXTRAS)
    kept = seeded_rng(seed, "sandayi-bottom", number).sample(bottom, BANKER_KEEPS)
    return SandayiDeal(number, hands, bottom, tuple(kept))


def deal_fanqi(seed: str, stations: Sequence[str]) -> dict[str, DealtPiece]:
    """翻棋 (docs/rules.md §9.6): the 50 pieces of two armies face-down at random on
    ``stations``."""
    pieces = standard_armies(2)
    if len(stations) != len(pieces):
        raise MalformedInput(f"翻棋 needs {len(pieces)} stations, not {len(stations)}")
    seeded_rng(seed, "fanqi").shuffle(pieces)
    return dict(zip(stations, pieces, strict=True))
