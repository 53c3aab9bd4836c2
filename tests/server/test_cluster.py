"""Several server processes sharing PostgreSQL and Redis (``scripts/cluster.sh``): one lobby, games
whose players sit on different processes, and a process killed mid-game whose tables another
process takes over with every move kept once. Also one embedded-default process (SQLite, no
Redis) killed or stopped mid-game and started again: the game goes on.

These need the machine's PostgreSQL (``JUNQI_TEST_POSTGRES``, set by ``.ci/run``) and Redis
(``JUNQI_TEST_REDIS``, default ``redis://127.0.0.1:6379``); each test gets a fresh database and
a Redis database of its own, emptied before and after.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import websockets

import engine
from server.updates import apply_patch
from tests.live import free_port, redis_database, start_server
from tests.server.sockets import SERVER_MESSAGE, open_live_socket

REPO = Path(__file__).resolve().parents[2]
REDIS = os.environ.get("JUNQI_TEST_REDIS", "redis://127.0.0.1:6379")
REDIS_DATABASE = redis_database()  # this xdist worker's own: the tests empty it
ROOMS = [
    {
        "id": "duel",
        "name": "二人 duel",
        "variant": "liangguo",
        "options": {"move_seconds": 30, "deploy_seconds": 60},
    }
]
# longer games than the room's (a draw after 40 quiet moves), for the tests whose game must not
# be over before its server stops
LONGER_GAME = {"no_capture_plies": 400}


@dataclass
class Node:
    base: str
    pid: int


@dataclass
class Cluster:
    nodes: list[Node]
    logs: Path


def _empty_redis() -> redis.Redis:
    client = redis.Redis.from_url(f"{REDIS}/{REDIS_DATABASE}")
    try:
        client.ping()
    except redis.ConnectionError:
        pytest.skip(f"the multi-process tests need Redis at {REDIS} (JUNQI_TEST_REDIS)")
    client.flushdb()
    return client


@pytest.fixture
def cluster(postgres_url: str, tmp_path: Path) -> Iterator[Cluster]:
    """Two nodes started by ``scripts/cluster.sh`` on consecutive free ports."""
    store = _empty_redis()
    try:
        with start_cluster(postgres_url, f"{REDIS}/{REDIS_DATABASE}", tmp_path) as nodes:
            yield nodes
    finally:
        store.flushdb()
        store.close()


@contextlib.contextmanager
def start_cluster(
    postgres_url: str, redis_url: str, tmp_path: Path, settings: dict[str, str] | None = None
) -> Iterator[Cluster]:
    """Two nodes of ``scripts/cluster.sh`` on PostgreSQL and the Redis at ``redis_url``, with
    ``settings`` (JUNQI_ variables) added; stopped after."""
    # below the ephemeral range, so that no outgoing connection takes one meanwhile
    port = random.randrange(20000, 32000, 2)
    while not (_free(port) and _free(port + 1)):
        port = random.randrange(20000, 32000, 2)
    logs = tmp_path / "nodes.log"
    env = {
        **os.environ,
        "JUNQI_DATABASE_URL": postgres_url,
        "JUNQI_REDIS_URL": redis_url,
        "JUNQI_ROOMS": json.dumps(ROOMS),
        "JUNQI_LEASE_SECONDS": "1.5",
        "JUNQI_ACTIONS_PER_10_SECONDS": "100000",
        "JUNQI_SIGN_INS_PER_MINUTE": "100000",
        "JUNQI_GUESTS_PER_ADDRESS_PER_DAY": "100000",
        "JUNQI_TABLES_PER_CREATOR": "100",  # the rate limit of tables is tested here
        "JUNQI_CLUSTER_LOGS": str(logs),
        **(settings or {}),
    }
    script = subprocess.Popen(
        ["bash", str(REPO / "scripts" / "cluster.sh"), "2", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, so that it can be stopped whole
    )
    nodes: list[Node] = []
    try:
        assert script.stdout is not None
        for _ in range(2):
            line = script.stdout.readline().split()  # node N BASE pid PID
            assert line[:1] == ["node"], f"the cluster did not start: {logs.read_text()}"
            nodes.append(Node(line[2], int(line[4])))
        yield Cluster(nodes, logs)
    finally:
        for node in nodes:  # a node stopped by a test goes on, to stop with the others
            with contextlib.suppress(ProcessLookupError):
                os.kill(node.pid, signal.SIGCONT)
        script.send_signal(signal.SIGTERM)
        try:
            script.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(script.pid, signal.SIGKILL)  # the script and its nodes
            script.wait(10)
        finally:
            if script.stdout is not None:
                script.stdout.close()


def gone(pid: int) -> bool:
    """Whether the process has exited (a zombie not yet reaped counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] == "Z"
    except (FileNotFoundError, IndexError):
        return True


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@dataclass
class Player:
    """A socket client that plays random legal moves and keeps count of its accepted moves; when
    its node goes away it reconnects to the next one and resyncs from its last event."""

    name: str
    bases: list[str]
    token: str = ""
    ws: Any = None
    counter: int = 0
    last_seq: int = 0
    snapshot: dict[str, Any] | None = None
    pending: dict[int, dict[str, Any]] = field(default_factory=dict)  # sent, not yet answered
    accepted: list[dict[str, Any]] = field(default_factory=list)  # moves answered ok
    reconnects: int = 0
    received: list[dict[str, Any]] = field(default_factory=list)
    received_at: list[float] = field(default_factory=list)  # when each was (monotonic)
    held: bool = False  # makes no move meanwhile (it still reads)

    async def connect(self) -> None:
        if not self.token:
            async with httpx.AsyncClient(base_url=self.bases[0]) as http:
                reply = await http.post(
                    "/api/auth/register", json={"name": self.name, "password": "secret-pw"}
                )
                self.token = reply.json()["token"]
        for _ in range(300):
            base = self.bases[0]
            try:
                self.ws = await open_live_socket(base, self.token)
                return
            except OSError:
                self.bases.append(self.bases.pop(0))  # that node is gone: the next one
                await asyncio.sleep(0.1)
        raise AssertionError(f"{self.name} found no node")

    async def send(self, message: dict[str, Any]) -> int:
        self.counter += 1
        await self.ws.send(json.dumps({"id": self.counter, **message}))
        return self.counter

    async def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
        SERVER_MESSAGE.validate_python(message)
        self.received.append(message)
        self.received_at.append(time.monotonic())
        if message["type"] in ("table", "update"):
            if "patch" in message:
                assert self.snapshot is not None, "a patch before any snapshot"
                message["snapshot"] = apply_patch(self.snapshot, message["patch"])
            self.snapshot = message["snapshot"]
            for event in message["events"]:
                self.last_seq = max(self.last_seq, event["seq"])
        if message["type"] in ("ok", "error"):
            action = self.pending.pop(message["ref"], None)
            if action is not None and message["type"] == "ok" and action["type"] == "move":
                self.accepted.append(action)
        return message

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        ref = await self.send(message)
        while True:
            reply = await self.receive()
            if reply["type"] in ("ok", "error") and reply["ref"] == ref:
                return reply

    async def play(self, table: str, seat: int, rng: random.Random) -> None:
        """Deploy, then move whenever it is our turn, until the game is over."""
        acted_at = -1
        while True:
            try:
                message = await self.receive()
            except websockets.ConnectionClosed:
                await self.ws.close()  # its transport too, at once
                self.pending.clear()  # whether those went through, the snapshot will say
                self.bases.append(self.bases.pop(0))
                await self.connect()
                self.reconnects += 1
                await self.send({"type": "open", "table": table, "since": self.last_seq})
                acted_at = -1
                continue
            if message["type"] == "error":  # stale, or the table was moving: act again
                acted_at = -1
            game = None if self.snapshot is None else self.snapshot["game"]
            if game is None or self.snapshot is None:
                continue
            if game["phase"] == "finished":
                while self.pending:  # the answer to the last move may come after its update
                    await self.receive()
                return
            version = self.snapshot["version"]
            if version == acted_at or self.pending:
                continue
            me = game["seats"][seat]
            if game["phase"] == "deploying" and not me["confirmed"]:
                layout = engine.auto_layout("liangguo", seat, rng.randrange(10**6))
                action: dict[str, Any] = {"type": "place_layout", "layout": layout}
            elif game["phase"] == "playing" and game.get("legal_moves"):
                origin = rng.choice(sorted(game["legal_moves"]))
                target = rng.choice(game["legal_moves"][origin])
                action = {"type": "move", "origin": origin, "target": target}
            else:
                continue
            while self.held:
                await asyncio.sleep(0.01)
            acted_at = version
            try:
                ref = await self.send(
                    {"type": "act", "table": table, "version": version, "action": action}
                )
            except websockets.ConnectionClosed:
                continue  # the next receive reconnects
            self.pending[ref] = {**action, "seat": seat}


async def seat_two(alice: Player, bob: Player, options: dict[str, Any] | None = None) -> str:
    """Alice opens a 二人 table (with rule ``options``) on her node; Bob, on the other, finds it
    in his lobby and sits."""
    await alice.connect()
    await bob.connect()
    create = {"type": "create_table", "room": "duel", "options": options or {}}
    table = str((await alice.request(create))["table"])
    assert (await bob.request({"type": "lobby"}))["type"] == "ok"
    listed = next(m for m in bob.received if m["type"] == "lobby")
    while not any(t["id"] == table for r in listed["lobby"]["rooms"] for t in r["tables"]):
        listed = await bob.receive()
    assert (await alice.request({"type": "sit", "table": table, "seat": 0}))["type"] == "ok"
    assert (await bob.request({"type": "sit", "table": table, "seat": 1}))["type"] == "ok"
    assert (await alice.request({"type": "ready", "table": table}))["type"] == "ok"
    assert (await bob.request({"type": "ready", "table": table}))["type"] == "ok"
    return table


def recorded_moves(base: str, game_id: str) -> list[dict[str, Any]]:
    """The moves of a finished game's record, as stored in the database (after a replay check)."""
    reply = httpx.get(f"{base}/api/games/{game_id}/record")
    assert reply.status_code == 200, reply.text
    record = engine.GameRecord.from_json(json.dumps(reply.json()["record"]))
    final = engine.replay(record)
    assert final.result is not None
    return [
        {"seat": a.seat, "origin": a.origin, "target": a.target}
        for a in record.actions
        if isinstance(a, engine.Move)
    ]


def check_moves(players: list[Player], moves: list[dict[str, Any]], in_flight: int) -> None:
    """Every accepted move is in the record once, in order; the record has at most
    ``in_flight`` moves per player whose answer was lost with a node."""
    for seat, player in enumerate(players):
        mine = [m for m in moves if m["seat"] == seat]
        accepted = [{k: a[k] for k in ("seat", "origin", "target")} for a in player.accepted]
        assert len(mine) - in_flight <= len(accepted) <= len(mine)
        it = iter(mine)  # accepted moves are a subsequence of the recorded ones
        assert all(any(m == a for m in it) for a in accepted)
    assert len(moves) == len({(i, m["origin"], m["target"]) for i, m in enumerate(moves)})


def run(scenario: Callable[[], Awaitable[None]], *players: Player) -> None:
    """Run ``scenario``; the players' sockets are closed after it, however it ends."""

    async def main() -> None:
        try:
            await scenario()
        finally:
            for player in players:
                if player.ws is not None:
                    with contextlib.suppress(Exception):
                        await player.ws.close()

    asyncio.run(main())


async def under_way(alice: Player, bob: Player, table: str, seed: int) -> list[asyncio.Task[None]]:
    """Both play (in the background); returns once a dozen moves were accepted."""
    games = [
        asyncio.create_task(alice.play(table, 0, random.Random(seed))),
        asyncio.create_task(bob.play(table, 1, random.Random(seed + 1))),
    ]
    while len(alice.accepted) + len(bob.accepted) < 12:
        await asyncio.sleep(0.01)
        assert not any(g.done() for g in games), "the game ended too soon"
    return games


def test_a_game_across_two_nodes_plays_to_its_end(cluster: Cluster) -> None:
    a, b = (node.base for node in cluster.nodes)
    alice, bob = Player("alice", [a, b]), Player("bob", [b, a])

    async def scenario() -> None:
        table = await seat_two(alice, bob)
        await asyncio.gather(
            alice.play(table, 0, random.Random(1)), bob.play(table, 1, random.Random(2))
        )
        assert alice.snapshot is not None and bob.snapshot is not None
        assert alice.snapshot["game"]["result"] == bob.snapshot["game"]["result"]
        moves = recorded_moves(b, alice.snapshot["game_id"])
        assert len(moves) > 10
        check_moves([alice, bob], moves, in_flight=0)
        assert alice.reconnects == bob.reconnects == 0

    run(scenario, alice, bob)


def test_the_nodes_count_a_users_tables_together(cluster: Cluster) -> None:
    """Tables created through both nodes count against one limit (10 a minute)."""
    a, b = (node.base for node in cluster.nodes)
    here, there = Player("carol", [a, b]), Player("carol", [b, a])

    async def scenario() -> None:
        await here.connect()
        there.token = here.token
        await there.connect()
        create = {"type": "create_table", "room": "duel"}
        answers = [await (here, there)[n % 2].request(create) for n in range(11)]
        assert [m["type"] for m in answers] == ["ok"] * 10 + ["error"], answers
        assert answers[-1]["code"] == "rate_limited"

    run(scenario, here, there)


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "stop"])
def test_a_stopped_nodes_game_finishes_on_the_other(cluster: Cluster, stop: signal.Signals) -> None:
    """The node that runs a game dies (``kill -9``: its lease runs out, 1.5 s here) or is
    stopped normally (it gives its tables up at once: play goes on after about 0.3-0.5 s);
    the other takes the game over from its log."""
    owner, other = cluster.nodes
    alice, bob = Player("alice", [owner.base, other.base]), Player("bob", [other.base])

    async def scenario() -> None:
        # created on the owner's node, which runs it
        table = await seat_two(alice, bob, LONGER_GAME)
        games = await under_way(alice, bob, table, 3)
        alice.held = bob.held = True  # the game must still be on when the node goes
        while alice.pending or bob.pending:
            await asyncio.sleep(0.01)
        assert alice.snapshot is not None and alice.snapshot["game"]["phase"] == "playing"
        before = len(alice.accepted) + len(bob.accepted)
        os.kill(owner.pid, stop)
        for _ in range(300):
            if gone(owner.pid):
                break
            await asyncio.sleep(0.05)
        assert gone(owner.pid), "the node did not stop"
        stopped = time.monotonic()
        alice.held = bob.held = False
        while len(alice.accepted) + len(bob.accepted) == before:
            await asyncio.sleep(0.01)
        took = time.monotonic() - stopped
        print(f"play went on {took:.2f} s after the node stopped")
        assert took < 10, "nobody took the table over"
        await asyncio.gather(*games)
        assert alice.reconnects >= 1 and bob.reconnects == 0
        moves = recorded_moves(other.base, str(bob.snapshot and bob.snapshot["game_id"]))
        check_moves([alice, bob], moves, in_flight=1)
        metrics = httpx.get(f"{other.base}/metrics").text
        assert "junqi_table_takeovers_total 1.0" in metrics, [
            line for line in metrics.splitlines() if "takeovers_total" in line
        ]

    run(scenario, alice, bob)


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "stop"])
def test_a_restarted_server_resumes_its_game(tmp_path: Path, stop: signal.Signals) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    alice, bob = Player("alice", [base]), Player("bob", [base])
    server = start_server(tmp_path, ROOMS, port)

    async def scenario() -> None:
        nonlocal server
        table = await seat_two(alice, bob, LONGER_GAME)
        games = await under_way(alice, bob, table, 5)
        server.send_signal(stop)
        server.wait(30)
        server = await asyncio.to_thread(start_server, tmp_path, ROOMS, port)
        await asyncio.gather(*games)
        assert alice.reconnects >= 1 and bob.reconnects >= 1
        assert bob.snapshot is not None
        check_moves([alice, bob], recorded_moves(base, bob.snapshot["game_id"]), in_flight=1)

    try:
        run(scenario, alice, bob)
    finally:
        server.terminate()
        server.wait(10)


def test_a_friend_room_is_joined_and_invited_to_through_another_node(cluster: Cluster) -> None:
    a, b = (node.base for node in cluster.nodes)
    host, friend, other = Player("host", [a, b]), Player("friend", [b, a]), Player("other", [b, a])

    async def scenario() -> None:
        for player in (host, friend, other):
            await player.connect()
        made = await host.request({"type": "create_table", "room": "duel", "private": True})
        table, code = made["table"], made["code"]
        assert (await host.request({"type": "sit", "table": table, "seat": 0}))["type"] == "ok"
        joined: dict[str, object] = {}
        for _ in range(8):  # the other node hears of the new table within moments
            joined = await friend.request({"type": "join", "code": code})
            if joined["type"] == "ok":
                break
            assert joined["code"] == "no_code", joined
            await asyncio.sleep(0.2)
        assert joined["table"] == table
        assert (await friend.request({"type": "sit", "table": table, "seat": 1}))["type"] == "ok"
        assert friend.snapshot is not None and friend.snapshot["friend_room"]["code"] == code
        # not listed on the other node's lobby either
        assert (await other.request({"type": "lobby"}))["type"] == "ok"
        listing = next(m for m in other.received if m["type"] == "lobby")["lobby"]
        assert all(t["id"] != table for r in listing["rooms"] for t in r["tables"])
        assert (await other.request({"type": "open", "table": table}))["code"] == "no_table"
        # an invite from node a reaches the invitee's socket on node b, and lets them in
        assert (await host.request({"type": "invite", "table": table, "user": "other"}))[
            "type"
        ] == "ok"
        notice = await other.receive()
        while notice["type"] != "invited":
            notice = await other.receive()
        assert notice["code"] == code and notice["from"] == "host"
        assert (await other.request({"type": "open", "table": table}))["type"] == "ok"

    run(scenario, host, friend, other)
