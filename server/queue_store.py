"""Where quick match's queue lives: in memory for one process (``MemoryQueue``), in Redis for a
cluster (``RedisQueue``), one interface.

The queue holds one entry per user (so one queue at most per player across the cluster), the
seed of the next table's seat draw (its commitment is shown to the waiting players before it is
used), each user's partner at their last quick-match table, and the matcher's lease: one
process at a time forms tables. An entry the matcher takes is marked ``taken`` (not deleted)
until its table is made, so that the process holding the player's socket does not mistake it
for one lost; an entry that is gone was lost (Redis wiped, say), and its player joins again.

Redis holds only what may be lost (docs/cluster.md): a wipe costs the queue and nothing else.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import time
from typing import Protocol

import redis.asyncio as aioredis

from server.match_core import Waiting

TAKEN_SECONDS = 30.0  # a taken entry whose table never came is lost after this
PREFIX = "quick:"


def new_seed() -> str:
    return secrets.token_hex(16)


class QueueStore(Protocol):
    async def add(self, w: Waiting) -> bool:
        """Queue ``w``; False if its user is queued already (from any socket)."""

    async def remove(self, user: int, entry: str) -> bool:
        """Take the user's entry ``entry`` out (not one taken); whether it was there."""

    async def waiting(self) -> list[Waiting]:
        """Every entry not taken."""

    async def states(self, users: list[int]) -> dict[int, str | None]:
        """For each user: their entry id, "taken", or None (gone)."""

    async def take(self, entries: list[Waiting]) -> bool:
        """Mark the entries taken, all of them or (if one is gone or changed) none."""

    async def done(self, users: list[int]) -> None:
        """The taken entries' table is made (or given up): they leave the queue."""

    async def give_back(self, entries: list[Waiting]) -> None:
        """Taken entries whose table was not made wait on, as they were (never missing
        meanwhile: a process would take them for lost)."""

    async def use_seed(self) -> str:
        """The next seat seed, replaced by a fresh one (whose commitment is shown next)."""

    async def next_seed(self) -> str:
        """The seed the next table's seats will be drawn from."""

    async def partners(self, users: list[int]) -> dict[int, int]:
        """Each user's partner at their last quick-match table."""

    async def set_partners(self, pairs: list[tuple[int, int]], users: list[int]) -> None:
        """The partners at a new table (``users``: everyone at it, whose last partner ends)."""

    async def lead(self, node: str, seconds: float) -> bool:
        """Whether ``node`` is the matcher now (taking or renewing the lease)."""


class MemoryQueue:
    """The queue of one process."""

    def __init__(self) -> None:
        self.entries: dict[int, Waiting | float] = {}  # a float: taken at that time
        self.seed = new_seed()
        self.last: dict[int, int] = {}

    async def add(self, w: Waiting) -> bool:
        held = self.entries.get(w.user)
        if isinstance(held, float) and time.time() - held > TAKEN_SECONDS:
            held = None
        if held is not None:
            return False
        self.entries[w.user] = w
        return True

    async def remove(self, user: int, entry: str) -> bool:
        held = self.entries.get(user)
        if isinstance(held, Waiting) and held.entry == entry:
            del self.entries[user]
            return True
        return False

    async def waiting(self) -> list[Waiting]:
        return [w for w in self.entries.values() if isinstance(w, Waiting)]

    async def states(self, users: list[int]) -> dict[int, str | None]:
        found: dict[int, str | None] = {}
        for user in users:
            held = self.entries.get(user)
            found[user] = held.entry if isinstance(held, Waiting) else None
            if isinstance(held, float):
                found[user] = "taken" if time.time() - held <= TAKEN_SECONDS else None
        return found

    async def take(self, entries: list[Waiting]) -> bool:
        if any(self.entries.get(w.user) != w for w in entries):
            return False
        for w in entries:
            self.entries[w.user] = time.time()
        return True

    async def done(self, users: list[int]) -> None:
        for user in users:
            if isinstance(self.entries.get(user), float):
                del self.entries[user]

    async def give_back(self, entries: list[Waiting]) -> None:
        for w in entries:
            self.entries[w.user] = w

    async def use_seed(self) -> str:
        seed, self.seed = self.seed, new_seed()
        return seed

    async def next_seed(self) -> str:
        return self.seed

    async def partners(self, users: list[int]) -> dict[int, int]:
        return {u: self.last[u] for u in users if u in self.last}

    async def set_partners(self, pairs: list[tuple[int, int]], users: list[int]) -> None:
        for user in users:
            self.last.pop(user, None)
        for a, b in pairs:
            self.last[a], self.last[b] = b, a

    async def lead(self, node: str, seconds: float) -> bool:
        return True


# every entry named (ARGV: user, entry, ...) still holds that entry: all marked taken, else none
_TAKE = """
for i = 1, #ARGV - 1, 2 do
  local held = redis.call('HGET', KEYS[1], ARGV[i])
  if not held or string.sub(held, 1, 1) ~= '{' or cjson.decode(held)['entry'] ~= ARGV[i + 1] then
    return 0
  end
end
for i = 1, #ARGV - 1, 2 do redis.call('HSET', KEYS[1], ARGV[i], 'taken:' .. KEYS[2]) end
return 1
"""
# the user's entry is ARGV[2]: deleted
_REMOVE = """
local held = redis.call('HGET', KEYS[1], ARGV[1])
if held and string.sub(held, 1, 1) == '{' and cjson.decode(held)['entry'] == ARGV[2] then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
"""
# the lease: taken if free, renewed if ours
_LEAD = """
local holder = redis.call('GET', KEYS[1])
if not holder or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""


def _text(value: str | bytes | None) -> str:
    """A Redis answer as text ("" for none); the client decodes answers already."""
    return value.decode() if isinstance(value, bytes) else value or ""


def _entry(text: str) -> Waiting:
    return Waiting(**json.loads(text))


class RedisQueue:
    """The cluster's queue, in Redis: the hash ``quick:entries`` (user -> entry as JSON, or
    ``taken:<time>``), ``quick:seed``, the hash ``quick:partners`` and the lease
    ``quick:matcher``."""

    def __init__(self, redis: aioredis.Redis, prefix: str = PREFIX) -> None:
        self.redis = redis
        self.prefix = prefix  # of its keys
        self.entries = prefix + "entries"
        self.take_script = redis.register_script(_TAKE)
        self.remove_script = redis.register_script(_REMOVE)
        self.lead_script = redis.register_script(_LEAD)

    async def add(self, w: Waiting) -> bool:
        text = json.dumps(dataclasses.asdict(w))
        if await self.redis.hsetnx(self.entries, str(w.user), text):
            return True
        held = _text(await self.redis.hget(self.entries, str(w.user)))
        # taken, but its table never came
        if held.startswith("taken:") and time.time() - float(held[6:]) > TAKEN_SECONDS:
            await self.redis.hset(self.entries, str(w.user), text)
            return True
        return False

    async def remove(self, user: int, entry: str) -> bool:
        return bool(await self.remove_script(keys=[self.entries], args=[str(user), entry]))

    async def waiting(self) -> list[Waiting]:
        held = await self.redis.hgetall(self.entries)
        return [_entry(_text(t)) for t in held.values() if _text(t).startswith("{")]

    async def states(self, users: list[int]) -> dict[int, str | None]:
        if not users:
            return {}
        held = await self.redis.hmget(self.entries, [str(u) for u in users])
        found: dict[int, str | None] = {}
        for user, value in zip(users, held, strict=True):
            text = _text(value)
            if not text:
                found[user] = None
            elif text.startswith("taken:"):
                fresh = time.time() - float(text[6:]) <= TAKEN_SECONDS
                found[user] = "taken" if fresh else None
            else:
                found[user] = json.loads(text)["entry"]
        return found

    async def take(self, entries: list[Waiting]) -> bool:
        args = [x for w in entries for x in (str(w.user), w.entry)]
        return bool(await self.take_script(keys=[self.entries, str(time.time())], args=args))

    async def done(self, users: list[int]) -> None:
        if users:
            await self.redis.hdel(self.entries, *[str(u) for u in users])

    async def give_back(self, entries: list[Waiting]) -> None:
        if entries:
            async with self.redis.pipeline(transaction=True) as pipe:
                for w in entries:
                    pipe.hset(self.entries, str(w.user), json.dumps(dataclasses.asdict(w)))
                await pipe.execute()

    async def use_seed(self) -> str:
        seed = _text(await self.redis.getset(self.prefix + "seed", new_seed()))
        return seed or await self.use_seed()

    async def next_seed(self) -> str:
        await self.redis.set(self.prefix + "seed", new_seed(), nx=True)
        seed = _text(await self.redis.get(self.prefix + "seed"))
        return seed or await self.next_seed()

    async def partners(self, users: list[int]) -> dict[int, int]:
        if not users:
            return {}
        held = await self.redis.hmget(self.prefix + "partners", [str(u) for u in users])
        return {u: int(p) for u, p in zip(users, held, strict=True) if p is not None}

    async def set_partners(self, pairs: list[tuple[int, int]], users: list[int]) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hdel(self.prefix + "partners", *[str(u) for u in users])
            for a, b in pairs:
                pipe.hset(self.prefix + "partners", mapping={str(a): str(b), str(b): str(a)})
            await pipe.execute()

    async def lead(self, node: str, seconds: float) -> bool:
        ms = str(int(seconds * 1000))
        return bool(await self.lead_script(keys=[self.prefix + "matcher"], args=[node, ms]))
