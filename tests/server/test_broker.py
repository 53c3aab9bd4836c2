"""The Redis broker across a Redis restart, on a Redis of the test's own."""

from __future__ import annotations

import asyncio
from pathlib import Path

from redis import asyncio as aioredis

from server.broker import RedisBroker
from tests.server.test_cluster_faults import PrivateRedis


def test_the_first_message_after_redis_comes_back_reaches_the_other_process(
    tmp_path: Path,
) -> None:
    """Redis restarted (empty): once both processes have their subscriptions back, a message
    published at once still arrives, though the publisher's pooled connection died with the old
    Redis (it is sent again on a new one)."""
    redis = PrivateRedis(tmp_path / "redis", keep=False)
    redis.directory.mkdir()
    redis.start()

    async def main() -> None:
        clients = [aioredis.from_url(redis.url, decode_responses=True) for _ in range(2)]
        sender, receiver = RedisBroker(clients[0], "sender"), RedisBroker(clients[1], "receiver")
        back = [asyncio.Event(), asyncio.Event()]
        for broker, event in zip((sender, receiver), back, strict=True):
            broker.on_reconnect = event.set
            await broker.start()
        heard = receiver.subscribe("table:t")
        await receiver.subscribed("table:t")
        try:
            sender.publish("table:t", {"n": 1})
            assert await asyncio.wait_for(heard.get(), 5) == {"n": 1}
            redis.kill()
            await asyncio.sleep(1.0)  # both readers notice
            redis.start()
            await asyncio.wait_for(asyncio.gather(back[0].wait(), back[1].wait()), 10)
            sender.publish("table:t", {"n": 2})
            assert await asyncio.wait_for(heard.get(), 5) == {"n": 2}
        finally:
            for broker, client in zip((sender, receiver), clients, strict=True):
                await broker.close()
                await client.aclose()

    try:
        asyncio.run(main())
    finally:
        redis.kill()
