"""A test-side socket client, the ways a test opens a socket and signs it in (its first message,
``auth``), and the hidden-rank audit of everything a client received. Every message a ``Player``
receives must be one of ``server.outbound``'s (``SERVER_MESSAGE``), with no field it lacks."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient
from pydantic import ConfigDict, TypeAdapter
from starlette.testclient import WebSocketTestSession
from websockets.asyncio.client import ClientConnection as AsyncConnection
from websockets.asyncio.client import connect as async_connect
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as ws_connect

import engine
from server import outbound
from server.updates import apply_patch

RANKS = {r.value for r in engine.Rank}
# the server's messages, strictly: a field a message does not declare is refused too
SERVER_MESSAGE = TypeAdapter(outbound.ServerMessage, config=ConfigDict(extra="forbid"))


def auth(token: str) -> str:
    """A socket's first message: the token it signs in with (docs/protocol.md)."""
    return json.dumps({"type": "auth", "token": token})


@contextmanager
def signed_in(client: TestClient, token: str, **options: Any) -> Iterator[WebSocketTestSession]:
    """A socket of the test client's app, signed in with ``token`` (``options``: headers, ...);
    the server's answer (``welcome``, or the close) is left to read."""
    with client.websocket_connect("/ws", **options) as ws:
        ws.send_text(auth(token))
        yield ws


def socket_url(base: str) -> str:
    """The socket address of a real server at ``base`` (``http://host:port``)."""
    return base.replace("http", "ws", 1) + "/ws"


@contextmanager
def live_socket(base: str, token: str, **options: Any) -> Iterator[ClientConnection]:
    """A socket of the real server at ``base``, signed in (a websockets sync client)."""
    with ws_connect(socket_url(base), **options) as ws:
        ws.send(auth(token))
        yield ws


async def open_live_socket(base: str, token: str, **options: Any) -> AsyncConnection:
    """A socket of the real server at ``base``, signed in (a websockets asyncio client)."""
    ws = await async_connect(socket_url(base), **options)
    try:
        await ws.send(auth(token))
    except BaseException:
        await ws.close()  # no socket left open for the garbage collector to find
        raise
    return ws


class LiveSocket:
    """A live server's socket (a websockets sync client) as ``Player`` reads and writes it:
    the test client's ``send_text``/``receive_json``."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    def send_text(self, text: str) -> None:
        self.ws.send(text)

    def receive_json(self) -> Any:
        return json.loads(self.ws.recv(timeout=30))

    def close(self) -> None:
        self.ws.close()


class Player:
    """A WebSocket client over the Starlette test client, keeping every message it got."""

    def __init__(self, ws: Any, name: str) -> None:
        self.ws = ws
        self.name = name
        self.received: list[dict[str, Any]] = []
        self.snapshot: dict[str, Any] | None = None
        self.last_seq = 0
        self.counter = 0

    def send(self, message: dict[str, Any] | str) -> int:
        self.counter += 1
        if isinstance(message, str):
            self.ws.send_text(message)
        else:
            self.ws.send_text(json.dumps({"id": self.counter, **message}))
        return self.counter

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = self.ws.receive_json()
        SERVER_MESSAGE.validate_python(message)
        self.received.append(message)
        if message["type"] in ("table", "update"):
            if "patch" in message:  # the snapshot this client holds after it, for the tests
                assert self.snapshot is not None, "a patch before any snapshot"
                message["snapshot"] = apply_patch(self.snapshot, message["patch"])
            self.snapshot = message["snapshot"]
            for event in message["events"]:
                self.last_seq = max(self.last_seq, event["seq"])
            self.last_seq = max(self.last_seq, 0)
        return message

    def until(self, check: Callable[[dict[str, Any]], bool], limit: int = 500) -> dict[str, Any]:
        for _ in range(limit):
            message = self.receive()
            if check(message):
                return message
        raise AssertionError(f"{self.name}: nothing matched in {limit} messages")

    def reply(self, ref: int) -> dict[str, Any]:
        return self.until(lambda m: m["type"] in ("ok", "error", "pong") and m.get("ref") == ref)

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        return self.reply(self.send(message))

    @property
    def version(self) -> int:
        return -1 if self.snapshot is None else int(self.snapshot["version"])

    def sync(self, version: int) -> None:
        """Read until this client has seen the table at ``version`` or later."""
        if self.version < version:
            self.until(lambda m: m["type"] in ("table", "update") and self.version >= version)

    def act(self, table: str, action: dict[str, Any]) -> dict[str, Any]:
        """Send a game action at the version this client knows; if that was stale, once more
        at the version it has seen since."""
        for _ in range(2):
            reply = self.request(
                {"type": "act", "table": table, "version": self.version, "action": action}
            )
            if reply.get("code") != "stale_version":
                break
        return reply

    @property
    def game(self) -> dict[str, Any]:
        assert self.snapshot is not None and self.snapshot["game"] is not None
        game: dict[str, Any] = self.snapshot["game"]
        return game


def audit(messages: list[dict[str, Any]], seat: int | None) -> int:
    """Fail if any message shows ``seat`` (None: a spectator) a rank of another seat's piece,
    other than a flag (司令 deaths reveal flags), before the game is over. Returns how many
    ranks were checked."""
    checked = 0
    for message in messages:
        if message["type"] not in ("table", "update"):
            continue
        game = message["snapshot"]["game"]
        if game is None or game["phase"] == "finished":
            continue
        for piece in game.get("pieces", []):
            if "rank" in piece:
                checked += 1
                assert piece["seat"] == seat or piece["rank"] == "flag", (seat, piece)
        for event in message["events"]:
            if event["kind"] in ("game_over", "hand"):
                continue
            if "rank" in event and event["kind"] == "moved":
                checked += 1
                assert event["seat"] == seat, (seat, event)
            if "defender_rank" in event:
                checked += 1
                # a flag may have been revealed to all (its 司令 died); else only its owner sees
                assert event["defender"] == seat or event["defender_rank"] == "flag", (seat, event)
            others = {k: v for k, v in event.items() if k not in ("rank", "defender_rank")}
            assert not RANKS & set(map(str, _values(others))), (seat, event)
        layouts = game.get("layouts")
        assert layouts is None
    return checked


def _values(data: Any) -> list[Any]:
    if isinstance(data, dict):
        return [v for value in data.values() for v in _values(value)]
    if isinstance(data, list):
        return [v for value in data for v in _values(value)]
    return [data]
