"""Results are atomic: games of one player ending at the same instant on two server processes
(two engines on one database) each store their result, and every point of each counts once."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Coroutine
from typing import Any

from server import moderation
from server.db import Database
from server.models import EscapeRecord, User
from server.store import Scored
from tests.server.scoring import (
    VARIANT,
    add_users,
    escaped_by,
    games,
    seats,
    standings,
    started,
    two_stores,
    won_by,
)

ROUNDS = 30


def stored_sums(stored: list[dict[str, Any]]) -> dict[int, tuple[int, int, int, int]]:
    """What the stored seats add up to for each user: (points, wins, losses, draws)."""
    points: Counter[int] = Counter()
    counts: Counter[tuple[int, str]] = Counter()
    for seat in stored:
        points[seat["user"]] += seat["points"]
        kind = "loss" if seat["outcome"] == "escape" else seat["outcome"]
        counts[seat["user"], kind] += 1
    return {
        user: (points[user], counts[user, "win"], counts[user, "loss"], counts[user, "draw"])
        for user in {seat["user"] for seat in stored}
    }


def test_games_of_one_player_ending_together_all_count(database_url: str) -> None:
    """Each round, A's two games end at the same instant on two processes, the game between
    A's two opponents with them, and one of A's games is ended by both processes at once:
    every game is stored, once, and the standings are the sum of what the games gave."""

    async def scenario() -> None:
        async with two_stores(database_url) as (db, first, second):
            (a,) = await add_users(db, "A")
            returned: dict[str, list[Scored]] = {}
            for r in range(ROUNDS):
                b, c = await add_users(db, f"B{r}", f"C{r}")
                win, escape = won_by(0), escaped_by(1)
                await started(first, f"ab{r}", win, [a, b])
                await started(second, f"ca{r}", escape, [c, a])
                await started(first, f"bc{r}", win, [b, c])
                ends = await asyncio.gather(
                    first.game_finished(f"ab{r}", win[1], [a, b]),
                    second.game_finished(f"ab{r}", win[1], [a, b]),  # and ended once only
                    second.game_finished(f"ca{r}", escape[1], [c, a]),
                    first.game_finished(f"bc{r}", win[1], [b, c]),
                    return_exceptions=True,
                )
                assert not [e for e in ends if isinstance(e, BaseException)], ends
                ids = (f"ab{r}", f"ab{r}", f"ca{r}", f"bc{r}")
                for game_id, end in zip(ids, ends, strict=True):
                    assert isinstance(end, Scored)
                    returned.setdefault(game_id, []).append(end)

            stored_games = await games(db)
            assert len(stored_games) == 3 * ROUNDS
            assert {g.status for g in stored_games.values()} == {"finished"}
            stored = await seats(db)
            by_game: dict[str, list[int]] = {}
            for seat in sorted(stored, key=lambda s: s["points"]):
                by_game.setdefault(seat["game"], []).append(seat["points"])
            for game_id, told in returned.items():
                for one in told:  # what the table was told is what was stored
                    assert sorted(one.points) == by_game[game_id], game_id
            table = await standings(db)
            assert table == stored_sums(stored)
            # A won each game against B and escaped from each against C (2 × the stake)
            assert table[a] == (-ROUNDS, ROUNDS, ROUNDS, 0)
            assert sorted(set(table.values()) - {table[a]}) == [(0, 1, 1, 0)]
            async with db.sessions() as session:
                escapes = (await session.scalars(EscapeRecord.__table__.select())).all()
            assert len(escapes) == ROUNDS

    asyncio.run(scenario())


async def _penalize(db: Database, user_id: int, admin_id: int, points: int) -> int:
    async with db.sessions() as session:
        user, admin = await session.get(User, user_id), await session.get(User, admin_id)
        assert user is not None and admin is not None
        return await moderation.penalize(session, user, VARIANT, points, admin, "farming")


def test_penalties_and_results_at_the_same_instant_all_count(database_url: str) -> None:
    """Penalties taken on two processes at once, while the player's games end: none is lost,
    and each says how many points were left after it."""

    async def scenario() -> None:
        async with two_stores(database_url) as (db, first, second):
            second_db = Database(database_url)
            try:
                a, admin = await add_users(db, "A", "admin")
                opponents = await add_users(db, *(f"B{r}" for r in range(ROUNDS)))
                win = won_by(0)
                for r, b in enumerate(opponents):
                    await started(first if r % 2 else second, f"g{r}", win, [a, b])
                calls: list[Coroutine[Any, Any, Scored | int]] = []
                for r, b in enumerate(opponents):
                    store = first if r % 2 else second
                    calls.append(store.game_finished(f"g{r}", win[1], [a, b]))
                    calls.append(_penalize(db if r % 2 else second_db, a, admin, 3))
                ends = await asyncio.gather(*calls, return_exceptions=True)
                assert not [e for e in ends if isinstance(e, BaseException)], ends
                after = ROUNDS - 3 * ROUNDS
                assert (await standings(db))[a] == (after, ROUNDS, 0, 0)
                # penalties alone: each one saw those before it, and says what it left
                left = await asyncio.gather(
                    *(_penalize(db if n % 2 else second_db, a, admin, 1) for n in range(ROUNDS))
                )
                assert sorted(left) == list(range(after - ROUNDS, after))
            finally:
                await second_db.close()

    asyncio.run(scenario())
