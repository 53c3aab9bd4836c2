"""Health, readiness, Prometheus metrics and structured (JSON) logs.

``/health`` says the process is up; ``/ready`` that it can serve (its database answers, and
Redis too when processes share one);
``/metrics`` is the Prometheus text format: open sockets, tables with a game running, moves
applied, the event loop's lag, table takeovers (a table taken back after a restart, or from
a process that died) and the garbage collector's passes (each stalls every table of the
process: their lengths by generation). Each app
has its own registry, so several apps in one process (the tests) do not mix their figures.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import logging
import re
import time
from bisect import bisect_left
from collections.abc import Callable, Iterator
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse, PlainTextResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    generate_latest,
)
from prometheus_client.core import HistogramMetricFamily
from pythonjsonlogger.json import JsonFormatter
from sqlalchemy import text

router = APIRouter(tags=["ops"])
LAG_INTERVAL = 0.5  # seconds between two looks at the event loop's lag
GC_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)  # seconds


class Metrics:
    """The figures one app exports."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.connections = Gauge(
            "junqi_connections", "Open WebSocket connections", registry=self.registry
        )
        self.live_tables = Gauge(
            "junqi_live_tables", "Tables with a game running", registry=self.registry
        )
        self.moves = Counter("junqi_moves", "Moves applied", registry=self.registry)
        self.loop_lag = Gauge(
            "junqi_event_loop_lag_seconds",
            "How late the event loop ran a timer, last look",
            registry=self.registry,
        )
        self.sockets_behind = Counter(
            "junqi_sockets_too_far_behind",
            "Sockets closed because their client did not read its messages (code 4008)",
            registry=self.registry,
        )
        self.takeovers = Counter(
            "junqi_table_takeovers",
            "Tables taken over after a restart or from a dead process",
            registry=self.registry,
        )
        self.aborted = Counter(
            "junqi_games_aborted",
            "Running games that could not be taken back (ended unscored)",
            registry=self.registry,
        )

        self.collector = CollectorPauses()
        self.registry.register(self.collector)

    def count_live_tables(self, count: Callable[[], int]) -> None:
        self.live_tables.set_function(count)

    async def watch_loop_lag(self) -> None:
        """Sleep a fixed time over and over; how much later than asked we wake is the lag."""
        while True:
            start = time.perf_counter()
            await asyncio.sleep(LAG_INTERVAL)
            self.loop_lag.set(max(0.0, time.perf_counter() - start - LAG_INTERVAL))


class CollectorPauses:
    """The garbage collector's passes, timed through ``gc.callbacks`` while ``watching``, as the
    histogram ``junqi_gc_pause_seconds`` by generation (0: young, 2: the whole heap). The
    callback only counts, in plain attributes: a pass may start inside any allocation, also
    one made while a metric holds its lock, so the histogram is made when it is read."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.started = 0.0
        self.counts = [[0] * (len(GC_BUCKETS) + 1) for _ in range(3)]  # per bucket, +Inf last
        self.sums = [0.0, 0.0, 0.0]

    def timed(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = self.clock()
            return
        pause = self.clock() - self.started
        generation = info["generation"]
        self.counts[generation][bisect_left(GC_BUCKETS, pause)] += 1
        self.sums[generation] += pause

    def watching(self) -> Callable[[], None]:
        """Time every pass from now on; returns the function that stops it."""
        gc.callbacks.append(self.timed)
        return lambda: gc.callbacks.remove(self.timed)

    def collect(self) -> Iterator[HistogramMetricFamily]:
        family = HistogramMetricFamily(
            "junqi_gc_pause_seconds",
            "The garbage collector's passes (each stalls the event loop), by generation",
            labels=["generation"],
        )
        bounds = [*map(str, GC_BUCKETS), "+Inf"]
        for generation, counts in enumerate(self.counts):
            cumulative = itertools.accumulate(counts)  # exposed buckets count every shorter pass
            buckets = list(zip(bounds, cumulative, strict=True))
            family.add_metric([str(generation)], buckets, self.sums[generation])
        return iter([family])


@router.get("/health")
async def health() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


@router.get("/ready")
async def ready(request: Request) -> Response:
    """The process can serve: its database (and Redis, if any) answer (503 otherwise)."""
    try:
        async with request.app.state.db.sessions() as session:
            await session.execute(text("SELECT 1"))
    except Exception as error:  # any failure to reach the database means not ready
        logging.getLogger("junqi").warning("not ready: %s", error)
        return JSONResponse({"status": "unavailable", "reason": "database"}, status_code=503)
    redis = request.app.state.redis
    if redis is not None:
        try:
            await redis.ping()
        except Exception as error:
            logging.getLogger("junqi").warning("not ready: %s", error)
            return JSONResponse({"status": "unavailable", "reason": "redis"}, status_code=503)
    return JSONResponse({"status": "ready"})


@router.get("/metrics", response_class=PlainTextResponse)
async def metrics(request: Request) -> Response:
    """The Prometheus text format."""
    registry = request.app.state.metrics.registry
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)


def json_logging(level: str = "INFO") -> None:
    """Every log line as one JSON object (time, level, logger, message and any extras)."""
    handler = logging.StreamHandler()
    handler.setFormatter(
        JsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s", timestamp=True)
    )
    for name in ("junqi", "uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.setLevel(level)
        logger.propagate = False


_TOKEN = re.compile(r"(token=)[^&\s\"']+")


class RedactTokens(logging.Filter):
    """uvicorn logs URLs (a socket's at INFO, each request's in the access log), and a token may
    still come in one: a browser tab of before the ``auth`` message (sockets sign in by their
    first message now, and one with ``?token=`` is refused) or a client that puts it there.
    It is cut out of them."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = _TOKEN.sub(r"\1[redacted]", record.msg)
        if isinstance(record.args, tuple):  # uvicorn's access formatter reads its args back
            record.args = tuple(
                _TOKEN.sub(r"\1[redacted]", a) if isinstance(a, str) else a for a in record.args
            )
        return True


def redact_tokens() -> None:
    """Keep tokens out of uvicorn's log lines, however uvicorn was set up to log."""
    for name in ("uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())
