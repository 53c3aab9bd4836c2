"""Faults of a cluster's parts, injected into real processes: two nodes on PostgreSQL and a Redis
of the test's own (started here, killed and started again), whole 二人 games played by socket
clients, each record checked against the moves the clients were told were accepted.

- Redis killed for 5 s and started again, empty or with its data: every game finishes, every
  accepted move is in its record once, nobody is charged a timeout or an escape, and the lobby
  entries are written again.
- The owner frozen (``SIGSTOP``) for twice its lease, then let go on: the other node takes the
  table over, no client waits longer than a lease and 2 s once the owner goes on, the frozen
  owner's updates reach nobody (no client ever sees an older epoch after a newer one), nobody
  escapes.

Each runs once by default and several times in the soak run.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

import engine
from tests.live import free_port
from tests.server.test_cluster import (
    LONGER_GAME,
    Player,
    check_moves,
    recorded_moves,
    run,
    seat_two,
    start_cluster,
    under_way,
)
from tests.soak import soak

LEASE = 1.5  # the nodes' lease (seconds), as ``start_cluster`` sets it
OUTAGE = 5.0  # how long Redis stays away


@dataclass
class PrivateRedis:
    """A Redis server of the test's own, which it may kill: with ``keep``, it keeps its data
    across a restart (an append-only file written at every command), else it comes back
    empty."""

    directory: Path
    keep: bool
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.port = self.port or free_port()
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if self.keep else []
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--dir", str(self.directory), *persistence],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port)
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        client.close()

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait(10)

    def entries(self) -> set[str]:
        client = redis.Redis(port=self.port, decode_responses=True)
        try:
            return {str(key) for key in client.hkeys("junqi:tables")}
        finally:
            client.close()


@pytest.fixture
def private_redis(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path / "redis", keep=getattr(request, "param", False))
    server.directory.mkdir()
    server.start()
    try:
        yield server
    finally:
        if server.process is not None and server.process.poll() is None:
            server.kill()


def no_clock_verdicts(base: str, game_id: str) -> list[engine.Action]:
    """Nobody was charged a timeout or an escape in the game's record; returns its pauses and
    resumes."""
    reply = httpx.get(f"{base}/api/games/{game_id}/record")
    assert reply.status_code == 200, reply.text
    record = engine.GameRecord.from_json(json.dumps(reply.json()["record"]))
    charged = [a for a in record.actions if isinstance(a, engine.Timeout | engine.Escape)]
    assert charged == [], charged
    return [a for a in record.actions if isinstance(a, engine.Pause | engine.Resume)]


def epochs_only_grow(player: Player) -> None:
    """The player never got an update or snapshot of an older epoch after a newer one."""
    epochs = [m["epoch"] for m in player.received if m["type"] in ("table", "update")]
    assert epochs == sorted(epochs), epochs


async def listed(redis: PrivateRedis, table: str) -> None:
    """Wait (5 s at most) for the table's lobby entry in Redis (the nodes write them every
    beat)."""
    for _ in range(50):
        if table in redis.entries():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"table {table} not in the lobby's entries in Redis")


@pytest.mark.parametrize("private_redis", [False, True], ids=["empty", "kept"], indirect=True)
@pytest.mark.parametrize("trial", range(soak(1, 3)))
def test_a_redis_restart_loses_no_game(
    postgres_url: str, tmp_path: Path, private_redis: PrivateRedis, trial: int
) -> None:
    with start_cluster(postgres_url, private_redis.url, tmp_path) as cluster:
        owner, other = cluster.nodes
        alice = Player("alice", [owner.base, other.base])
        bob = Player("bob", [other.base, owner.base])

        async def scenario() -> None:
            table = await seat_two(alice, bob, LONGER_GAME)
            games = await under_way(alice, bob, table, 10 + trial)
            await listed(private_redis, table)  # the lobby's entry, written within a beat or two
            private_redis.kill()
            await asyncio.sleep(OUTAGE)
            restarted = time.monotonic()
            private_redis.start()
            before = len(alice.accepted) + len(bob.accepted)
            back = time.monotonic()
            while len(alice.accepted) + len(bob.accepted) == before:
                await asyncio.sleep(0.01)
                assert not any(g.done() for g in games), "the game ended meanwhile"
            print(f"play went on {time.monotonic() - back:.2f} s after Redis came back")
            # the socket on the other node gets a fresh snapshot for what it missed, once that
            # node is back on Redis (which may be after the owner's next move)
            for _ in range(50):
                if any(
                    m["type"] == "table" and at > restarted
                    for at, m in zip(bob.received_at, bob.received, strict=True)
                ):
                    break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("no fresh snapshot within 5 s of Redis coming back")
            await asyncio.gather(*games)
            assert alice.snapshot is not None and bob.snapshot is not None
            assert alice.snapshot["game"]["result"] == bob.snapshot["game"]["result"]
            game_id = alice.snapshot["game_id"]
            check_moves([alice, bob], recorded_moves(other.base, game_id), in_flight=1)
            held = no_clock_verdicts(other.base, game_id)
            # the clocks stood still while Redis was away (the owner paused and resumed)
            assert [type(a) for a in held] == [engine.Pause, engine.Resume], held
            assert alice.reconnects == bob.reconnects == 0
            await listed(private_redis, table)  # written again by the node that runs it

        run(scenario, alice, bob)


@pytest.mark.parametrize("trial", range(soak(1, 3)))
def test_a_frozen_owner_wedges_no_table(postgres_url: str, tmp_path: Path, trial: int) -> None:
    private = PrivateRedis(tmp_path / "redis", keep=False)
    private.directory.mkdir()
    private.start()
    try:
        with start_cluster(postgres_url, private.url, tmp_path) as cluster:
            frozen(cluster.nodes, trial)
    finally:
        private.kill()


def frozen(nodes: list[Any], trial: int) -> None:
    owner, other = nodes
    alice = Player("alice", [owner.base, other.base])
    bob = Player("bob", [other.base, owner.base])

    async def scenario() -> None:
        table = await seat_two(alice, bob, LONGER_GAME)  # on the owner's node
        games = await under_way(alice, bob, table, 20 + trial)
        os.kill(owner.pid, signal.SIGSTOP)
        await asyncio.sleep(2 * LEASE)
        os.kill(owner.pid, signal.SIGCONT)
        woken = time.monotonic()
        await asyncio.gather(*games)
        for player in (alice, bob):
            epochs_only_grow(player)
            newer = next(
                at
                for at, m in zip(player.received_at, player.received, strict=True)
                if m["type"] in ("table", "update") and m["epoch"] > 1
            )
            waited = max(0.0, newer - woken)
            print(f"{player.name} heard of the new owner {waited:.2f} s after the owner woke")
            assert waited < LEASE + 2
        assert alice.snapshot is not None
        game_id = alice.snapshot["game_id"]
        check_moves([alice, bob], recorded_moves(other.base, game_id), in_flight=1)
        no_clock_verdicts(other.base, game_id)
        metrics = httpx.get(f"{other.base}/metrics").text
        assert "junqi_table_takeovers_total 1.0" in metrics, [
            line for line in metrics.splitlines() if "takeovers_total" in line
        ]

    run(scenario, alice, bob)
