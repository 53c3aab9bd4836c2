"""Admin REST over the real app: access, the audit log, kicks, dissolved games, point penalties,
bans and mutes, and that they survive a restart."""

from __future__ import annotations

import functools
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

import engine
from server import cli
from server.app import create_app
from server.moderation import set_role
from tests.server.conftest import make_settings, register
from tests.server.sockets import Player, signed_in
from tests.server.test_realtime import connect, start_game, table_of_two

REASON = {"reason": "test"}
ACTIONS = [  # every admin route, with a valid body
    ("get", "/admin/users", None),
    ("get", "/admin/tables", None),
    ("get", "/admin/games", None),
    ("get", "/admin/audit", None),
    ("post", "/admin/tables/x/kick", {"seat": 0, "penalty": False, **REASON}),
    ("post", "/admin/tables/x/dissolve", REASON),
    ("post", "/admin/users/x/penalty", {"variant": "siguo", "points": 5, **REASON}),
    ("post", "/admin/users/x/ban", {"minutes": None, **REASON}),
    ("post", "/admin/users/x/unban", REASON),
    ("post", "/admin/users/x/mute", {"minutes": 5, **REASON}),
    ("post", "/admin/users/x/unmute", REASON),
]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def admin(client: TestClient, name: str = "值班长") -> dict[str, str]:
    """Register ``name``, make it an admin (as ``junqi admin`` does) and return its headers."""
    token = register(client, name)
    sessions = client.app.state.db.sessions  # type: ignore[attr-defined]
    assert client.portal is not None
    assert client.portal.call(functools.partial(set_role, sessions, name, "admin"))
    return bearer(token)


def audit_log(client: TestClient, headers: dict[str, str]) -> list[dict[str, Any]]:
    response = client.get("/admin/audit", headers=headers)
    assert response.status_code == 200, response.text
    return list(response.json())


def standing(client: TestClient, name: str, variant: str) -> dict[str, Any]:
    standings = client.get(f"/api/users/{name}").json()["standings"]
    return dict(next(s for s in standings if s["variant"] == variant))


def game_row(client: TestClient, headers: dict[str, str], game_id: str) -> dict[str, Any]:
    games = client.get("/admin/games", headers=headers).json()
    return dict(next(g for g in games if g["id"] == game_id))


@pytest.mark.parametrize(("method", "path", "body"), ACTIONS)
def test_admin_routes_refuse_anonymous_and_players(
    sqlite_client: TestClient, method: str, path: str, body: dict[str, Any] | None
) -> None:
    client = sqlite_client
    player = bearer(register(client, "player"))
    call = getattr(client, method)
    kwargs = {} if body is None else {"json": body}
    assert call(path, **kwargs).status_code == 401
    assert call(path, headers=bearer("nope"), **kwargs).status_code == 401
    refused = call(path, headers=player, **kwargs)
    assert refused.status_code == 403 and "admin" in refused.json()["detail"]


def test_admins_look_at_users_tables_and_games(client: TestClient) -> None:
    headers = admin(client)
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        users = client.get("/admin/users", headers=headers).json()
        assert [u["name"] for u in users] == ["值班长", "alice", "bob"]
        assert users[0]["role"] == "admin" and users[1]["role"] == "player"
        assert users[1]["banned"] is False and users[1]["muted_until"] is None
        assert [u["name"] for u in client.get("/admin/users?name=li", headers=headers).json()] == [
            "alice"
        ]
        start_game(alice, bob, table, 3)
        tables = client.get("/admin/tables", headers=headers).json()
        assert [t["id"] for t in tables] == [table]
        assert tables[0]["status"] == "playing"
        assert [s["name"] for s in tables[0]["seats"]] == ["alice", "bob"]
        games = client.get("/admin/games", headers=headers).json()
        assert games[0]["id"] == tables[0]["game_id"] and games[0]["status"] == "playing"
        assert [p["name"] for p in games[0]["players"]] == ["alice", "bob"]


def test_every_admin_action_is_audited_and_checked(client: TestClient) -> None:
    headers = admin(client)
    register(client, "bob")
    done = [
        client.post("/admin/users/bob/penalty", headers=headers, json=body)
        for body in [{"variant": "siguo", "points": 5, "reason": "abuse"}]
    ]
    done += [
        client.post(f"/admin/users/bob/{action}", headers=headers, json=body)
        for action, body in [
            ("mute", {"minutes": 10, "reason": "spam"}),
            ("unmute", {"reason": "calmed down"}),
            ("ban", {"minutes": 60, "reason": "cheating"}),
            ("unban", {"reason": "appeal accepted"}),
        ]
    ]
    assert [r.status_code for r in done] == [200] * 5, [r.text for r in done]
    entries = audit_log(client, headers)
    assert [(e["action"], e["target"], e["reason"]) for e in entries] == [
        ("unban", "bob", "appeal accepted"),
        ("ban", "bob", "cheating"),
        ("unmute", "bob", "calmed down"),
        ("mute", "bob", "spam"),
        ("penalty", "bob", "abuse"),
    ]
    assert all(e["actor"] == "值班长" and e["at"] for e in entries)
    assert entries[-1]["details"] == {"variant": "siguo", "points": -5, "before": 0, "after": -5}
    assert standing(client, "bob", "siguo")["points"] == -5
    # unknown targets and bad bodies change nothing and are not audited
    refused = [
        client.post("/admin/users/nobody/ban", headers=headers, json={"minutes": 5, **REASON}),
        client.post("/admin/tables/nope/kick", headers=headers, json={"seat": 0, **REASON}),
        client.post("/admin/tables/nope/dissolve", headers=headers, json=REASON),
        client.post("/admin/users/bob/ban", headers=headers, json={"minutes": 5}),
        client.post("/admin/users/bob/ban", headers=headers, json={"minutes": 5, "reason": " "}),
        client.post("/admin/users/bob/ban", headers=headers, json={"reason": "no minutes"}),
        client.post("/admin/users/bob/mute", headers=headers, json={"minutes": 0, **REASON}),
        client.post(
            "/admin/users/bob/penalty", headers=headers, json={"variant": "chess", "points": 1}
        ),
        client.post(
            "/admin/users/bob/penalty",
            headers=headers,
            json={"variant": "chess", "points": 1, **REASON},
        ),
    ]
    assert [r.status_code for r in refused] == [404, 404, 404] + [422] * 6
    assert len(audit_log(client, headers)) == 5


def test_kicks_before_a_game_and_dissolving_are_audited(client: TestClient) -> None:
    headers = admin(client)
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        idle = client.post(f"/admin/tables/{table}/dissolve", headers=headers, json=REASON)
        assert idle.status_code == 409 and "not_playing" in idle.json()["detail"]
        empty = client.post(
            f"/admin/tables/{table}/kick", headers=headers, json={"seat": 5, **REASON}
        )
        assert empty.status_code == 409
        kicked = client.post(
            f"/admin/tables/{table}/kick",
            headers=headers,
            json={"seat": 1, "penalty": True, "reason": "blocking the table"},
        )
        assert kicked.status_code == 200, kicked.text
        assert kicked.json()["outcome"] == "removed" and kicked.json()["name"] == "bob"
        seen = alice.until(
            lambda m: m["type"] == "update" and any(e["kind"] == "kicked" for e in m["events"])
        )
        event = next(e for e in seen["events"] if e["kind"] == "kicked")
        assert event == {
            "seq": event["seq"],
            "kind": "kicked",
            "seat": 1,
            "name": "bob",
            "outcome": "removed",
            "by": "值班长",
            "reason": "blocking the table",
        }
        assert seen["snapshot"]["seats"][1]["name"] is None  # one update: the kick and its seat
        assert bob.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"
        start_game(alice, bob, table, 9)
        game_id = alice.snapshot["game_id"] if alice.snapshot else None
        dissolved = client.post(
            f"/admin/tables/{table}/dissolve", headers=headers, json={"reason": "server upkeep"}
        )
        assert dissolved.status_code == 200 and dissolved.json() == {"game_id": game_id}
        over = bob.until(lambda m: m["type"] == "update" and m["snapshot"]["status"] == "finished")
        assert over["snapshot"]["game"]["result"]["reason"] == "dissolved"
        assert [e["action"] for e in audit_log(client, headers)] == ["dissolve", "kick"]
        assert audit_log(client, headers)[0]["target"] == game_id
        again = client.post(f"/admin/tables/{table}/dissolve", headers=headers, json=REASON)
        assert again.status_code == 409


def bots_game(stack: ExitStack, client: TestClient, name: str) -> tuple[Player, str]:
    """``name`` plays 四国 on seat 0 against three bots; returns once play has begun."""
    me = connect(stack, client, name)
    reply = me.request({"type": "play_now", "room": "siguo-fast"})
    table = reply["table"]
    me.sync(reply["version"])
    me.sync(me.request({"type": "ready", "table": table})["version"])
    layout = engine.auto_layout("siguo", 0, 1)
    assert me.act(table, {"type": "place_layout", "layout": layout})["type"] == "ok"
    me.until(
        lambda m: (
            m["type"] == "update"
            and m["snapshot"]["game"] is not None
            and m["snapshot"]["game"]["phase"] == "playing"
        )
    )
    return me, table


def kicked_from(player: Player) -> dict[str, Any]:
    """Read until the table is over and the player's seat is empty; the last snapshot."""
    update = player.until(
        lambda m: (
            m["type"] == "update"
            and m["snapshot"]["status"] == "finished"
            and m["snapshot"]["seats"][0]["name"] is None
        )
    )
    return dict(update["snapshot"])


def test_a_kick_with_penalty_during_a_game_with_bots_is_an_escape(
    sqlite_client: TestClient,
) -> None:
    client = sqlite_client
    headers = admin(client)
    with ExitStack() as stack:
        me, table = bots_game(stack, client, "runner")
        kicked = client.post(
            f"/admin/tables/{table}/kick",
            headers=headers,
            json={"seat": 0, "penalty": True, "reason": "stalling"},
        )
        assert kicked.status_code == 200, kicked.text
        assert kicked.json()["outcome"] == "escaped"
        snapshot = kicked_from(me)
        assert snapshot["you"] is None  # a spectator of the table now
        result = snapshot["game"]["result"]
        assert result["reason"] == "escape"
        assert [s["outcome"] for s in result["seats"]] == ["escape"] + ["unscored"] * 3
        kinds = [e["kind"] for m in me.received if m["type"] == "update" for e in m["events"]]
        assert kinds.index("kicked") < kinds.index("escaped") < kinds.index("game_over")
        row = game_row(client, headers, kicked.json()["game_id"])
        assert row["status"] == "finished" and row["result"]["rated"] is False
        assert row["players"][0] == {"seat": 0, "name": "runner", "outcome": "escape", "points": 0}
        assert audit_log(client, headers)[0]["details"]["outcome"] == "escaped"


def test_a_kick_without_penalty_during_a_game_with_bots_dissolves_it(
    sqlite_client: TestClient,
) -> None:
    client = sqlite_client
    headers = admin(client)
    with ExitStack() as stack:
        me, table = bots_game(stack, client, "stayer")
        kicked = client.post(
            f"/admin/tables/{table}/kick",
            headers=headers,
            json={"seat": 0, "penalty": False, "reason": "wrong room"},
        )
        assert kicked.status_code == 200, kicked.text
        assert kicked.json()["outcome"] == "dissolved"
        result = kicked_from(me)["game"]["result"]
        assert result["reason"] == "dissolved" and result["winners"] == []
        assert [(s["outcome"], s["points"]) for s in result["seats"]] == [("draw", 0)] * 4
        row = game_row(client, headers, kicked.json()["game_id"])
        assert row["result"]["dissolved"] == {"by": "值班长", "reason": "wrong room"}
        assert {p["points"] for p in row["players"]} == {0}
        assert standing(client, "stayer", "siguo")["points"] == 0


def test_kicks_during_a_rated_game_score_as_escape_or_draw(client: TestClient) -> None:
    headers = admin(client)
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        start_game(alice, bob, table, 4)
        kicked = client.post(
            f"/admin/tables/{table}/kick",
            headers=headers,
            json={"seat": 1, "penalty": True, "reason": "abuse"},
        )
        assert kicked.status_code == 200, kicked.text
        alice.until(lambda m: m["type"] == "update" and m["snapshot"]["seats"][1]["name"] is None)
        # an escape in 二人 (docs/rules.md §11): the escaper loses twice the stake, the other wins
        assert (
            standing(client, "alice", "liangguo")["points"],
            standing(client, "bob", "liangguo")["points"],
        ) == (1, -2)
        assert standing(client, "bob", "liangguo")["losses"] == 1
        carol = connect(stack, client, "carol")
        assert carol.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"
        start_game(alice, carol, table, 5)
        kicked = client.post(
            f"/admin/tables/{table}/kick",
            headers=headers,
            json={"seat": 0, "penalty": False, "reason": "misclick"},
        )
        assert kicked.json()["outcome"] == "dissolved"
        carol.until(lambda m: m["type"] == "update" and m["snapshot"]["seats"][0]["name"] is None)
        after = standing(client, "alice", "liangguo"), standing(client, "carol", "liangguo")
        assert [(s["points"], s["draws"]) for s in after] == [(1, 1), (0, 1)]


def test_a_ban_closes_the_sockets_and_refuses_login_until_lifted(client: TestClient) -> None:
    headers = admin(client)
    with ExitStack() as stack:
        bob = connect(stack, client, "bob")
        token = client.post("/api/auth/login", json={"name": "bob", "password": "secret-pw"})
        old = token.json()["token"]
        banned = client.post(
            "/admin/users/bob/ban", headers=headers, json={"minutes": None, "reason": "cheating"}
        )
        assert banned.status_code == 200
        assert banned.json()["banned"] is True and banned.json()["ban_permanent"] is True
        bob.send({"type": "ping"})
        with pytest.raises(WebSocketDisconnect) as closed:
            bob.until(lambda m: m["type"] == "pong")  # a closed socket never answers
        assert closed.value.code == 4003
        notice = bob.received[-1]
        assert notice["type"] == "banned"
        assert "permanently" in notice["message"] and "cheating" in notice["message"]
        login = client.post("/api/auth/login", json={"name": "bob", "password": "secret-pw"})
        assert login.status_code == 403 and "banned" in login.json()["detail"]
        assert client.get("/api/me", headers=bearer(old)).status_code == 403
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            signed_in(client, old) as ws,
        ):
            ws.receive_json()
        assert refused.value.code == 4003
    lifted = client.post("/admin/users/bob/unban", headers=headers, json={"reason": "appeal"})
    assert lifted.json()["banned"] is False
    assert client.get("/api/me", headers=bearer(old)).status_code == 200
    login = client.post("/api/auth/login", json={"name": "bob", "password": "secret-pw"})
    assert login.status_code == 200


def test_a_ban_during_a_game_ends_the_banned_player_s_part_at_once(client: TestClient) -> None:
    headers = admin(client)
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        start_game(alice, bob, table, 7)
        banned = client.post(
            "/admin/users/bob/ban", headers=headers, json={"minutes": 60, "reason": "cheating"}
        )
        assert banned.status_code == 200
        # no waiting through bob's disconnect grace: his escape is scored now, and alice is
        # told why
        over = alice.until(lambda m: m["type"] == "update" and m["snapshot"]["status"] != "playing")
        kicked = next(e for e in over["events"] if e["kind"] == "kicked")
        assert kicked["seat"] == 1 and kicked["outcome"] == "escaped"
        assert kicked["reason"] == "banned: cheating"
        result = over["snapshot"]["game"]["result"]
        assert result["seats"][1]["outcome"] == "escape" and result["winners"] == [0]
        entries = audit_log(client, headers)
        assert [e["action"] for e in entries[:2]] == ["kick", "ban"], entries[:2]


def test_a_timed_ban_shows_its_end(sqlite_client: TestClient) -> None:
    headers = admin(sqlite_client)
    register(sqlite_client, "bob")
    banned = sqlite_client.post(
        "/admin/users/bob/ban", headers=headers, json={"minutes": 90, "reason": "rude"}
    ).json()
    assert banned["banned_until"] is not None and banned["ban_permanent"] is False
    login = sqlite_client.post("/api/auth/login", json={"name": "bob", "password": "secret-pw"})
    assert login.status_code == 403 and "UTC" in login.json()["detail"]


def test_a_muted_user_cannot_chat(client: TestClient) -> None:
    headers = admin(client)
    with ExitStack() as stack:
        alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
        muted = client.post(
            "/admin/users/bob/mute", headers=headers, json={"minutes": 30, "reason": "spam"}
        )
        assert muted.status_code == 200 and muted.json()["muted_until"]
        refused = bob.request({"type": "chat", "channel": "lobby", "text": "buy gold"})
        assert refused["code"] == "muted" and "muted until" in refused["message"]
        notices = [m for m in bob.received if m["type"] == "muted"]
        assert [n["reason"] for n in notices] == ["spam"]
        assert alice.request({"type": "chat", "channel": "lobby", "text": "hi"})["type"] == "ok"
        client.post("/admin/users/bob/unmute", headers=headers, json={"reason": "ok now"})
        assert bob.request({"type": "chat", "channel": "lobby", "text": "sorry"})["type"] == "ok"


def test_penalties_bans_mutes_and_the_audit_survive_a_restart(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'restart.db'}")
    with TestClient(create_app(settings)) as client:
        headers = admin(client)
        for name in ("bob", "carol", "dave"):
            register(client, name)
        for path, body in [
            ("bob/penalty", {"variant": "sanguo", "points": 7, "reason": "collusion"}),
            ("carol/ban", {"minutes": None, "reason": "cheating"}),
            ("dave/mute", {"minutes": 60, "reason": "spam"}),
        ]:
            assert (
                client.post(f"/admin/users/{path}", headers=headers, json=body).status_code == 200
            )
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        assert standing(client, "bob", "sanguo")["points"] == -7
        login = client.post("/api/auth/login", json={"name": "carol", "password": "secret-pw"})
        assert login.status_code == 403
        login = client.post("/api/auth/login", json={"name": "dave", "password": "secret-pw"})
        dave = Player(
            stack.enter_context(signed_in(client, login.json()["token"])),
            "dave",
        )
        dave.receive()
        assert dave.request({"type": "chat", "channel": "lobby", "text": "hi"})["code"] == "muted"
        admin_login = client.post(
            "/api/auth/login", json={"name": "值班长", "password": "secret-pw"}
        )
        entries = audit_log(client, bearer(admin_login.json()["token"]))
        assert [e["action"] for e in entries] == ["mute", "ban", "penalty"]


def test_junqi_admin_appoints_and_revokes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    with TestClient(create_app(settings)) as client:
        token = register(client, "boss")
    monkeypatch.setattr(cli, "get_settings", lambda: settings)
    assert cli.main(["admin", "boss"]) == 0
    assert cli.main(["admin", "nobody"]) == 1
    with TestClient(create_app(settings)) as client:
        assert client.get("/admin/users", headers=bearer(token)).status_code == 200
    assert cli.main(["admin", "boss", "--revoke"]) == 0
    with TestClient(create_app(settings)) as client:
        assert client.get("/admin/users", headers=bearer(token)).status_code == 403
    assert "no user 'nobody'" in capsys.readouterr().err
