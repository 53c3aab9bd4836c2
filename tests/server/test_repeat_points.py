"""Points between the same accounts diminish within a day: the 1st and 2nd rated game of the
same people in 24 hours count in full, each further one half of the one before, the 6th and
later nothing; an escaper's penalty always counts in full. The players here are guests, who
count like anyone; they start advanced (2000 points), so that the stake is 10 and the shares
show (a stake of 1 halved rounds to nothing)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

from sqlalchemy import update

from engine import GameState
from server.db import Database
from server.models import Game, Standing
from server.store import Scored, Store
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

START = 2000  # 旅长 and above: advanced, a stake of 10 (docs/rules.md §10)
STAKE = 10
# what the winner of the n-th game of the same people in a day gains (n = 1, 2, ...)
GAINS = [10, 10, 5, 2, 1, 0, 0]
FACTORS = [1.0, 1.0, 0.5, 0.25, 0.125, 0.0, 0.0]


async def advanced(db: Database, *names: str) -> list[int]:
    """New users with ``START`` points."""
    ids = await add_users(db, *names)
    async with db.sessions() as session:
        for user_id in ids:
            session.add(Standing(user_id=user_id, variant=VARIANT, points=START))
        await session.commit()
    return ids


async def play(
    store: Store,
    game_id: str,
    game: tuple[GameState, GameState],
    users: list[int | None],
    rated: bool = True,
) -> Scored:
    await started(store, game_id, game, users)
    return await store.game_finished(game_id, game[1], users, rated=rated)


async def check_stored(db: Database, told: dict[str, Scored]) -> None:
    """Each game's stored seats and result say what the table was told."""
    stored = await games(db)
    by_game: dict[str, dict[int, int]] = {}
    for seat in await seats(db):
        by_game.setdefault(seat["game"], {})[seat["user"]] = seat["points"]
    for game_id, scored in told.items():
        result = json.loads(stored[game_id].result or "{}")
        assert (result["repeat"], result["factor"]) == (scored.repeat, scored.factor), game_id
        assert sorted(by_game[game_id].values()) == sorted(p for p in scored.points), game_id


def test_the_same_accounts_gain_and_lose_less_and_less_within_a_day(database_url: str) -> None:
    async def scenario() -> None:
        async with two_stores(database_url) as (db, store, _):
            a, b, c = await advanced(db, "A", "B", "C")
            told: dict[str, Scored] = {}
            for n in range(len(GAINS)):
                # A wins every game, on either seat: the seats do not make other people
                users: list[int | None] = [a, b] if n % 2 else [b, a]
                game = won_by(users.index(a))
                scored = told[f"ab{n}"] = await play(store, f"ab{n}", game, users)
                assert (scored.repeat, scored.factor, scored.stake) == (n + 1, FACTORS[n], STAKE)
                assert sorted(scored.points) == [-GAINS[n], GAINS[n]]
            # other people are not affected: C's first games with A and with B count in full
            for opponent in (a, b):
                scored = told[f"c{opponent}"] = await play(
                    store, f"c{opponent}", won_by(0), [c, opponent]
                )
                assert (scored.repeat, scored.factor, scored.points) == (1, 1.0, [STAKE, -STAKE])
            table = await standings(db)
            won = sum(GAINS)
            assert table[a] == (START + won - STAKE, len(GAINS), 1, 0)
            assert table[b] == (START - won - STAKE, 0, len(GAINS) + 1, 0)
            assert table[c] == (START + 2 * STAKE, 2, 0, 0)
            await check_stored(db, told)
            stored = await games(db)
            assert {g.players_key for g in stored.values()} == {
                f"{a},{b}",
                f"{a},{c}",
                f"{b},{c}",
            }
            assert stored["ab0"].players_key == f"{min(a, b)},{max(a, b)}"
            assert {g.rated for g in stored.values()} == {True}

    asyncio.run(scenario())


def test_games_older_than_a_day_are_not_counted(database_url: str) -> None:
    async def scenario() -> None:
        async with two_stores(database_url) as (db, store, _):
            a, b = await advanced(db, "A", "B")
            for n in range(3):
                await play(store, f"g{n}", won_by(0), [a, b])
            now = datetime.now(UTC)
            async with db.sessions() as session:
                for game_id, ago in (("g0", timedelta(hours=25)), ("g1", timedelta(hours=23))):
                    await session.execute(
                        update(Game).where(Game.id == game_id).values(finished_at=now - ago)
                    )
                await session.commit()
            # g1 and g2 are within the day, g0 no longer: the next is the 3rd, at half
            scored = await play(store, "g3", won_by(0), [a, b])
            assert (scored.repeat, scored.factor, scored.points) == (3, 0.5, [5, -5])

    asyncio.run(scenario())


def test_an_escapers_penalty_counts_in_full(database_url: str) -> None:
    async def scenario() -> None:
        async with two_stores(database_url) as (db, store, _):
            a, b = await advanced(db, "A", "B")
            for n in range(2):
                await play(store, f"g{n}", won_by(0), [a, b])
            # the 3rd: B escapes; B loses twice the stake in full, A gains half a stake
            scored = await play(store, "g2", escaped_by(1), [a, b])
            assert (scored.repeat, scored.factor, scored.points) == (3, 0.5, [5, -2 * STAKE])
            for n in range(3, 5):
                await play(store, f"g{n}", won_by(0), [a, b])
            # the 6th: nothing for A, still all of it for the escaper
            scored = await play(store, "g5", escaped_by(1), [a, b])
            assert (scored.repeat, scored.factor, scored.points) == (6, 0.0, [0, -2 * STAKE])
            table = await standings(db)
            assert table[a][0] == START + 10 + 10 + 5 + 2 + 1 + 0
            assert table[b][0] == START - 10 - 10 - 20 - 2 - 1 - 20

    asyncio.run(scenario())


def test_unrated_games_neither_count_nor_are_counted(database_url: str) -> None:
    async def scenario() -> None:
        async with two_stores(database_url) as (db, store, _):
            a, b = await advanced(db, "A", "B")
            for n in range(3):
                scored = await play(store, f"u{n}", won_by(0), [a, b], rated=False)
                assert (scored.repeat, scored.factor, scored.points) == (0, 1.0, [0, 0])
            scored = await play(store, "r0", won_by(0), [a, b])
            assert (scored.repeat, scored.points) == (1, [STAKE, -STAKE])
            scored = await play(store, "r1", won_by(0), [a, b])
            scored = await play(store, "u3", won_by(0), [a, b], rated=False)
            assert (scored.repeat, scored.points) == (0, [0, 0])
            scored = await play(store, "r2", won_by(0), [a, b])
            assert (scored.repeat, scored.factor, scored.points) == (3, 0.5, [5, -5])
            stored = await games(db)
            assert {g.rated for g in stored.values() if g.id.startswith("u")} == {False}
            # one person among bots farms nobody: never diminished
            for n in range(4):
                scored = await play(store, f"bots{n}", won_by(0), [a, None])
                assert (scored.repeat, scored.factor, scored.points) == (0, 1.0, [STAKE, -STAKE])

    asyncio.run(scenario())


def test_games_of_the_same_accounts_ending_at_once_are_counted_one_after_another(
    database_url: str,
) -> None:
    """Six games of A and B ending at the same instant on two processes: each is counted
    after the ones before, so that together they give what six in a row give."""

    async def scenario() -> None:
        async with two_stores(database_url) as (db, first, second):
            a, b = await advanced(db, "A", "B")
            game = won_by(0)
            for n in range(6):
                await started(first, f"g{n}", game, [a, b])
            ends = await asyncio.gather(
                *(
                    (first if n % 2 else second).game_finished(f"g{n}", game[1], [a, b])
                    for n in range(6)
                )
            )
            assert sorted(s.repeat for s in ends) == list(range(1, 7))
            assert sorted((s.points[0] for s in ends), reverse=True) == GAINS[:6]
            assert (await standings(db))[a] == (START + sum(GAINS[:6]), 6, 0, 0)

    asyncio.run(scenario())
