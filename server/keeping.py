"""Keeping running tables, so that a restart or another process can take them back exactly.

A table is kept while its game runs: the table around the game (seats, ids, counters) and the
game's record, written before the players hear of a change. ``DatabaseKeeper`` keeps them in the
database, for the embedded single-process default. ``RedisKeeper`` keeps them in Redis as an
append-only log (the record's header once, then each action and each event as it comes) and only
while the writing process still owns the table, so that a process that lost its table to another
can never write over the new owner's moves.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Protocol

import redis.asyncio as aioredis

import engine
from engine import Event, GameState
from server.store import Store

OWNER_KEY = "junqi:owner:"  # + table id: the process that owns the table (a lease)
LIVE_SET = "junqi:live"  # ids of the kept tables
KEPT_KEY = "junqi:kept:"  # + table id: a hash of "data" and "header"; lists ":actions", ":events"


class LeaseLost(Exception):
    """This process no longer owns the table: another one took it over."""


@dataclass
class KeptTable:
    table_id: str
    data: dict[str, Any]  # the table around the game (``Table.persist``)
    record: engine.GameRecord
    events: list[tuple[int, Event]]  # the game's numbered events so far (may be empty)


class Keeper(Protocol):
    async def save(
        self,
        table_id: str,
        data: dict[str, Any],
        state: GameState,
        saved_actions: int,
        events: list[tuple[int, Event]],
    ) -> None:
        """Keep the table: ``data``, the game in ``state`` (of which the first
        ``saved_actions`` actions are kept already) and the ``events`` not kept yet."""

    async def drop(self, table_id: str) -> None: ...

    async def load(self, table_id: str) -> KeptTable | None: ...

    async def kept(self) -> list[str]:
        """The ids of every kept table."""


class DatabaseKeeper:
    """Kept tables in the database (``live_tables``): the whole record, rewritten each time."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def save(
        self,
        table_id: str,
        data: dict[str, Any],
        state: GameState,
        saved_actions: int,
        events: list[tuple[int, Event]],
    ) -> None:
        await self.store.save_table(table_id, data, engine.record_of(state).to_json())

    async def drop(self, table_id: str) -> None:
        await self.store.drop_table(table_id)

    async def load(self, table_id: str) -> KeptTable | None:
        found = await self.store.live_table(table_id)
        if found is None:
            return None
        data, record = found
        return KeptTable(table_id, data, engine.GameRecord.from_json(record), [])

    async def kept(self) -> list[str]:
        return await self.store.live_table_ids()


# Appends to the kept log of a table, only if this process owns it (its lease).
# KEYS: owner, kept hash, actions list, events list, live set.
# ARGV: node, table id, data, header ('' unless the game is new), number of actions, the actions,
# then the events.
_SAVE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[4] ~= '' then
  redis.call('DEL', KEYS[3], KEYS[4])
  redis.call('HSET', KEYS[2], 'header', ARGV[4])
end
redis.call('HSET', KEYS[2], 'data', ARGV[3])
local actions = tonumber(ARGV[5])
for i = 6, 5 + actions do redis.call('RPUSH', KEYS[3], ARGV[i]) end
for i = 6 + actions, #ARGV do redis.call('RPUSH', KEYS[4], ARGV[i]) end
redis.call('SADD', KEYS[5], ARGV[2])
return 1
"""

_DROP = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('SREM', KEYS[5], ARGV[2])
return 1
"""


class RedisKeeper:
    """Kept tables in Redis, written only under the table's lease held by ``node``."""

    def __init__(self, redis: aioredis.Redis, node: str) -> None:
        self.redis = redis  # decoding responses
        self.node = node
        self._save = redis.register_script(_SAVE)
        self._drop = redis.register_script(_DROP)

    @staticmethod
    def keys(table_id: str) -> list[str]:
        kept = KEPT_KEY + table_id
        return [OWNER_KEY + table_id, kept, kept + ":actions", kept + ":events", LIVE_SET]

    async def save(
        self,
        table_id: str,
        data: dict[str, Any],
        state: GameState,
        saved_actions: int,
        events: list[tuple[int, Event]],
    ) -> None:
        header = ""
        if saved_actions == 0:
            header = dataclasses.replace(engine.record_of(state), actions=()).to_json()
        actions = [json.dumps(engine.action_to_dict(a)) for a in state.log[saved_actions:]]
        kept_events = [
            json.dumps([seq, event.to_dict()], ensure_ascii=False) for seq, event in events
        ]
        args: list[str | int] = [
            self.node,
            table_id,
            json.dumps(data, ensure_ascii=False),
            header,
            len(actions),
        ]
        if not await self._save(self.keys(table_id), [*args, *actions, *kept_events]):
            raise LeaseLost(table_id)

    async def drop(self, table_id: str) -> None:
        await self._drop(self.keys(table_id), [self.node, table_id])

    async def load(self, table_id: str) -> KeptTable | None:
        _, kept, actions_key, events_key, _ = self.keys(table_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hmget(kept, ["data", "header"])
            pipe.lrange(actions_key, 0, -1)
            pipe.lrange(events_key, 0, -1)
            (data, header), actions, events = await pipe.execute()
        if data is None or header is None:
            return None
        record = json.loads(header)
        record["actions"] = [json.loads(a) for a in actions]
        numbered = [json.loads(e) for e in events]
        return KeptTable(
            table_id,
            json.loads(data),
            engine.GameRecord.from_json(json.dumps(record)),
            [(seq, Event.from_dict(event)) for seq, event in numbered],
        )

    async def kept(self) -> list[str]:
        return sorted(str(m) for m in await self.redis.smembers(LIVE_SET))
