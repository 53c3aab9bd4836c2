"""The Redis broker across a Redis restart, and with messages of unknown shapes, on a Redis of
the test's own."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from redis import asyncio as aioredis

from server import messages
from server.broker import RedisBroker
from tests.server.test_cluster_faults import PrivateRedis


def test_the_first_message_after_redis_comes_back_reaches_the_other_process(
    tmp_path: Path,
) -> None:
    """Redis restarted (empty): once both processes have their subscriptions back, a message
    published at once still arrives, though the publisher's pooled connection died with the old
    Redis (it is sent again on a new one)."""

    async def main(redis: PrivateRedis, sender: RedisBroker, receiver: RedisBroker) -> None:
        back = [asyncio.Event(), asyncio.Event()]
        sender.on_reconnect, receiver.on_reconnect = back[0].set, back[1].set
        heard = receiver.subscribe("table:t")
        await receiver.subscribed("table:t")
        sender.publish("table:t", messages.moved("t", 1))
        assert await asyncio.wait_for(heard.get(), 5) == messages.moved("t", 1)
        redis.kill()
        await asyncio.sleep(1.0)  # both readers notice
        redis.start()
        await asyncio.wait_for(asyncio.gather(back[0].wait(), back[1].wait()), 10)
        sender.publish("table:t", messages.moved("t", 2))
        assert await asyncio.wait_for(heard.get(), 5) == messages.moved("t", 2)

    two_brokers(tmp_path, main)


def two_brokers(
    tmp_path: Path,
    test: Callable[[PrivateRedis, RedisBroker, RedisBroker], Awaitable[None]],
) -> None:
    """Run ``test`` with a Redis of its own and two brokers on it, a sender and a receiver
    (as two processes would have)."""
    redis = PrivateRedis(tmp_path / "redis", keep=False)
    redis.directory.mkdir()
    redis.start()

    async def main() -> None:
        clients = [aioredis.from_url(redis.url, decode_responses=True) for _ in range(2)]
        brokers = RedisBroker(clients[0], "sender"), RedisBroker(clients[1], "receiver")
        for broker in brokers:
            await broker.start()
        try:
            await test(redis, *brokers)
        finally:
            for broker, client in zip(brokers, clients, strict=True):
                await broker.close()
                await client.aclose()

    try:
        asyncio.run(main())
    finally:
        redis.kill()


def test_a_message_of_an_unknown_shape_from_another_process_is_dropped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """What comes in through Redis is checked against its topic's type: a message of another
    shape (an old version's, or a stranger's on the channel) is logged and dropped, and the
    reader goes on with the next."""

    async def main(redis: PrivateRedis, sender: RedisBroker, receiver: RedisBroker) -> None:
        heard = receiver.subscribe("table:t")
        entries = receiver.subscribe("tables")
        await receiver.subscribed("table:t")
        await receiver.subscribed("tables")
        sender.publish("table:t", {"table": "t", "closed": True})  # no kind
        sender.publish("tables", {"table": "t", "entry": {"listing": {}}})  # half an entry
        await sender.redis.publish(receiver.prefix + "table:t", "not json")
        sender.publish("table:t", messages.closed("t", "idle"))
        assert await asyncio.wait_for(heard.get(), 5) == messages.closed("t", "idle")
        assert entries.queue.empty()

    with caplog.at_level(logging.WARNING, logger="junqi"):
        two_brokers(tmp_path, main)
    dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert len(dropped) == 3, dropped
