"""The broker: publish/subscribe between the tables, the lobby and the socket connections.

``InMemoryBroker`` serves one process (the default). A Redis backend with the same interface
lets several processes share lobby and table traffic (see the scale-out issue).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any


class Subscription:
    """Messages published on one topic, in order, until closed."""

    def __init__(self, broker: InMemoryBroker, topic: str) -> None:
        self.broker = broker
        self.topic = topic
        self.queue: asyncio.Queue[Any] = asyncio.Queue()

    async def get(self) -> Any:
        return await self.queue.get()

    def close(self) -> None:
        self.broker.unsubscribe(self)


class InMemoryBroker:
    def __init__(self) -> None:
        self.topics: dict[str, set[Subscription]] = defaultdict(set)

    def publish(self, topic: str, message: Any) -> None:
        for subscription in list(self.topics.get(topic, ())):
            subscription.queue.put_nowait(message)

    def subscribe(self, topic: str) -> Subscription:
        subscription = Subscription(self, topic)
        self.topics[topic].add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        self.topics[subscription.topic].discard(subscription)
        if not self.topics[subscription.topic]:
            del self.topics[subscription.topic]
