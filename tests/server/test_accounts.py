"""Accounts over the real app: register, login, guests, tokens, profiles (SQLite and PostgreSQL)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from server.app import create_app
from server.config import RoomConfig
from tests.server.conftest import make_settings, register


def test_register_login_and_profile(client: TestClient) -> None:
    token = register(client, "老司令")
    me = client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 200
    body = me.json()
    assert body["user"]["name"] == "老司令" and body["user"]["guest"] is False
    siguo = next(s for s in body["standings"] if s["variant"] == "siguo")
    assert siguo == {
        "variant": "siguo",
        "points": 0,
        "title": "兵",
        "level": 1,
        "wins": 0,
        "losses": 0,
        "draws": 0,
    }
    login = client.post("/api/auth/login", json={"name": "老司令", "password": "secret-pw"})
    assert login.status_code == 200 and login.json()["token"] != token
    assert client.get("/api/users/老司令").json()["user"]["name"] == "老司令"


def test_passwords_are_hashed_and_checked(client: TestClient) -> None:
    register(client, "bob")
    wrong = client.post("/api/auth/login", json={"name": "bob", "password": "not-it-at-all"})
    assert wrong.status_code == 401
    nobody = client.post("/api/auth/login", json={"name": "nobody", "password": "whatever1"})
    assert nobody.status_code == 401


def test_names_are_unique_and_checked(client: TestClient) -> None:
    register(client, "carol")
    again = client.post("/api/auth/register", json={"name": "carol", "password": "secret-pw"})
    assert again.status_code == 409
    bad = client.post("/api/auth/register", json={"name": "a b!", "password": "secret-pw"})
    assert bad.status_code == 422
    short = client.post("/api/auth/register", json={"name": "dave", "password": "123"})
    assert short.status_code == 422


def test_guests_get_a_generated_name(client: TestClient) -> None:
    first = client.post("/api/auth/guest").json()
    second = client.post("/api/auth/guest").json()
    assert first["user"]["guest"] and first["user"]["name"].startswith("游客")
    assert first["user"]["name"] != second["user"]["name"]
    me = client.get("/api/me", headers={"Authorization": f"Bearer {first['token']}"})
    assert me.status_code == 200


def test_a_bad_token_is_refused(client: TestClient) -> None:
    assert client.get("/api/me").status_code == 401
    assert client.get("/api/me", headers={"Authorization": "Bearer nope"}).status_code == 401
    assert client.get("/api/users/nobody").status_code == 404


def test_health_and_the_web_page(client: TestClient) -> None:
    assert client.get("/health").json() == {"status": "ok"}
    page = client.get("/")
    assert page.status_code == 200 and "军棋" in page.text
    assert client.get("/openapi.json").json()["info"]["title"].startswith("Junqi")


def test_configured_rooms_are_stored_with_their_owner(database_url: str) -> None:
    settings = make_settings(database_url)
    with TestClient(create_app(settings)) as client:
        register(client, "室主")
    settings.rooms = [
        *settings.rooms,
        RoomConfig(
            id="owned", name="有主之室", variant="sanguo", owner="室主", options={"score_y": 4}
        ),
    ]
    with TestClient(create_app(settings)) as client:  # a restart reads the rooms back
        rooms = {r["id"]: r for r in client.get("/api/lobby").json()["rooms"]}
        assert rooms["owned"]["owner"] == "室主"
        assert rooms["owned"]["options"] == {"score_y": 4}
        assert {"siguo-fast", "liangguo-fast"} <= set(rooms)
