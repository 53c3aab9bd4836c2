"""The broker: publish/subscribe between the tables, the lobby and the socket connections.

``InMemoryBroker`` serves one process (the default). ``RedisBroker`` has the same interface and
carries every topic through Redis channels, so that several server processes share lobby, chat and
table traffic: a message published in one process reaches the subscribers of every process.
Messages are JSON values.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis

from server import messages
from server.tasks import cancel

log = logging.getLogger("junqi")


class Subscription:
    """Messages published on one topic, in order, until closed: queued for ``get``, or, with
    ``deliver``, handed to it as they are published (in this process: while ``publish`` runs)."""

    def __init__(
        self, broker: InMemoryBroker, topic: str, deliver: Callable[[Any], None] | None = None
    ) -> None:
        self.broker = broker
        self.topic = topic
        self.deliver = deliver
        self.queue: asyncio.Queue[Any] = asyncio.Queue()

    async def get(self) -> Any:
        return await self.queue.get()

    def close(self) -> None:
        self.broker.unsubscribe(self)


class InMemoryBroker:
    """Topics of one process."""

    def __init__(self) -> None:
        self.topics: dict[str, set[Subscription]] = defaultdict(set)

    def publish(self, topic: str, message: Any) -> None:
        """Hand ``message`` to every subscriber of ``topic`` (in every process)."""
        self.publish_local(topic, message)

    def publish_local(self, topic: str, message: Any) -> None:
        """Hand ``message`` to the subscribers of ``topic`` in this process only."""
        for subscription in list(self.topics.get(topic, ())):
            if subscription.deliver is not None:
                subscription.deliver(message)
            else:
                subscription.queue.put_nowait(message)

    def subscribe(self, topic: str, deliver: Callable[[Any], None] | None = None) -> Subscription:
        subscription = Subscription(self, topic, deliver)
        self.topics[topic].add(subscription)
        self.listen(topic)
        return subscription

    async def subscribed(self, topic: str) -> None:
        """Wait until messages published on ``topic`` from anywhere reach this process."""

    def listen(self, topic: str) -> None:
        """A first subscriber to ``topic`` in this process (nothing to do in one process)."""

    def unsubscribe(self, subscription: Subscription) -> None:
        subscribers = self.topics.get(subscription.topic)
        if subscribers is None:
            return
        subscribers.discard(subscription)
        if not subscribers:
            del self.topics[subscription.topic]
            self.forget(subscription.topic)

    def forget(self, topic: str) -> None:
        """The last subscriber to ``topic`` in this process left."""

    async def start(self) -> None:
        """Connect (nothing to connect to in one process)."""

    async def close(self) -> None:
        """Disconnect."""


SEND_RETRIES = (0.05, 0.25, 0.5)  # seconds before each new try of a batch Redis refused


class RedisBroker(InMemoryBroker):
    """Topics shared by every process connected to one Redis (a client that decodes
    responses): a process subscribes to a topic's
    channel while it has subscribers to it. Publishing is ordered: one writer task sends the
    messages in the order they were published; subscribers in the publishing process get them
    at once, the others through Redis. Messages published while Redis is away are lost: once
    the subscriptions are back, ``on_reconnect`` is called, for what was missed meanwhile."""

    def __init__(self, redis: aioredis.Redis, node: str) -> None:
        super().__init__()
        self.redis = redis
        self.node = node  # the messages of this process come back from Redis: they are skipped
        # channels are not per database, as keys are: the database's number keeps clusters that
        # share a Redis server (on different databases) apart
        database = redis.connection_pool.connection_kwargs.get("db", 0)
        self.prefix = f"junqi:{database}:topic:"
        self.pubsub = redis.pubsub(ignore_subscribe_messages=True)
        self.outbox: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self.channels: dict[str, asyncio.Future[None]] = {}  # topic -> subscribed in Redis
        self.tasks: list[asyncio.Task[None]] = []
        # called when the connection to Redis is lost, and once it is back
        self.on_disconnect: Callable[[], None] | None = None
        self.on_reconnect: Callable[[], None] | None = None
        self.connected = True

    async def start(self) -> None:
        # a channel of our own, so that the reader always has a subscription to wait on
        await self.pubsub.subscribe(self.prefix + "node:" + self.node)
        # called at each connection after this first one, once the subscriptions are sent
        # again (redis-py does that first, in its own callback)
        assert self.pubsub.connection is not None
        self.pubsub.connection.register_connect_callback(self._reconnected)
        self.tasks = [
            asyncio.create_task(self._read(), name="broker reader"),
            asyncio.create_task(self._write(), name="broker writer"),
        ]

    async def close(self) -> None:
        await cancel(self.tasks)
        if not self.outbox.empty():  # the last words (a table gone) still go out
            await self._send([self.outbox.get_nowait() for _ in range(self.outbox.qsize())])
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()

    def _reconnected(self, _connection: Any) -> None:
        log.warning("Redis pub/sub connected again")
        self.connected = True
        if self.on_reconnect is not None:
            asyncio.get_running_loop().call_soon(self.on_reconnect)

    def publish(self, topic: str, message: Any) -> None:
        self.publish_local(topic, message)
        envelope = json.dumps({"from": self.node, "message": message}, ensure_ascii=False)
        self.outbox.put_nowait((self.prefix + topic, envelope))

    def listen(self, topic: str) -> None:
        if topic not in self.channels:
            future = asyncio.get_running_loop().create_future()
            self.channels[topic] = future
            task = asyncio.create_task(self._subscribe(topic, future))
            task.add_done_callback(lambda _: None)

    async def _subscribe(self, topic: str, future: asyncio.Future[None]) -> None:
        try:
            await self.pubsub.subscribe(self.prefix + topic)
        except Exception as error:  # the waiters hear of it; the next subscriber tries again
            self.channels.pop(topic, None)
            future.set_exception(error)
        else:
            future.set_result(None)

    async def subscribed(self, topic: str) -> None:
        future = self.channels.get(topic)
        if future is not None:
            await asyncio.shield(future)

    def forget(self, topic: str) -> None:
        future = self.channels.pop(topic, None)
        if future is not None:
            task = asyncio.create_task(self._unsubscribe(topic, future))
            task.add_done_callback(lambda _: None)

    async def _unsubscribe(self, topic: str, subscribing: asyncio.Future[None]) -> None:
        with contextlib.suppress(Exception):
            await subscribing
            if topic not in self.channels:  # nobody subscribed again meanwhile
                await self.pubsub.unsubscribe(self.prefix + topic)

    async def _read(self) -> None:
        while True:
            try:
                message = await self.pubsub.get_message(timeout=1.0)
            except (ConnectionError, aioredis.ConnectionError, OSError):
                if self.connected:
                    log.warning("lost Redis pub/sub; reconnecting")
                    if self.on_disconnect is not None:
                        self.on_disconnect()
                self.connected = False
                await asyncio.sleep(0.5)
                continue
            if message is None or message["type"] != "message":
                continue
            topic = message["channel"].removeprefix(self.prefix)
            try:
                envelope = json.loads(message["data"])
                sender, body = envelope["from"], envelope["message"]
            except (ValueError, KeyError, TypeError):
                log.warning("a message that is no envelope on %s was dropped", topic)
                continue
            if sender == self.node:
                continue
            checked = messages.checked(topic, body)
            if checked is not None:  # else of an unknown shape: dropped, and logged
                self.publish_local(topic, checked)

    async def _write(self) -> None:
        while True:
            batch = [await self.outbox.get()]
            while not self.outbox.empty():
                batch.append(self.outbox.get_nowait())
            await self._send(batch)

    async def _send(self, batch: list[tuple[str, str]]) -> None:
        """Publish ``batch``, trying again a few times: the first command after Redis came
        back goes out on a pooled connection that died with it, and a message lost then, with
        every subscription back, would be lost for good (a player never told it is his turn).
        A message twice is harmless: receivers drop the versions they hold."""
        for pause in (*SEND_RETRIES, None):
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, data in batch:
                        pipe.publish(channel, data)
                    await pipe.execute()
                return
            except aioredis.RedisError:
                if pause is None:
                    log.exception("could not publish %d messages to Redis", len(batch))
                    return
                await asyncio.sleep(pause)
