"""Health, readiness, metrics and JSON logs."""

from __future__ import annotations

import gc
import json
import logging
import re
from contextlib import ExitStack

import pytest
from fastapi.testclient import TestClient

from server.observability import CollectorPauses, json_logging
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


def test_the_collectors_passes_are_timed_by_generation(client: TestClient) -> None:
    def passes(generation: int) -> tuple[float, float]:
        text = client.get("/metrics").text
        count = re.search(
            rf'^junqi_gc_pause_seconds_count{{generation="{generation}"}} (\S+)$', text, re.M
        )
        total = re.search(
            rf'^junqi_gc_pause_seconds_sum{{generation="{generation}"}} (\S+)$', text, re.M
        )
        assert count is not None and total is not None
        return float(count.group(1)), float(total.group(1))

    young, whole = passes(0), passes(2)
    gc.collect(0)
    gc.collect()
    assert passes(0)[0] >= young[0] + 1 and passes(0)[1] > young[1]
    assert passes(2)[0] >= whole[0] + 1 and passes(2)[1] > whole[1]


def test_a_pass_lands_in_the_buckets_of_its_length() -> None:
    clock = iter([10.0, 10.03])  # a pass of 30 ms
    pauses = CollectorPauses(clock=lambda: next(clock))
    pauses.timed("start", {"generation": 1})
    pauses.timed("stop", {"generation": 1})
    (family,) = pauses.collect()
    buckets = {
        s.labels["le"]: s.value
        for s in family.samples
        if s.name.endswith("_bucket") and s.labels["generation"] == "1"
    }
    assert buckets["0.025"] == 0 and buckets["0.05"] == 1 and buckets["+Inf"] == 1
    sums = {s.labels["generation"]: s.value for s in family.samples if s.name.endswith("_sum")}
    assert sums == {"0": 0.0, "1": pytest.approx(0.03), "2": 0.0}
