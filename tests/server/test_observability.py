"""Health, readiness, metrics and JSON logs."""

from __future__ import annotations

import json
import logging
import re
from contextlib import ExitStack

import pytest
from fastapi.testclient import TestClient

from server.observability import json_logging
from tests.server.test_realtime import start_game, table_of_two


def metric(client: TestClient, name: str) -> float:
    text = client.get("/metrics").text
    found = re.search(rf"^{name} ([0-9.e+-]+)$", text, re.MULTILINE)
    assert found is not None, f"{name} not in /metrics"
    return float(found.group(1))


def test_health_readiness_and_metrics_follow_the_games(client: TestClient) -> None:
    assert client.get("/health").json() == {"status": "ok"}
    assert client.get("/ready").json() == {"status": "ready"}
    assert metric(client, "junqi_connections") == 0
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        assert metric(client, "junqi_connections") == 2
        assert metric(client, "junqi_live_tables") == 0
        start_game(alice, bob, table, 4)
        assert metric(client, "junqi_live_tables") == 1
        game = alice.game
        origin = sorted(game["legal_moves"])[0]
        move = {"type": "move", "origin": origin, "target": game["legal_moves"][origin][0]}
        assert alice.act(table, move)["type"] == "ok"
        assert metric(client, "junqi_moves_total") == 1
    assert metric(client, "junqi_connections") == 0
    assert metric(client, "junqi_event_loop_lag_seconds") >= 0
    assert metric(client, "junqi_table_takeovers_total") == 0


def test_a_server_without_its_database_is_not_ready(client: TestClient) -> None:
    async def broken() -> None:
        raise OSError("database gone")

    class Gone:
        def __call__(self) -> Gone:
            return self

        async def __aenter__(self) -> None:
            await broken()

        async def __aexit__(self, *args: object) -> None:
            return None

    real = client.app.state.db.sessions  # type: ignore[attr-defined]
    client.app.state.db.sessions = Gone()  # type: ignore[attr-defined]
    try:
        response = client.get("/ready")
    finally:
        client.app.state.db.sessions = real  # type: ignore[attr-defined]
    assert response.status_code == 503 and response.json()["reason"] == "database"


def test_log_lines_are_json_objects(capsys: pytest.CaptureFixture[str]) -> None:
    names = ("junqi", "uvicorn", "uvicorn.error", "uvicorn.access")
    saved = [(lg, lg.handlers, lg.level, lg.propagate) for lg in map(logging.getLogger, names)]
    try:
        json_logging()
        logging.getLogger("junqi").info("game started", extra={"table": "t1", "game": "g1"})
        line = capsys.readouterr().err.strip().splitlines()[-1]
    finally:  # the other tests log as before
        for logger, handlers, level, propagate in saved:
            logger.handlers, logger.level, logger.propagate = handlers, level, propagate
    entry = json.loads(line)
    assert entry["message"] == "game started" and entry["table"] == "t1"
    assert entry["levelname"] == "INFO" and "timestamp" in entry
