"""Quick match with two real nodes sharing PostgreSQL and Redis (``scripts/cluster.sh``): one
queue for the cluster, so players on different nodes are matched into one table; a Redis wipe
loses the queue, its sockets are told so, and they join again."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import redis

from tests.server.sockets import SERVER_MESSAGE, open_live_socket
from tests.server.test_cluster import REDIS, REDIS_DATABASE, Cluster, cluster

__all__ = ["cluster"]  # the fixture


async def connect(base: str, name: str) -> Any:
    async with httpx.AsyncClient(base_url=base) as http:
        reply = await http.post("/api/auth/register", json={"name": name, "password": "secret-pw"})
    ws = await open_live_socket(base, reply.json()["token"])
    assert json.loads(await ws.recv())["type"] == "welcome"
    return ws


async def until(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        SERVER_MESSAGE.validate_python(message)
        if message["type"] == kind:
            return message


async def queue(ws: Any) -> None:
    await ws.send(json.dumps({"type": "queue", "variant": "liangguo", "id": 1}))
    assert (await until(ws, "ok"))["ref"] == 1


def test_players_on_two_nodes_meet_and_a_redis_wipe_only_costs_the_queue(
    cluster: Cluster,
) -> None:
    async def run() -> None:
        ann = await connect(cluster.nodes[0].base, "ann")
        bob = await connect(cluster.nodes[1].base, "bob")
        try:
            await queue(ann)
            assert (await until(ann, "queue_status"))["size"] == 1
            store = redis.Redis.from_url(f"{REDIS}/{REDIS_DATABASE}")
            store.delete("quick:entries")  # as a wipe does (the rest of the cluster's keys stay)
            store.close()
            assert (await until(ann, "unqueued"))["why"] == "lost"
            await queue(ann)  # as the client does when told
            await queue(bob)
            met = await until(ann, "matched"), await until(bob, "matched")
            assert met[0]["table"] == met[1]["table"] and met[0]["commitment"]
            await bob.send(json.dumps({"type": "open", "table": met[1]["table"]}))
            table = await until(bob, "table")
            names = {s["name"] for s in table["snapshot"]["seats"]}
            assert names == {"ann", "bob"}
        finally:
            await ann.close()
            await bob.close()

    asyncio.run(run())
