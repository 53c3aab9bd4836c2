"""A real uvicorn server and four socket clients playing a whole 四国 game to its result.

On the way one client sends garbage, one lets its clock run out, and one drops its connection
and resyncs; every message each client received is then audited for hidden ranks.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

import engine
from server.updates import apply_patch
from tests.live import live_server
from tests.server.sockets import audit, open_live_socket

ROOM = {
    "id": "siguo-live",
    "name": "四国 live",
    "variant": "siguo",
    "options": {"move_seconds": 2, "deploy_seconds": 30},
}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with live_server(tmp_path, [ROOM]) as base:
        yield base


class Client:
    def __init__(self, base: str, name: str, seat: int) -> None:
        self.base = base
        self.name = name
        self.seat = seat
        self.received: list[dict[str, Any]] = []
        self.snapshot: dict[str, Any] | None = None
        self.last_seq = 0
        self.pending: dict[str, Any] | None = None  # the action waiting for its reply
        self.token = ""
        self.errors: list[str] = []

    async def login(self) -> None:
        async with httpx.AsyncClient(base_url=self.base) as http:
            reply = await http.post(
                "/api/auth/register", json={"name": self.name, "password": "secret-pw"}
            )
            self.token = reply.json()["token"]

    async def connect(self) -> Any:
        """A socket of this client's, signed in."""
        return await open_live_socket(self.base, self.token)

    def take(self, message: dict[str, Any]) -> None:
        self.received.append(message)
        if message["type"] in ("table", "update"):
            if "patch" in message:
                assert self.snapshot is not None, "a patch before any snapshot"
                message["snapshot"] = apply_patch(self.snapshot, message["patch"])
            self.snapshot = message["snapshot"]
            for event in message["events"]:
                self.last_seq = max(self.last_seq, event["seq"])
        if message["type"] == "error":
            self.errors.append(message["code"])

    @property
    def game(self) -> dict[str, Any] | None:
        return None if self.snapshot is None else self.snapshot["game"]


async def send(ws: Any, message: dict[str, Any]) -> None:
    await ws.send(json.dumps(message))


async def play(client: Client, table: str, rng: random.Random, script: dict[str, Any]) -> None:
    """Play until the game is over: deploy, then random legal moves when it is our turn."""
    ws = await client.connect()
    await send(ws, {"type": "open", "table": table, "since": client.last_seq})
    turns = 0
    acted_at = -1
    try:
        while True:
            raw = await asyncio.wait_for(ws.recv(), 30)
            message = json.loads(raw)
            client.take(message)
            if message["type"] == "error" and message["code"] == "stale_version":
                acted_at = -1  # act again on the newer snapshot
            if script.get("sleeping") and message["type"] == "update":
                if any(
                    e["kind"] == "skipped" and e["seat"] == client.seat for e in message["events"]
                ):
                    script["sleeping"] = False  # the clock ran out: play on
                continue
            game = client.game
            if game is None or client.snapshot is None:
                continue
            if game["phase"] == "finished":
                return
            version = client.snapshot["version"]
            if version == acted_at:
                continue
            me = game["seats"][client.seat]
            if game["phase"] == "deploying" and not me["confirmed"]:
                layout = engine.auto_layout("siguo", client.seat, rng.randrange(10**6))
                action: dict[str, Any] = {"type": "place_layout", "layout": layout}
            elif game["phase"] == "playing" and game.get("legal_moves"):
                turns += 1
                if turns == script.get("garbage_at"):
                    await ws.send("{this is not json")
                if turns == script.get("sleep_at"):
                    script["slept"] = script["sleeping"] = True
                    continue  # let the clock run out on this turn
                if turns == script.get("drop_at"):
                    script["dropped"] = True
                    await ws.close()
                    ws = await client.connect()
                    await send(ws, {"type": "open", "table": table, "since": client.last_seq})
                    script["resynced_from"] = client.last_seq
                    continue
                origin = rng.choice(sorted(game["legal_moves"]))
                target = rng.choice(game["legal_moves"][origin])
                action = {"type": "move", "origin": origin, "target": target}
            else:
                continue
            acted_at = version
            await send(ws, {"type": "act", "table": table, "version": version, "action": action})
    finally:
        await ws.close()


async def whole_game(base: str) -> tuple[list[Client], list[dict[str, Any]]]:
    clients = [Client(base, f"live{seat}", seat) for seat in range(4)]
    await asyncio.gather(*(c.login() for c in clients))
    host = await clients[0].connect()
    await send(host, {"type": "create_table", "room": "siguo-live", "id": 1})
    table = None
    while table is None:
        message = json.loads(await host.recv())
        if message["type"] == "ok" and message.get("ref") == 1:
            table = message["table"]
    await host.close()
    for c in clients:
        ws = await c.connect()
        await send(ws, {"type": "sit", "table": table, "seat": c.seat, "id": 2})
        await send(ws, {"type": "ready", "table": table, "id": 3})
        while True:
            message = json.loads(await ws.recv())
            c.take(message)
            if message.get("ref") == 3:
                assert message["type"] == "ok", message
                break
        await ws.close()
    scripts: list[dict[str, Any]] = [{"garbage_at": 3}, {"drop_at": 4}, {}, {"sleep_at": 2}]
    await asyncio.gather(
        *(play(c, table, random.Random(c.seat), s) for c, s in zip(clients, scripts, strict=True))
    )
    return clients, scripts


def test_four_clients_play_a_whole_game_on_a_real_server(server: str) -> None:
    clients, scripts = asyncio.run(asyncio.wait_for(whole_game(server), 240))
    final = clients[0].game
    assert final is not None and final["phase"] == "finished"
    assert final["result"]["reason"] in ("no_capture", "elimination", "escape")
    for c in clients:
        assert c.game is not None and c.game["phase"] == "finished"
        assert audit(c.received, c.seat) > 0  # ranks were sent, only the allowed ones
    assert "bad_json" in clients[0].errors  # garbage got its error; the game went on
    assert scripts[3].get("slept")
    skipped = [
        e
        for m in clients[3].received
        if m["type"] == "update"
        for e in m["events"]
        if e["kind"] == "skipped" and e["seat"] == 3
    ]
    assert skipped and skipped[0]["reason"] == "timeout"
    assert scripts[1].get("dropped")
    resync = [m for m in clients[1].received if m["type"] == "table"][-1]
    assert all(e["seq"] > scripts[1]["resynced_from"] for e in resync["events"])
    games = httpx.get(f"{server}/api/games").json()
    assert games[0]["status"] == "finished"
    assert {p["name"] for p in games[0]["players"]} == {c.name for c in clients}


def test_a_silent_socket_is_closed_and_one_that_pings_stays(tmp_path: Path) -> None:
    """A client that sends nothing for three heartbeats is disconnected; pings keep one open."""

    async def main(base: str) -> None:
        client = Client(base, "quiet", 0)
        await client.login()
        async with (
            await client.connect() as silent,
            await client.connect() as pinging,
        ):
            assert json.loads(await silent.recv())["type"] == "welcome"
            assert json.loads(await pinging.recv())["type"] == "welcome"
            for _ in range(15):  # 1.5 s or more: past the limit of 0.9 s
                await send(pinging, {"type": "ping", "id": 1})
                assert json.loads(await pinging.recv())["type"] == "pong"
                await asyncio.sleep(0.1)
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(silent.recv(), 5)
            assert closed.value.rcvd is not None and closed.value.rcvd.reason == "silent too long"
            await send(pinging, {"type": "ping", "id": 2})
            assert json.loads(await pinging.recv())["type"] == "pong"

    with live_server(tmp_path, [ROOM], {"JUNQI_HEARTBEAT_SECONDS": "0.3"}) as base:
        asyncio.run(main(base))
