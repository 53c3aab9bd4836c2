"""Quick match's queue stores (``server.queue_store``), in memory and in Redis, held to one
behaviour: one entry per user, tables taken all or none, entries given back as they were, the
seat seed used once, last partners, and (in Redis) one matcher at a time."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable

import pytest
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.match_core import Waiting
from server.queue_store import MemoryQueue, QueueStore, RedisQueue
from tests.live import redis_database
from tests.server.test_cluster import REDIS


def waiting(user: int, entry: str = "") -> Waiting:
    return Waiting(entry or f"e{user}", user, f"p{user}", "siguo", "hidden", 0, float(user))


async def behaves(store: QueueStore) -> None:
    a, b, c = waiting(1), waiting(2), waiting(3)
    assert await store.add(a) and await store.add(b) and await store.add(c)
    assert not await store.add(waiting(1, "again"))  # one place per user
    assert {w.user for w in await store.waiting()} == {1, 2, 3}
    assert await store.remove(3, "e3") and not await store.remove(3, "e3")
    assert not await store.take([a, c])  # c left: none is taken
    assert await store.states([1, 2, 3]) == {1: "e1", 2: "e2", 3: None}
    assert await store.take([a, b])
    assert not await store.take([a])  # taken already
    assert await store.states([1, 2]) == {1: "taken", 2: "taken"}
    assert await store.waiting() == []
    assert not await store.remove(1, "e1")  # a taken place is not given up
    await store.give_back([b])
    assert await store.states([2]) == {2: "e2"} and await store.waiting() == [b]
    await store.done([1])
    assert await store.states([1]) == {1: None} and await store.add(waiting(1, "new"))
    seed = await store.next_seed()
    assert await store.next_seed() == seed and await store.use_seed() == seed
    assert await store.next_seed() != seed
    await store.set_partners([(1, 2)], [1, 2, 3])
    assert await store.partners([1, 2, 3]) == {1: 2, 2: 1}
    await store.set_partners([(1, 3)], [1, 3])
    assert await store.partners([1, 2, 3]) == {1: 3, 3: 1, 2: 1}  # 2's last table was with 1


def test_the_queue_in_memory() -> None:
    asyncio.run(behaves(MemoryQueue()))


def with_redis(run: Callable[[aioredis.Redis, str], Awaitable[None]]) -> None:
    async def main() -> None:
        client = aioredis.from_url(f"{REDIS}/{redis_database()}", decode_responses=True)
        try:
            await client.ping()
        except RedisError:
            pytest.skip(f"needs Redis at {REDIS} (JUNQI_TEST_REDIS)")
        prefix = f"test-quick-{secrets.token_hex(4)}:"  # keys of its own: nothing else touched
        try:
            await run(client, prefix)
        finally:
            keys = [k async for k in client.scan_iter(f"{prefix}*")]
            if keys:
                await client.delete(*keys)
            await client.aclose()

    asyncio.run(main())


def test_the_queue_in_redis() -> None:
    async def run(client: aioredis.Redis, prefix: str) -> None:
        await behaves(RedisQueue(client, prefix))

    with_redis(run)


def test_one_matcher_at_a_time() -> None:
    async def run(client: aioredis.Redis, prefix: str) -> None:
        here, there = RedisQueue(client, prefix), RedisQueue(client, prefix)
        assert await here.lead("a", 0.3)
        assert not await there.lead("b", 0.3)
        assert await here.lead("a", 0.3)  # renewed
        await asyncio.sleep(0.4)
        assert await there.lead("b", 0.3)  # lapsed: another takes it
        assert not await here.lead("a", 0.3)

    with_redis(run)
