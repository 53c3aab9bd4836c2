"""Rate limits: at most ``count`` events per key in any ``seconds`` long window.

One ``RateLimits`` per app holds a limiter per kind of request (sign-ins by address, tables
created, game actions, seat commands, chat lines and quick phrases by user); the figures come
from the settings. With several server processes (Redis configured) sign-ins, tables, seat
commands, chat lines and phrases are counted in Redis, for every process together: a client
spreading its requests over the processes gets no more.
Game actions are counted by each process alone, where its sockets are: a Redis round trip on
every move would cost more than the flood it guards against.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass, field

import redis.asyncio as aioredis
from redis.exceptions import RedisError

log = logging.getLogger("junqi")


@dataclass
class RateLimit:
    count: int
    seconds: float
    times: dict[Hashable, deque[float]] = field(default_factory=dict)
    sweep_at: int = 1024  # keys held when the next new key sweeps out the idle ones

    def allow(self, key: Hashable, now: float | None = None) -> bool:
        """Count one event for ``key`` if the window has room for it; False if not."""
        now = time.monotonic() if now is None else now
        window = self.times.get(key)
        if window is None:
            if len(self.times) >= self.sweep_at:
                self._sweep(now)
            window = self.times[key] = deque()
        while window and now - window[0] >= self.seconds:
            window.popleft()
        if len(window) >= self.count:
            return False
        window.append(now)
        return True

    async def admit(self, key: Hashable) -> bool:
        """``allow`` now (the interface ``SharedRateLimit`` shares)."""
        return self.allow(key)

    def _sweep(self, now: float) -> None:
        """Forget the keys with no event in the window: else every user and address ever seen
        would stay for the life of the process. Sweeping only when the keys have doubled keeps
        it at a constant cost per event."""
        self.times = {k: w for k, w in self.times.items() if w and now - w[-1] < self.seconds}
        self.sweep_at = max(1024, 2 * len(self.times))


# One event for KEYS[1] if the window has room: a sorted set of the events' times (Redis's own
# clock, the same for every process). ARGV: count, seconds, a member unique to this event.
_ADMIT = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local seconds = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - seconds)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.ceil(seconds * 1000))
return 1
"""


class SharedRateLimit:
    """A rate limit counted in Redis for every process together. Should Redis fail, this
    process's own count decides meanwhile: a limit is never lifted."""

    def __init__(self, redis: aioredis.Redis, name: str, count: int, seconds: float) -> None:
        self.local = RateLimit(count, seconds)
        self.script = redis.register_script(_ADMIT)
        # keys are per Redis database, so clusters that share a server stay apart anyway
        self.prefix = f"junqi:limit:{name}:"

    async def admit(self, key: Hashable) -> bool:
        """Count one event for ``key`` if the window has room for it; False if not."""
        member = secrets.token_hex(8)
        try:
            allowed = await self.script(
                [self.prefix + str(key)], [self.local.count, self.local.seconds, member]
            )
        except RedisError:
            log.warning("rate limit %s counted by this process alone: Redis failed", self.prefix)
            return self.local.allow(key)
        return bool(allowed)


class RateLimits:
    def __init__(
        self,
        sign_ins: int,
        tables: int,
        actions: int,
        chat: int,
        per_seconds: float = 60.0,
        redis: aioredis.Redis | None = None,
        seats: int = 20,
        phrases: int = 10,
        joins: int = 10,
        invites: int = 10,
    ) -> None:
        def limit(
            name: str, count: int, seconds: float = per_seconds
        ) -> RateLimit | SharedRateLimit:
            if redis is None:
                return RateLimit(count, seconds)
            return SharedRateLimit(redis, name, count, seconds)

        self.sign_ins = limit("sign_ins", sign_ins)  # by client address
        self.tables = limit("tables", tables)  # tables created, by user
        self.actions = RateLimit(actions, 10.0)  # game actions, by user, per 10 s
        self.chat = limit("chat", chat)  # chat lines, by user
        self.phrases = limit("phrases", phrases)  # quick phrases, by user
        # seat and table commands (open, close, sit, stand, swap, ready, leave, bots, 托管), by
        # user, per 10 s: each one changes what every lobby watcher or spectator is sent
        self.seats = limit("seats", seats, 10.0)
        # friend rooms joined by code (a wrong password among them) and invites sent, by user
        self.joins = limit("joins", joins)
        self.invites = limit("invites", invites)
