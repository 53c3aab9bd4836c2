"""Quick match's pure core (自动匹配): who may sit with whom, the groups the matcher forms, and
the provably random seat order (验证座位). No I/O, no clock: ``now`` and seeds come in.

**Bands.** A waiting player's band is the stage of their points in the variant (初 0, 中 1,
高 2: ``engine.levels``). A player accepts others of their own band at first, and one band more
either way every ``widen_seconds`` of waiting; two players may meet when each accepts the other.

**Seats.** The seat order is drawn from a seed the matcher committed to before the table was
formed (``commitment``): the players sorted by ``canonical`` (their names, by code point) are
permuted by ``permutation(seed, n, attempt)``, a Fisher-Yates shuffle whose every swap comes from
``sha256("junqi-seats:<seed>:<attempt>:<i>")``; seat k gets ``players[order[k]]``. Attempt 0 is
taken unless it makes two players partners who were partners at their last quick-match table
(``repeats``); then attempt 1, and so on: a public rule, so that the browser recomputes the
same order from the revealed seed (web/js/seatdraw.js).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from engine.levels import title_for

BANDS = ("beginner", "intermediate", "advanced")  # 初 中 高
MAX_ATTEMPTS = 64  # permutations tried before a repeat of partners is let be


@dataclass(frozen=True)
class Waiting:
    """One player in the queue: ``entry`` names this wait (a new one at every join)."""

    entry: str
    user: int
    name: str
    variant: str
    mode: str
    points: int
    joined: float  # time.time() when they joined
    address: str | None = None  # never sent to anyone
    device: str | None = None
    node: str = ""  # the process holding the player's socket

    @property
    def band(self) -> int:
        return BANDS.index(title_for(self.points).stage.value)


def reach(w: Waiting, now: float, widen_seconds: float) -> int:
    """How many bands away from their own ``w`` accepts by now (0, 1 or 2)."""
    waited = max(0.0, now - w.joined)
    return min(len(BANDS) - 1, int(waited // widen_seconds)) if widen_seconds > 0 else 2


def band_range(w: Waiting, now: float, widen_seconds: float) -> tuple[int, int]:
    """The lowest and highest band ``w`` accepts now."""
    r = reach(w, now, widen_seconds)
    return max(0, w.band - r), min(len(BANDS) - 1, w.band + r)


def shares_place(a: Waiting, b: Waiting) -> bool:
    """Whether two accounts share an address or a device (one person's, likely)."""
    return (a.address is not None and a.address == b.address) or (
        a.device is not None and a.device == b.device
    )


def may_meet(
    a: Waiting,
    b: Waiting,
    now: float,
    widen_seconds: float,
    blocked: set[frozenset[int]],
    apart: bool = True,
) -> bool:
    """Whether ``a`` and ``b`` may sit at one quick-match table now: each accepts the other's
    band, neither blocks the other, and (``apart``: the platform counts accounts sharing an
    address or device as one person, ``shared_address_unrated``) they share neither: the
    table is rated."""
    if a.user == b.user or frozenset((a.user, b.user)) in blocked:
        return False
    if apart and shares_place(a, b):
        return False
    distance = abs(a.band - b.band)
    return distance <= min(reach(a, now, widen_seconds), reach(b, now, widen_seconds))


def form_groups(
    waiting: Iterable[Waiting],
    seats: int,
    now: float,
    widen_seconds: float,
    blocked: set[frozenset[int]],
    apart: bool = True,
) -> list[list[Waiting]]:
    """Tables of ``seats`` players of one variant and mode, formed greedily: the longest
    waiting first, each with the longest waiting others it may meet (every pair may meet)."""
    left = sorted(waiting, key=lambda w: (w.joined, w.entry))
    groups: list[list[Waiting]] = []
    while len(left) >= seats:
        first, rest = left[0], left[1:]
        group = [first]
        for other in rest:
            if all(may_meet(other, g, now, widen_seconds, blocked, apart) for g in group):
                group.append(other)
                if len(group) == seats:
                    break
        if len(group) == seats:
            groups.append(group)
            taken = {w.entry for w in group}
            left = [w for w in left if w.entry not in taken]
        else:
            left = rest  # nobody fits the longest waiting yet: the others may still meet
    return groups


def commitment(seed: str) -> str:
    """What the matcher publishes before it uses ``seed``: ``sha256("junqi-seats:" + seed)``."""
    return hashlib.sha256(f"junqi-seats:{seed}".encode()).hexdigest()


def canonical(names: Iterable[str]) -> list[str]:
    """The players in the order the seat draw permutes: their names by code point."""
    return sorted(names)


def permutation(seed: str, n: int, attempt: int = 0) -> list[int]:
    """Fisher-Yates over ``range(n)``, from the last place down: place ``i`` swaps with
    ``int(sha256("junqi-seats:<seed>:<attempt>:<i>")) % (i + 1)``."""
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        digest = hashlib.sha256(f"junqi-seats:{seed}:{attempt}:{i}".encode()).hexdigest()
        j = int(digest, 16) % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def partner_pairs(teams: Sequence[int]) -> list[tuple[int, int]]:
    """The seats that play on one team (四国: 0 with 2, 1 with 3); none in a free-for-all."""
    return [(a, b) for a, b in itertools.combinations(range(len(teams)), 2) if teams[a] == teams[b]]


def draw_seats(
    seed: str,
    names: Iterable[str],
    teams: Sequence[int],
    repeats: Callable[[str, str], bool] = lambda a, b: False,
) -> tuple[list[str], int]:
    """The players' names seat by seat, and the attempt that gave them: the first attempt
    that seats no two players as partners for whom ``repeats`` holds (partners last time)."""
    players = canonical(names)
    pairs = partner_pairs(teams)
    for attempt in range(MAX_ATTEMPTS):
        seated = [players[k] for k in permutation(seed, len(players), attempt)]
        if not any(repeats(seated[a], seated[b]) for a, b in pairs):
            return seated, attempt
    return [players[k] for k in permutation(seed, len(players), 0)], 0


@dataclass
class SeatDraw:
    """How a quick-match table's seats were drawn: kept by the table, shown in its snapshot
    (``shown``), the seed only once its first game is over."""

    seed: str
    players: list[str]  # canonical order
    attempt: int
    repeated: list[list[str]]  # the pairs of names who were partners at their last table
    revealed: bool = False

    def shown(self, finished: bool) -> dict[str, object]:
        """The draw as a snapshot carries it; ``finished``: the table's game is over."""
        self.revealed = self.revealed or finished
        return {
            "commitment": commitment(self.seed),
            "players": self.players,
            "attempt": self.attempt,
            "repeated": self.repeated,
            "seed": self.seed if self.revealed else None,
        }
