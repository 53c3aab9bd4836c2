"""Back-off after failed logins, per account name: against guessing one user's password.

Every login attempt for a name counts, and a correct one wipes the count. From the
``free``-th attempt on, each makes the next one wait: ``first`` seconds, then twice as long each
time, at most ``most`` seconds. An attempt during the wait is refused without a look at the
password (so it costs no hashing either). A name nobody has counts the same as a real one: the
answer never tells whether a name exists. The count is forgotten ``FORGET_SECONDS`` after the
last attempt.

With Redis (several server processes) attempts are counted there, for every process together;
should Redis fail, this process's own count decides meanwhile, as ``server.limits`` does.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass, field

import redis.asyncio as aioredis
from redis.exceptions import RedisError

log = logging.getLogger("junqi")
FORGET_SECONDS = 3600.0


def wait_after(attempts: int, free: int, first: float, most: float) -> float:
    """How long the next attempt waits after ``attempts`` unsuccessful ones."""
    if attempts < free:
        return 0.0
    return min(first * 2.0 ** min(attempts - free, 64), most)


@dataclass
class _Count:
    attempts: int = 0
    until: float = 0.0  # no attempt before this (time.monotonic)
    last: float = 0.0


@dataclass
class LoginBackoff:
    """The back-off counted by this process alone."""

    free: int = 5
    first: float = 1.0
    most: float = 300.0
    counts: dict[str, _Count] = field(default_factory=dict)
    sweep_at: int = 1024

    def attempt_now(self, key: str, now: float | None = None) -> float:
        """Count an attempt for ``key``: 0 if it may go ahead, else the seconds to wait."""
        now = time.monotonic() if now is None else now
        count = self.counts.get(key)
        if count is None or now - count.last >= max(FORGET_SECONDS, self.most):
            if len(self.counts) >= self.sweep_at:
                self._sweep(now)
            count = self.counts[key] = _Count()
        if count.until > now:
            return count.until - now
        count.attempts += 1
        count.last = now
        count.until = now + wait_after(count.attempts, self.free, self.first, self.most)
        return 0.0

    def succeeded_now(self, key: str) -> None:
        self.counts.pop(key, None)

    async def attempt(self, key: str) -> float:
        return self.attempt_now(key)

    async def succeeded(self, key: str) -> None:
        """A correct login for ``key``: its count starts again."""
        self.succeeded_now(key)

    def _sweep(self, now: float) -> None:
        """Forget the names that have gone quiet (``server.limits.RateLimit`` does the same)."""
        keep = max(FORGET_SECONDS, self.most)
        self.counts = {k: c for k, c in self.counts.items() if now - c.last < keep}
        self.sweep_at = max(1024, 2 * len(self.counts))


# One attempt for KEYS[1] (a hash: attempts, until), on Redis's clock. ARGV: free, first, most,
# forget (seconds). Returns the seconds to wait as text ("0": go ahead).
_ATTEMPT = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local until_ = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if until_ > now then return tostring(until_ - now) end
local attempts = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
local free, first, most = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if attempts >= free then
  local wait = math.min(first * 2 ^ math.min(attempts - free, 64), most)
  redis.call('HSET', KEYS[1], 'until', tostring(now + wait))
end
redis.call('EXPIRE', KEYS[1], math.ceil(math.max(tonumber(ARGV[4]), most)))
return '0'
"""


class SharedLoginBackoff:
    """The back-off counted in Redis for every process together."""

    def __init__(
        self, redis: aioredis.Redis, free: int, first: float, most: float, name: str = "logins"
    ) -> None:
        self.local = LoginBackoff(free, first, most)
        self.redis = redis
        self.script = redis.register_script(_ATTEMPT)
        self.prefix = f"junqi:backoff:{name}:"

    def _key(self, key: str) -> str:
        # names are any text: hashed, the Redis key is short and always encodable
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return self.prefix + digest

    async def attempt(self, key: str) -> float:
        """Count an attempt for ``key``: 0 if it may go ahead, else the seconds to wait."""
        local = self.local
        try:
            wait = await self.script(
                [self._key(key)], [local.free, local.first, local.most, FORGET_SECONDS]
            )
        except RedisError:
            log.warning("login back-off counted by this process alone: Redis failed")
            return local.attempt_now(key)
        return float(wait)

    async def succeeded(self, key: str) -> None:
        self.local.succeeded_now(key)
        try:
            await self.redis.delete(self._key(key))
        except RedisError:
            log.warning("login back-off: Redis failed to forget a name's failures")


def login_backoff(
    free: int, first: float, most: float, redis: aioredis.Redis | None = None
) -> LoginBackoff | SharedLoginBackoff:
    """The back-off for an app: in Redis when there is one, else in this process."""
    if redis is None:
        return LoginBackoff(free, first, most)
    return SharedLoginBackoff(redis, free, first, most)
