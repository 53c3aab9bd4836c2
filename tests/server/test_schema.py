"""Schemathesis over the app's own OpenAPI schema (SQLite and PostgreSQL).

Every operation gets generated requests, valid and invalid ones, sent with an admin's bearer
token, so that the routes behind authentication (and behind the admin role) run too. No answer
may be a server error, every answer must match the schema (media type, body), invalid requests
must be refused with a 4xx, and every operation that declares the bearer scheme must refuse a
request it granted when it comes again without a token or with a bad one (401).

The schema is read from ``create_app(...).openapi()`` at import (no lifespan, no database), so
that the schemathesis plugin makes one test per operation. One app per database serves them all
(a module fixture); schemathesis only makes the requests and judges the answers, the app runs
in the test's ``TestClient``. (``schemathesis.pytest.from_fixture`` would load the schema from a
fixture instead, but it does not run under pytest 9: it sets ``Node._nodeid``.)
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from secrets import token_hex
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from server.app import create_app
from server.moderation import set_role
from tests.server.conftest import make_settings, register
from tests.soak import soak

CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]
schema = schemathesis.openapi.from_dict(
    create_app(make_settings("sqlite+aiosqlite:///:memory:")).openapi(),
    # no TRACE, PATCH, ... to every route: Starlette's 405s are not this app's
    config=schemathesis.Config.from_dict({"phases": {"coverage": {"unexpected-methods": []}}}),
)


@dataclass
class Api:
    client: TestClient
    headers: dict[str, str]  # an admin's bearer token
    refused_anonymous: set[str] = field(default_factory=set)  # operations seen refusing


@pytest.fixture(scope="module")
def api(api_database: str) -> Iterator[Api]:
    with TestClient(create_app(make_settings(api_database))) as client:
        token = register(client, "schema-admin")
        sessions = client.app.state.db.sessions  # type: ignore[attr-defined]
        assert client.portal is not None
        assert client.portal.call(functools.partial(set_role, sessions, "schema-admin", "admin"))
        yield Api(client, {"Authorization": f"Bearer {token}"})


def send(client: TestClient, case: schemathesis.Case[Any], headers: dict[str, str]) -> Any:
    """Send the case through the test client (httpx) as schemathesis would (requests)."""
    request = case.as_transport_kwargs(base_url=str(client.base_url), headers=headers)
    assert not request.pop("cookies", None), "the API takes no cookies"
    body: dict[str, Any] = {}
    if "json" in request:
        body["json"] = request.pop("json")
    if "data" in request:
        data = request.pop("data")
        body["content" if isinstance(data, bytes | str) else "data"] = data
    unknown = set(request) - {"method", "url", "headers", "params"}
    assert not unknown, f"cannot send {unknown} through the test client"
    return client.request(
        request["method"],
        request["url"],
        params=request.get("params"),
        headers=request.get("headers"),
        **body,
    )


@schema.parametrize()
@settings(
    max_examples=soak(2, 4),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_answers_as_its_schema_says(case: schemathesis.Case[Any], api: Api) -> None:
    headers = api.headers
    if case.operation.path.startswith("/api/auth/logout"):  # it revokes tokens: a user of its own
        headers = {"Authorization": f"Bearer {register(api.client, f'leaver-{token_hex(4)}')}"}
    response = send(api.client, case, headers)
    case.validate_response(response, checks=CHECKS)
    label = case.operation.label
    secured = case.operation.definition.raw.get("security")
    if secured and response.is_success and label not in api.refused_anonymous:
        for headers in ({}, {"Authorization": "Bearer not-a-token"}):
            refused = send(api.client, case, headers)
            assert refused.status_code == 401, (label, refused.text)
        api.refused_anonymous.add(label)  # once per operation is enough


def test_metrics_are_documented_as_text(sqlite_client: TestClient) -> None:
    documented = sqlite_client.get("/openapi.json").json()["paths"]["/metrics"]["get"]
    answer = sqlite_client.get("/metrics")
    media_type = answer.headers["content-type"].split(";")[0]
    assert media_type in documented["responses"]["200"]["content"]


def test_a_refused_penalty_is_answered_as_documented(sqlite_client: TestClient) -> None:
    token = register(sqlite_client, "penalty-admin")
    sessions = sqlite_client.app.state.db.sessions  # type: ignore[attr-defined]
    assert sqlite_client.portal is not None
    assert sqlite_client.portal.call(
        functools.partial(set_role, sessions, "penalty-admin", "admin")
    )
    operation = schema["/admin/users/{name}/penalty"]["POST"]
    case = operation.Case(
        path_parameters={"name": "penalty-admin"},
        body={"variant": "no-such", "points": 1, "reason": "test"},
        media_type="application/json",
    )
    answer = send(sqlite_client, case, {"Authorization": f"Bearer {token}"})
    assert answer.status_code == 422
    case.validate_response(answer, checks=[response_schema_conformance])
