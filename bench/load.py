"""Load harness: real server process(es), thousands of real sockets, live 四国 tables. Run by hand.

Usage::

    .venv/bin/python bench/load.py                                 # 50,100,200,500 tables, 2 s
    .venv/bin/python bench/load.py --tables 100,200,300 --pace 0.2 # throughput: n / pace moves/s
    .venv/bin/python bench/load.py --tables 500 --profile /tmp/p   # py-spy profile of each step
    .venv/bin/python bench/load.py --nodes 2 --redis redis://127.0.0.1:6379/0 \\
        --database postgresql+asyncpg://postgres@127.0.0.1/junqi_load

The server is started the production way (``python -m server.cli serve``: uvicorn, uvloop)
on loopback, pinned to one core, on a fresh SQLite file in a temporary
directory (or ``--database``: a PostgreSQL database that the harness creates and drops; it must
not exist yet), with the rate limits raised and one 四国 room whose clocks never run out. The
socket clients run in ``--workers`` processes (uvloop) pinned to the other cores; the four
clients of a table share a process, so a move's latency is read on one clock.

Every table plays on its own: sign in as guests, create, sit, ready, deploy an automatic layout
(``engine.auto_layout``), then the seat to move plays a random legal move from the
``legal_moves`` of the view it was sent, one move per table every ``--pace`` seconds (waiting
for the previous move to reach all four seats first); at the end of a game all four are ready
again. Clients read only the version of most updates (a substring), and parse in full only the
ones that carry their legal moves: the client side stays cheap.

First, memory: the server's RSS with ``--idle`` idle sockets connected against none (KiB per
idle connection). Then the ramp: for each step of ``--tables``, the tables are added, play for
``--warmup`` seconds and are measured for ``--seconds``: moves/s achieved, latency from a move
sent to its update delivered to all four seats (p50/p99/max), the server's event-loop lag (from
``/metrics``), its CPU and RSS, its CPU time per move (the figure to compare between runs),
the garbage collector's passes by generation and their mean length (from ``/metrics``: each
stalls every table of the process), the client processes' CPU (near 100% the clients, not the
server, are the limit) and the CPU that other processes of the machine took meanwhile (anything
much above zero there makes the figures pessimistic: run it on a quiet machine). The
machine's own speed (a fixed Python loop, at the start and the end) is printed too: on a shared
machine it drifts by tens of percent between hours, and the figures with it. The ramp
stops at the first step whose p99 is far over ``--p99`` (five times); at the end, the largest
step that held p99 under ``--p99``.

``--nodes 2`` starts two server processes that share the database (PostgreSQL) and Redis
(``--redis``, as ``JUNQI_REDIS_URL``); the four clients of a table are spread over both.
``--profile PREFIX`` samples the server (node 0) with py-spy during each measuring window
(``PREFIX-<tables>.txt``, collapsed stacks) and prints the hottest functions; without py-spy on
the PATH the whole server run is profiled with cProfile instead (``PREFIX.prof``). py-spy is no
dependency of the project: ``pip install --target /tmp/pyspy py-spy`` and put ``/tmp/pyspy/bin``
on the PATH. ``--compression none`` makes the clients not ask for permessage-deflate
(browsers ask for it, so they do by default; the server grants it only with
``JUNQI_WS_COMPRESSION=true``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import pstats
import random
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import psutil  # type: ignore[import-untyped]
import uvloop
from sqlalchemy.engine import make_url
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine

REPO = Path(__file__).resolve().parent.parent

ROOM_ID = "siguo-load"
ROOM = {
    "id": ROOM_ID,
    "name": "四国 load",
    "variant": "siguo",
    "tables": 100_000,
    # nobody times out: the clients move at their own pace
    "options": {"move_seconds": 36_000, "deploy_seconds": 36_000},
}
REPLY_SECONDS = 30.0  # how long a client waits for an answer before it gives up
# `junqi serve` under cProfile; uvicorn re-raises SIGTERM after its shutdown, so turn it into an
# exit that lets the profile be written
CPROFILE_SERVER = """
import cProfile, runpy, signal, sys
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
out, sys.argv = sys.argv[1], ["junqi", *sys.argv[2:]]
profile = cProfile.Profile()
try:
    profile.runcall(runpy.run_module, "server.cli", run_name="__main__")
except SystemExit:
    pass
finally:
    profile.dump_stats(out)
"""


# --- the server processes ---------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Node:
    """One server process."""

    process: subprocess.Popen[bytes]
    base: str
    log: Path

    @property
    def ps(self) -> psutil.Process:
        return psutil.Process(self.process.pid)

    def collector(self) -> list[tuple[float, float]]:
        """The garbage collector's passes so far, by generation: how many, their seconds."""
        found = self.metrics()
        return [
            (
                found.get(f'junqi_gc_pause_seconds_count{{generation="{generation}"}}', 0.0),
                found.get(f'junqi_gc_pause_seconds_sum{{generation="{generation}"}}', 0.0),
            )
            for generation in range(3)
        ]

    def metrics(self) -> dict[str, float]:
        text = httpx.get(f"{self.base}/metrics", timeout=10, trust_env=False).text
        found = {}
        for line in text.splitlines():
            if line.startswith("junqi_"):
                name, value = line.rsplit(" ", 1)
                found[name] = float(value)
        return found


def start_node(
    index: int, env: dict[str, str], core: int | None, workdir: Path, cprofile: Path | None
) -> Node:
    port = free_port()
    run = ["-m", "server.cli"] if cprofile is None else ["-c", CPROFILE_SERVER, str(cprofile)]
    log = workdir / f"node{index}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, *run, "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    if core is not None:
        os.sched_setaffinity(process.pid, {core})
    node = Node(process, f"http://127.0.0.1:{port}", log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server {index} exited; its log: {log}\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{node.base}/ready", timeout=2, trust_env=False).status_code == 200:
                return node
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"server {index} did not start; its log: {log}")


def stop_node(node: Node) -> None:
    if node.process.poll() is None:
        node.process.terminate()
        try:
            node.process.wait(30)
        except subprocess.TimeoutExpired:
            node.process.kill()


def server_env(args: argparse.Namespace, database: str) -> dict[str, str]:
    env = {
        **os.environ,
        "JUNQI_DATABASE_URL": database,
        "JUNQI_ROOMS": json.dumps([ROOM]),
        "JUNQI_SIGN_INS_PER_MINUTE": "1000000000",
        "JUNQI_GUESTS_PER_ADDRESS_PER_DAY": "1000000000",  # every client is a guest of loopback
        "JUNQI_TABLES_PER_MINUTE": "1000000000",
        "JUNQI_TABLES_PER_ADDRESS": "1000000000",  # and open their tables from there
        "JUNQI_SHARED_ADDRESS_UNRATED": "false",  # rated, as the games of people apart are
        "JUNQI_ACTIONS_PER_10_SECONDS": "1000000000",
        "JUNQI_SEAT_COMMANDS_PER_10_SECONDS": "1000000000",
        "JUNQI_SOCKETS_PER_USER": "1000000",  # the idle sockets share the players' tokens
    }
    env.pop("REDIS_URL", None)
    env.pop("JUNQI_REDIS_URL", None)
    if args.redis:
        env["JUNQI_REDIS_URL"] = args.redis
    return env


async def _postgres(url: str, statement: str) -> None:
    u = make_url(url)
    connection = await asyncpg.connect(
        user=u.username, password=u.password, host=u.host, port=u.port, database="postgres"
    )
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


def postgres_database(url: str, create: bool) -> None:
    """Create (or drop) the database that ``url`` names, through the server's ``postgres`` db."""
    name = make_url(url).database
    if not name or not name.replace("_", "").isalnum():
        raise SystemExit(f"give the PostgreSQL database a plain name: {url}")
    statement = f'CREATE DATABASE "{name}"' if create else f'DROP DATABASE IF EXISTS "{name}"'
    asyncio.run(_postgres(url, statement))


# --- the client workers -----------------------------------------------------------------------


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # seconds, move sent -> all four got it
    errors: Counter[str] = field(default_factory=Counter)
    lost: int = 0  # moves whose update did not reach all four seats in time
    games: int = 0  # games finished
    started: float = field(default_factory=time.process_time)


def version_of(raw: str) -> int:
    """The version of an update, read without parsing it (``"version":N`` comes third; the
    server writes compact JSON)."""
    i = raw.index('"version":') + 10
    return int(raw[i : raw.index(",", i)])


def phase_of(raw: str) -> str | None:
    """The game's phase in a table snapshot, read without parsing it."""
    g = raw.find('"game":{')
    if g < 0:
        return None
    i = raw.index('"phase":"', g) + 9
    return raw[i : raw.index('"', i)]


class Seat:
    """One socket client: a seated player."""

    def __init__(self, table: Table | None, index: int, token: str, base: str) -> None:
        self.table = table
        self.index = index
        self.url = base.replace("http", "ws", 1) + "/ws"
        self.token = token
        self.ws: Any = None
        self.counter = 0
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.last_sent = time.monotonic()
        self.reader: asyncio.Task[None] | None = None

    async def connect(self, compression: str | None) -> None:
        self.ws = await connect(
            self.url,
            compression=compression,
            ping_interval=None,  # the server pings; the client keeps the socket alive with `ping`
            max_size=2**22,
            proxy=None,
            open_timeout=REPLY_SECONDS,
        )
        await self.ws.send(json.dumps({"type": "auth", "token": self.token}))  # signs it in
        welcome = json.loads(await asyncio.wait_for(self.ws.recv(), REPLY_SECONDS))
        assert welcome["type"] == "welcome", welcome
        self.reader = asyncio.create_task(self.read())

    async def send(self, message: dict[str, Any]) -> None:
        self.last_sent = time.monotonic()
        await self.ws.send(json.dumps(message))

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send ``message`` and wait for its ``ok`` or ``error``."""
        self.counter += 1
        ref = self.counter
        reply = self.replies[ref] = asyncio.get_running_loop().create_future()
        await self.send({"id": ref, **message})
        try:
            return await asyncio.wait_for(reply, REPLY_SECONDS)
        finally:
            self.replies.pop(ref, None)

    async def read(self) -> None:
        try:
            async for raw in self.ws:
                if raw.startswith(('{"type":"ok"', '{"type":"error"')):
                    message = json.loads(raw)
                    reply = self.replies.get(message.get("ref"))
                    if reply is not None and not reply.done():
                        reply.set_result(message)
                elif self.table is not None and raw.startswith(
                    ('{"type":"update"', '{"type":"table"')
                ):
                    self.table.receive(self, raw)
        except Exception:
            pass
        if self.table is not None:  # the server closed the socket: the table is over
            self.table.stats.errors["socket closed"] += 1

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
        if self.ws is not None:
            await self.ws.close()


@dataclass
class Pending:
    version: int  # the version the move makes
    sent: float
    seen: set[int] = field(default_factory=set)


class Table:
    """A table of four seats driven by one task: deploy, move at the pace, ready again."""

    def __init__(
        self,
        number: int,
        tokens: list[str],
        bases: list[str],
        pace: float,
        stats: Stats,
        layouts: dict[int, list[dict[str, str]]],
    ) -> None:
        # the seats are spread over the nodes, and the tables' hosts too
        self.seats = [Seat(self, s, tokens[s], bases[(number + s) % len(bases)]) for s in range(4)]
        self.id = ""
        self.pace = pace
        self.stats = stats
        self.layouts = layouts
        self.rng = random.Random(number)
        self.version = 0
        self.phase: str | None = None
        self.turn: tuple[int, Seat, dict[str, list[str]]] | None = None
        self.pending: Pending | None = None
        self.changed = asyncio.Event()
        self.next_at = 0.0

    # what the seats' readers see

    def receive(self, seat: Seat, raw: str) -> None:
        if raw.startswith('{"type":"update"'):
            version = version_of(raw)
        else:  # the answer to sit or open: rare
            version = json.loads(raw)["snapshot"]["version"]
        self.version = max(self.version, version)
        pending = self.pending
        if pending is not None and version >= pending.version:
            pending.seen.add(seat.index)
            if len(pending.seen) == 4:
                self.stats.latencies.append(time.monotonic() - pending.sent)
                self.pending = None
                self.changed.set()
        if '"legal_moves":{' in raw:
            message = json.loads(raw)
            game = (message.get("snapshot") or message["patch"])["game"]
            self.turn = (version, seat, game["legal_moves"])
            self.changed.set()
        if seat.index == 0:
            phase = phase_of(raw)
            if phase != self.phase:
                self.phase = phase
                self.changed.set()

    async def until(self, condition: Callable[[], bool], timeout: float = REPLY_SECONDS) -> bool:
        deadline = time.monotonic() + timeout
        while not condition():
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                return condition()
        return True

    async def act(self, seat: Seat, action: dict[str, Any]) -> dict[str, Any]:
        reply = await seat.request(
            {"type": "act", "table": self.id, "version": self.version, "action": action}
        )
        if reply["type"] == "error":
            self.stats.errors[reply["code"]] += 1
        else:
            self.version = max(self.version, reply["version"])
        return reply

    # the table's life

    async def setup(self, compression: str | None) -> None:
        for seat in self.seats:
            await seat.connect(compression)
        reply = await self.seats[0].request({"type": "create_table", "room": ROOM_ID})
        if reply["type"] != "ok":
            raise RuntimeError(f"create_table refused: {reply['code']}")
        self.id = reply["table"]
        for message in ({"type": "sit"}, {"type": "ready"}):
            for seat in self.seats:
                reply = await seat.request({**message, "table": self.id, "seat": seat.index})
                if reply["type"] != "ok":
                    raise RuntimeError(f"{message['type']} refused: {reply['code']}")

    async def drive(self) -> None:
        try:
            await self.play()
        except Exception as error:  # a socket closed under it: this table is over
            self.stats.errors[f"table stopped: {type(error).__name__}"] += 1

    async def play(self) -> None:
        self.next_at = time.monotonic() + self.rng.uniform(0, self.pace)
        while True:
            await self.until(lambda: self.phase in ("deploying", "playing", "finished"))
            if self.phase == "deploying":
                await self.deploy()
            elif self.phase == "playing":
                await self.move()
            elif self.phase == "finished":
                self.stats.games += 1
                for seat in self.seats:
                    await seat.request({"type": "ready", "table": self.id})
                await self.until(lambda: self.phase != "finished")

    async def deploy(self) -> None:
        for seat in self.seats:  # one after the other: at once, three would be stale
            layout = self.rng.choice(self.layouts[seat.index])
            for _ in range(10):
                reply = await self.act(seat, {"type": "place_layout", "layout": layout})
                if reply["type"] == "ok" or reply["code"] != "stale_version":
                    break
                await asyncio.sleep(0.05)
        await self.until(lambda: self.phase != "deploying")

    async def move(self) -> None:
        if not await self.until(
            lambda: (
                self.phase != "playing" or (self.turn is not None and self.turn[0] == self.version)
            )
        ):
            self.stats.errors["no_turn"] += 1
            await self.seats[0].send({"type": "open", "table": self.id})  # resync
            return
        if self.phase != "playing" or self.turn is None:
            return
        await asyncio.sleep(self.next_at - time.monotonic())
        version, seat, legal = self.turn
        self.turn = None
        origin = self.rng.choice(list(legal))
        action = {"type": "move", "origin": origin, "target": self.rng.choice(legal[origin])}
        self.pending = Pending(version + 1, time.monotonic())
        reply = await self.act(seat, action)
        if reply["type"] == "error":
            self.pending = None
            await seat.send({"type": "open", "table": self.id})  # the snapshot says what now
            return
        if not await self.until(lambda: self.pending is None, 10.0):
            self.stats.lost += 1
            self.pending = None
        self.next_at = max(self.next_at + self.pace, time.monotonic())

    async def close(self) -> None:
        for seat in self.seats:
            await seat.close()


class Worker:
    """A client process: takes commands from the controller over a pipe."""

    def __init__(self, number: int, count: int, bases: list[str], args: dict[str, Any]) -> None:
        self.number = number  # this worker drives tables number, number + count, ...
        self.count = count
        self.bases = bases
        self.pace: float = args["pace"]
        self.compression: str | None = None if args["compression"] == "none" else "deflate"
        self.tokens: list[str] = []
        self.tables: list[Table] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.idle: list[Seat] = []
        self.stats = Stats()
        self.layouts = {s: [engine.auto_layout("siguo", s, k) for k in range(4)] for s in range(4)}

    async def serve(self, pipe: Connection) -> None:
        loop = asyncio.get_running_loop()
        keepalive = asyncio.create_task(self.keepalive())
        while True:
            command, value = await loop.run_in_executor(None, pipe.recv)
            if command == "stop":
                break
            pipe.send(await getattr(self, command)(value))
        keepalive.cancel()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for table in self.tables:
            await table.close()

    async def sign_in(self, count: int) -> dict[str, int]:
        limit = asyncio.Semaphore(16)
        async with httpx.AsyncClient(timeout=REPLY_SECONDS, trust_env=False) as http:

            async def one(i: int) -> str:
                async with limit:
                    for _ in range(20):  # SQLite answers 500 "database is locked" under load
                        reply = await http.post(f"{self.bases[i % len(self.bases)]}/api/auth/guest")
                        if reply.status_code == 201:
                            return str(reply.json()["token"])
                        self.stats.errors[f"sign-in {reply.status_code}"] += 1
                        await asyncio.sleep(0.2)
                    reply.raise_for_status()
                    raise RuntimeError(f"sign-in: {reply.status_code}")

            self.tokens += await asyncio.gather(*(one(i) for i in range(count)))
        return dict(self.stats.errors)

    async def open_idle(self, count: int) -> int:
        limit = asyncio.Semaphore(64)
        self.idle = [
            Seat(None, 0, self.tokens[i % len(self.tokens)], self.bases[i % len(self.bases)])
            for i in range(count)
        ]

        async def one(seat: Seat) -> None:
            async with limit:
                await seat.connect(self.compression)

        await asyncio.gather(*(one(seat) for seat in self.idle))
        return count

    async def close_idle(self, _: object) -> int:
        await asyncio.gather(*(seat.close() for seat in self.idle))
        self.idle = []
        return 0

    async def grow(self, tables: int) -> dict[str, int]:
        """Bring this worker's share of ``tables`` tables to play; returns the failures."""
        mine = range(self.number + len(self.tables) * self.count, tables, self.count)
        limit = asyncio.Semaphore(16)
        failures: Counter[str] = Counter()

        async def one(number: int) -> None:
            k = len(self.tables)
            self.tables.append(
                Table(
                    number,
                    self.tokens[4 * k : 4 * k + 4],
                    self.bases,
                    self.pace,
                    self.stats,
                    self.layouts,
                )
            )
            table = self.tables[-1]
            async with limit:
                try:
                    await table.setup(self.compression)
                except Exception as error:
                    failures[f"set-up failed: {str(error) or type(error).__name__}"] += 1
                    return
            self.tasks.append(asyncio.create_task(table.drive()))

        await asyncio.gather(*(one(n) for n in mine))
        return dict(failures)

    async def collect(self, _: object) -> dict[str, Any]:
        """This worker's figures since the last collect (then forgotten)."""
        stats, self.stats = self.stats, Stats()
        for table in self.tables:
            table.stats = self.stats
        return {
            "latencies": stats.latencies,
            "errors": dict(stats.errors),
            "lost": stats.lost,
            "games": stats.games,
            "cpu": time.process_time() - stats.started,
        }

    async def keepalive(self) -> None:
        """The server closes sockets silent for three heartbeats: ping the quiet ones."""
        while True:
            await asyncio.sleep(5)
            quiet = time.monotonic() - 25
            for seat in self.idle + [s for t in self.tables for s in t.seats]:
                if seat.ws is not None and seat.last_sent < quiet:
                    try:
                        await seat.send({"type": "ping"})
                    except Exception:
                        seat.last_sent = time.monotonic()  # closed: the reader counted it


def worker_main(
    pipe: Connection, number: int, count: int, bases: list[str], core: int | None, args: Any
) -> None:
    if core is not None:
        os.sched_setaffinity(0, {core})
    worker = Worker(number, count, bases, args)
    uvloop.run(worker.serve(pipe))


# --- the controller ---------------------------------------------------------------------------


class Workers:
    def __init__(
        self, count: int, bases: list[str], cores: list[int], args: argparse.Namespace
    ) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes: list[Connection] = []
        self.processes = []
        options = {"pace": args.pace, "compression": args.compression}
        for i in range(count):
            parent, child = context.Pipe()
            core = cores[i % len(cores)] if cores else None
            process = context.Process(
                target=worker_main, args=(child, i, count, bases, core, options), daemon=True
            )
            process.start()
            self.pipes.append(parent)
            self.processes.append(process)

    def all(self, command: str, values: list[Any]) -> list[Any]:
        for pipe, value in zip(self.pipes, values, strict=True):
            pipe.send((command, value))
        return [pipe.recv() for pipe in self.pipes]

    def each(self, command: str, value: Any = None) -> list[Any]:
        return self.all(command, [value] * len(self.pipes))

    def cpu_seconds(self) -> float:
        total = 0.0
        for p in self.processes:
            if p.pid is not None:
                times = psutil.Process(p.pid).cpu_times()
                total += times.user + times.system
        return total

    def stop(self) -> None:
        for pipe in self.pipes:
            with contextlib.suppress(OSError):
                pipe.send(("stop", None))
        for p in self.processes:
            p.join(10)
            if p.is_alive():
                p.kill()


def split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def rss(nodes: list[Node]) -> int:
    return sum(node.ps.memory_info().rss for node in nodes)


def cpu_seconds(nodes: list[Node]) -> float:
    total = 0.0
    for node in nodes:
        times = node.ps.cpu_times()
        total += times.user + times.system
    return total


def machine_cpu_seconds() -> float:
    """CPU seconds spent by every process of the machine (all cores)."""
    t = psutil.cpu_times()
    return float(t.user + t.nice + t.system + t.irq + t.softirq + getattr(t, "steal", 0.0))


def machine_speed() -> float:
    """Seconds a fixed pure-Python loop takes here now: this shared machine's speed drifts by
    tens of percent between hours, so each run says how fast it was."""
    started = time.perf_counter()
    total = 0
    for i in range(5_000_000):
        total += i
    return time.perf_counter() - started


def percentile(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def idle_memory(nodes: list[Node], workers: Workers, count: int) -> float:
    """KiB of server RSS per idle socket (connected, welcomed, nothing else)."""
    workers.each("open_idle", 8)  # first sockets: lazy imports and caches are not per socket
    workers.each("close_idle")
    time.sleep(1)
    before = rss(nodes)
    workers.all("open_idle", split(count, len(workers.pipes)))
    time.sleep(2)
    after = rss(nodes)
    workers.each("close_idle")
    return (after - before) / count / 1024


def measure(
    nodes: list[Node], workers: Workers, seconds: float, profile: str | None, tables: int
) -> dict[str, Any]:
    """One measuring window: client figures, server CPU, RSS, loop lag, moves counted."""
    workers.each("collect")  # forget what came before the window
    spy = None
    if profile and shutil.which("py-spy"):
        spy = subprocess.Popen(
            [
                "py-spy",
                "record",
                "--pid",
                str(nodes[0].process.pid),
                "--duration",
                str(int(seconds)),
                "--rate",
                "200",
                "--nonblocking",
                "--format",
                "raw",
                "--output",
                f"{profile}-{tables}.txt",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    moves_before = sum(node.metrics().get("junqi_moves_total", 0) for node in nodes)
    collector_before = [node.collector() for node in nodes]
    start, cpu, client_cpu = time.monotonic(), cpu_seconds(nodes), workers.cpu_seconds()
    machine = machine_cpu_seconds()
    lags: list[float] = []
    while time.monotonic() - start < seconds:
        time.sleep(1)
        lags.append(max(node.metrics()["junqi_event_loop_lag_seconds"] for node in nodes))
    wall = time.monotonic() - start
    server_cpu = (cpu_seconds(nodes) - cpu) / wall * 100
    clients_cpu = (workers.cpu_seconds() - client_cpu) / wall * 100
    others_cpu = (machine_cpu_seconds() - machine) / wall * 100 - server_cpu - clients_cpu
    moves = sum(node.metrics().get("junqi_moves_total", 0) for node in nodes) - moves_before
    # the collector's passes in the window, by generation: how many, and their total seconds
    passes = [0.0, 0.0, 0.0]
    paused = [0.0, 0.0, 0.0]
    for node, before in zip(nodes, collector_before, strict=True):
        for generation, ((count, total), (count0, total0)) in enumerate(
            zip(node.collector(), before, strict=True)
        ):
            passes[generation] += count - count0
            paused[generation] += total - total0
    figures = workers.each("collect")
    if spy is not None:
        spy.wait(60)
    latencies = sorted(x for f in figures for x in f["latencies"])
    errors: Counter[str] = Counter()
    for f in figures:
        errors.update(f["errors"])
    return {
        "moves/s": len(latencies) / wall,
        "server moves/s": moves / wall,
        "p50": percentile(latencies, 0.5),
        "p99": percentile(latencies, 0.99),
        "max": latencies[-1] if latencies else math.nan,
        "lag mean": sum(lags) / len(lags) if lags else math.nan,
        "lag max": max(lags, default=math.nan),
        "cpu": server_cpu,
        "client cpu": clients_cpu,
        "others cpu": others_cpu,
        "rss": rss(nodes),
        "collector": [(n, t / n if n else math.nan) for n, t in zip(passes, paused, strict=True)],
        "lost": sum(f["lost"] for f in figures),
        "games": sum(f["games"] for f in figures),
        "errors": errors,
    }


def collector_column(passes: list[tuple[float, float]]) -> str:
    """``young/middle/all (mean ms of each)``, e.g. ``8/1/0 (24/52/-)``."""
    counts = "/".join(f"{n:.0f}" for n, _ in passes)
    means = "/".join("-" if math.isnan(mean) else f"{mean * 1000:.0f}" for _, mean in passes)
    return f"{counts} ({means})"


def hottest(path: Path, top: int = 15) -> None:
    """The functions most often on the CPU (self) and on the stack (inclusive), from py-spy's
    collapsed stacks."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        n = int(count)
        total += n
        frames = [f.rsplit(":", 1)[0] + ")" if ":" in f else f for f in stack.split(";")]
        own[frames[-1]] += n
        for frame in set(frames):
            inclusive[frame] += n
    if not total:
        return
    print(f"  profile {path} ({total} samples of the server's busy time)")
    for title, counts in (("self", own), ("inclusive", inclusive)):
        print(f"    {title}:")
        for name, n in counts.most_common(top):
            print(f"      {n / total:6.1%}  {name}")


def print_cprofile(path: Path) -> None:
    if path.exists():
        print(f"profile {path} (cProfile, the whole server run):")
        stats = pstats.Stats(str(path))
        stats.sort_stats("tottime").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--tables", default="50,100,200,500", help="steps, e.g. 50,100,200,500")
    parser.add_argument("--pace", type=float, default=2.0, help="seconds between moves of a table")
    parser.add_argument("--seconds", type=float, default=20.0, help="measuring window per step")
    parser.add_argument("--warmup", type=float, default=5.0, help="play before measuring a step")
    parser.add_argument("--p99", type=float, default=0.100, help="latency target (seconds)")
    parser.add_argument("--idle", type=int, default=2000, help="idle sockets for memory (0: skip)")
    parser.add_argument("--workers", type=int, help="client processes (default: the free cores)")
    parser.add_argument("--compression", choices=("deflate", "none"), default="deflate")
    parser.add_argument("--nodes", type=int, default=1, help="server processes")
    parser.add_argument("--database", help="SQLAlchemy URL (default: SQLite in a temp dir)")
    parser.add_argument("--redis", help="Redis URL for the servers (JUNQI_REDIS_URL)")
    parser.add_argument("--profile", help="profile the server: py-spy files PREFIX-<tables>.txt")
    args = parser.parse_args()
    steps = sorted({int(n) for n in args.tables.split(",")})
    if args.nodes > 1 and not (args.database or "").startswith("postgresql"):
        parser.error("several nodes share a PostgreSQL database: give --database")
    if args.nodes > 1 and not args.redis:
        parser.error("several nodes share tables through Redis: give --redis")

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    needed = 4 * max(steps) + args.idle + 200
    if hard < needed:
        print(f"warning: RLIMIT_NOFILE is {hard}, fewer than the ~{needed} sockets needed")

    cores = sorted(os.sched_getaffinity(0))
    server_cores = [cores[i % len(cores)] for i in range(args.nodes)]
    client_cores = [c for c in cores if c not in server_cores]
    if not client_cores:
        print("warning: no core left for the clients; they share the servers' cores")
    workers_count = args.workers or max(1, len(client_cores))

    workdir = Path(tempfile.mkdtemp(prefix="junqi-load-"))
    database = args.database or f"sqlite+aiosqlite:///{workdir / 'load.db'}"
    postgres = database.startswith("postgresql")
    use_cprofile = bool(args.profile) and not shutil.which("py-spy")
    nodes: list[Node] = []
    workers: Workers | None = None
    if postgres:
        postgres_database(database, create=True)
    try:
        env = server_env(args, database)
        for i, core in enumerate(server_cores):  # one after the other: one migrates the database
            cprofile = Path(f"{args.profile}.prof") if use_cprofile and i == 0 else None
            nodes.append(start_node(i, env, core, workdir, cprofile))
        bases = [node.base for node in nodes]
        print(
            f"{len(nodes)} server process(es) on core(s) {server_cores}, "
            f"{workers_count} client process(es) on core(s) {client_cores or cores}; "
            f"database {database.split(':')[0]}, redis {'yes' if args.redis else 'no'}, "
            f"compression {args.compression}, logs in {workdir}"
        )
        workers = Workers(workers_count, bases, client_cores, args)
        started = time.monotonic()
        guests = 4 * math.ceil(max(steps) / workers_count) * workers_count
        refused: Counter[str] = Counter()
        for errors in workers.each("sign_in", 4 * math.ceil(max(steps) / workers_count)):
            refused.update(errors)
        print(
            f"signed in {guests} guests in {time.monotonic() - started:.1f} s"
            f"{f'; refused, then retried: {dict(refused)}' if refused else ''}"
        )
        if args.idle:
            kib = idle_memory(nodes, workers, args.idle)
            print(
                f"memory: {kib:.1f} KiB of server RSS per idle connection ({args.idle} sockets); "
                f"target under 60 KiB: {'met' if kib < 60 else 'NOT met'}"
            )

        print(
            f"pace: one move per table every {args.pace:g} s; window {args.seconds:g} s per step; "
            f"machine: a 5M-step Python loop takes {machine_speed():.2f} s"
        )
        print(
            "tables sockets offered/s moves/s   p50 ms   p99 ms   max ms  lag mean/max ms  "
            "server CPU  CPU/move ms  RSS MiB  client CPU  other CPU  "
            "GC passes young/middle/all (mean ms)  games  lost  errors"
        )
        best, best_rate = None, 0.0
        for n in steps:
            started = time.monotonic()
            failures: Counter[str] = Counter()
            for failed in workers.each("grow", n):
                failures.update(failed)
            setup = time.monotonic() - started
            time.sleep(args.warmup)
            m = measure(nodes, workers, args.seconds, args.profile, n)
            errors = dict(m["errors"] + failures)
            # the server's CPU time per move: the figure that compares across machines and runs
            cpu_per_move = m["cpu"] * 10 / m["moves/s"] if m["moves/s"] else float("nan")
            print(
                f"{n:6} {4 * n:7} {n / args.pace:10.0f} {m['moves/s']:8.1f} "
                f"{m['p50'] * 1000:8.1f} {m['p99'] * 1000:8.1f} {m['max'] * 1000:8.1f} "
                f"{m['lag mean'] * 1000:7.1f}/{m['lag max'] * 1000:<7.1f} "
                f"{m['cpu']:9.0f}% {cpu_per_move:12.2f} {m['rss'] / 2**20:8.0f} "
                f"{m['client cpu']:10.0f}% "
                f"{m['others cpu']:9.0f}% "
                f"{collector_column(m['collector']):>36} "
                f"{m['games']:6} {m['lost']:5}  {errors or ''}  (set up in {setup:.0f} s)",
                flush=True,
            )
            if args.profile and not use_cprofile:
                hottest(Path(f"{args.profile}-{n}.txt"))
            if m["p99"] < args.p99:
                best, best_rate = n, max(best_rate, m["moves/s"])
            elif m["p99"] > 5 * args.p99:
                print("far over the latency target: the ramp stops here")
                break
        print(
            f"largest step with p99 under {args.p99 * 1000:g} ms: "
            f"{f'{best} tables ({4 * best} sockets)' if best else 'none'} "
            f"at a {args.pace:g} s pace; most moves/s under it: {best_rate:.0f} "
            "(target: 1,000 with p99 under 100 ms); "
            f"machine at the end: {machine_speed():.2f} s for the loop"
        )
    finally:
        if workers is not None:
            workers.stop()
        for node in nodes:
            stop_node(node)
        if postgres:
            postgres_database(database, create=False)
        if use_cprofile:
            print_cprofile(Path(f"{args.profile}.prof"))


if __name__ == "__main__":
    main()
