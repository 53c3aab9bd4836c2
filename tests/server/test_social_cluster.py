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


RECEIVED: dict[int, list[dict[str, Any]]] = {}  # every message each socket got, by id(ws)


def receive(ws: ClientConnection) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(ws.recv(timeout=10))
    RECEIVED.setdefault(id(ws), []).append(message)
    return message


def request(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    ws.send(json.dumps({"id": 1, **message}))
    while (answer := receive(ws)).get("ref") != 1:
        pass
    return answer


def lobby_chat(ws: ClientConnection, last: str) -> list[tuple[str, str]]:
    """The lobby chat lines the socket got (read already, or to come), up to the one that says
    ``last``."""
    while True:
        lines = [(m["from"], m["text"]) for m in RECEIVED.get(id(ws), []) if m["type"] == "chat"]
        if lines and lines[-1][1] == last:
            return lines
        receive(ws)


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
            # a block made on one node hides the blocked one's chat from the blocker on the other
            cal = register(one, "cal")
            with live_socket(two, ann) as a, live_socket(one, cal) as c:
                assert request(a, {"type": "lobby"})["type"] == "ok"
                blocked = httpx.post(f"{one}/api/blocks", json={"name": "cal"}, headers=as_ann)
                assert blocked.status_code == 204
                said = {"type": "chat", "channel": "lobby"}
                assert request(c, said | {"text": "hidden"})["type"] == "ok"
                assert request(a, said | {"text": "mine"})["type"] == "ok"
                assert lobby_chat(a, "mine") == [("ann", "mine")]
            # a node that dies leaves no one online behind it
            with live_socket(two, ben) as b:
                assert request(b, {"type": "ping"})["type"] == "pong"
                until(ben_seen_from_one, {"state": "online"}, 3)
                os.kill(cluster.nodes[1].pid, signal.SIGKILL)
                until(ben_seen_from_one, {"state": "offline"}, 3 * REFRESH + 3)
    finally:
        store.flushdb()
        store.close()
