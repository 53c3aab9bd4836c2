"""The FastAPI application: one lifespan owns the database, the broker and the lobby."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from server import accounts, games, layouts, lobby, realtime
from server.broker import InMemoryBroker
from server.config import Settings, get_settings
from server.db import Database, migrate
from server.store import Store


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await migrate(settings.database_url)
        db = Database(settings.database_url)
        broker = InMemoryBroker()
        app.state.settings = settings
        app.state.db = db
        app.state.broker = broker
        rooms = await lobby.load_rooms(db.sessions, settings.rooms)
        app.state.lobby = lobby.Lobby(rooms, broker, Store(db.sessions))
        app.state.chat_times = {}  # user id -> times of recent chat lines (rate limit)
        try:
            yield
        finally:
            await app.state.lobby.close()
            await db.close()

    app = FastAPI(
        title="Junqi 军棋",
        summary="Online platform for Junqi: 四国, 乱战, 三打一, 三国, 二人 and 翻棋",
        lifespan=lifespan,
    )
    app.include_router(accounts.router)
    app.include_router(lobby.router)
    app.include_router(games.router)
    app.include_router(layouts.router)
    app.include_router(realtime.router)

    @app.get("/health", tags=["ops"])
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    if settings.web_dir.is_dir():
        app.mount("/", StaticFiles(directory=settings.web_dir, html=True), name="web")
    return app
