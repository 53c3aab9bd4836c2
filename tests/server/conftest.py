"""Fixtures: the real app on SQLite and, when PostgreSQL is reachable, on PostgreSQL too.

PostgreSQL runs when ``JUNQI_TEST_POSTGRES`` names a server URL (``.ci/run`` sets it to the
machine's server); each test gets a database of its own, migrated from nothing, dropped after.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from server.config import RoomConfig, Settings
from tests.server.databases import database, migrated_sqlite

FAST_ROOMS = [
    RoomConfig(
        id="siguo-fast",
        name="四国 fast",
        variant="siguo",
        options={"move_seconds": 30, "deploy_seconds": 60},
    ),
    RoomConfig(
        id="liangguo-fast",
        name="二人 fast",
        variant="liangguo",
        options={"move_seconds": 30, "deploy_seconds": 60},
    ),
]


@pytest.fixture
def postgres_url(tmp_path: Path) -> Iterator[str]:
    with database("postgresql", tmp_path) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        yield url


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def api_database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """As ``database_url``, but one database for a whole test module (for many REST calls)."""
    with database(request.param, tmp_path_factory.mktemp("api")) as url:
        yield url


def make_settings(database_url: str, **changes: object) -> Settings:
    changes.setdefault("bot_pause_seconds", 0.0)
    changes.setdefault("bot_pace_scale", 0.0)  # bots move at once (the pace has its own tests)
    # scripted clients play far faster than people: the limits have tests of their own
    changes.setdefault("actions_per_10_seconds", 100_000)
    changes.setdefault("seat_commands_per_10_seconds", 100_000)
    changes.setdefault("sign_ins_per_minute", 100_000)
    changes.setdefault("guests_per_address_per_day", 100_000)
    # every test client comes from one address: a ban would block all the others' new accounts
    changes.setdefault("block_banned_addresses", False)
    migrated_sqlite(database_url)  # an app starts on it: a new SQLite file, copied migrated
    return Settings(database_url=database_url, rooms=FAST_ROOMS, **changes)  # type: ignore[arg-type]


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(database_url))) as c:
        yield c


@pytest.fixture
def sqlite_client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'junqi.db'}"
    with TestClient(create_app(make_settings(url))) as c:
        yield c


def register(client: TestClient, name: str) -> str:
    response = client.post("/api/auth/register", json={"name": name, "password": "secret-pw"})
    assert response.status_code == 201, response.text
    return str(response.json()["token"])
