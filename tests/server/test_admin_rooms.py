"""Rooms for admins (issue #25, point 4) over the real app, on SQLite and PostgreSQL: admins make,
edit, close and reopen rooms under ``/admin``, every change audited; the bounds and the owner
are checked, each refusal with its code; the lobby shows each change at once (on every node of
a cluster too); a closed room takes no table and starts no game, but its running games finish;
an admin's room outlives a restart and is no longer overwritten by the configuration."""

from __future__ import annotations

import asyncio
import functools
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from server.config import RoomConfig
from server.db import Database
from server.moderation import set_role
from tests.server.conftest import FAST_ROOMS, make_settings, register
from tests.server.sockets import Player
from tests.server.test_admin import admin, audit_log, bearer, game_row, standing
from tests.server.test_cluster import REDIS, REDIS_DATABASE, _empty_redis, start_cluster
from tests.server.test_cluster import Player as LivePlayer
from tests.server.test_realtime import connect, start_game

REPO = Path(__file__).resolve().parents[2]
REASON = {"reason": "test"}
DUEL_OPTIONS = {"move_seconds": 30, "deploy_seconds": 60}
DUEL = {  # a room of 二人 as an admin makes it
    "id": "duel",
    "name": "二人 决斗室",
    "variant": "liangguo",
    "options": DUEL_OPTIONS,
    "max_tables": 3,
    **REASON,
}
ROOM_ACTIONS = [  # every room route, with a valid body
    ("get", "/admin/rooms", None),
    ("get", "/admin/rooms/siguo-fast", None),
    ("post", "/admin/rooms", DUEL),
    ("patch", "/admin/rooms/siguo-fast", {"name": "x", **REASON}),
    ("post", "/admin/rooms/siguo-fast/close", REASON),
    ("post", "/admin/rooms/siguo-fast/reopen", REASON),
]


def lobby_room(client: TestClient, room_id: str) -> dict[str, Any] | None:
    """The room as the lobby lists it to players (None: not listed)."""
    rooms = client.get("/api/lobby").json()["rooms"]
    return next((r for r in rooms if r["id"] == room_id), None)


def listed_room(client: TestClient, room_id: str) -> dict[str, Any]:
    room = lobby_room(client, room_id)
    assert room is not None, f"the lobby does not list {room_id}"
    return room


def refused(response: Any, status: int, code: str) -> str:
    """Check a refusal's status and code (header and message); returns its message."""
    assert response.status_code == status, response.text
    assert response.headers["X-Error-Code"] == code, response.headers
    detail = str(response.json()["detail"])
    assert detail.startswith(f"{code}: "), detail
    return detail


def lobby_message(player: Player, check: Any) -> dict[str, Any]:
    """Read until a lobby listing passes ``check`` (given the rooms by id); returns them."""
    found: dict[str, Any] = {}

    def rooms(message: dict[str, Any]) -> bool:
        if message["type"] != "lobby":
            return False
        found.clear()
        found.update({r["id"]: r for r in message["lobby"]["rooms"]})
        return bool(check(found))

    player.until(rooms)
    return found


@pytest.mark.parametrize(("method", "path", "body"), ROOM_ACTIONS)
def test_room_routes_refuse_anonymous_and_players(
    sqlite_client: TestClient, method: str, path: str, body: dict[str, Any] | None
) -> None:
    client = sqlite_client
    player = bearer(register(client, "player"))
    call = functools.partial(client.request, method.upper(), path, json=body)
    assert call().status_code == 401
    assert call(headers=bearer("nope")).status_code == 401
    no = call(headers=player)
    assert no.status_code == 403 and "admin" in no.json()["detail"]
    assert lobby_room(client, "duel") is None
    assert listed_room(client, "siguo-fast")["closed"] is False
    assert audit_log(client, admin(client)) == []


def test_rooms_are_made_edited_closed_and_reopened_and_audited(client: TestClient) -> None:
    headers = admin(client)
    register(client, "室主甲")
    with ExitStack() as stack:
        watcher = connect(stack, client, "watcher")
        assert watcher.request({"type": "lobby"})["type"] == "ok"
        listed = client.get("/admin/rooms", headers=headers).json()
        assert [r["id"] for r in listed] == ["liangguo-fast", "siguo-fast"]
        assert all(r["configured"] and r["changed_at"] is None for r in listed)
        assert all(not r["closed"] and r["tables"] == 0 for r in listed)

        made = client.post(
            "/admin/rooms",
            headers=headers,
            json={**DUEL, "owner": "室主甲", "rated_with_bots": True, "reason": "a room for duels"},
        )
        assert made.status_code == 201, made.text
        row = made.json()
        assert {k: row[k] for k in ("id", "name", "variant", "options", "owner")} == {
            "id": "duel",
            "name": "二人 决斗室",
            "variant": "liangguo",
            "options": DUEL_OPTIONS,
            "owner": "室主甲",
        }
        assert (row["max_tables"], row["rated_with_bots"], row["closed"]) == (3, True, False)
        assert row["changed_at"] and not row["configured"]
        assert client.get("/admin/rooms/duel", headers=headers).json() == row
        # the lobby lists it at once, to those watching too
        listing = listed_room(client, "duel")
        assert (listing["options"], listing["owner"], listing["max_tables"]) == (
            DUEL_OPTIONS,
            "室主甲",
            3,
        )
        assert listing["closed"] is False and listing["rated_with_bots"] is True
        lobby_message(watcher, lambda rooms: "duel" in rooms)

        edit = {
            "name": "二人 快棋室",
            "options": {"move_seconds": 15, "deploy_seconds": 45},
            "owner": None,
            "max_tables": 5,
            "rated_with_bots": False,
            "reason": "faster",
        }
        edited = client.patch("/admin/rooms/duel", headers=headers, json=edit)
        assert edited.status_code == 200, edited.text
        row = edited.json()
        assert (row["name"], row["options"], row["owner"]) == (
            "二人 快棋室",
            edit["options"],
            None,
        )
        assert (row["max_tables"], row["rated_with_bots"]) == (5, False)
        listing = listed_room(client, "duel")
        assert (listing["name"], listing["options"], listing["owner"], listing["max_tables"]) == (
            "二人 快棋室",
            edit["options"],
            None,
            5,
        )
        lobby_message(watcher, lambda rooms: rooms.get("duel", {}).get("max_tables") == 5)
        # a change to nothing is no action: answered, not audited
        again = client.patch("/admin/rooms/duel", headers=headers, json=edit)
        assert again.status_code == 200 and again.json()["name"] == "二人 快棋室"
        # a partial edit changes what it names only
        named = client.patch("/admin/rooms/duel", headers=headers, json={"name": "决斗", **REASON})
        assert named.json()["options"] == edit["options"] and named.json()["name"] == "决斗"

        closed = client.post("/admin/rooms/duel/close", headers=headers, json={"reason": "quiet"})
        assert closed.status_code == 200, closed.text
        assert closed.json()["closed"] is True and closed.json()["closed_at"]
        assert lobby_room(client, "duel") is None  # no table left in it: not listed
        lobby_message(watcher, lambda rooms: "duel" not in rooms)
        every = {r["id"]: r for r in client.get("/admin/rooms", headers=headers).json()}
        assert every["duel"]["closed"] is True  # admins see closed rooms
        refused(
            client.post("/admin/rooms/duel/close", headers=headers, json=REASON), 409, "room_closed"
        )
        # a closed room may be edited
        renamed = client.patch("/admin/rooms/duel", headers=headers, json={"name": "旧", **REASON})
        assert renamed.json()["closed"] is True and lobby_room(client, "duel") is None

        reopened = client.post("/admin/rooms/duel/reopen", headers=headers, json={"reason": "busy"})
        assert reopened.status_code == 200 and reopened.json()["closed_at"] is None
        assert lobby_room(client, "duel") is not None
        lobby_message(watcher, lambda rooms: "duel" in rooms and not rooms["duel"]["closed"])
        refused(
            client.post("/admin/rooms/duel/reopen", headers=headers, json=REASON), 409, "room_open"
        )

    # without an id: the variant and the first free number
    unnamed = client.post(
        "/admin/rooms", headers=headers, json={"name": "四国", "variant": "siguo", **REASON}
    )
    assert unnamed.status_code == 201, unnamed.text
    assert unnamed.json()["id"] == "siguo-1" and unnamed.json()["max_tables"] == 20
    taken = client.post("/admin/rooms", headers=headers, json=DUEL)
    assert "'duel'" in refused(taken, 409, "room_exists")

    entries = audit_log(client, headers)
    assert [(e["action"], e["target"]) for e in entries] == [
        ("room_create", "siguo-1"),
        ("room_reopen", "duel"),
        ("room_edit", "duel"),
        ("room_close", "duel"),
        ("room_edit", "duel"),
        ("room_edit", "duel"),
        ("room_create", "duel"),
    ]
    assert all(e["actor"] == "值班长" for e in entries)
    assert [e["reason"] for e in entries[-4:]] == ["quiet", "test", "faster", "a room for duels"]
    assert entries[-1]["details"] == {
        "name": "二人 决斗室",
        "variant": "liangguo",
        "options": DUEL_OPTIONS,
        "owner": "室主甲",
        "max_tables": 3,
        "rated_with_bots": True,
        "rated_friend_rooms": False,
    }
    assert entries[-2]["details"] == {  # what changed, from what to what
        "name": {"from": "二人 决斗室", "to": "二人 快棋室"},
        "options": {"from": DUEL_OPTIONS, "to": edit["options"]},
        "owner": {"from": "室主甲", "to": None},
        "max_tables": {"from": 3, "to": 5},
        "rated_with_bots": {"from": True, "to": False},
    }
    assert entries[-3]["details"] == {"name": {"from": "二人 快棋室", "to": "决斗"}}
    assert entries[-4]["details"] == {"games": 0}


def test_bad_rooms_are_refused_with_their_code_and_change_nothing(client: TestClient) -> None:
    headers = admin(client)
    guest = client.post("/api/auth/guest").json()["user"]["name"]

    def make(**changes: Any) -> Any:
        return client.post("/admin/rooms", headers=headers, json={**DUEL, **changes})

    def edit(body: dict[str, Any], room: str = "liangguo-fast") -> Any:
        return client.patch(f"/admin/rooms/{room}", headers=headers, json={**REASON, **body})

    assert "one of fanqi, liangguo" in refused(make(variant="chess"), 422, "bad_variant")
    # the tables' own bounds (server/table_options.py): no clock of a second, as a room of
    # JUNQI_ROOMS may have
    low = refused(make(options={"move_seconds": 9}), 422, "bad_option")
    assert "move_seconds: 9 is outside 10-300" in low
    assert "outside 30-600" in refused(make(options={"deploy_seconds": 601}), 422, "bad_option")
    assert "unknown" in refused(make(options={"no_such_rule": 1}), 422, "bad_option")
    assert "score_x" in refused(make(variant="sanguo", options={"score_x": 101}), 422, "bad_option")
    assert "information" in refused(make(options={"information": "none"}), 422, "bad_option")
    for cap in (0, 501, -1):
        assert "outside 1-500" in refused(make(max_tables=cap), 422, "bad_tables")
    assert "no user 'nobody'" in refused(make(owner="nobody"), 422, "bad_owner")
    assert "guest" in refused(make(owner=guest), 422, "bad_owner")
    # what a table may change may be anything within the tables' bounds
    edge = make(id="edge", options={"move_seconds": 10, "deploy_seconds": 600}, max_tables=500)
    assert edge.status_code == 201, edge.text

    assert "give one of" in refused(edit({}), 422, "no_change")
    assert "give one of" in refused(edit({"name": None}), 422, "no_change")
    refused(edit({"name": "x"}, room="nowhere"), 404, "no_room")
    refused(client.get("/admin/rooms/nowhere", headers=headers), 404, "no_room")
    refused(client.post("/admin/rooms/nowhere/close", headers=headers, json=REASON), 404, "no_room")
    refused(edit({"max_tables": 0}), 422, "bad_tables")
    refused(edit({"options": {"move_seconds": 301}}), 422, "bad_option")
    refused(edit({"variant": "go"}), 422, "bad_variant")
    refused(edit({"owner": "nobody"}), 422, "bad_owner")
    with ExitStack() as stack:
        alice = connect(stack, client, "alice")
        assert alice.request({"type": "create_table", "room": "liangguo-fast"})["type"] == "ok"
        busy = refused(edit({"variant": "siguo"}), 409, "room_busy")
        assert "1 tables open" in busy
    # bodies FastAPI refuses: field errors, as every admin route answers them
    for body in [
        {"name": "x"},  # no reason
        {"name": "", **REASON},
        {"name": "a\nb", **REASON},
        {"name": "长" * 65, **REASON},
        {"max_tables": "many", **REASON},
        {"options": [1], **REASON},
    ]:
        answer = client.patch("/admin/rooms/liangguo-fast", headers=headers, json=body)
        assert answer.status_code == 422 and isinstance(answer.json()["detail"], list), body
    bad_id = make(id="no spaces")
    assert bad_id.status_code == 422 and isinstance(bad_id.json()["detail"], list)

    # nothing changed but the one room made; only that is audited
    assert [e["action"] for e in audit_log(client, headers)] == ["room_create"]
    rooms = {r["id"]: r for r in client.get("/admin/rooms", headers=headers).json()}
    assert set(rooms) == {"edge", "liangguo-fast", "siguo-fast"}
    fast = rooms["liangguo-fast"]
    assert (fast["name"], fast["variant"], fast["options"], fast["max_tables"]) == (
        "二人 fast",
        "liangguo",
        FAST_ROOMS[1].options,
        20,
    )
    assert fast["changed_at"] is None


def test_a_closed_room_takes_no_table_and_its_running_game_finishes(client: TestClient) -> None:
    headers = admin(client)
    made = client.post("/admin/rooms", headers=headers, json=DUEL)
    assert made.status_code == 201, made.text
    with ExitStack() as stack:
        alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
        carol = connect(stack, client, "carol")
        table = alice.request({"type": "create_table", "room": "duel"})["table"]
        assert alice.request({"type": "sit", "table": table, "seat": 0})["type"] == "ok"
        assert bob.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"
        start_game(alice, bob, table, 3)
        waiting = carol.request({"type": "create_table", "room": "duel"})["table"]
        assert carol.request({"type": "sit", "table": waiting, "seat": 0})["type"] == "ok"
        assert client.get("/admin/rooms/duel", headers=headers).json()["tables"] == 2

        closed = client.post("/admin/rooms/duel/close", headers=headers, json={"reason": "moving"})
        assert closed.status_code == 200, closed.text
        # the table with no game on closed at once, its watchers told why
        notice = carol.until(lambda m: m["type"] == "closed")
        assert notice == {"type": "closed", "table": waiting, "why": "room_closed"}
        row = closed.json()
        assert (row["tables"], row["games"]) == (1, 1)
        assert audit_log(client, headers)[0]["details"] == {"games": 1}
        # no new table, by any way in
        for player, message in [
            (carol, {"type": "create_table", "room": "duel"}),
            (carol, {"type": "play_now", "room": "duel"}),
        ]:
            answer = player.request(message)
            assert answer["type"] == "error" and answer["code"] == "room_closed", answer
            assert "closed" in answer["message"]
        # the lobby lists the room, marked closed, with its running game
        listing = listed_room(client, "duel")
        assert listing["closed"] is True
        assert [t["id"] for t in listing["tables"]] == [table]

        # the game goes on: moves are played, and it ends as ever (bob leaves: an escape)
        mover = alice if alice.game["to_move"] == 0 else bob
        legal = mover.game["legal_moves"]
        origin = sorted(legal)[0]
        moved = mover.act(table, {"type": "move", "origin": origin, "target": legal[origin][0]})
        assert moved["type"] == "ok", moved
        game_id = alice.snapshot["game_id"] if alice.snapshot else None
        assert bob.request({"type": "leave", "table": table})["type"] == "ok"
        over = alice.until(
            lambda m: m["type"] == "update" and m["snapshot"]["status"] == "finished"
        )
        assert over["snapshot"]["game"]["result"]["reason"] == "escape"
        row = game_row(client, headers, str(game_id))
        assert row["status"] == "finished" and row["result"]["rated"] is True
        assert standing(client, "alice", "liangguo")["points"] == 1  # scored as ever
        assert standing(client, "bob", "liangguo")["points"] == -2
        # but no other game starts at its table
        for message in [
            {"type": "ready", "table": table},
            {"type": "sit", "table": table, "seat": 1},
            {"type": "add_bot", "table": table, "seat": 1},
        ]:
            answer = (bob if message["type"] == "sit" else alice).request(message)
            assert answer["type"] == "error" and answer["code"] == "room_closed", (message, answer)
        assert alice.request({"type": "ready", "table": table, "ready": False})["type"] == "ok"

        reopened = client.post("/admin/rooms/duel/reopen", headers=headers, json=REASON)
        assert reopened.status_code == 200
        assert carol.request({"type": "create_table", "room": "duel"})["type"] == "ok"
        assert bob.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"


def test_play_now_without_a_room_skips_closed_ones(client: TestClient) -> None:
    headers = admin(client)
    assert client.post("/admin/rooms/siguo-fast/close", headers=headers, json=REASON).is_success
    with ExitStack() as stack:
        alice = connect(stack, client, "alice")
        reply = alice.request({"type": "play_now"})
        assert reply["type"] == "ok", reply
        assert listed_room(client, "liangguo-fast")["tables"][0]["id"] == reply["table"]
        assert client.post(
            "/admin/rooms/liangguo-fast/close", headers=headers, json=REASON
        ).is_success
        bob = connect(stack, client, "bob")
        refusal = bob.request({"type": "play_now"})
        assert refusal["type"] == "error" and refusal["code"] == "no_room", refusal


def test_the_owner_an_admin_names_moderates_the_room_s_tables_at_once(client: TestClient) -> None:
    headers = admin(client)
    assert client.post("/admin/rooms", headers=headers, json=DUEL).status_code == 201
    with ExitStack() as stack:
        alice, dave = connect(stack, client, "alice"), connect(stack, client, "dave")
        table = alice.request({"type": "create_table", "room": "duel"})["table"]
        assert alice.request({"type": "sit", "table": table, "seat": 0})["type"] == "ok"
        kick = {"type": "kick", "table": table, "seat": 0, "reason": "blocking"}
        assert dave.request(kick)["code"] == "not_owner"
        owned = client.patch("/admin/rooms/duel", headers=headers, json={"owner": "dave", **REASON})
        assert owned.status_code == 200 and owned.json()["owner"] == "dave"
        assert listed_room(client, "duel")["owner"] == "dave"
        assert dave.request(kick)["type"] == "ok"  # a table opened before the change
        alice.until(lambda m: m["type"] == "update" and m["snapshot"]["seats"][0]["name"] is None)
        client.patch("/admin/rooms/duel", headers=headers, json={"owner": None, **REASON})
        assert alice.request({"type": "sit", "table": table, "seat": 0})["type"] == "ok"
        assert dave.request(kick)["code"] == "not_owner"


def test_an_admin_s_rooms_outlive_a_restart_and_the_configuration(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'rooms.db'}")
    with TestClient(create_app(settings)) as client:
        headers = admin(client)
        assert client.post("/admin/rooms", headers=headers, json=DUEL).status_code == 201
        renamed = client.patch(
            "/admin/rooms/siguo-fast", headers=headers, json={"name": "四国 改名", **REASON}
        )
        assert renamed.status_code == 200
        closed = client.post("/admin/rooms/liangguo-fast/close", headers=headers, json=REASON)
        assert closed.status_code == 200
    # the operator changes both configured rooms, which admins changed: neither is written
    # over; a new configured room is written as ever
    settings.rooms = [
        RoomConfig(id="siguo-fast", name="四国 配置", variant="siguo"),
        RoomConfig(id="liangguo-fast", name="二人 配置", variant="liangguo"),
        RoomConfig(id="fresh", name="新", variant="fanqi", tables=7),
    ]
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        headers = bearer(
            client.post("/api/auth/login", json={"name": "值班长", "password": "secret-pw"}).json()[
                "token"
            ]
        )
        rooms = {r["id"]: r for r in client.get("/admin/rooms", headers=headers).json()}
        assert rooms["siguo-fast"]["name"] == "四国 改名"  # the admin's, not the configuration's
        assert rooms["liangguo-fast"]["closed"] is True
        assert rooms["liangguo-fast"]["name"] == "二人 fast"
        assert rooms["duel"]["options"] == DUEL_OPTIONS and rooms["duel"]["max_tables"] == 3
        assert rooms["fresh"]["max_tables"] == 7 and rooms["fresh"]["changed_at"] is None
        listed = [r["id"] for r in client.get("/api/lobby").json()["rooms"]]
        assert listed == ["siguo-fast", "fresh", "duel"]  # configured first; closed not listed
        alice = connect(stack, client, "alice")
        answer = alice.request({"type": "create_table", "room": "liangguo-fast"})
        assert answer["code"] == "room_closed"
        assert alice.request({"type": "create_table", "room": "duel"})["type"] == "ok"
    # a room the configuration wrote is the configuration's until an admin changes it
    settings.rooms = [RoomConfig(id="fresh", name="新 2", variant="fanqi", tables=8)]
    with TestClient(create_app(settings)) as client:
        fresh = listed_room(client, "fresh")
        assert (fresh["name"], fresh["max_tables"]) == ("新 2", 8)


def test_openapi_documents_the_room_routes(sqlite_client: TestClient) -> None:
    schema = sqlite_client.get("/openapi.json").json()
    paths = schema["paths"]
    assert set(paths["/admin/rooms"]) == {"get", "post"}
    assert set(paths["/admin/rooms/{room_id}"]) == {"get", "patch"}
    assert set(paths["/admin/rooms/{room_id}/close"]) == {"post"}
    assert set(paths["/admin/rooms/{room_id}/reopen"]) == {"post"}
    row = {"$ref": "#/components/schemas/RoomRow"}
    listed = paths["/admin/rooms"]["get"]["responses"]["200"]["content"]["application/json"]
    assert listed["schema"] == {"type": "array", "items": row, "title": listed["schema"]["title"]}
    made = paths["/admin/rooms"]["post"]
    assert made["responses"]["201"]["content"]["application/json"]["schema"] == row
    assert {"201", "409", "422"} <= set(made["responses"])
    assert "room_exists" in made["responses"]["409"]["description"]
    edit = paths["/admin/rooms/{room_id}"]["patch"]
    assert {"200", "404", "409", "422"} <= set(edit["responses"])
    assert "bad_option" in edit["responses"]["422"]["description"]
    assert (
        "room_closed"
        in paths["/admin/rooms/{room_id}/close"]["post"]["responses"]["409"]["description"]
    )
    for path, methods in paths.items():
        if path.startswith("/admin/rooms"):
            for operation in methods.values():
                assert operation["description"] or operation["summary"], path
                assert operation["tags"] == ["admin"]
                assert operation["security"] == [{"HTTPBearer": []}]
    inputs = schema["components"]["schemas"]
    assert inputs["RoomIn"]["properties"]["max_tables"]["maximum"] == 500
    assert "siguo" in inputs["RoomIn"]["properties"]["variant"]["enum"]
    assert set(inputs["RoomIn"]["required"]) == {"reason", "name", "variant"}
    assert inputs["RoomEdit"]["required"] == ["reason"]
    assert {"closed", "closed_at", "changed_at", "tables", "games"} <= set(
        inputs["RoomRow"]["properties"]
    )


def test_the_client_and_the_protocol_know_room_closed() -> None:
    i18n = (REPO / "web" / "js" / "i18n.js").read_text()
    errors = i18n[i18n.index("const ERRORS") :]
    zh, en = errors.split("\n  en: {", 1)
    assert "room_closed:" in zh and "room_closed:" in en.split("\n};", 1)[0]
    protocol = (REPO / "docs" / "protocol.md").read_text()
    codes = protocol[protocol.index("## Error codes") :].split("\n## ", 1)[0]
    assert "`room_closed`" in codes
    assert "`room_closed`" in protocol[protocol.index("`closed` —") :].split("\n", 1)[0]


# --- a cluster -----------------------------------------------------------------------------------


def test_every_node_of_a_cluster_sees_a_room_change_at_once(
    postgres_url: str, tmp_path: Path
) -> None:
    store = _empty_redis()
    try:
        with start_cluster(postgres_url, f"{REDIS}/{REDIS_DATABASE}", tmp_path) as cluster:
            asyncio.run(_two_nodes(postgres_url, cluster.nodes[0].base, cluster.nodes[1].base))
    finally:
        store.flushdb()
        store.close()


async def _two_nodes(postgres_url: str, one: str, other: str) -> None:
    async with httpx.AsyncClient(base_url=one) as http:
        reply = await http.post(
            "/api/auth/register", json={"name": "boss", "password": "secret-pw"}
        )
        token = reply.json()["token"]
    database = Database(postgres_url)
    try:
        assert await set_role(database.sessions, "boss", "admin")
    finally:
        await database.close()
    headers = bearer(token)
    watcher = LivePlayer("watcher", [other])  # on the other node
    await watcher.connect()
    try:
        async with httpx.AsyncClient(base_url=one, headers=headers) as admin_http:
            await _room_changes_reach(watcher, admin_http, other)
    finally:
        await watcher.ws.close()


async def _room_changes_reach(
    watcher: LivePlayer, admin_http: httpx.AsyncClient, other: str
) -> None:
    """Changes made through one node reach ``watcher``, a socket of the ``other``."""
    assert (await watcher.request({"type": "lobby"}))["type"] == "ok"

    async def listed(check: Any) -> dict[str, Any]:
        while True:
            message = await watcher.receive()
            if message["type"] == "lobby":
                rooms = {r["id"]: r for r in message["lobby"]["rooms"]}
                if check(rooms):
                    return rooms

    made = await admin_http.post("/admin/rooms", json={**DUEL, "id": "blitz"})
    assert made.status_code == 201, made.text
    rooms = await asyncio.wait_for(listed(lambda r: "blitz" in r), 10)
    assert rooms["blitz"]["max_tables"] == 3
    # a table on the other node, nobody at it yet
    table = (await watcher.request({"type": "create_table", "room": "blitz"}))["table"]
    edited = await admin_http.patch("/admin/rooms/blitz", json={"max_tables": 9, **REASON})
    assert edited.status_code == 200
    await asyncio.wait_for(listed(lambda r: r.get("blitz", {}).get("max_tables") == 9), 10)
    closed = await admin_http.post("/admin/rooms/blitz/close", json=REASON)
    assert closed.status_code == 200
    # the other node closes its table of the room, and takes no new one
    await asyncio.wait_for(listed(lambda r: "blitz" not in r), 10)
    answer = await watcher.request({"type": "create_table", "room": "blitz"})
    assert answer["type"] == "error" and answer["code"] == "room_closed", answer
    async with httpx.AsyncClient(base_url=other) as http:
        lobby = (await http.get("/api/lobby")).json()
        assert all(r["id"] != "blitz" for r in lobby["rooms"])
        assert (await http.get(f"/api/tables/{table}")).status_code == 404
    reopened = await admin_http.post("/admin/rooms/blitz/reopen", json=REASON)
    assert reopened.status_code == 200
    await asyncio.wait_for(listed(lambda r: "blitz" in r), 10)
    answer = await watcher.request({"type": "create_table", "room": "blitz"})
    assert answer["type"] == "ok", answer
