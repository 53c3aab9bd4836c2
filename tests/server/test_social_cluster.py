"""Friends' presence across two real nodes (``scripts/cluster.sh``, PostgreSQL and Redis): a
friend signed in, watching or seated on one node is seen so from the other within seconds, and
a node killed takes its users offline once its presence goes stale."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection

from tests.server.sockets import live_socket
from tests.server.test_cluster import REDIS, REDIS_DATABASE, _empty_redis, start_cluster

REFRESH = 1.0  # the nodes' JUNQI_PRESENCE_REFRESH_SECONDS: a dead node's users go in 3 s


def register(base: str, name: str) -> str:
    answer = httpx.post(f"{base}/api/auth/register", json={"name": name, "password": "secret-pw"})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["token"])


def request(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    ws.send(json.dumps({"id": 1, **message}))
    while True:
        answer: dict[str, Any] = json.loads(ws.recv(timeout=10))
        if answer.get("ref") == 1:
            return answer


def until(check: Callable[[], dict[str, Any]], want: dict[str, Any], seconds: float) -> float:
    """Poll ``check`` until what it answers has ``want``'s items; the seconds it took."""
    start = time.monotonic()
    while True:
        got = check()
        if want.items() <= got.items():
            return time.monotonic() - start
        assert time.monotonic() - start < seconds, f"{got} is not {want} after {seconds} s"
        time.sleep(0.2)


def test_presence_across_two_nodes(postgres_url: str, tmp_path: Path) -> None:
    store = _empty_redis()
    settings = {"JUNQI_PRESENCE_REFRESH_SECONDS": str(REFRESH)}
    try:
        with start_cluster(
            postgres_url, f"{REDIS}/{REDIS_DATABASE}", tmp_path, settings
        ) as cluster:
            one, two = (node.base for node in cluster.nodes)
            ann, ben = register(one, "ann"), register(two, "ben")
            as_ann = {"Authorization": f"Bearer {ann}"}
            as_ben = {"Authorization": f"Bearer {ben}"}
            assert httpx.post(f"{one}/api/friends", json={"name": "ben"}, headers=as_ann).is_success
            assert httpx.post(f"{two}/api/friends", json={"name": "ann"}, headers=as_ben).is_success

            def ben_seen_from_one() -> dict[str, Any]:
                friends = httpx.get(f"{one}/api/friends", headers=as_ann).json()["friends"]
                presence: dict[str, Any] = friends[0]["presence"]
                return presence

            assert ben_seen_from_one()["state"] == "offline"
            with live_socket(one, ann) as a, live_socket(two, ben) as b:
                until(ben_seen_from_one, {"state": "online"}, 3)
                table = request(a, {"type": "create_table", "room": "duel"})["table"]
                assert request(a, {"type": "sit", "table": table, "seat": 0})["type"] == "ok"
                assert request(b, {"type": "open", "table": table})["type"] == "ok"
                until(ben_seen_from_one, {"state": "watching", "table": table}, 3)
                assert request(b, {"type": "close", "table": table})["type"] == "ok"
                until(ben_seen_from_one, {"state": "online"}, 3)
            until(ben_seen_from_one, {"state": "offline"}, 3)  # his socket closed
            # a node that dies leaves no one online behind it
            with live_socket(two, ben) as b:
                assert request(b, {"type": "ping"})["type"] == "pong"
                until(ben_seen_from_one, {"state": "online"}, 3)
                os.kill(cluster.nodes[1].pid, signal.SIGKILL)
                until(ben_seen_from_one, {"state": "offline"}, 3 * REFRESH + 3)
    finally:
        store.flushdb()
        store.close()
