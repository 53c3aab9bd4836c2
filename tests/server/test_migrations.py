"""Alembic migrations: they build the schema from nothing, match the models, and go back down."""

from __future__ import annotations

import asyncio

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from server.db import Base, alembic_config

TABLES = {
    "users",
    "tokens",
    "rooms",
    "standings",
    "games",
    "game_seats",
    "layouts",
    "audit_log",
    "escapes",
    "live_tables",
    "live_log",
    "ban_addresses",
    "alembic_version",
}


def _inspect(url: str) -> tuple[set[str], list[object]]:
    async def run() -> tuple[set[str], list[object]]:
        engine = create_async_engine(url)

        def look(connection: Connection) -> tuple[set[str], list[object]]:
            names = set(inspect(connection).get_table_names())
            diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
            return names, diff

        async with engine.connect() as connection:
            result = await connection.run_sync(look)
        await engine.dispose()
        return result

    return asyncio.run(run())


def test_migrations_match_the_models_and_go_both_ways(database_url: str) -> None:
    config = alembic_config(database_url)
    command.upgrade(config, "head")
    names, diff = _inspect(database_url)
    assert names >= TABLES
    assert diff == []  # the models and the migrations agree
    command.downgrade(config, "base")
    names, _ = _inspect(database_url)
    assert names <= {"alembic_version"}
    command.upgrade(config, "head")
    assert _inspect(database_url)[0] >= TABLES
