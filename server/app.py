"""The FastAPI application: one lifespan owns the database, the broker and the lobby.

With ``JUNQI_REDIS_URL`` set, the process is one node of a cluster: the broker goes through
Redis and tables are owned, kept and taken over through it (``server.cluster``).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import secrets
import socket
from collections import Counter
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import AsyncExitStack, asynccontextmanager
from multiprocessing import get_context

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from redis import asyncio as aioredis
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import Response
from starlette.types import Scope

from server import (
    accounts,
    admin,
    admin_rooms,
    friends,
    games,
    layouts,
    lobby,
    observability,
    realtime,
    room_rules,
    rooms,
    sign_in,
    standings,
)
from server.backoff import login_backoff
from server.bot_driver import thinker
from server.broker import InMemoryBroker, RedisBroker
from server.cluster import Cluster
from server.config import Settings, TablePolicy, get_settings
from server.db import Database, migrate
from server.feeds import Feeds
from server.hardening import HardenedApp
from server.limits import RateLimits
from server.matchmaking import start_matchmaker
from server.passwords import Passwords
from server.store import Store
from server.whereabouts import Whereabouts

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None, tune_gc: bool = False) -> FastAPI:
    """The app; ``tune_gc`` (for a server process of its own) tunes the garbage collector."""
    settings = settings or get_settings()
    observability.redact_tokens()  # a token in a URL (an old client's socket) stays unlogged

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:  # what is opened is closed, the last first
            await start(app, settings, stack)
            if tune_gc:
                tune_collector()
            yield

    # security headers on every answer, request bodies capped (server.hardening)
    app = HardenedApp(
        settings.max_body_bytes,
        title="Junqi 军棋",
        summary="Online platform for Junqi: 四国, 乱战, 三打一, 三国, 二人 and 翻棋",
        lifespan=lifespan,
    )
    for module in (
        accounts,
        lobby,
        room_rules,
        games,
        layouts,
        realtime,
        standings,
        admin,
        admin_rooms,
        friends,
    ):
        app.include_router(module.router)
    app.include_router(observability.router)
    # no free database connection in time: 503 busy, not a 500
    app.add_exception_handler(PoolTimeout, accounts.pool_exhausted)
    app.add_middleware(GZipMiddleware, minimum_size=1000)  # text answers, compressed
    if settings.web_dir.is_dir():
        app.mount("/", ClientFiles(directory=settings.web_dir, html=True), name="web")
    return app


async def start(app: FastAPI, settings: Settings, stack: AsyncExitStack) -> None:
    """Open what the app runs on, in ``app.state``, each closed by ``stack``: the database,
    the broker (and with Redis the cluster), the bots' workers, the lobby and its tables, and
    what signs users in."""
    rooms.check_rooms(settings.rooms)  # before anything is opened
    await migrate(settings.database_url)
    app.state.settings = settings
    db = app.state.db = Database(settings.database_url, settings.database_pool, settings.rest_pool)
    stack.push_async_callback(db.close)
    cluster = redis = None
    broker: InMemoryBroker
    if settings.redis_url:
        node = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        redis = aioredis.from_url(settings.redis_url, decode_responses=True)
        stack.push_async_callback(redis.aclose)
        broker = RedisBroker(redis, node)
        cluster = Cluster(redis, broker, node, db.engine, settings.lease_seconds)
    else:
        broker = InMemoryBroker()
    await broker.start()
    stack.push_async_callback(broker.close)
    app.state.redis, app.state.broker = redis, broker
    app.state.feeds = Feeds(broker)
    stack.push_async_callback(app.state.feeds.close)
    configured = await rooms.load_rooms(db.sessions, settings.rooms)
    # bots think in worker processes, never on the event loop
    workers = ProcessPoolExecutor(settings.bot_workers, mp_context=get_context("spawn"))
    stack.callback(workers.shutdown, cancel_futures=True)
    think = thinker(workers, settings.bot_pause_seconds, settings.bot_budget_scale)
    metrics = app.state.metrics = observability.Metrics()
    policy = TablePolicy(
        settings.idle_table_seconds,
        settings.seat_grace_seconds,
        settings.tables_per_creator,
        settings.tables_per_address,
        settings.lonely_table_seconds,
        settings.shared_address_unrated,
        settings.bot_pace_scale,
    )
    the_lobby = app.state.lobby = lobby.Lobby(
        configured, broker, Store(db.sessions), think, metrics, cluster, policy
    )
    stack.push_async_callback(the_lobby.close)
    metrics.count_live_tables(lambda: sum(t.in_game for t in the_lobby.tables.values()))
    stack.callback(asyncio.create_task(metrics.watch_loop_lag()).cancel)
    await the_lobby.start()  # the games running when the server stopped go on
    app.state.matchmaker = await start_matchmaker(the_lobby, redis, settings)
    stack.push_async_callback(app.state.matchmaker.close)
    start_signing_in(app, settings, redis, stack)
    # where each user is, for their friends (through Redis for a cluster)
    this_node = cluster.node if cluster is not None else None
    whereabouts = Whereabouts(
        app.state.connections,
        the_lobby.entries,
        redis,
        this_node,
        settings.presence_refresh_seconds,
    )
    app.state.whereabouts = whereabouts
    whereabouts.start()
    stack.push_async_callback(whereabouts.close)
    stack.callback(metrics.collector.watching())


def start_signing_in(
    app: FastAPI, settings: Settings, redis: aioredis.Redis | None, stack: AsyncExitStack
) -> None:
    """What signs users in and keeps them to their limits: rate limits, the password
    hashing threads, the login back-off, and the watch on open sockets' rights."""
    app.state.limits = RateLimits(
        settings.sign_ins_per_minute,
        settings.tables_per_minute,
        settings.actions_per_10_seconds,
        settings.chat_per_minute,
        redis=redis,
        seats=settings.seat_commands_per_10_seconds,
        phrases=settings.phrases_per_minute,
    )
    app.state.sockets_per_user = Counter()  # user id -> sockets open in this process
    app.state.connections = set()  # this process's sockets (``realtime.Connection``)
    stack.callback(asyncio.create_task(sign_in.watch_rights(app), name="socket rights").cancel)
    app.state.passwords = Passwords(
        settings.password_threads, settings.password_cost, settings.password_queue
    )
    stack.callback(app.state.passwords.close)
    if settings.password_cost != "standard":
        log.warning("passwords are hashed at the test cost (JUNQI_PASSWORD_COST): tests only")
    app.state.login_backoff = login_backoff(
        settings.login_free_failures,
        settings.login_backoff_seconds,
        settings.login_backoff_max_seconds,
        redis,
    )


def tune_collector() -> None:
    """What start-up made lives as long as the process: the collector need not go through it
    again. Its passes stall every table at once, so they are kept short rather than rare
    (measured under load, bench/load.py): the young generation every 10,000 new objects
    (~10 ms), the middle one every 5 of those (~30-50 ms; at 20 it took ~200 ms, the tail of
    every move's latency), the whole heap only every 100 of those (~0.3 s, some minutes apart
    under load: after the freeze the collector would otherwise go through it every few
    seconds)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 5, 100)


class ClientFiles(StaticFiles):
    """The browser client's files, revalidated on every load (their ETag answers 304 when
    unchanged), so that a new version of the client is never run from a stale cache."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers["Cache-Control"] = "no-cache"
        return response
