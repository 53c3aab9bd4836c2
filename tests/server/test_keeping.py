"""Kept tables in Redis: an append-only log that a new owner rebuilds exactly, written only under
the table's lease (needs the machine's Redis, as the multi-process tests do)."""

from __future__ import annotations

import asyncio
import random

import pytest
import redis.asyncio as aioredis

import engine
from server.keeping import OWNER_KEY, LeaseLost, RedisKeeper
from tests.engine.test_random_games import choose_action
from tests.server.test_cluster import REDIS, REDIS_DATABASE, _empty_redis


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


def test_a_new_owner_rebuilds_the_kept_game_and_the_old_one_can_no_longer_write() -> None:
    _empty_redis().close()

    async def scenario() -> None:
        redis = aioredis.from_url(f"{REDIS}/{REDIS_DATABASE}", decode_responses=True)
        old, new = RedisKeeper(redis, "old-node"), RedisKeeper(redis, "new-node")
        try:
            await redis.set(OWNER_KEY + "t1", "old-node")
            seq, saved, log = 0, 0, []
            for state, events in played(60):
                numbered = [(seq := seq + 1, e) for e in events]
                log += numbered
                data = {"version": len(log), "seq": seq}
                await old.save("t1", data, state, saved, numbered)
                saved = len(state.log)
            assert await new.kept() == ["t1"]
            kept = await new.load("t1")
            assert kept is not None and kept.data == data
            assert engine.replay(kept.record) == state  # the same game, action for action
            assert [(s, e.to_dict()) for s, e in kept.events] == [(s, e.to_dict()) for s, e in log]

            await redis.set(OWNER_KEY + "t1", "new-node")  # the table moved
            with pytest.raises(LeaseLost):
                await old.save("t1", {"version": 0}, state, saved, [])
            await old.drop("t1")  # refused as well: the new owner's game stays
            assert await new.kept() == ["t1"]
            again = await new.load("t1")
            assert again is not None and again.data == data
            await new.drop("t1")
            assert await new.kept() == [] and await new.load("t1") is None
        finally:
            await redis.flushdb()
            await redis.aclose()

    asyncio.run(scenario())
