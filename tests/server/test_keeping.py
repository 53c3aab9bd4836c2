"""Kept tables: an append-only log that a restart or a new owner rebuilds exactly, many tables in
one write, and in a cluster written only under the table's lease and epoch. A move that cannot
be kept never happened."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

import engine
from server.db import Database, migrate
from server.keeping import Keeper, KeptEvent, LeaseLost, event_of, kept_event
from server.ownership import Leases
from tests.engine.test_random_games import choose_action
from tests.server.test_realtime import duel


def played(moves: int) -> list[tuple[engine.GameState, list[engine.Event]]]:
    """A 二人 game: the state and events after each accepted action."""
    rng = random.Random(5)
    state = engine.new_game("liangguo", seed=5, host=0, now=0.0)
    steps: list[tuple[engine.GameState, list[engine.Event]]] = []
    now = 0.0
    while len(steps) < moves and state.phase != "finished":
        now += 1.0
        try:
            state, events = engine.apply(state, choose_action(state, rng, min(now, state.deadline)))
        except engine.EngineError:
            continue
        steps.append((state, events))
    return steps


def test_a_new_owner_rebuilds_the_kept_game_and_the_old_one_can_no_longer_write(
    database_url: str,
) -> None:
    """Two nodes of a cluster: the old owner keeps a game; once the new one takes the table
    over (its epoch bumped), the old one's writes and drop of it fail, while its write of
    another table, in the same transaction, still lands."""

    async def scenario(db: AsyncEngine) -> None:
        old_leases, new_leases = Leases(db, "old-node", 30), Leases(db, "new-node", 30)
        old, new = Keeper(db, "old-node"), Keeper(db, "new-node")
        assert await old_leases.claim("t1") == 1 and await old_leases.claim("t2") == 1
        seq, saved, log = 0, 0, []
        for state, events in played(60):
            numbered = [(seq := seq + 1, kept_event(e)) for e in events]
            log += numbered
            data = {"version": len(log), "seq": seq}
            await old.save("t1", data, state, saved, numbered, epoch=1)
            saved = len(state.log)
        assert await new.kept() == ["t1"]
        kept = await new.load("t1")
        assert kept is not None and kept.data == data
        assert engine.replay(kept.record) == state  # the same game, action for action
        assert kept.events == log  # each event as it was kept
        assert all(event_of(kept_event(e)) == e for _, events in played(60) for e in events)

        assert await new_leases.take("t1") is None  # the old lease still runs
        await old_leases.hand_over(["t1"])
        assert await new_leases.take("t1") == 2  # the table moved
        assert await old_leases.renew(["t1", "t2"]) == {"t2": 1}
        first = played(1)[0][0]
        lost, written = await asyncio.gather(
            old.save("t1", {"version": 0}, state, saved, [], epoch=1),
            old.save("t2", {"version": 1}, first, 0, [], epoch=1),  # the same write
            return_exceptions=True,
        )
        assert isinstance(lost, LeaseLost) and written is None
        # a write of going games only (no new game: one statement on PostgreSQL) is fenced too
        extra = (seq + 1, kept_event(events[0]))
        lost, written = await asyncio.gather(
            old.save("t1", {"version": -1}, state, saved, [extra], epoch=1),
            old.save("t2", {"version": 2}, first, len(first.log), [(1, extra[1])], epoch=1),
            return_exceptions=True,
        )
        assert isinstance(lost, LeaseLost) and written is None
        t2 = await new.load("t2")
        assert t2 is not None and t2.data == {"version": 2} and t2.events == [(1, extra[1])]
        with pytest.raises(LeaseLost):
            await old.drop("t1", epoch=1)  # refused as well: the new owner's game stays
        assert await new.kept() == ["t1", "t2"]
        again = await new.load("t1")
        assert again is not None and again.data == data
        await new.save("t1", {"version": 99}, state, saved, [], epoch=2)
        await new.drop("t1", epoch=2)
        assert await new.kept() == ["t2"] and await new.load("t1") is None

    async def main() -> None:
        await migrate(database_url)
        database = Database(database_url)
        try:
            await scenario(database.engine)
        finally:
            await database.close()

    asyncio.run(main())


def test_the_database_keeps_many_tables_at_once_and_rebuilds_each(database_url: str) -> None:
    games = {"t1": played(60), "t2": played(25)}

    async def keep(keeper: Keeper, table_id: str) -> list[KeptEvent]:
        seq, saved, log = 0, 0, []
        for state, events in games[table_id]:
            numbered = [(seq := seq + 1, kept_event(e)) for e in events]
            log += numbered
            await keeper.save(table_id, {"seq": seq}, state, saved, numbered)
            saved = len(state.log)
        return log

    async def scenario(db: AsyncEngine) -> None:
        keeper = Keeper(db)
        logs = await asyncio.gather(keep(keeper, "t1"), keep(keeper, "t2"))  # saves interleave
        assert sorted(await keeper.kept()) == ["t1", "t2"]
        for (table_id, steps), log in zip(games.items(), logs, strict=True):
            kept = await Keeper(db).load(table_id)  # as after a restart
            assert kept is not None and kept.data == {"seq": len(log)}
            assert engine.replay(kept.record) == steps[-1][0]
            assert kept.events == log  # each event as it was kept
        # a new game at the same table starts a new log
        first = games["t2"][0][0]
        await keeper.save("t2", {"seq": 0}, first, 0, [])
        again = await keeper.load("t2")
        assert again is not None and engine.replay(again.record) == first and again.events == []
        await keeper.drop("t1")
        assert await keeper.kept() == ["t2"] and await keeper.load("t1") is None

    async def main() -> None:
        await migrate(database_url)
        database = Database(database_url)
        try:
            await scenario(database.engine)
        finally:
            await database.close()

    asyncio.run(main())


def test_sqlite_held_by_another_connection_waits_off_the_event_loop(tmp_path: Path) -> None:
    """A save finds SQLite locked by another writer: it waits for the lock in a thread while
    the event loop goes on, and is written once the lock is free; a save made meanwhile waits
    its turn (the connection is busy in the thread), then is written too."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'locked.db'}"
    ((state, events),) = played(1)

    async def main() -> None:
        await migrate(url)
        database = Database(url)
        keeper = Keeper(database.engine)
        other = sqlite3.connect(tmp_path / "locked.db", isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # another connection holds the write lock
            save = asyncio.create_task(
                keeper.save("t1", {"seq": 1}, state, 0, [(1, kept_event(events[0]))])
            )
            ticks = 0
            for _ in range(20):  # the loop is free meanwhile
                await asyncio.sleep(0.01)
                ticks += 1
            assert ticks == 20 and not save.done()
            later = asyncio.create_task(keeper.save("t2", {"seq": 2}, state, 0, []))
            await asyncio.sleep(0.05)
            assert not later.done()
            other.execute("COMMIT")
            await asyncio.wait_for(asyncio.gather(save, later), 5)
            kept = await keeper.load("t1")
            assert kept is not None and kept.data == {"seq": 1} and len(kept.events) == 1
            kept = await keeper.load("t2")
            assert kept is not None and kept.data == {"seq": 2}
        finally:
            other.close()
            await keeper.close()
            await database.close()

    asyncio.run(main())


def test_a_move_that_cannot_be_kept_never_happened(tmp_path: Path) -> None:
    with duel(tmp_path, 3, {"move_seconds": 30}) as (client, _, alice, bob, table):
        keeper = client.app.state.lobby.services.keeper  # type: ignore[attr-defined]
        save = keeper.save
        game = alice.game
        assert game is not None and game["to_move"] == 0
        origin = sorted(game["legal_moves"])[0]
        move = {"type": "move", "origin": origin, "target": game["legal_moves"][origin][0]}

        async def broken(*args: object) -> None:
            raise OSError("disk full")

        keeper.save = broken
        version = alice.version
        refused = alice.act(table, move)
        assert refused["code"] == "unavailable"
        keeper.save = save
        assert alice.request({"type": "open", "table": table})["type"] == "ok"
        assert alice.version == version  # the table did not move on
        played = alice.act(table, move)
        assert played["type"] == "ok"  # and the same move is played again
        bob.sync(played["version"])
        seen = [e for m in bob.received if m["type"] == "update" for e in m["events"]]
        assert sum(e["kind"] == "moved" for e in seen) == 1


@pytest.mark.parametrize("restart_frames", [10_000, 0])
def test_sqlite_checkpoints_in_a_thread_of_their_own(tmp_path: Path, restart_frames: int) -> None:
    """The keeper's commits never copy the write-ahead log into the database (that waits for
    the disk, in the event loop): a thread does, every so many writes, passively or (a log
    grown past ``restart_frames``) holding the writers off, and what was kept stays
    readable."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'kept.db'}"
    wal = tmp_path / "kept.db-wal"
    ((state, events),) = played(1)

    async def main() -> None:
        await migrate(url)
        database = Database(url)
        keeper = Keeper(database.engine, checkpoint_every=20, restart_frames=restart_frames)
        try:
            assert keeper.sqlite is not None
            assert keeper.sqlite.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
            for n in range(200):
                await keeper.save(
                    f"t{n}", {"n": n, "pad": "x" * 2000}, state, 0, [(1, kept_event(events[0]))]
                )
                if keeper.checkpointing is not None:  # (a slow disk must not fail the test)
                    await keeper.checkpointing
            assert keeper.checkpoints >= 5
            # the log starts again from its beginning after a checkpoint, so it stays small
            assert wal.stat().st_size < 2_000_000  # without checkpoints: about 5 MB
            kept = await keeper.load("t199")
            assert kept is not None and kept.data["n"] == 199
        finally:
            await keeper.close()
            await database.close()

    asyncio.run(main())
