"""Feeds: each message reaches every follower as it is published; a follower that has to wait
holds up nobody else, and still gets its messages one at a time, in order."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

import pytest

from server.broker import InMemoryBroker
from server.feeds import Feeds, start_eagerly


def test_a_coroutine_that_need_not_wait_finishes_at_once_and_one_that_must_goes_on() -> None:
    async def main() -> None:
        done: list[str] = []

        async def quick() -> None:
            done.append("quick")

        assert start_eagerly(quick()) is None and done == ["quick"]  # no task, no loop turn

        gate: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        async def waits() -> None:
            done.append("before")
            done.append(f"got {await gate}")
            await asyncio.sleep(0)
            done.append("after")

        rest = start_eagerly(waits())
        assert rest is not None and done == ["quick", "before"]  # ran up to its wait
        gate.set_result(7)
        await rest
        assert done == ["quick", "before", "got 7", "after"]

        async def fails() -> None:
            raise ValueError("at once")

        with pytest.raises(ValueError, match="at once"):
            start_eagerly(fails())

        stuck = start_eagerly(asyncio.sleep(60))
        assert stuck is not None

        async def finish(rest: Awaitable[None]) -> None:
            await rest

        task = asyncio.create_task(finish(stuck))
        await asyncio.sleep(0)
        task.cancel()  # reaches the sleep that the rest waits in
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_a_slow_follower_holds_up_nobody_and_gets_its_messages_in_order() -> None:
    async def main() -> None:
        broker = InMemoryBroker()
        feeds = Feeds(broker)
        quick: list[int] = []
        slow: list[int] = []
        blocked = asyncio.Event()

        async def to_quick(message: Any) -> None:
            quick.append(message)

        async def to_slow(message: Any) -> None:
            if message == 1:
                await blocked.wait()  # a client that does not read, say
            slow.append(message)

        await feeds.follow("table:t", "quick", to_quick)
        await feeds.follow("table:t", "slow", to_slow)
        assert len(broker.topics["table:t"]) == 1  # one subscription for the process
        for n in range(1, 6):
            broker.publish("table:t", n)
        await asyncio.sleep(0.01)
        assert quick == [1, 2, 3, 4, 5] and slow == []
        blocked.set()
        await asyncio.sleep(0.01)
        assert slow == [1, 2, 3, 4, 5]

        feeds.unfollow("table:t", "quick")
        broker.publish("table:t", 6)
        await asyncio.sleep(0.01)
        assert quick == [1, 2, 3, 4, 5] and slow[-1] == 6
        feeds.unfollow("table:t", "slow")
        await asyncio.sleep(0.01)
        assert "table:t" not in broker.topics  # the last one gone: no subscription left
        await feeds.close()

    asyncio.run(main())


def test_unfollowing_drops_the_messages_a_slow_follower_had_not_handled() -> None:
    async def main() -> None:
        broker = InMemoryBroker()
        feeds = Feeds(broker)
        got: list[int] = []
        never = asyncio.Event()

        async def stuck(message: Any) -> None:
            await never.wait()
            got.append(message)

        async def other(message: Any) -> None:
            pass

        await feeds.follow("chat:t", "stuck", stuck)
        await feeds.follow("chat:t", "other", other)
        broker.publish("chat:t", 1)
        broker.publish("chat:t", 2)
        await asyncio.sleep(0.01)
        behind = feeds.feeds["chat:t"].behind["stuck"]
        assert list(behind.messages) == [2]
        feeds.unfollow("chat:t", "stuck")
        await asyncio.sleep(0.01)
        assert behind.task.cancelled()
        never.set()  # the second one went with the first
        await asyncio.sleep(0.01)
        assert got == []
        await feeds.close()

    asyncio.run(main())


def test_a_message_reaches_the_followers_while_it_is_published() -> None:
    async def main() -> None:
        broker = InMemoryBroker()
        feeds = Feeds(broker)
        got: list[tuple[str, int]] = []

        async def to(name: str, message: int) -> None:
            got.append((name, message))

        await feeds.follow("table:t", "a", lambda m: to("a", m))
        await feeds.follow("table:t", "b", lambda m: to("b", m))
        broker.publish("table:t", 1)
        assert got == [("a", 1), ("b", 1)]  # no task, no turn of the loop
        await feeds.close()
        broker.publish("table:t", 2)
        assert got == [("a", 1), ("b", 1)]  # closed: subscribed no more
        assert "table:t" not in broker.topics

    asyncio.run(main())


def test_a_message_published_by_a_follower_reaches_everyone_after_the_one_under_way() -> None:
    async def main() -> None:
        broker = InMemoryBroker()
        feeds = Feeds(broker)
        got: list[tuple[str, int]] = []

        async def first(message: int) -> None:
            got.append(("first", message))
            if message == 1:
                broker.publish("table:t", 2)  # an answer, published while 1 is handed out

        async def second(message: int) -> None:
            got.append(("second", message))

        await feeds.follow("table:t", "first", first)
        await feeds.follow("table:t", "second", second)
        broker.publish("table:t", 1)
        assert got == [("first", 1), ("second", 1), ("first", 2), ("second", 2)]
        await feeds.close()

    asyncio.run(main())


def test_a_handler_cancelled_at_once_does_not_reach_the_publisher() -> None:
    async def main() -> None:
        broker = InMemoryBroker()
        feeds = Feeds(broker)
        got: list[int] = []
        gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        gone.cancel()

        async def closing(message: int) -> None:
            await gone  # raises CancelledError during the publish

        async def other(message: int) -> None:
            got.append(message)

        await feeds.follow("table:t", "closing", closing)
        await feeds.follow("table:t", "other", other)
        broker.publish("table:t", 1)  # raises nothing
        broker.publish("table:t", 2)
        assert got == [1, 2]
        await feeds.close()

    asyncio.run(main())
