"""Quick match's pure core (``server.match_core``): bands that widen with waiting, who may
meet, the groups formed, and the seat draw anyone can recompute; and the joins' points read
together (``server.points_reader``)."""

from __future__ import annotations

import asyncio
import hashlib

from server.match_core import (
    Waiting,
    band_range,
    commitment,
    draw_seats,
    form_groups,
    may_meet,
    partner_pairs,
    permutation,
)
from server.points_reader import PointsReader

SIGUO_TEAMS = (0, 1, 0, 1)


def waiting(user: int, points: int = 0, joined: float = 0.0, **more: object) -> Waiting:
    return Waiting(f"e{user}", user, f"p{user}", "siguo", "hidden", points, joined, **more)  # type: ignore[arg-type]


def test_a_band_widens_by_one_every_widening_period() -> None:
    middle = waiting(1, points=200)  # 中级
    assert middle.band == 1
    assert band_range(middle, 0.0, 20.0) == (1, 1)
    assert band_range(middle, 19.9, 20.0) == (1, 1)
    assert band_range(middle, 20.0, 20.0) == (0, 2)
    low = waiting(2, points=0)
    assert band_range(low, 25.0, 20.0) == (0, 1)
    assert band_range(low, 45.0, 20.0) == (0, 2)


def test_players_meet_when_each_accepts_the_other() -> None:
    low, high = waiting(1, points=0), waiting(2, points=2000, joined=100.0)
    assert not may_meet(low, high, 100.0, 20.0, set())  # each only their own band yet
    assert not may_meet(low, high, 130.0, 20.0, set())  # the beginner reaches 2, the other 1
    assert may_meet(low, high, 140.0, 20.0, set())


def test_blocked_and_shared_places_never_meet() -> None:
    a, b = waiting(1, address="1.2.3.4"), waiting(2, address="1.2.3.4")
    c, d = waiting(3, device="dev"), waiting(4, device="dev")
    assert not may_meet(a, b, 0.0, 20.0, set())
    assert not may_meet(c, d, 0.0, 20.0, set())
    assert may_meet(a, b, 0.0, 20.0, set(), apart=False)  # where the operator allows it
    assert may_meet(a, c, 0.0, 20.0, set())
    assert not may_meet(a, c, 0.0, 20.0, {frozenset((1, 3))})


def test_groups_are_formed_oldest_first_within_the_constraints() -> None:
    people = [waiting(u, joined=float(u)) for u in range(1, 10)]
    groups = form_groups(people, 4, 10.0, 20.0, set())
    assert [[w.user for w in g] for g in groups] == [[1, 2, 3, 4], [5, 6, 7, 8]]
    # 2 and 3 block each other, 4 shares 1's address: 1 is seated with 2, 5, 6, 7
    people = [
        waiting(u, joined=float(u), address="x" if u in (1, 4) else None) for u in range(1, 9)
    ]
    groups = form_groups(people, 4, 10.0, 20.0, {frozenset((2, 3))})
    assert [w.user for w in groups[0]] == [1, 2, 5, 6]
    assert [w.user for w in groups[1]] == [3, 4, 7, 8]
    # bands: an advanced player waits until the beginners' bands reach theirs
    people = [waiting(1, 0), waiting(2, 0), waiting(3, 0), waiting(4, 2000)]
    assert form_groups(people, 4, 0.0, 20.0, set()) == []
    assert len(form_groups(people, 4, 40.0, 20.0, set())) == 1


def test_the_seat_permutation_is_the_documented_one() -> None:
    seed = "00112233445566778899aabbccddeeff"
    assert commitment(seed) == hashlib.sha256(f"junqi-seats:{seed}".encode()).hexdigest()
    order = list(range(4))  # Fisher-Yates, every swap from its own hash
    for i in (3, 2, 1):
        digest = hashlib.sha256(f"junqi-seats:{seed}:0:{i}".encode()).hexdigest()
        j = int(digest, 16) % (i + 1)
        order[i], order[j] = order[j], order[i]
    assert permutation(seed, 4) == order
    assert permutation(seed, 4) == permutation(seed, 4)
    assert sorted(permutation(seed, 4, 1)) == [0, 1, 2, 3]
    seen = {tuple(permutation(f"{n:032x}", 4)) for n in range(200)}
    assert len(seen) == 24  # every order of four comes out


def test_the_draw_skips_orders_that_repeat_partners() -> None:
    assert partner_pairs(SIGUO_TEAMS) == [(0, 2), (1, 3)]
    assert partner_pairs((0, 1, 2, 3)) == []
    names = ["d", "b", "a", "c"]
    for n in range(50):
        seed = f"{n:032x}"
        plain, attempt = draw_seats(seed, names, SIGUO_TEAMS)
        assert attempt == 0
        assert plain == [sorted(names)[k] for k in permutation(seed, 4)]
        # the partners of this draw were partners last time: another order is drawn
        last = {frozenset((plain[0], plain[2])), frozenset((plain[1], plain[3]))}

        def repeats(a: str, b: str, last: set[frozenset[str]] = last) -> bool:
            return frozenset((a, b)) in last

        seated, attempt = draw_seats(seed, names, SIGUO_TEAMS, repeats)
        assert attempt > 0
        assert {seated[0], seated[2]} not in last and {seated[1], seated[3]} not in last
        assert seated == [sorted(names)[k] for k in permutation(seed, 4, attempt)]


def test_points_asked_for_together_are_read_in_one_query() -> None:
    reads: list[tuple[str, list[int]]] = []

    async def read(variant: str, users: list[int]) -> dict[int, int]:
        reads.append((variant, sorted(users)))
        return {u: u * 10 for u in users}

    async def main() -> list[int]:
        reader = PointsReader(read)
        asked = [reader.points("siguo", u) for u in (1, 2, 3, 2)] + [reader.points("sanguo", 4)]
        return list(await asyncio.gather(*asked))

    assert asyncio.run(main()) == [10, 20, 30, 20, 40]
    assert sorted(reads) == [("sanguo", [4]), ("siguo", [1, 2, 3])]
