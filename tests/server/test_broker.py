"""The Redis broker across a Redis restart, and with messages of unknown shapes, on a Redis of
the test's own."""

from __future__ import annotations

import asyncio
import logging
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
            sender.publish("table:t", messages.moved("t", 1))
            assert await asyncio.wait_for(heard.get(), 5) == messages.moved("t", 1)
            redis.kill()
            await asyncio.sleep(1.0)  # both readers notice
            redis.start()
            await asyncio.wait_for(asyncio.gather(back[0].wait(), back[1].wait()), 10)
            sender.publish("table:t", messages.moved("t", 2))
            assert await asyncio.wait_for(heard.get(), 5) == messages.moved("t", 2)
        finally:
            for broker, client in zip((sender, receiver), clients, strict=True):
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
    redis = PrivateRedis(tmp_path / "redis", keep=False)
    redis.directory.mkdir()
    redis.start()

    async def main() -> None:
        clients = [aioredis.from_url(redis.url, decode_responses=True) for _ in range(2)]
        sender, receiver = RedisBroker(clients[0], "sender"), RedisBroker(clients[1], "receiver")
        for broker in (sender, receiver):
            await broker.start()
        heard = receiver.subscribe("table:t")
        entries = receiver.subscribe("tables")
        await receiver.subscribed("table:t")
        await receiver.subscribed("tables")
        try:
            sender.publish("table:t", {"table": "t", "closed": True})  # no kind
            sender.publish("tables", {"table": "t", "entry": {"listing": {}}})  # half an entry
            await clients[0].publish(receiver.prefix + "table:t", "not json")
            sender.publish("table:t", messages.closed("t", "idle"))
            assert await asyncio.wait_for(heard.get(), 5) == messages.closed("t", "idle")
            assert entries.queue.empty()
        finally:
            for broker, client in zip((sender, receiver), clients, strict=True):
                await broker.close()
                await client.aclose()

    try:
        with caplog.at_level(logging.WARNING, logger="junqi"):
            asyncio.run(main())
    finally:
        redis.kill()
    dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert len(dropped) == 3, dropped
